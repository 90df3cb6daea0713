#!/usr/bin/env python3
"""`make bench`'s part for `collage suggest` (issue #33).

Makes SUGGEST_BENCH_N (1,000) 12-megapixel camera JPEGs, each with an EXIF
block holding DateTimeOriginal and a 160 x 120 thumbnail, as a camera writes
them, from a few distinct 4000 x 3000 pictures (so making them takes a
minute, not an hour: each file is one of the pictures' JPEG bytes with its
own EXIF block, whose thumbnail is a scene of its own). Then
times, over the same files:

  - `collage suggest FOLDER --json` cold (an empty measures cache) and warm
    (the cache of the cold run), in a temporary XDG_CACHE_HOME;
  - `vipsthumbnail -s 256` over all the files in one process;

each with its peak RSS (/usr/bin/time -v). The files are read once first,
so both tools find them in the page cache ("cold" is the measures cache,
not the disk). Prints a Markdown table; the goals are 0.5 x vips cold,
0.05 x warm, 100 MiB.

usage: suggest_bench.py COLLAGE WORKDIR
"""
import io
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time

from PIL import Image, ImageDraw, ImageFilter

WIDTH, HEIGHT = 4000, 3000
PICTURES = 8


def scene(seed):
    """A 400 x 300 picture of coloured shapes, different for each seed."""
    rng = random.Random(seed)
    small = Image.new("RGB", (400, 300), tuple(rng.randrange(256) for _ in range(3)))
    draw = ImageDraw.Draw(small)
    for _ in range(60):
        x, y = rng.randrange(400), rng.randrange(300)
        r = rng.randrange(8, 80)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=tuple(rng.randrange(256) for _ in range(3)))
    return small


def picture(seed):
    """A 4000 x 3000 picture with shapes and texture: JPEG-compressible like
    a photo (about 2-3 MB at quality 90)."""
    image = scene(seed).resize((WIDTH, HEIGHT), Image.BICUBIC)
    noise = Image.effect_noise((WIDTH, HEIGHT), 24).convert("RGB")
    return Image.blend(image, noise, 0.15).filter(ImageFilter.SMOOTH)


def exif_block(date, thumbnail):
    """APP1 payload: IFD0 -> Exif IFD (DateTimeOriginal), IFD1 (thumbnail)."""
    def entry(tag, kind, count, value):
        return struct.pack("<HHI", tag, kind, count) + value.ljust(4, b"\0")
    date_text = date.encode() + b"\0"
    ifd0 = 8
    exif_ifd = ifd0 + 2 + 12 + 4
    date_at = exif_ifd + 2 + 12 + 4
    ifd1 = date_at + len(date_text)
    thumb_at = ifd1 + 2 + 2 * 12 + 4
    tiff = b"II*\0" + struct.pack("<I", ifd0)
    tiff += struct.pack("<H", 1) + entry(0x8769, 4, 1, struct.pack("<I", exif_ifd)) + struct.pack("<I", ifd1)
    tiff += struct.pack("<H", 1) + entry(0x9003, 2, len(date_text), struct.pack("<I", date_at)) + struct.pack("<I", 0)
    tiff += date_text
    tiff += struct.pack("<H", 2) + entry(0x0201, 4, 1, struct.pack("<I", thumb_at))
    tiff += entry(0x0202, 4, 1, struct.pack("<I", len(thumbnail))) + struct.pack("<I", 0)
    tiff += thumbnail
    return b"Exif\0\0" + tiff


def make_photos(folder, count):
    os.makedirs(folder, exist_ok=True)
    done = os.path.join(folder, f".made-{count}")
    if os.path.exists(done):
        return
    for name in os.listdir(folder):
        os.remove(os.path.join(folder, name))
    bodies = []
    for seed in range(PICTURES):
        image = picture(seed)
        out = io.BytesIO()
        image.save(out, "JPEG", quality=90)
        bodies.append(out.getvalue())
    start = time.mktime((2026, 7, 4, 9, 0, 0, 0, 0, -1))
    for i in range(count):
        jpeg = bodies[i % PICTURES]
        # A thumbnail of its own: 1,000 scenes to choose from, as a trip's
        # photos mostly are, while the 12-megapixel bodies (what vips
        # decodes) repeat PICTURES pictures.
        out = io.BytesIO()
        scene(1000 + i).resize((160, 120), Image.BILINEAR).save(out, "JPEG", quality=80)
        thumb = out.getvalue()
        taken = time.localtime(start + i * 37 + (i // 200) * 86400)
        app1 = exif_block(time.strftime("%Y:%m:%d %H:%M:%S", taken), thumb)
        segment = b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1
        with open(os.path.join(folder, f"IMG_{i:05d}.jpg"), "wb") as f:
            f.write(jpeg[:2] + segment + jpeg[2:])
    open(done, "w").close()


def timed(command, env=None):
    """Wall seconds and peak RSS (MiB) of one run."""
    with tempfile.NamedTemporaryFile("r") as report:
        start = time.monotonic()
        subprocess.run(["/usr/bin/time", "-v", "-o", report.name] + command, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seconds = time.monotonic() - start
        rss = next(int(line.split(":")[1]) for line in report.read().splitlines() if "Maximum resident" in line)
    return seconds, rss / 1024


def main():
    collage, work = sys.argv[1], sys.argv[2]
    count = int(os.environ.get("SUGGEST_BENCH_N", "1000"))
    folder = os.path.join(work, f"suggest-{count}")
    make_photos(folder, count)
    files = sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".jpg"))
    for path in files:  # into the page cache, for both tools alike
        with open(path, "rb") as f:
            while f.read(1 << 20):
                pass
    cache = tempfile.mkdtemp(prefix="suggest-cache-")
    state = tempfile.mkdtemp(prefix="suggest-state-")
    env = dict(os.environ, XDG_CACHE_HOME=cache, XDG_STATE_HOME=state)
    cold = timed([collage, "suggest", folder, "--json"], env)
    warm = timed([collage, "suggest", folder, "--json"], env)
    thumbnails = tempfile.mkdtemp(prefix="suggest-vips-")
    vips = timed(["/usr/bin/vipsthumbnail", "-s", "256", "-o", os.path.join(thumbnails, "%s.jpg")] + files)
    for path in (cache, state, thumbnails):
        shutil.rmtree(path, ignore_errors=True)
    print(f"\n### `collage suggest` over {count} 12-megapixel JPEGs with EXIF thumbnails\n")
    print("| run | seconds | x vipsthumbnail | peak RSS (MiB) | goal |")
    print("| --- | ---: | ---: | ---: | --- |")
    print(f"| `vipsthumbnail -s 256`, one process | {vips[0]:.2f} | 1.00 | {vips[1]:.0f} | |")
    print(f"| `collage suggest`, cold (no cache) | {cold[0]:.2f} | {cold[0] / vips[0]:.3f} | {cold[1]:.0f} | <= 0.5 x, <= 100 MiB |")
    print(f"| `collage suggest`, warm (cached) | {warm[0]:.2f} | {warm[0] / vips[0]:.3f} | {warm[1]:.0f} | <= 0.05 x |")


if __name__ == "__main__":
    main()
