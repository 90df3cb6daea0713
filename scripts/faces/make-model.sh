#!/usr/bin/env bash
# Regenerates Sources/CollageFaces/frontal_face_model.inc from the dlib that
# is installed (libdlib-dev, with libblas-dev and liblapack-dev for its
# library), and with --check only compares: the test suite runs that, so the
# committed model cannot drift from Debian's without a failing test.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=Sources/CollageFaces/frontal_face_model.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CXX:-g++} -O1 -std=c++14 -o "$tmp/dump" scripts/faces/dump_model.cpp -l:libdlib.a -llapack -lblas -lpthread
"$tmp/dump" > "$tmp/model.inc"
if [ "${1:-}" = --check ]; then
    cmp -s "$tmp/model.inc" "$out" || { echo "$out differs from the installed dlib's model; run $0" >&2; exit 1; }
    echo "$out matches the installed dlib's model"
else
    mv "$tmp/model.inc" "$out"
    echo "wrote $out"
fi
