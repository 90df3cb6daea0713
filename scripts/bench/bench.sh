#!/usr/bin/env bash
# `make bench`: collage against vips, ImageMagick and Pillow (issue 5).
#
#  1. builds collage in release mode, statically linked against the Swift
#     runtime (--static-swift-stdlib), in its own build folder
#     (.build/bench/swift, so it never waits on or disturbs a debug build);
#     with BENCH_DYNAMIC=1 also a dynamically linked one (what a plain
#     `swift build -c release` makes), in .build/bench/swift-dynamic;
#  2. installs what is missing from Debian's packages (apt-get as root or
#     through sudo; otherwise it says what to install and stops);
#  3. makes the W6 photos once (deterministic, .build/bench/w6/);
#  4. runs scripts/bench/run.py: alternating runs, medians, PSNR;
#  5. the picker's key-to-frame times (keys.py), then issue 23's goals as
#     this run measured them (run.py's goals-23.md), last.
#
# The results go to stdout and .build/bench/results.md. Environment:
#   BENCH_RUNS (11), BENCH_BATCH_RUNS (5), BENCH_BOOK (only: the book's
#   workload alone; 0: without it), BENCH_ONLY and the other
#   workloads' knobs (BENCH_CROP_RUNS, BENCH_PICTURE_RUNS...: see run.py),
#   BENCH_DYNAMIC=1, BENCH_LIBRARY_ONLY=1 (only the whole-library
#   workload, library_bench.py, with LIBRARY_BENCH_N photos: 10,000, or
#   100,000 as issue 43 measures), BENCH_COLLAGE_EXTRA ("label=binary;..." more collage
#   builds to time, e.g. an older commit's), SWIFT (swift).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
work=$root/.build/bench
swift=${SWIFT:-swift}

# --- contenders and tools, from Debian ---------------------------------------
declare -A needs=(
  [/usr/bin/vips]=libvips-tools
  [/usr/bin/convert]=imagemagick
  [/usr/bin/montage]=imagemagick
  [/usr/bin/djpeg]=libjpeg-turbo-progs
  [/usr/bin/time]=time
  [/usr/bin/cjxl]=libjxl-tools
  [/usr/bin/dcraw_emu]=libraw-bin
  [/usr/bin/python3]=python3
)
missing=()
for tool in "${!needs[@]}"; do
  [ -x "$tool" ] || missing+=("${needs[$tool]}")
done
if [ -x /usr/bin/python3 ]; then
  /usr/bin/python3 -c 'import PIL' 2>/dev/null || missing+=(python3-pil)
  /usr/bin/python3 -c 'import numpy' 2>/dev/null || missing+=(python3-numpy)
else
  missing+=(python3-pil python3-numpy)
fi
# The build's own packages and these, in one apt-get run.
scripts/install-deps.sh "${missing[@]}"

# --- collage, release --------------------------------------------------------
echo "bench: building collage (release, --static-swift-stdlib)..." >&2
scripts/build-release.sh --build-path "$work/swift" >&2
collage=$(scripts/build-release.sh --build-path "$work/swift" --show-bin-path)/collage
if [ "${BENCH_DYNAMIC:-0}" = 1 ]; then
  echo "bench: building collage (release, dynamically linked)..." >&2
  "$swift" build -c release --product collage --build-path "$work/swift-dynamic" >&2
  export BENCH_COLLAGE_EXTRA="collage (dynamically linked)=$("$swift" build -c release --product collage --build-path "$work/swift-dynamic" --show-bin-path)/collage${BENCH_COLLAGE_EXTRA:+;$BENCH_COLLAGE_EXTRA}"
fi

# --- collage suggest over a whole library (issue 43), alone when asked -------
library_bench() {
  /usr/bin/python3 scripts/bench/library_bench.py "$collage" "$work" | tee -a "$work/results.md"
}
if [ "${BENCH_LIBRARY_ONLY:-0}" = 1 ]; then
  library_bench
  exit 0
fi

