#!/usr/bin/env bash
# The conformance files of issue #32: TIFFs and GIFs that other readers
# open and collage drew wrong or refused, made with Debian's tools
# (ImageMagick, libtiff-tools' tiffcp/tiffset, giflib-tools' gifbuild,
# libheif-examples' heif-enc/heif-convert) and a few lines of Python where a
# file must be broken or assembled on purpose, each beside the reference PNG
# a test compares it with (ImageMagick's decode, upright; libheif's for HEIF).
# `scripts/testdata/make-format-fixtures-32.sh DIR` writes DIR/{tiff,gif,heif}/;
# make-format-fixtures.sh runs it too. Small on purpose (96x64 and less).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: scripts/testdata/make-format-fixtures-32.sh DIR}
for tool in convert tiffcp tiffset gifbuild heif-enc heif-convert python3; do
  command -v "$tool" >/dev/null || { echo "make-format-fixtures-32: $tool is missing (imagemagick, libtiff-tools, giflib-tools, libheif-examples)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"/{tiff,gif,heif}
t="$out/tiff" g="$out/gif" h="$out/heif"
convert SampleImages/astronaut-eileen-collins.jpg -resize 96x64^ -gravity center -extent 96x64 -strip "$work/rgb.png"
convert SampleImages/coffee-cup.jpg -resize 96x64^ -gravity center -extent 96x64 -strip "$work/colourful.png"

# --- TIFF ---
# Palettes of packed samples: ImageMagick writes a few-colour picture as a
# 2- or 4-bit palette, whatever -depth says. Drawn into a cell that crops
# columns, libtiff's reader started its rows bytes, not pixels, in.
convert "$work/rgb.png" -colors 4 -compress LZW "$t/palette2.tif"
convert "$work/rgb.png" -colors 16 -depth 16 -compress LZW "$t/palette4.tif"
# 16-bit RGB: its column crop was off by half.
convert "$work/rgb.png" -resize 48x32 -depth 16 -compress LZW "$t/rgb16-lzw.tif"
# Fax (CCITT G4, bilevel) in every orientation: the tag set by tiffset.
convert "$work/rgb.png" -monochrome -compress Group4 "$work/bilevel.tif"
for o in 1 2 3 4 5 6 7 8; do
  cp "$work/bilevel.tif" "$t/bilevel-g4-o$o.tif"
  tiffset -s 274 "$o" "$t/bilevel-g4-o$o.tif"
done
# CIE L*a*b*, 8 and 16 bits: ImageMagick's own conversion to sRGB is the reference.
convert "$work/colourful.png" -colorspace Lab -compress LZW "$t/lab8.tif"
convert "$work/colourful.png" -resize 48x32 -colorspace Lab -depth 16 -compress Zip "$t/lab16.tif"
for f in palette2 palette4 rgb16-lzw bilevel-g4-o1 bilevel-g4-o2 bilevel-g4-o3 bilevel-g4-o4 bilevel-g4-o5 \
  bilevel-g4-o6 bilevel-g4-o7 bilevel-g4-o8 lab8 lab16; do
  convert "$t/$f.tif" -auto-orient -colorspace sRGB -type TrueColor -depth 8 -strip "$t/$f.png"
done
# What libtiff's reader refuses and a probe once took (no references): a
# 16-bit CMYK, the same marked JPEG-compressed, and a strip of no bytes.
convert "$work/rgb.png" -resize 24x16 -colorspace CMYK -depth 16 -compress None "$t/cmyk16.tif"
cp "$t/cmyk16.tif" "$t/cmyk16-jpeg.tif"
tiffset -s 259 7 "$t/cmyk16-jpeg.tif"
convert "$work/rgb.png" -resize 24x16 -compress None "$work/plain.tif"
tiffcp -r 8 "$work/plain.tif" "$t/empty-strip.tif"
# Issue #42: uncompressed strips holding fewer bytes than their rows take,
# RowsPerStrip 2^31 + 1, shaped like Pillow's tiff_overflow_rows_per_strip.tif.
python3 scripts/testdata/tiff_overflow_strips.py "$t/overflow-rows-per-strip.tif"
python3 - "$t/empty-strip.tif" <<'EOF'
# The second strip's byte count set to 0 (tiffset cannot write one entry of a list).
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, 'rb').read())
assert data[:2] == b'II'
ifd = struct.unpack_from('<I', data, 4)[0]
for i in range(struct.unpack_from('<H', data, ifd)[0]):
    tag, kind, count, value = struct.unpack_from('<HHII', data, ifd + 2 + 12 * i)
    if tag == 279:  # StripByteCounts, LONG or SHORT, in the entry when they fit
        size = 4 if kind == 4 else 2
        at = ifd + 2 + 12 * i + 8 if count * size <= 4 else value
        struct.pack_into('<I' if size == 4 else '<H', data, at + size, 0)
