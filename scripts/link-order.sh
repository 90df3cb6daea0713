#!/usr/bin/env bash
# Remakes scripts/link-order.txt: the functions of the release binary that a
# person's usual commands run, in the order they first run, which
# scripts/build-release.sh hands to lld (--symbol-ordering-file) so that
# they sit side by side in the binary.
#
# Why: the kernel maps a program's code in blocks of 64 KiB or more around
# each page it touches, and every mapped page counts in the process's
# memory. Linked in the compiler's order, the 4,800 functions collage's
# commands run (of about 60,000, mostly the static Swift runtime and
# Foundation) are spread over most of the 16 MB of code, so a W6 save had
# 11-14 MB of the binary resident. Side by side (1.5 MB of them) about
# 6 MB: W6's smart save went 35.7 -> 30.8 MiB, the same output bytes
# (docs/performance.md, "the binary's own pages"). What stays is mostly
# the prebuilt runtime's own large sections, which the linker cannot split.
#
# The list is a build input, not generated at build time: making it needs
# valgrind (callgrind lists every function that ran, once or a million
# times) and takes a few minutes. A stale list only costs memory: a function
# it no longer names is skipped (--no-warn-symbol-ordering), a new one is
# placed as the compiler left it. Remake it after large changes and compare
# with `make bench`'s peak memory.
#
# usage: scripts/link-order.sh   (needs valgrind, python3-numpy, python3-pil)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
command -v valgrind >/dev/null && /usr/bin/python3 -c "import numpy, PIL" 2>/dev/null || {
  echo "link-order.sh: needs valgrind, python3-numpy and python3-pil (Debian packages)" >&2; exit 1; }

scripts/build-release.sh >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Valgrind cannot read the debug information clang 21 writes; the symbol
# table is all it needs.
binary=$work/collage
objcopy --strip-debug "$(scripts/build-release.sh --show-bin-path)/collage" "$binary"

export XDG_STATE_HOME=$work/state
photos=(astronaut-eileen-collins.jpg cameraman-grayscale.jpg chelsea-the-cat.jpg coffee-cup.heic
        rocket-exif-orientation-6.jpg retina-round-alpha.png)
photos=("${photos[@]/#/$root/SampleImages/}")  # absolute: a batch list's paths are its folder's
n=0
run() {  # One command under callgrind; what it prints is not needed.
  n=$((n + 1))
  echo "link-order.sh: $*" >&2
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/run-$n.%p" "$binary" "$@" \
    >"$work/run-$n.log" 2>&1 || { cat "$work/run-$n.log" >&2; exit 1; }
}
# First what most photos are: six 12-megapixel camera JPEGs, saved as
# `make bench`'s W6 is (its photos, made the same way). Measured: a list
# made from the sample photos alone left a W6 save 1 MiB higher than one
# that starts with W6, as the code for large photos was placed among the rest.
/usr/bin/python3 scripts/bench/make_workload.py "$work/w6" 6 >&2
run add "$work"/w6/photo-*.jpg
run save --size 1920x1080 --quality 90 --layout grid -o "$work/w6.jpg"
# The demo's commands (README), then the others people use most.
run add "${photos[@]}"
run status
run save --keep --force -o "$work/collage.jpg"
run save --keep --force --size 1080x1920 -o "$work/portrait.jpg"
run save --keep --force --size 3000x500 -o "$work/banner.jpg"
run save --keep --force --crop centre -o "$work/centre.jpg"
run save --keep --force --size A4 --title "Summer 2026" --caption name -o "$work/page.pdf"
run preview --width 80
run clear
printf '%s\n' "${photos[@]:0:4}" '' "${photos[@]:2:2}" > "$work/list.txt"
run batch --jobs 1 -o "$work/batch" "$work/list.txt"
run suggest --count 2 SampleImages

# Every function of the binary that ran, in the order each first ran: the
# W6 save's first (run 2), then the other commands' in the order they ran.
# Measured: merging in run order, the W6 `add`'s functions came between the
# save's, and W6's save peaked 0.7-1.4 MiB higher than with the save's first.
python3 - "$binary" "$work"/run-*.[0-9]* > scripts/link-order.txt <<'EOF'
import glob, re, sys
binary, files = sys.argv[1], sys.argv[2:]
seen, order = set(), []
def key(path):  # run-N.PID: the W6 save, then in the order they ran
    n = int(re.search(r'run-(\d+)\.', path).group(1))
    return (n != 2, n)
for path in sorted(files, key=key):
    objects, names, current = {}, {}, None
    for line in open(path, errors='replace'):
        m = re.match(r'(c?ob|c?fn)=\((\d+)\)(?: (.*))?$', line.rstrip('\n'))
        if not m:
            continue
        kind, index, name = m.groups()
        table = objects if kind.endswith('ob') else names
        if name is not None:
            table[index] = name
        if kind == 'ob':
            current = objects.get(index)
        elif kind == 'fn' and current == binary:
            # callgrind tells apart same-named functions with 'N.
            function = re.sub(r"'\d+$", '', names.get(index, ''))
            if function and not function.startswith('0x') and function not in seen:
                seen.add(function)
                order.append(function)
print('\n'.join(order))
EOF
echo "link-order.sh: $(wc -l < scripts/link-order.txt) functions in scripts/link-order.txt" >&2
# The next build must link again to use it (SwiftPM does not see the file).
rm -f "$(scripts/build-release.sh --show-bin-path)/collage"