# --- collage book against suggest --events + batch (issue 43) ---------------
# BENCH_BOOK=only runs this workload alone (after the build); BENCH_BOOK=0
# leaves it out; BENCH_BOOK_RUNS, BOOK_BENCH_N, BOOK_BENCH_PAGES_N: see
# book_bench.py.
book_bench() {
  /usr/bin/python3 scripts/bench/book_bench.py "$collage" "$work" | tee -a "$work/results.md"
}
if [ "${BENCH_BOOK:-1}" = only ]; then
  : > "$work/results.md"
  book_bench
  exit 0
fi

# --- the photos --------------------------------------------------------------
/usr/bin/python3 scripts/bench/make_workload.py "$work/w6" 6
# W6 in TIFF, GIF, JPEG XL and DNG (W-formats).
scripts/bench/make_formats.sh "$work/w6" "$work/formats"

# --- the machine -------------------------------------------------------------
{
  echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(free -g | awk '/Mem:/ {print $2}') GiB"
  echo "OS: $(. /etc/os-release; echo "$PRETTY_NAME"), kernel $(uname -r)"
  echo "Tools: collage $("$collage" --version), $(/usr/bin/vips --version), $(/usr/bin/convert -version | head -1 | cut -d' ' -f2-3), Pillow $(/usr/bin/python3 -c 'import PIL; print(PIL.__version__)'), libjpeg-turbo $(dpkg-query -W -f='${Version}' libjpeg62-turbo 2>/dev/null || echo '?')"
  echo "Photos: $(ls "$work"/w6/photo-*.jpg | wc -l) x $(/usr/bin/python3 -c 'import sys; from PIL import Image; print("%dx%d" % Image.open(sys.argv[1]).size)' "$work/w6/photo-1.jpg"), $(du -ch "$work"/w6/photo-*.jpg | tail -1 | cut -f1) in all"
} | tee "$work/machine.txt" >&2

# Autogroup scheduling (on by default in most kernels) shares the CPU between
# sessions before nice values count: a job at nice 19 in another session (a
# fuzzer, say) still takes one of two cores from the measurement. As root the
# measurement therefore runs in a session of its own whose autogroup gets nice
# -10; elsewhere it runs as it is, and machine.txt says which. Started under
# a positive nice (`nice -n 10 make bench`: a check beside someone else's
# measurement), its session's autogroup gets that nice instead, so it yields.
run=(/usr/bin/python3 scripts/bench/run.py "$collage" "$work/w6" "$work" "$work/results.md")
niceness=$(nice)
if [ "$niceness" -gt 0 ] && [ -e /proc/self/autogroup ] && command -v setsid >/dev/null 2>&1; then
  echo "Scheduling: started at nice $niceness, so the measurement ran in its own session, autogroup nice $niceness (a check, not a measurement)" | tee -a "$work/machine.txt" >&2
  setsid --wait bash -c 'echo "$1" > /proc/self/autogroup && shift && exec "$@"' _ "$niceness" "${run[@]}"
elif [ "$(id -u)" -eq 0 ] && [ -e /proc/self/autogroup ] && command -v setsid >/dev/null 2>&1; then
  echo "Scheduling: the measurement ran in its own session, autogroup nice -10" | tee -a "$work/machine.txt" >&2
  setsid --wait bash -c 'echo -10 > /proc/self/autogroup && exec "$@"' _ "${run[@]}"
else
  echo "Scheduling: default (no autogroup priority)" | tee -a "$work/machine.txt" >&2
  "${run[@]}"
fi

# --- the picker: key to frame in a folder of 10,000 photos (issue 11) --------
/usr/bin/python3 scripts/bench/keys.py "$collage" "$work/w6/photo-1.jpg" "$work" | tee -a "$work/results.md"

# --- collage suggest over 1,000 camera JPEGs against vipsthumbnail (issue 33) -
# SUGGEST_BENCH_N photos (1000); a smaller N for a quick run.
/usr/bin/python3 scripts/bench/suggest_bench.py "$collage" "$work" | tee -a "$work/results.md"

# --- collage suggest --recursive --events over LIBRARY_BENCH_N (10,000) small
# photos in 400 day folders: cold, warm, after two runs at once (issue 43) ---
library_bench

[ "${BENCH_BOOK:-1}" = 0 ] || book_bench

# --- issue 23's goals, as this run measured them: the results' last table ----
{ echo; cat "$work/goals-23.md"; } | tee -a "$work/results.md"
