#!/usr/bin/env python3
"""A small TIFF shaped like Pillow's Tests/images/tiff_overflow_rows_per_strip.tif
(issue #42): uncompressed RGB in separate planes, RowsPerStrip 2^31 + 1 (past
the height, so one strip a plane), each strip holding fewer bytes than its
rows take. libtiff's reader refuses to draw it ("Not enough data for
scanline 0"); a probe of its tags alone takes it.

  tiff_overflow_strips.py OUT.tif
"""
import struct
import sys

WIDTH, HEIGHT, PLANES, HELD = 24, 16, 3, 100  # each plane takes 24 x 16 = 384 bytes


def write(path):
    pixels = [bytes((x * 10 + p * 80) % 256 for x in range(WIDTH)) * HEIGHT for p in range(PLANES)]
    data = b''.join(plane[:HELD] for plane in pixels)
    entries = []  # (tag, type, count, value or offset), in tag order

    def short(tag, *values):
        entries.append((tag, 3, len(values), values))

    def long(tag, *values):
        entries.append((tag, 4, len(values), values))
    start = 8
    long(256, WIDTH)
    long(257, HEIGHT)
    short(258, 8, 8, 8)
    short(259, 1)                 # no compression
    short(262, 2)                 # RGB
    long(273, *(start + p * HELD for p in range(PLANES)))
    short(277, PLANES)
    long(278, 2 ** 31 + 1)        # RowsPerStrip, as Pillow's file says
    long(279, *([HELD] * PLANES))
    short(284, 2)                 # separate planes
    ifd_at = start + len(data)
    extra_at = ifd_at + 2 + 12 * len(entries) + 4
    ifd, extra = b'', b''
    for tag, kind, count, values in entries:
        packed = struct.pack('<' + ('H' if kind == 3 else 'I') * count, *values)
        if len(packed) <= 4:
            ifd += struct.pack('<HHI', tag, kind, count) + packed.ljust(4, b'\0')
        else:
            ifd += struct.pack('<HHII', tag, kind, count, extra_at + len(extra))
            extra += packed
    out = b'II*\0' + struct.pack('<I', ifd_at) + data + struct.pack('<H', len(entries)) + ifd + b'\0' * 4 + extra
    open(path, 'wb').write(out)


write(sys.argv[1])
