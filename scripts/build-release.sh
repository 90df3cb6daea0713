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
# Linked by lld (the Swift toolchain's own) where it and glibc 2.36 or
# later are there, else by gold as before, for the memory every command
# maps of the binary itself (docs/performance.md, "the binary's own pages"):
# - packed relative relocations (DT_RELR): the static binary has 82,000,
#   which gold stores as a 1.9 MB table the loader reads through at every
#   start; packed, 15 KB.
# - the functions people's commands run side by side, in the order
#   scripts/link-order.txt lists (scripts/link-order.sh makes it).
# Together: W6's save 31.4 -> 25.7 MiB (`--crop centre`), 36.1 -> 30.8 MiB
# (smart, the default), `status` 20.5 -> 16.0 MiB; the same output bytes,
# the same time.
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
link=()
swift_bin=$(dirname "$(readlink -f "$(command -v "$swift")")")
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
glibc_relr=$(printf '%s\n' 2.36 "${glibc:-0}" | sort -V | head -1)  # 2.36 when glibc is 2.36 or later
if { [ -x "$swift_bin/ld.lld" ] || command -v ld.lld >/dev/null; } && [ "$glibc_relr" = 2.36 ]; then
  link=(-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
  if [ -f scripts/link-order.txt ]; then
    # Each function in its own section, so that the linker can move it
    # (the static Swift runtime and Foundation are built so already).
    link+=(-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xcxx -ffunction-sections
           -Xlinker "--symbol-ordering-file=$PWD/scripts/link-order.txt" -Xlinker --no-warn-symbol-ordering)
  fi
fi
# SwiftPM waits for another build using .build (a `make test` beside
# `make install`) with a message that has no newline, which the filter below
# would hold back until the wait is over: say it here, on a line of its own.
lock_pid=$(cat .build/.lock 2>/dev/null || true)
if [ -n "$lock_pid" ] && [ "$lock_pid" != $$ ] && kill -0 "$lock_pid" 2>/dev/null \
   && grep -qi swift "/proc/$lock_pid/comm" 2>/dev/null; then
  echo "build-release: waiting for another SwiftPM build in .build (PID $lock_pid) to finish..." >&2
fi
"$swift" build -c release --product collage --static-swift-stdlib "${link[@]}" "$@" 2>&1 \
  | { grep --line-buffered -v "warning: the use of \`mktemp' is dangerous" || true; }
