#!/usr/bin/env bash
# The W6 photos in the formats of issue #22, for `make bench`'s W-formats:
# TIFF (LZW), GIF (256 colours), JPEG XL (cjxl -d 1) and DNG (a Bayer
# mosaic, scripts/testdata/make_dng.py), each six 12-megapixel files made
# once from .build/bench/w6 (deterministic, like the photos themselves).
#
#   scripts/bench/make_formats.sh W6DIR OUTDIR
set -euo pipefail
cd "$(dirname "$0")/../.."
w6=${1:?usage: make_formats.sh W6DIR OUTDIR} out=${2:?usage: make_formats.sh W6DIR OUTDIR}
mkdir -p "$out"/{tiff,gif,jxl,dng}
# PiDNG (PyPI) writes the DNGs: installed for the python3 that runs it when
# missing (Debian's own python3 wants --break-system-packages for PyPI).
if [ ! -s "$out/dng/photo-6.dng" ] && ! python3 -c 'import pidng, numpy, PIL' 2>/dev/null; then
  python3 -m pip install -q pidng numpy pillow 2>/dev/null || python3 -m pip install -q --break-system-packages pidng numpy pillow
fi
for i in 1 2 3 4 5 6; do
  photo=$w6/photo-$i.jpg
  [ -s "$out/tiff/photo-$i.tif" ] || vips copy "$photo" "$out/tiff/photo-$i.tif[compression=lzw]"
  [ -s "$out/gif/photo-$i.gif" ] || convert "$photo" -colors 256 "$out/gif/photo-$i.gif"
  [ -s "$out/jxl/photo-$i.jxl" ] || cjxl -d 1 --lossless_jpeg=0 "$photo" "$out/jxl/photo-$i.jxl" --quiet
  if [ ! -s "$out/dng/photo-$i.dng" ]; then
    convert "$photo" "$out/dng/source.png"
    python3 scripts/testdata/make_dng.py "$out/dng/source.png" "$out/dng/photo-$i.dng"
    rm -f "$out/dng/source.png"
  fi
done
