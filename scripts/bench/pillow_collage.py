#!/usr/bin/env python3
"""The Pillow contender: a 3x2 collage of 640x540 centre-cropped cells, 1920x1080.

Each photo is opened with draft() (libjpeg's DCT scaling to the smallest
size that still covers its cell), turned upright, fitted with
ImageOps.fit (Lanczos, centred) and pasted; JPEG quality 90, 4:2:0.

usage: pillow_collage.py OUT.{jpg,png} PHOTO x6
       pillow_collage.py --batch LIST OUT_DIR {jpg,png}   (collage-NNN.EXT per group)
"""
import os
import sys

from PIL import Image, ImageOps

CANVAS, COLUMNS, CELL, QUALITY = (1920, 1080), 3, (640, 540), 90


def collage(paths, out):
    canvas = Image.new("RGB", CANVAS, "white")
    for index, path in enumerate(paths):
        with Image.open(path) as photo:
            w, h = photo.size
            scale = max(CELL[0] / w, CELL[1] / h)
            photo.draft("RGB", (int(w * scale + 0.999), int(h * scale + 0.999)))
            photo = ImageOps.exif_transpose(photo)
            cell = ImageOps.fit(photo, CELL, Image.LANCZOS, centering=(0.5, 0.5))
        canvas.paste(cell, ((index % COLUMNS) * CELL[0], (index // COLUMNS) * CELL[1]))
    if out.endswith(".png"):
        canvas.save(out)
    else:
        canvas.save(out, quality=QUALITY, subsampling=2)


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--batch":
        _, _, listing, folder, ext = sys.argv
        groups = [g.split("\n") for g in open(listing).read().strip().split("\n\n")]
        for number, group in enumerate(groups, 1):
            collage(group, os.path.join(folder, "collage-%03d.%s" % (number, ext)))
    elif len(sys.argv) >= 3:
        collage(sys.argv[2:], sys.argv[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
