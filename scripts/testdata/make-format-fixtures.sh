#!/usr/bin/env bash
# The conformance files for the formats of issue #22 (TIFF, GIF, JPEG XL,
# DNG), made from SampleImages/ with the tools Debian ships (ImageMagick,
# tiffcp, gifsicle, cjxl) and PiDNG (PyPI), each beside a reference PNG of
# the pixels it holds (upright, as a viewer shows it). Small on purpose (96x64):
# they test decoding, not speed. `scripts/testdata/make-format-fixtures.sh DIR`
# writes DIR/{tiff,gif,jxl,dng}/; the files in Tests/Fixtures/formats/ are its
# output (this project made them: CC0, as SampleImages' own are public domain).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: scripts/testdata/make-format-fixtures.sh DIR}
for tool in convert vips tiffcp gifsicle cjxl djxl dcraw_emu python3; do
  command -v "$tool" >/dev/null || { echo "make-format-fixtures: $tool is missing (scripts/install-deps.sh --test-formats installs it)" >&2; exit 1; }
done
python3 -c 'import pidng' 2>/dev/null || { echo "make-format-fixtures: PiDNG is missing (pip install pidng)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"/{tiff,gif,jxl,dng}
# The sources: an RGB photo, a grey one and one with alpha, 96x64 (48x48 for alpha).
convert SampleImages/astronaut-eileen-collins.jpg -resize 96x64^ -gravity center -extent 96x64 -strip "$work/rgb.png"
convert SampleImages/cameraman-grayscale.jpg -resize 96x64^ -gravity center -extent 96x64 -colorspace Gray -strip "$work/grey.png"
convert SampleImages/retina-round-alpha.png -resize 48x48 -strip "$work/rgba.png"

# --- TIFF ---
t="$out/tiff"
for compression in None LZW Zip JPEG RLE; do
  convert "$work/rgb.png" -compress "$compression" -quality 95 "$t/rgb8-${compression,,}.tif"
done
convert "$work/rgb.png" -depth 16 -compress Zip "$t/rgb16-zip.tif"
convert "$work/grey.png" -colorspace Gray -depth 8 -compress LZW "$t/grey8-lzw.tif"
convert "$work/grey.png" -colorspace Gray -depth 16 -compress None "$t/grey16.tif"
convert "$work/rgba.png" -compress Zip "$t/rgba8-zip.tif"
convert "$work/rgb.png" -type Palette -colors 64 -compress LZW "$t/palette8.tif"
convert "$work/rgb.png" -define tiff:tile-geometry=32x32 -compress Zip "$t/rgb8-tiled.tif"
tiffcp -c none -r 8 "$t/rgb8-none.tif" "$t/rgb8-strips8.tif"       # many strips of 8 rows
# Orientation 6 (the stored pixels turned): a viewer shows rgb.png.
convert "$work/rgb.png" -rotate -90 -orient RightTop -compress LZW "$t/rgb8-orientation6.tif"
# Two pages: only the first is drawn.
convert "$work/rgb.png" "$work/grey.png" -compress LZW "$t/two-pages.tif"
# A pyramid: full size, then halves down to one 16x16 tile, as
# reduced-resolution subfiles (vips; ImageMagick's PTIF stops at one level this small).
vips tiffsave "$work/rgb.png" "$t/pyramid.tif" --tile --pyramid --tile-width 16 --tile-height 16 --compression deflate
# CMYK through its profile (the naive conversion without one).
convert "$work/rgb.png" -colorspace CMYK -compress LZW "$t/cmyk8-naive.tif"
for f in "$t"/*.tif; do
  case "$f" in
  *huge-header*) ;;
  *two-pages*) convert "$f[0]" -auto-orient -strip "${f%.tif}.png" ;;
  *pyramid*) convert "$f[0]" -strip "${f%.tif}.png" ;;
  *) convert "$f" -auto-orient -strip "${f%.tif}.png" ;;
  esac
done

# A header that says 50,000 x 50,000 over 96x64 pixels: refused before anything is allocated.
cp "$t/rgb8-none.tif" "$t/huge-header.tif"
tiffset -s 256 50000 "$t/huge-header.tif"
tiffset -s 257 50000 "$t/huge-header.tif"
rm -f "$t/huge-header.png"

# A pyramid whose reduced level is not the photo: the full image, then a
# 48x32 level of plain red marked reduced-resolution (NewSubfileType 1). A
# draw small enough for the level shows red; larger, the photo
# (rgb8-lzw.png). Which one a draw read is then plain in its pixels.
convert -size 48x32 xc:red -compress LZW "$work/red.tif"
tiffcp "$t/rgb8-lzw.tif" "$work/red.tif" "$t/marked-pyramid.tif"
tiffset -d 1 -s 254 1 "$t/marked-pyramid.tif"

# --- GIF ---
g="$out/gif"
convert "$work/rgb.png" -colors 128 "$g/still.gif"
convert "$work/rgba.png" -channel A -threshold 50% +channel -colors 64 "$g/transparent.gif"
convert "$work/grey.png" "$g/frame2.gif"
gifsicle --delay 20 --loop "$g/still.gif" "$g/frame2.gif" > "$g/animated.gif"
rm "$g/frame2.gif"
convert "$g/still.gif" -strip "$g/still.png"
convert "$g/transparent.gif" -strip "$g/transparent.png"
convert "$g/animated.gif[0]" -strip "$g/animated.png"

# --- JPEG XL ---
j="$out/jxl"
cjxl -q 100 "$work/rgb.png" "$j/lossless.jxl" --quiet
cjxl -d 1 "$work/rgb.png" "$j/lossy.jxl" --quiet
cjxl -d 1 -p "$work/rgb.png" "$j/progressive.jxl" --quiet
cjxl -q 100 "$work/rgba.png" "$j/alpha.jxl" --quiet
cjxl -q 100 "$work/grey.png" "$j/grey.jxl" --quiet
for f in "$j"/*.jxl; do djxl "$f" "${f%.jxl}.png" --quiet; done

# --- DNG: a Bayer mosaic of rgb.png (RGGB), 16-bit, written by PiDNG ---
python3 scripts/testdata/make_dng.py "$work/rgb.png" "$out/dng/bayer-rggb.dng"
# Its reference: libraw's own rendering (dcraw_emu, the camera's white balance).
cp "$out/dng/bayer-rggb.dng" "$work/bayer.dng"
dcraw_emu -w -T "$work/bayer.dng"
convert "$work/bayer.dng.tiff" -strip "$out/dng/bayer-rggb.png"
# The same DNG held sideways by the camera (Orientation 6): libraw's flip.
cp "$out/dng/bayer-rggb.dng" "$out/dng/orientation6.dng"
tiffset -s 274 6 "$out/dng/orientation6.dng"
# The same DNG with a camera's JPEG preview beside the mosaic, plain green so
# that a test sees which of the two a draw used.
convert -size 48x32 xc:'rgb(20,200,40)' -quality 90 "$work/green.jpg"
python3 scripts/testdata/add_dng_preview.py "$out/dng/bayer-rggb.dng" "$work/green.jpg" "$out/dng/green-preview.dng"

scripts/testdata/make-format-fixtures-32.sh "$out"
echo "make-format-fixtures: wrote $(find "$out" -type f | wc -l) files in $out"
