#!/usr/bin/env bash
# `make test-sanitized`: the whole test suite under AddressSanitizer (with
# LeakSanitizer) and UndefinedBehaviorSanitizer.
#
# - Swift code: -sanitize=address (swiftc has no -sanitize=undefined on Linux;
#   Swift itself traps on overflow and out-of-bounds, ASan covers the unsafe
#   pointers).
# - C code (the image engine, CollageSystem): -fsanitize=undefined too, and
#   every UB report is fatal (-fno-sanitize-recover).
# - The end-to-end tests run the `collage` binary built the same way, with the
#   same options, so the command-line program is checked too.
# A separate scratch path (.build/sanitized) keeps this build from fighting
# the normal one. Extra arguments go to `swift test` (e.g. --filter CollageEndToEndTests).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

flags=(--scratch-path "$root/.build/sanitized" --sanitize=address
       -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined)

# Reports go to files (one per process), so that one from a child process,
# whose stderr a test captures, cannot go unnoticed.
reports=$root/.build/sanitized/reports
rm -rf "$reports" && mkdir -p "$reports"
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1:log_path=$reports/asan"
export LSAN_OPTIONS="suppressions=$root/scripts/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan"

swift build --build-tests "${flags[@]}"
set +e
swift test --skip-build "${flags[@]}" "$@"
status=$?
set -e
if compgen -G "$reports/*" >/dev/null; then
  cat "$reports"/* >&2
  echo "test-sanitized: FAILED: sanitizer reports above (kept in $reports)" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then echo "test-sanitized: FAILED: swift test exited $status" >&2; exit "$status"; fi
echo "test-sanitized: passed, no sanitizer report (ASan, LSan, UBSan)" >&2
