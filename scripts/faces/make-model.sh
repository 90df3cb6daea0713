#!/usr/bin/env bash
# Regenerates Sources/CollageFaces/frontal_face_model.inc from the dlib that
# is installed (libdlib-dev, with libblas-dev and liblapack-dev for its
# library), and with --check only compares: the test suite runs that, so the
# committed model cannot drift from Debian's without a failing test.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=Sources/CollageFaces/frontal_face_model.inc
separable=Sources/CollageFaces/frontal_face_separable.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CXX:-g++} -O1 -std=c++14 -o "$tmp/dump" scripts/faces/dump_model.cpp -l:libdlib.a -llapack -lblas -lpthread
"$tmp/dump" > "$tmp/model.inc"
# The separable filters, from the model just written, by the header-only
# code faces.cpp compiles (separate_model.cpp says why).
mkdir -p "$tmp/Sources/CollageFaces"
cp "$tmp/model.inc" "$tmp/Sources/CollageFaces/frontal_face_model.inc"
mkdir -p "$tmp/scripts/faces" && cp scripts/faces/separate_model.cpp "$tmp/scripts/faces/"
${CXX:-g++} -O1 -std=gnu++14 -Wno-deprecated-declarations -o "$tmp/separate" "$tmp/scripts/faces/separate_model.cpp"
"$tmp/separate" > "$tmp/separable.inc"
if [ "${1:-}" = --check ]; then
    cmp -s "$tmp/model.inc" "$out" || { echo "$out differs from the installed dlib's model; run $0" >&2; exit 1; }
    cmp -s "$tmp/separable.inc" "$separable" || { echo "$separable differs from the model's SVDs; run $0" >&2; exit 1; }
    echo "$out and $separable match the installed dlib's model"
else
    mv "$tmp/model.inc" "$out"
    mv "$tmp/separable.inc" "$separable"
    echo "wrote $out and $separable"
fi
