#!/usr/bin/env bash
# The release build of collage, as `make build` and `make bench` make it:
# linked statically against the Swift runtime, which halves start-up and
# lowers peak memory (docs/performance.md). Extra arguments go to
# `swift build` (e.g. --build-path DIR, --show-bin-path).
#
# Static Foundation calls mktemp, so glibc's linker warns about it on every
# link, about code that is not ours: that one line is filtered out. Every
# other line, and swift build's exit status, pass through.
set -euo pipefail
cd "$(dirname "$0")/.."
"${SWIFT:-swift}" build -c release --product collage --static-swift-stdlib "$@" 2>&1 \
  | { grep --line-buffered -v "warning: the use of \`mktemp' is dangerous" || true; }