open(path, 'wb').write(data)
EOF

# --- GIF ---
# No colour table at all: a 4-colour GIF whose table is a grey ramp (black to
# white) written by gifbuild, then its table taken out. The GIF with the
# table is what the one without should look like.
convert "$work/rgb.png" -colorspace Gray -colors 4 "$work/grey4.gif"
gifbuild -d "$work/grey4.gif" > "$work/grey4.txt"
python3 - "$work/grey4.txt" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
ramp = "screen map\n\tsort flag off\n" + "".join(
    "\trgb %03d %03d %03d is %d\n" % (v, v, v, i) for i, v in enumerate([0, 85, 170, 255])) + "end\n"
open(sys.argv[1], 'w').write(re.sub(r"screen map\n.*?end\n", ramp, text, flags=re.S))
EOF
gifbuild "$work/grey4.txt" > "$work/ramp.gif"
convert "$work/ramp.gif" -strip "$g/no-colour-table.png"
# Stray bytes before the image (a block of no known kind), which ImageMagick
# skips; and a first frame whose LZW data stops halfway (its sub-blocks end
# early, the trailer follows): its reference is the whole frame.
convert "$work/rgb.png" -colors 16 "$work/still16.gif"
convert "$work/still16.gif" -strip "$g/stray-bytes.png"
cp "$g/stray-bytes.png" "$g/short-frame.png"
python3 - "$work/ramp.gif" "$work/still16.gif" "$g" <<'EOF'
import sys
ramp, still, folder = sys.argv[1], sys.argv[2], sys.argv[3]
def table(flags): return 3 << ((flags & 7) + 1) if flags & 0x80 else 0
# The screen's table out, its size bits kept (they say 4 entries).
d = bytearray(open(ramp, 'rb').read())
open(folder + '/no-colour-table.gif', 'wb').write(d[:10] + bytes([d[10] & 0x7F]) + d[11:13] + d[13 + table(d[10]):])
d = bytearray(open(still, 'rb').read())
at = 13 + table(d[10])
while d[at] == 0x21:  # extensions: introducer, label, sub-blocks
    at += 2
    while d[at]: at += d[at] + 1
    at += 1
assert d[at] == 0x2C
open(folder + '/stray-bytes.gif', 'wb').write(d[:at] + bytes([0x00, 0x99, 0x01, 0x02]) + d[at:])
blocks, b = [], at + 10 + table(d[at + 9]) + 1
while d[b]:
    blocks.append(b)
    b += d[b] + 1
open(folder + '/short-frame.gif', 'wb').write(d[:blocks[len(blocks) // 2]] + b'\x00\x3b')
EOF
# --- HEIF ---
# Full-range samples whose colr box is nclx saying limited range and the
# BT.601 matrix (heif-enc 1.15 writes no colr box for a PNG: heif_nclx.py
# adds it), the stream's VUI saying full range: libheif's own decode
# (heif-convert) follows the box. One image, and a 1x2 grid of tiles as a
# phone writes, the nclx on the tiles and an ICC profile on the grid.
heif-enc -q 90 -p x265:range=full -o "$work/single.heic" "$work/colourful.png" >/dev/null
python3 scripts/testdata/heif_nclx.py single "$work/single.heic" "$h/nclx-limited.heic"
# The same saying what a phone's HDR HEIF says: BT.601 primaries (5), the
# BT.709 transfer (1), BT.601 matrix, limited range (issue #42). heif-convert
# shows the transfer as sRGB, as other readers do.
python3 scripts/testdata/heif_nclx.py single "$work/single.heic" "$h/nclx-phone.heic" 5 1 5
convert "$work/colourful.png" -crop 48x64+0+0 +repage "$work/left.png"
convert "$work/colourful.png" -crop 48x64+48+0 +repage "$work/right.png"
heif-enc -q 90 -p x265:range=full -o "$work/left.heic" "$work/left.png" >/dev/null
heif-enc -q 90 -p x265:range=full -o "$work/right.heic" "$work/right.png" >/dev/null
python3 scripts/testdata/heif_nclx.py grid "$work/left.heic" "$work/right.heic" "$h/grid-nclx-tiles.heic" 96 64
for f in nclx-limited nclx-phone grid-nclx-tiles; do heif-convert --quiet "$h/$f.heic" "$h/$f.png" >/dev/null; done

echo "make-format-fixtures-32: wrote the files of issue #32 in $out/tiff, $out/gif and $out/heif"
