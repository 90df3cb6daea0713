"""Adds a camera-style JPEG preview to a DNG, for the RAW loader's tests
(issue #22): the JPEG's bytes and a second directory after the first
(NewSubfileType 1, reduced resolution; JPEG compression, YCbCr, 8 bits x 3),
chained from it, as cameras and Adobe's converter write previews. PiDNG
writes the mosaic alone.

usage: python3 scripts/testdata/add_dng_preview.py IN.dng PREVIEW.jpg OUT.dng
"""
import struct
import sys

source, preview, target = sys.argv[1], sys.argv[2], sys.argv[3]
dng = bytearray(open(source, "rb").read())
jpeg = open(preview, "rb").read()
if dng[:4] != b"II*\x00":
    sys.exit("add_dng_preview: only little-endian DNGs (PiDNG's) are handled")
# The JPEG's size, from its SOF marker.
at, width, height = 2, 0, 0
while at < len(jpeg):
    marker, length = jpeg[at + 1], struct.unpack(">H", jpeg[at + 2:at + 4])[0]
    if marker in (0xC0, 0xC1, 0xC2):
        height, width = struct.unpack(">HH", jpeg[at + 5:at + 9])
        break
    at += 2 + length
if not width:
    sys.exit("add_dng_preview: no SOF in the preview")

first = struct.unpack("<I", dng[4:8])[0]
entries = struct.unpack("<H", dng[first:first + 2])[0]
next_pointer = first + 2 + 12 * entries

while len(dng) % 2:
    dng.append(0)
jpeg_at = len(dng)
dng += jpeg
while len(dng) % 2:
    dng.append(0)
bits_at = len(dng)
dng += struct.pack("<HHH", 8, 8, 8)
ifd_at = len(dng)
SHORT, LONG = 3, 4
tags = [
    (254, LONG, 1, 1),            # NewSubfileType: reduced resolution
    (256, LONG, 1, width),
    (257, LONG, 1, height),
    (258, SHORT, 3, bits_at),     # BitsPerSample 8, 8, 8 (out of line)
    (259, SHORT, 1, 7),           # Compression: JPEG
    (262, SHORT, 1, 6),           # Photometric: YCbCr
    (273, LONG, 1, jpeg_at),      # StripOffsets
    (277, SHORT, 1, 3),           # SamplesPerPixel
    (278, LONG, 1, height),       # RowsPerStrip
    (279, LONG, 1, len(jpeg)),    # StripByteCounts
]
dng += struct.pack("<H", len(tags))
for tag, kind, count, value in tags:
    packed = struct.pack("<H", value) + b"\0\0" if kind == SHORT and count == 1 else struct.pack("<I", value)
    dng += struct.pack("<HHI", tag, kind, count) + packed
dng += struct.pack("<I", 0)
dng[next_pointer:next_pointer + 4] = struct.pack("<I", ifd_at)
open(target, "wb").write(bytes(dng))
