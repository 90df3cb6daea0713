#!/usr/bin/env bash
# `make test`: the whole suite (`swift test`), then a summary that says what
# did not run and why. Swift Testing's own last line says "passed" and counts
# skipped tests among the passed ones, and a test whose conformance data is
# absent notes it once per test (86 lines without ../shared/testdata): here
# each distinct note is printed once as it comes, and the end says how many
# tests were skipped and how many notes there were, grouped by reason.
set -uo pipefail
swift=${SWIFT:-swift}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

"$swift" test "$@" 2>&1 | tee "$log" | awk '
  /^note: conformance data .* is absent/ { if (seen[$0]++) next }
  { print; fflush() }'
status=${PIPESTATUS[0]}

# Swift Testing marks a skipped test "➜ Test NAME skipped: REASON".
skipped=$(grep -c '^➜ Test .* skipped' "$log")
notes=$(grep -c '^note: conformance data .* is absent' "$log")
echo
echo "== make test summary =="
# The last lines of each runner: Swift Testing's run, XCTest's total.
grep -E '^. Test run with' "$log" | tail -n 1 | sed 's/^/  Swift Testing: /'
grep -E '^[[:space:]]*Executed [0-9]+ tests?' "$log" | tail -n 1 | sed 's/^[[:space:]]*/  XCTest: /'
if [ "$skipped" -gt 0 ]; then
  echo "  $skipped tests skipped, by reason:"
  grep '^➜ Test .* skipped' "$log" | sed 's/.* skipped: //; s/^"//; s/"$//' | sort | uniq -c | sort -rn | sed 's/^ */    /'
else
  echo "  no test skipped"
fi
if [ "$notes" -gt 0 ]; then
  echo "  $notes notes of tests that passed without the conformance data they check, by folder:"
  grep '^note: conformance data .* is absent' "$log" | sed 's/^note: conformance data //; s/ is absent.*//' | sort | uniq -c | sort -rn | sed 's/^ */    /; s/$/ (absent)/'
  echo "  (put the data at ../shared/testdata or set COLLAGE_TESTDATA; on CI its absence fails)"
fi
if [ "$status" -eq 0 ]; then echo "make test: passed"; else echo "make test: FAILED (exit $status)"; fi
exit "$status"
