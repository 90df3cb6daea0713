#!/usr/bin/env bash
# Builds and runs the libFuzzer harnesses in Fuzz/ (see Fuzz/README.md).
#
#   scripts/fuzz.sh [build|run|all] [TARGET...]     default: all, every target
#   (build and all build only the targets named)
#
# Targets: jpeg png exif heif webp tiff raw gif jxl icc text batchlist measures.
# Environment:
#   FUZZ_SECONDS   how long each target runs (default 60)
#   FUZZ_OUT       corpora, crashers and logs (default fuzz-out/, git-ignored)
#   FUZZ_SYSTEM_LIBS=1  link the C harnesses against the installed libjpeg,
#                  libpng and libexif instead of instrumented builds of the
#                  same Debian sources (faster to set up, far less coverage)
#   TESTDATA       conformance data for seeds (default ../shared/testdata)
#   CLANG, SWIFTC  compilers (default: the Swift toolchain's, which has libFuzzer)
#
# Each target runs with `nice -n 19`, one job and one worker, so a fuzzer
# never takes more than one core from builds and benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

seconds=${FUZZ_SECONDS:-60}
out=${FUZZ_OUT:-$root/fuzz-out}
testdata=${TESTDATA:-$root/../shared/testdata}
toolchain_bin=$(dirname "$(readlink -f "$(command -v swift)")")
clang=${CLANG:-$toolchain_bin/clang}
swiftc=${SWIFTC:-$toolchain_bin/swiftc}
build=$root/.build/fuzz
deps=$build/deps
all_targets=(jpeg png exif heif webp tiff raw gif jxl icc text batchlist measures)

mode=all
case "${1:-}" in build|run|all) mode=$1; shift ;; esac
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")

say() { echo "fuzz: $*" >&2; }

# ---------------------------------------------------------------------------
# Instrumented libjpeg-turbo, libpng and libexif from the Debian sources of the
# installed versions: coverage feedback and ASan/UBSan inside the decoders
# make the fuzzer reach far deeper into our engine's use of them.

sanitize_flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link -g -O1"

fetch_source() {  # $1 = Debian source package; prints the unpacked folder
  local package=$1 src=$build/src
  mkdir -p "$src"
  local existing
  existing=$(find "$src" -maxdepth 1 -type d -name "${package%1.6}*" -print -quit)
  if [ -z "$existing" ]; then
    (cd "$src" && apt-get source --download-only "$package" >/dev/null 2>&1 \
       && for dsc in "$package"_*.dsc; do dpkg-source -x --no-check "$dsc" >/dev/null; done) || return 1
    existing=$(find "$src" -maxdepth 1 -type d -name "${package%1.6}*" -print -quit)
  fi
  [ -n "$existing" ] && echo "$existing"
}

