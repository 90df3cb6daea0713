#!/usr/bin/env bash
# The release build of collage, as `make build` and `make bench` make it:
# linked statically against the Swift runtime, which halves start-up and
# lowers peak memory (docs/performance.md). Extra arguments go to
# `swift build` (e.g. --build-path DIR, --show-bin-path).
#
# Static Foundation calls mktemp, so glibc's linker warns about it on every
# link, about code that is not ours: that one line is filtered out. Every
# other line, and swift build's exit status, pass through.
#
# Linked by lld (the Swift toolchain's own), where that linker is there
# (else gold, as before), for the memory every command maps of the binary
# itself (docs/performance.md, "the binary's own pages"):
# - packed relative relocations (DT_RELR, glibc 2.36+): the static binary
#   has 82,000, which gold stores as a 2 MB table the loader reads through
#   at every start; packed, 15 KB. W6's save 31.8 -> 29.8 MiB.
# - the functions people's commands run placed side by side, in the order
#   scripts/link-order.txt lists (scripts/link-order.sh makes it): W6's
#   save 29.8 -> 25.7 MiB, its smart save 34.9 -> 30.4 MiB.
# The same output bytes, the same start-up time.
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
link=()
swift_bin=$(dirname "$(readlink -f "$(command -v "$swift")")")
if [ -x "$swift_bin/ld.lld" ] || command -v ld.lld >/dev/null; then
  link=(-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
  if [ -f scripts/link-order.txt ]; then
    # Each function in its own section, so that the linker can move it
    # (the static Swift runtime and Foundation are built so already).
    link+=(-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xcxx -ffunction-sections
           -Xlinker "--symbol-ordering-file=$PWD/scripts/link-order.txt" -Xlinker --no-warn-symbol-ordering)
  fi
fi
"$swift" build -c release --product collage --static-swift-stdlib "${link[@]}" "$@" 2>&1 \
  | { grep --line-buffered -v "warning: the use of \`mktemp' is dangerous" || true; }
