#!/usr/bin/env bash
# Fails when a function that any x86-64 may run uses AVX (its registers or
# its VEX-encoded instructions): the check that
# the face detector's x86-64-v3 copy (Sources/CollageFaces/
# faces_x86_64_v3.cpp) has not leaked into code the baseline shares.
# Global and weak functions only: local ones (a translation unit's own,
# and the engine's target_clones) are not shared between the copies.
#
# usage: scripts/faces/check-copies.sh [BINARY]   (default: .build/release/collage)
set -euo pipefail
binary=${1:-.build/release/collage}
[ -x "$binary" ] || { echo "check-copies: no binary at $binary" >&2; exit 2; }
shared=$(nm --defined-only "$binary" | awk '$2 ~ /^[TW]$/ {print $3}' | sort -u)
objdump -d --no-show-raw-insn "$binary" | awk -v list=<(echo "$shared") '
    BEGIN { while ((getline name < list) > 0) global[name] = 1 }
    /^[0-9a-f]+ <.*>:$/ { fn = substr($2, 2, length($2) - 3); next }
    /%ymm|%zmm|\tv[a-z]/ { if (fn in global && !(fn in seen)) { seen[fn] = 1; print fn } }
' | c++filt | grep -v -e 'collage_dlib_x86_64_v3' -e '^cf_find_faces_x86_64_v3$' > /tmp/check-copies.$$ || true
if [ -s /tmp/check-copies.$$ ]; then
    echo "check-copies: shared functions using AVX registers in $binary:" >&2
    cat /tmp/check-copies.$$ >&2
    rm -f /tmp/check-copies.$$
    exit 1
fi
rm -f /tmp/check-copies.$$
echo "check-copies: no shared function of $binary uses AVX registers outside the x86-64-v3 copy"