build_deps() {
  if [ -f "$deps/.done" ]; then return 0; fi
  local jpeg png exif
  if ! jpeg=$(fetch_source libjpeg-turbo) || ! png=$(fetch_source libpng1.6) || ! exif=$(fetch_source libexif); then
    say "cannot fetch the Debian sources (apt-get source needs a deb-src entry): using the installed libraries"
    return 1
  fi
  command -v cmake >/dev/null || { say "cmake is needed to build libjpeg-turbo: apt-get install cmake"; return 1; }
  say "building instrumented libjpeg-turbo, libpng and libexif in $deps (once)"
  rm -rf "$deps" && mkdir -p "$deps"
  (
    set -e
    export CC=$clang CFLAGS="$sanitize_flags"
    # SIMD off: the assembly is not instrumented and would hide the C paths.
    cmake -S "$jpeg" -B "$build/jpeg-build" -DCMAKE_INSTALL_PREFIX="$deps" -DENABLE_SHARED=0 \
      -DWITH_SIMD=0 -DWITH_TURBOJPEG=0 -DCMAKE_BUILD_TYPE=None -DCMAKE_INSTALL_LIBDIR="$deps/lib" >/dev/null
    cmake --build "$build/jpeg-build" -j2 >/dev/null && cmake --install "$build/jpeg-build" >/dev/null
    (cd "$png" && ./configure --prefix="$deps" --disable-shared --enable-static --disable-hardware-optimizations \
       >/dev/null && make -j2 clean >/dev/null && make -j2 install >/dev/null)
    # Debian's libexif source has no generated configure; its C files need
    # only a four-line config.h, so compile them directly.
    mkdir -p "$build/exif-build" "$deps/include/libexif"
    printf '%s\n' '#define GETTEXT_PACKAGE "libexif-12"' '#define LOCALEDIR "/usr/share/locale"' \
      '#define HAVE_LOCALTIME_R 1' >"$build/exif-build/config.h"
    (cd "$build/exif-build" && rm -f ./*.o &&
       for c in "$exif"/libexif/*.c "$exif"/libexif/*/*.c; do
         $clang $CFLAGS -I. -I"$exif" -I"$exif/libexif" -c "$c" -o "$(basename "${c%.c}").o"
       done && ar rcs "$deps/lib/libexif.a" ./*.o)
    cp "$exif"/libexif/*.h "$deps/include/libexif/"
  ) || { say "building the instrumented libraries failed: using the installed ones"; rm -rf "$deps"; return 1; }
  touch "$deps/.done"
}

# ---------------------------------------------------------------------------
# Harnesses

build_harnesses() {
  mkdir -p "$build/bin"
  local engine=("$root"/Sources/CollageImaging/*.c "$root"/Sources/CollageImaging/*/*.c)
  local includes=(-I"$root/Sources/CollageImaging/include" -I"$root/Sources/CollageImaging")
  local libs
  if [ "${FUZZ_SYSTEM_LIBS:-0}" != 1 ] && build_deps; then
    includes+=(-I"$deps/include")
    libs=("$deps/lib/libjpeg.a" "$deps/lib/libpng16.a" "$deps/lib/libexif.a" -lz -lm)
  else
    libs=($(pkg-config --libs libjpeg libpng libexif) -lm)
  fi
  # libheif, libde265, lcms2, libwebp, libtiff, libraw, giflib and libjxl are Debian's own (not instrumented) in every case.
  includes+=($(pkg-config --cflags libheif libde265 lcms2 libwebpdemux libwebpmux libtiff-4 libraw_r libgif libjxl))
  libs+=($(pkg-config --libs libheif libde265 lcms2 libwebpdemux libwebpmux libtiff-4 libraw_r libgif libjxl))
  # libraw_r's -fopenmp is for linking its OpenMP runtime; on the compile
  # line it would make libraw's header want omp.h, which the Swift
  # toolchain's clang does not ship: link the runtime by name.
  libs=("${libs[@]/#-fopenmp/-lgomp}")
  local cflags=(-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -g -O1 -Wall)
  # The face detector (C++, dlib's headers): under ASan, not traced for
  # coverage (its loops would drown the engine's edges).
  includes+=(-I"$root/Sources/CollageFaces/include")
  say "building the face detectors"
  # Every source the package compiles for CollageFaces, so a new one is
  # linked here without being named.
  local source
  for source in "$root"/Sources/CollageFaces/*.cpp; do
    local object="$build/$(basename "$source" .cpp).o"
    "${clang}++" -fsanitize=address,undefined -fno-sanitize-recover=undefined -g -O2 -std=c++14 \
      -Wno-deprecated-declarations -I"$root/Sources/CollageFaces/include" -c "$source" -o "$object"
    libs+=("$object")
  done
  libs+=(-lstdc++)
  # The C harnesses named (each links the whole engine: building only those
  # asked for saves minutes a target).
  local target
  for target in "${targets[@]}"; do
    case $target in batchlist|measures) continue ;; esac  # Swift: below
    say "building fuzz-$target"
    "$clang" "${cflags[@]}" "${includes[@]}" -o "$build/bin/fuzz-$target" \
      "$root/Fuzz/fuzz_$target.c" "${engine[@]}" "${libs[@]}"
  done
  "$clang" -O1 -o "$build/bin/extract-app1" "$root/Fuzz/extract_app1.c"
  named() { [[ " ${targets[*]} " == *" $1 "* ]]; }

  # The batch list parser is Swift: compiled with swiftc's own libFuzzer
  # support, with the model files it is made of (see Fuzz/README.md): the
  # list, Photo and its focus and caption, ValueError, LayoutMode (the
  # list's #layout lines), CollageTitle (its #title lines), TextLine
  # (how CollageTitle cleans a title), CanvasSize and PrintSize (its #size
  # lines). Only those: RenderOptions.swift,
  # which it once took for ValueError, grew types of its own and broke
  # this build twice; TitleBand.swift and Captions.swift, where CollageTitle
  # and TextLine began, need it, so each has a file of its own.
  if named batchlist; then
    say "building fuzz-batchlist"
    "$swiftc" -sanitize=fuzzer,address -parse-as-library -g -O -module-name CollageKit \
      -o "$build/bin/fuzz-batchlist" \
      "$root/Fuzz/FuzzBatchList.swift" \
      "$root/Sources/CollageKit/Models/BatchList.swift" "$root/Sources/CollageKit/Models/Photo.swift" \
      "$root/Sources/CollageKit/Models/ValueError.swift" "$root/Sources/CollageKit/Models/NearestWord.swift" \
      "$root/Sources/CollageKit/Models/Layout/LayoutMode.swift" \
      "$root/Sources/CollageKit/Models/CollageTitle.swift" "$root/Sources/CollageKit/Models/TextLine.swift" \
      "$root/Sources/CollageKit/Models/CanvasSize.swift" "$root/Sources/CollageKit/Models/PrintSize.swift"
  fi

  # The measures cache's JSON reader (`collage suggest` before issue #43;
  # it imports an old cache now), Swift too: its file format
  # (MeasuresFile.swift) and the measures it holds, which name a Photo
  # (Photo.swift, with ValueError and NearestWord for its captions) and
  # a GeoPosition (Place.swift).
  named measures || return 0
  say "building fuzz-measures"
  local models=$root/Sources/CollageKit/Models
  "$swiftc" -sanitize=fuzzer,address -parse-as-library -g -O -module-name CollageKit \
    -o "$build/bin/fuzz-measures" \
    "$root/Fuzz/FuzzMeasuresCache.swift" \
    "$models/Suggestion/MeasuresFile.swift" "$models/Suggestion/PhotoMeasures.swift" \
    "$models/Photo.swift" "$models/ValueError.swift" "$models/NearestWord.swift" "$models/Place.swift"
}

# ---------------------------------------------------------------------------
# Seeds: read from where they are (never copied into the repository); the
# EXIF seeds are the APP1 payloads cut out of every seed JPEG.

seed_dirs() {  # $1 = target; prints the seed folders that exist
  local dirs=()
  case $1 in
    jpeg) dirs=("$root/SampleImages" "$root/Tests/Fixtures/jpeg" "$testdata/jpeg" "$testdata/exif-orientation") ;;
    png) dirs=("$root/SampleImages" "$testdata/pngsuite/png") ;;
    heif) dirs=("$root/SampleImages" "$testdata/heif/pillow-heif" "$testdata/heif/libavif") ;;
    webp) dirs=("$out/seeds/webp") ;;
    tiff) dirs=("$root/Tests/Fixtures/formats/tiff") ;;
    raw) dirs=("$root/Tests/Fixtures/formats/dng") ;;
    gif) dirs=("$root/Tests/Fixtures/formats/gif") ;;
    jxl) dirs=("$root/Tests/Fixtures/formats/jxl" "$out/seeds/jxl") ;;
    # The profiles Debian ships (icc-profiles-free, when installed).
    icc) dirs=(/usr/share/color/icc) ;;
    exif) dirs=("$out/seeds/exif") ;;
    batchlist) dirs=("$root/Fuzz/seeds/batchlist") ;;
    text) dirs=("$root/Fuzz/seeds/text") ;;
    measures) dirs=("$root/Fuzz/seeds/measures") ;;
  esac
  [ -d "$root/Tests/Fixtures/crashers/$1" ] && dirs+=("$root/Tests/Fixtures/crashers/$1")
  for d in "${dirs[@]}"; do [ -d "$d" ] && echo "$d"; done
}

make_exif_seeds() {
  mkdir -p "$out/seeds/exif"
  local n=0
  for f in "$root"/SampleImages/*.jpg "$root"/Tests/Fixtures/jpeg/*.jpg "$testdata"/exif-orientation/*.jpg; do
    [ -f "$f" ] || continue
    "$build/bin/extract-app1" "$f" "$out/seeds/exif/$(basename "$f").app1" && n=$((n + 1)) || true
  done
  say "exif: $n APP1 payloads as seeds"
}

# WebP seeds: lossy, lossless and alpha files made by cwebp (Debian webp)
# from the sample photos, small enough to fuzz quickly, and animations of them.
make_webp_seeds() {
  mkdir -p "$out/seeds/webp"
  command -v cwebp >/dev/null || { say "webp: cwebp is missing (apt-get install webp): no seeds"; return 0; }
  local n=0
  for f in "$root"/SampleImages/*.jpg "$root"/SampleImages/*.png; do
    [ -f "$f" ] || continue
    local base=$out/seeds/webp/$(basename "${f%.*}")
    cwebp -quiet -resize 96 0 -q 70 "$f" -o "$base-lossy.webp" && n=$((n + 1)) || true
    cwebp -quiet -resize 64 0 -lossless "$f" -o "$base-lossless.webp" && n=$((n + 1)) || true
  done
  # Animations (their first frame is drawn): two frames, and a first frame
  # smaller than the canvas, put together by webpmux from the stills.
  local stills=("$out"/seeds/webp/*-lossy.webp) small=("$out"/seeds/webp/*-lossless.webp)
  if command -v webpmux >/dev/null && [ ${#stills[@]} -ge 2 ] && [ -f "${small[0]}" ]; then
    webpmux -frame "${stills[0]}" +100 -frame "${stills[1]}" +100 -loop 0 -o "$out/seeds/webp/animated.webp" >/dev/null &&
      n=$((n + 1)) || true
    webpmux -frame "${small[0]}" +100+8+8 -frame "${stills[0]}" +100 -loop 0 -o "$out/seeds/webp/animated-partial.webp" >/dev/null &&
      n=$((n + 1)) || true
  fi
  say "webp: $n seeds made with cwebp and webpmux"
}

# JPEG XL seeds besides the conformance files: the colour spaces libjxl
# encodes by name (linear, PQ, DCI-P3: the colour tag's H.273 path, which
# the sRGB fixtures never take; cjxl takes the hint for a PPM only), an
# animation, the container and an Exif box, by djxl and cjxl (Debian
# libjxl-tools).
make_jxl_seeds() {
  mkdir -p "$out/seeds/jxl"
  command -v cjxl >/dev/null && command -v djxl >/dev/null ||
    { say "jxl: cjxl or djxl is missing (apt-get install libjxl-tools): the fixtures only"; return 0; }
  local fixtures=$root/Tests/Fixtures/formats n=0
  djxl "$fixtures/jxl/lossless.jxl" "$out/seeds/jxl/rgb.ppm" --quiet 2>/dev/null || return 0
  for space in RGB_D65_SRG_Rel_Lin RGB_D65_202_Rel_PeQ RGB_D65_DCI_Rel_SRG RGB_D65_SRG_Rel_HLG; do
    cjxl "$out/seeds/jxl/rgb.ppm" "$out/seeds/jxl/$space.jxl" -d 0 -x color_space=$space --quiet 2>/dev/null &&
      n=$((n + 1)) || true
  done
  cjxl "$fixtures/gif/animated.gif" "$out/seeds/jxl/animated.jxl" -d 0 --quiet 2>/dev/null && n=$((n + 1)) || true
  cjxl "$out/seeds/jxl/rgb.ppm" "$out/seeds/jxl/container.jxl" -d 1 --container=1 --quiet 2>/dev/null &&
    n=$((n + 1)) || true
  # A JPEG's lossless transcode keeps its EXIF in a (brotli-compressed) Exif
  # box, which the probe reads for the capture date (issue #41).
  cjxl "$root/Tests/Fixtures/jpeg/exif-le-orientation6.jpg" "$out/seeds/jxl/exif.jxl" --quiet 2>/dev/null &&
    n=$((n + 1)) || true
  rm -f "$out/seeds/jxl/rgb.ppm"
  say "jxl: $n seeds made with cjxl"
}

# Per target: the longest input tried, and the memory the harness may use.
# The decoders' own bound (see docs/reliability.md) is about 2 GB, so libFuzzer's
# limits sit above it: only a real excess is reported.
run_target() {
  local target=$1
  local corpus=$out/corpus/$target artifacts=$out/artifacts/$target
  mkdir -p "$corpus" "$artifacts" "$out/logs"
  # malloc_limit: the largest single allocation that is not a finding. The
  # harnesses cap decoded images at 1 MP (4 MB), so for PNG, EXIF and lists
  # anything near these limits is a bomb (a 683-byte PNG once made libpng
  # allocate 1.6 GB); JPEG's progressive coefficient buffers may reach the
  # engine's documented 1.6 GB cap, in pieces of at most 1 GB.
  local max_len=131072 extra=() malloc_mb=256
  case $target in
    jpeg) malloc_mb=1100 ;;
    # Phone HEICs are larger than the other seeds; libheif's own buffers
    # for a 1 MP image stay far below 512 MB.
    heif) max_len=1048576; malloc_mb=512 ;;
    icc) max_len=65536; malloc_mb=256 ;;
    webp|gif) malloc_mb=512 ;;
    # libtiff's single allocations are bounded by the engine at 64 MiB under
    # the harness's 1 MP limit (tiff_load.c), libraw's mosaic likewise
    # (raw_load.c); libraw's other buffers (a preview it copies, its tables)
    # stay far below 512 MB.
    tiff|raw) malloc_mb=512 ;;
    # libjxl keeps a 1 MP frame as float planes, and more for its stages.
    jxl) malloc_mb=1024 ;;
    exif) max_len=65536; malloc_mb=64 ;;
    # Titles and captions: a few KiB is plenty; fontconfig's cache and
    # Pango's font maps are the larger allocations.
    text) max_len=4096; malloc_mb=512 ;;
    # Lines must straddle the reader's 64 KiB chunks: long inputs from the
    # start (libFuzzer otherwise grows the length limit slowly from a few bytes).
    batchlist) max_len=200000; extra=(-len_control=0) ;;
    # A cache of a few hundred photos; each entry is about 400 bytes.
    measures) max_len=65536 ;;
  esac
  [ "$target" = exif ] && make_exif_seeds
  [ "$target" = webp ] && make_webp_seeds
  [ "$target" = jxl ] && make_jxl_seeds
  local seeds
  mapfile -t seeds < <(seed_dirs "$target")
  say "$target: ${seconds}s, seeds from ${seeds[*]:-nothing}"
  # With -jobs, libFuzzer writes the fuzzing job's output to fuzz-0.log in the
  # current folder: run from the target's log folder, and keep both logs.
  local logs=$out/logs/$target
  rm -rf "$logs" && mkdir -p "$logs"
  local log=$logs/fuzz-0.log
  set +e
  # SWIFT_BACKTRACE: after a finding, Swift's in-process crash backtracer
  # would read memory ASan then reports as a second, spurious crash.
  # LSAN_OPTIONS: the suppressions make test-sanitized uses, and the
  # fuzzers' own (each explained in its file): fontconfig and cairo keep
  # caches per font, so each new font description the text harness tries
  # looks like a leak to libFuzzer's per-input check.
  cat "$root/scripts/sanitizers/lsan.supp" "$root/scripts/sanitizers/lsan-fuzz.supp" >"$out/lsan.supp"
  (cd "$logs" && SWIFT_BACKTRACE=enable=no \
    LSAN_OPTIONS="suppressions=$out/lsan.supp:print_suppressions=0" nice -n 19 "$build/bin/fuzz-$target" -max_total_time="$seconds" -jobs=1 -workers=1 \
    -max_len="$max_len" -timeout=30 -rss_limit_mb=4096 -malloc_limit_mb="$malloc_mb" \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "${extra[@]}" \
    "$corpus" "${seeds[@]}" >"$logs/driver.log" 2>&1)
  local status=$?
  set -e
  # A crash in the job shows in its log; the driver's exit status is not
  # enough. A "slow unit" (over 10 s) is written too and counts: it was one.
  if grep -qE '^==[0-9]+==ERROR|^SUMMARY: |runtime error:|broken promise|Test unit written' "$log"; then status=1; fi
  grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" >&2 || true
  if [ $status -ne 0 ]; then
    say "$target: FAILED (exit $status): see $log and $artifacts/"
    return 1
  fi
  say "$target: clean"
}

case $mode in
  build) build_harnesses ;;
  run) for t in "${targets[@]}"; do run_target "$t"; done ;;
  all)
    build_harnesses
    failed=0
    for t in "${targets[@]}"; do run_target "$t" || failed=1; done
    exit $failed
    ;;
esac
