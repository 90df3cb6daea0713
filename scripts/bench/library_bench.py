#!/usr/bin/env python3
"""`make bench`'s part for a whole library (issue #43, "Scale"): `collage
suggest --recursive --events` over LIBRARY_BENCH_N small JPEGs (10,000 by
default; the issue's goals are at 100,000) in 400 day folders, each photo
64 x 48 with an EXIF DateTimeOriginal (three sessions a day, so events
form), made once under WORKDIR and kept (a `.made` mark).

Times, each with its CPU seconds (user + system: on a shared machine the
wall time also counts the waits for a core) and its peak RSS
(/usr/bin/time), in a temporary XDG_CACHE_HOME:
  - cold (an empty measures cache), then warm (the cold run's cache);
  - in a fresh cache, two runs at once over the two halves of the folders,
    then one over the whole: as quick as warm when neither lost the
    other's measures;
  - `collage book --recursive --pages 50` of the whole (A4, 300 dpi), warm
    (the last cache) and cold (a fresh one): a library's book streams.
Prints a Markdown table; the goals: warm <= 0.04 x cold, the run after the
halves as quick as warm, peak <= 150 MiB cold and warm at 100,000, the
book's too.

usage: library_bench.py COLLAGE WORKDIR [--make-only]
"""
import io
import os
import random
import struct
import shutil
import subprocess
import sys
import tempfile
import time

from PIL import Image, ImageDraw

DAYS = 400
BODIES = 997  # distinct pictures (a prime, so neighbours differ)


def body(seed):
    """A 64 x 48 JPEG of coloured shapes, different for each seed."""
    rng = random.Random(seed)
    image = Image.new("RGB", (64, 48), tuple(rng.randrange(256) for _ in range(3)))
    draw = ImageDraw.Draw(image)
    for _ in range(12):
        x, y, r = rng.randrange(64), rng.randrange(48), rng.randrange(3, 20)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=tuple(rng.randrange(256) for _ in range(3)))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


def exif_segment(date):
    """An APP1 segment: IFD0 -> Exif IFD holding DateTimeOriginal."""
    text = date.encode() + b"\0"
    exif_ifd = 8 + 2 + 12 + 4
    date_at = exif_ifd + 2 + 12 + 4
    tiff = b"II*\0" + struct.pack("<I", 8)
    tiff += struct.pack("<HHHII", 1, 0x8769, 4, 1, exif_ifd) + struct.pack("<I", 0)
    tiff += struct.pack("<HHHII", 1, 0x9003, 2, len(text), date_at) + struct.pack("<I", 0)
    tiff += text
    payload = b"Exif\0\0" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


def folders(root):
    return [os.path.join(root, f"day-{d:03d}") for d in range(DAYS)]


def make_library(root, count):
    done = os.path.join(root, f".made-{count}")
    if os.path.exists(done):
        return
    shutil.rmtree(root, ignore_errors=True)
    bodies = [body(seed) for seed in range(BODIES)]
    start = time.mktime((2020, 1, 1, 9, 0, 0, 0, 0, -1))
    per_day = max(1, count // DAYS)
    for d, folder in enumerate(folders(root)):
        os.makedirs(folder)
        first, last = d * count // DAYS, (d + 1) * count // DAYS
        for i in range(first, last):
            k = i - first
            # Three sessions a day, hours apart, a shot every 40 s in each.
            taken = time.localtime(start + d * 86400 + (k * 3 // per_day) * 4 * 3600 + k * 40)
            jpeg = bodies[(i * 7919) % BODIES]
            with open(os.path.join(folder, f"IMG_{i:06d}.jpg"), "wb") as f:
                f.write(jpeg[:2] + exif_segment(time.strftime("%Y:%m:%d %H:%M:%S", taken)) + jpeg[2:])
    open(done, "w").close()


def timed(command, env):
    """Starts a run: (process, report file, start)."""
    report = tempfile.NamedTemporaryFile("r")
    process = subprocess.Popen(["/usr/bin/time", "-f", "%e %M %U %S", "-o", report.name] + command, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return process, report


def finished(run):
    """Wall seconds, peak RSS (MiB) and CPU seconds of a run started by `timed`."""
    process, report = run
    if process.wait() != 0:
        sys.exit(f"library_bench.py: a run failed ({process.returncode})")
    seconds, kib, user, system = report.read().split()[-4:]
    report.close()
    return float(seconds), int(kib) / 1024, float(user) + float(system)


def main():
    collage, work = sys.argv[1], sys.argv[2]
    count = int(os.environ.get("LIBRARY_BENCH_N", "10000"))
    root = os.path.join(work, f"library-{count}")
    make_library(root, count)
    if "--make-only" in sys.argv:
        return
    suggest = [collage, "suggest", "--recursive", "--events"]
    cache, state = tempfile.mkdtemp(prefix="library-cache-"), tempfile.mkdtemp(prefix="library-state-")
    env = dict(os.environ, XDG_CACHE_HOME=cache, XDG_STATE_HOME=state)
    cold = finished(timed(suggest + [root], env))
    warm = finished(timed(suggest + [root], env))
    shutil.rmtree(cache)
    os.makedirs(cache)
    halves = [timed(suggest + part, env) for part in (folders(root)[:DAYS // 2], folders(root)[DAYS // 2:])]
    halves = [finished(run) for run in halves]
    after = finished(timed(suggest + [root], env))
    pdf = os.path.join(state, "book.pdf")
    book = [collage, "book", "--force", "--recursive", "--pages", "50", root, "-o", pdf]
    book_warm = finished(timed(book, env))
    shutil.rmtree(cache)
    os.makedirs(cache)
    book_cold = finished(timed(book, env))
    for path in (cache, state):
        shutil.rmtree(path, ignore_errors=True)
    print(f"\n### `collage suggest --recursive --events` over {count} small JPEGs in {DAYS} day folders\n")
    print("| run | seconds | x cold | CPU seconds | x cold | peak RSS (MiB) | goal |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")

    def row(name, run, goal):
        print(f"| {name} | {run[0]:.2f} | {run[0] / cold[0]:.3f} | {run[2]:.2f} | {run[2] / cold[2]:.3f} | {run[1]:.0f} | {goal} |")
    row("cold (no cache)", cold, "<= 150 MiB")
    row("warm (cached)", warm, "<= 0.04 x, <= 150 MiB")
    row("two halves at once, fresh cache (the slower)", max(halves), "")
    row("the whole after the halves", after, "as warm")
    row("`book --recursive --pages 50` of the whole, warm", book_warm, "<= 150 MiB")
    row("the same book, cold (a fresh cache)", book_cold, "<= 150 MiB")

if __name__ == "__main__":
    main()
