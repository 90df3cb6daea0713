#!/usr/bin/env bash
# Instruction counts of the engine's share of `collage save` on W6, with
# valgrind --tool=callgrind: repeatable to a few parts per million, so small
# changes can be measured on a busy machine. Builds scripts/bench/engine_profile.c
# against the engine's C files (clang -O2 as in Package.swift, DWARF 4 for
# valgrind 3.19) and prints the total and the most expensive functions.
#
#   scripts/bench/profile.sh [PHOTO...]    default: .build/bench/w6/photo-{1..6}.jpg
#
# With LIBJPEG_DIR set to a libjpeg-turbo build with symbols (same version
# as the system's), libjpeg's functions are named instead of shown as
# addresses: apt-get source libjpeg-turbo; cmake -DCMAKE_C_FLAGS="-O2 -g -gdwarf-4" ...
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.build/bench/profile
mkdir -p "$out"
src=Sources/CollageImaging
clang=${CLANG:-$(dirname "$(readlink -f "$(command -v swift)")")/clang}
"${clang}++" -O2 -g -gdwarf-4 -std=c++14 -ISources/CollageFaces/include -c Sources/CollageFaces/faces.cpp \
  -o "$out/faces.o"
"$clang" -O2 -g -gdwarf-4 -I"$src/include" -I"$src" -ISources/CollageFaces/include \
  $(pkg-config --cflags libheif libde265 lcms2 libwebpdemux libwebpmux) "$src"/*.c "$src"/*/*.c scripts/bench/engine_profile.c \
  "$out/faces.o" -o "$out/engine_profile" -ljpeg -lpng -lexif -ldl -lstdc++ \
  $(pkg-config --libs lcms2 libwebpdemux libwebpmux) -lm
photos=("$@")
[ ${#photos[@]} -eq 0 ] && photos=(.build/bench/w6/photo-{1..6}.jpg)
env ${LIBJPEG_DIR:+LD_LIBRARY_PATH=$LIBJPEG_DIR} valgrind --tool=callgrind \
  --callgrind-out-file="$out/callgrind.out" "$out/engine_profile" "$out/collage.jpg" "${photos[@]}" 2>&1 |
  grep 'refs'
callgrind_annotate "$out/callgrind.out" | sed -n '/file:function/,$p' | sed -n '2,16p'
