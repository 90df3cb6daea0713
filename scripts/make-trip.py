#!/usr/bin/env python3
"""Writes a small trip for `make demo`'s photo book: copies of SampleImages'
JPEGs with the capture date and GPS position a camera phone would write, two
days in two Tuscan towns (so the book names its places, and its cover the
region). Only the bytes of the EXIF block are new: the photos' pixels, and
the rocket's EXIF Orientation, are kept. Standard library only.

Usage: make-trip.py SAMPLES OUT
"""
import os
import struct
import sys

AREZZO = (43.46311, 11.87831)
FLORENCE = (43.76956, 11.25581)

# (sample, name in the trip, DateTimeOriginal, position)
SHOTS = [
    ("astronaut-eileen-collins.jpg", "arezzo-1.jpg", "2008:10:22 10:00:00", AREZZO),
    ("cameraman-grayscale.jpg", "arezzo-2.jpg", "2008:10:22 10:30:00", AREZZO),
    ("chelsea-the-cat.jpg", "arezzo-3.jpg", "2008:10:22 11:00:00", AREZZO),
    ("coffee-cup.jpg", "florence-1.jpg", "2008:10:25 09:00:00", FLORENCE),
    ("rocket-exif-orientation-6.jpg", "florence-2.jpg", "2008:10:25 09:40:00", FLORENCE),
]


def segments(jpeg):
    """The JPEG's marker segments before its scan, as (marker, bytes), and the rest."""
    assert jpeg[:2] == b"\xff\xd8", "not a JPEG"
    at, found = 2, []
    while at < len(jpeg):
        marker = jpeg[at + 1]
        if marker == 0xDA:  # start of scan: the rest is data
            return found, jpeg[at:]
        length = struct.unpack(">H", jpeg[at + 2:at + 4])[0]
        found.append((marker, jpeg[at:at + 2 + length]))
        at += 2 + length
    raise ValueError("no scan")


def orientation(exif):
    """The Orientation (0x0112) of an APP1 Exif segment's IFD0, else None."""
    tiff = exif[10:]
    order = "<" if tiff[:2] == b"II" else ">"
    ifd = struct.unpack(order + "I", tiff[4:8])[0]
    for i in range(struct.unpack(order + "H", tiff[ifd:ifd + 2])[0]):
        entry = tiff[ifd + 2 + 12 * i:ifd + 14 + 12 * i]
        if struct.unpack(order + "H", entry[:2])[0] == 0x0112:
            return struct.unpack(order + "H", entry[8:10])[0]
    return None


def ifd(entries, offset):
    """A big-endian IFD at `offset` of the TIFF data: (tag, type, count, value
    bytes) entries, values over 4 bytes placed after it. Returns its bytes."""
    head = struct.pack(">H", len(entries))
    data_at = offset + 2 + 12 * len(entries) + 4
    body, data = b"", b""
    for tag, kind, count, value in entries:
        if len(value) <= 4:
            body += struct.pack(">HHI", tag, kind, count) + value.ljust(4, b"\0")
        else:
            body += struct.pack(">HHII", tag, kind, count, data_at + len(data))
            data += value + (b"\0" if len(value) % 2 else b"")
    return head + body + struct.pack(">I", 0) + data


def rationals(degrees):
    """Degrees as GPS degrees, minutes, seconds (rationals)."""
    d = int(degrees)
    m = int((degrees - d) * 60)
    s = round(((degrees - d) * 60 - m) * 60 * 10000)
    return struct.pack(">IIIIII", d, 1, m, 1, s, 10000)


def exif_block(taken, position, turned):
    ascii_date = taken.encode() + b"\0"
    lat, lon = position
    # IFD0 at 8: Orientation (when the photo has one), the Exif and GPS IFDs' offsets.
    ifd0_entries = ([(0x0112, 3, 1, struct.pack(">H", turned))] if turned else []) + [(0x8769, 4, 1, b""), (0x8825, 4, 1, b"")]
    ifd0_size = len(ifd(ifd0_entries, 8))
    exif_at = 8 + ifd0_size
    exif_ifd = ifd([(0x9003, 2, len(ascii_date), ascii_date)], exif_at)
    gps_at = exif_at + len(exif_ifd)
    gps_ifd = ifd([(0x0000, 1, 4, bytes([2, 3, 0, 0])),
                   (0x0001, 2, 2, b"N\0" if lat >= 0 else b"S\0"), (0x0002, 5, 3, rationals(abs(lat))),
                   (0x0003, 2, 2, b"E\0" if lon >= 0 else b"W\0"), (0x0004, 5, 3, rationals(abs(lon)))], gps_at)
    ifd0_entries[-2] = (0x8769, 4, 1, struct.pack(">I", exif_at))
    ifd0_entries[-1] = (0x8825, 4, 1, struct.pack(">I", gps_at))
    tiff = b"MM\0*" + struct.pack(">I", 8) + ifd(ifd0_entries, 8) + exif_ifd + gps_ifd
    payload = b"Exif\0\0" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


def main():
    samples, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for sample, name, taken, position in SHOTS:
        with open(os.path.join(samples, sample), "rb") as f:
            jpeg = f.read()
        found, scan = segments(jpeg)
        exifs = [s for m, s in found if m == 0xE1 and s[4:10] == b"Exif\0\0"]
        turned = orientation(exifs[0]) if exifs else None
        kept = [s for m, s in found if not (m == 0xE1 and s[4:10] == b"Exif\0\0")]
        # After JFIF's APP0 when there is one, as cameras write it.
        at = 1 if kept and kept[0][1] == 0xE0 else 0
        kept.insert(at, exif_block(taken, position, turned))
        with open(os.path.join(out, name), "wb") as f:
            f.write(b"\xff\xd8" + b"".join(kept) + scan)


if __name__ == "__main__":
    main()
