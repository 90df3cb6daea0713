#!/usr/bin/env python3
"""`make bench`'s part for `collage book` (issue #43's goals).

A trip of 12-megapixel camera JPEGs, each with an EXIF block holding
DateTimeOriginal, a GPS position and a 160 x 120 thumbnail of a scene of its
own, as suggest_bench.py makes them (a few distinct 4000 x 3000 bodies, so
making them takes a minute, not an hour): BOOK_BENCH_N (30) photos in three
events, a day and a town apart. Times, each run cold (a fresh XDG_CACHE_HOME:
nothing measured yet), BENCH_BOOK_RUNS (3) rounds, medians:

  - `collage book TRIP -o book.pdf --pages 4` (A4, 300 dpi): the cover and
    one page of six photos an event, what the pair below makes, and the goal;
  - `collage book TRIP -o book.pdf`: every photo worth showing, two pages
    an event (six and four), for what it costs;
  - what it replaces: `collage suggest TRIP --events --size A4 > list`, then
    `collage batch list --format pdf --size A4 -o out/`, their times added,
    the larger of their peaks as the pair's, and batch's own peak;

and then a book of 100 pages against one of 10 (`--pages`) of a library of
BOOK_BENCH_PAGES_N (700) such photos in events of seven (a page of six each:
the books' pages alike), warm (its measures cached by a first run), so that
only the number of pages differs: the pages are streamed, so the peak should
not grow with them.

Goals (issue #43): book <= 1.1 x the pair's time, its peak <= 1.3 x batch's;
the 100-page book's peak <= 1.1 x the 10-page one's.

usage: book_bench.py COLLAGE WORKDIR
"""
import importlib.util
import io
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from suggest_bench import PICTURES, picture, scene, timed  # noqa: E402
from PIL import Image  # noqa: E402

# make-trip.py's EXIF writer (IFDs, GPS rationals): one place for it.
_spec = importlib.util.spec_from_file_location("make_trip", os.path.join(here, "..", "make-trip.py"))
make_trip = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_trip)

TOWNS = [(43.46311, 11.87831), (43.76956, 11.25581), (43.31822, 11.33064)]  # Arezzo, Florence, Siena


def exif_app1(taken, position, thumbnail):
    """An APP1 segment: IFD0 -> Exif IFD (DateTimeOriginal), GPS IFD, IFD1 (the thumbnail)."""
    block = make_trip.exif_block(taken, position, None)
    payload = block[4:]
    tiff = bytearray(payload[6:])
    # IFD1 after what make_trip wrote, linked from IFD0's next-IFD field.
    ifd1_at = len(tiff)
    count = struct.unpack(">H", tiff[8:10])[0]
    next_field = 8 + 2 + 12 * count
    tiff[next_field:next_field + 4] = struct.pack(">I", ifd1_at)
    thumb_at = ifd1_at + 2 + 2 * 12 + 4
    tiff += struct.pack(">H", 2) + struct.pack(">HHII", 0x0201, 4, 1, thumb_at)
    tiff += struct.pack(">HHII", 0x0202, 4, 1, len(thumbnail)) + struct.pack(">I", 0) + thumbnail
    app1 = b"Exif\0\0" + bytes(tiff)
    return b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1


def make_trip_photos(folder, count, events):
    """`count` photos in `events` events, a day apart, each in one of the towns."""
    done = os.path.join(folder, f".made-{count}-{events}")
    if os.path.exists(done):
        return
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    bodies = []
    for seed in range(PICTURES):
        out = io.BytesIO()
        picture(seed).save(out, "JPEG", quality=90)
        bodies.append(out.getvalue())
    start = time.mktime((2008, 10, 1, 9, 0, 0, 0, 0, -1))
    per_event = count // events
    for i in range(count):
        event = min(i // per_event, events - 1)
        out = io.BytesIO()
        scene(5000 + i).resize((160, 120), Image.BILINEAR).save(out, "JPEG", quality=80)
        taken = time.strftime("%Y:%m:%d %H:%M:%S", time.localtime(start + event * 86400 + (i % per_event) * 300))
        jpeg = bodies[i % PICTURES]
        with open(os.path.join(folder, f"IMG_{i:05d}.jpg"), "wb") as f:
            f.write(jpeg[:2] + exif_app1(taken, TOWNS[event % len(TOWNS)], out.getvalue()) + jpeg[2:])
    open(done, "w").close()


def warm_page_cache(folder):
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), "rb") as f:
            while f.read(1 << 20):
                pass


def cold(command, scratch, stdout=None):
    """One run of `command` with a fresh XDG_CACHE_HOME and XDG_STATE_HOME; (seconds, MiB)."""
    cache, state = tempfile.mkdtemp(dir=scratch), tempfile.mkdtemp(dir=scratch)
    env = dict(os.environ, XDG_CACHE_HOME=cache, XDG_STATE_HOME=state, LC_ALL="C.UTF-8")
    try:
        return timed_to(command, env, stdout)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(state, ignore_errors=True)


def timed_to(command, env, stdout):
    """`timed`, with standard output to the file `stdout` when given."""
    if stdout is None:
        return timed(command, env)
    # suggest_bench's `timed` drops standard output: the list is wanted here.
    with tempfile.NamedTemporaryFile("r") as report, open(stdout, "w") as out:
        start = time.monotonic()
        subprocess.run(["/usr/bin/time", "-v", "-o", report.name] + command, env=env, check=True,
                       stdout=out, stderr=subprocess.DEVNULL)
        seconds = time.monotonic() - start
        rss = next(int(line.split(":")[1]) for line in report.read().splitlines() if "Maximum resident" in line)
    return seconds, rss / 1024


def pdf_pages(path):
    info = subprocess.run(["/usr/bin/pdfinfo", path], capture_output=True, text=True, check=True).stdout
    return int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))


def main():
    collage, work = sys.argv[1], sys.argv[2]
    rounds = int(os.environ.get("BENCH_BOOK_RUNS", "3"))
    count = int(os.environ.get("BOOK_BENCH_N", "30"))
    library_count = int(os.environ.get("BOOK_BENCH_PAGES_N", "700"))
    trip = os.path.join(work, f"book-trip-{count}")
    make_trip_photos(trip, count, 3)
    warm_page_cache(trip)
    scratch = tempfile.mkdtemp(prefix="book-bench-")
    book_runs, whole_runs, pair_runs, batch_runs = [], [], [], []
    pages = {}
    try:
        for _ in range(rounds):
            # Alternating, so that a drift of the machine's speed falls on both.
            pdf = os.path.join(scratch, "book.pdf")
            book_runs.append(cold([collage, "book", trip, "-o", pdf, "--pages", "4"], scratch))
            pages["book"] = pdf_pages(pdf)
            os.remove(pdf)
            whole_runs.append(cold([collage, "book", trip, "-o", pdf], scratch))
            pages["whole"] = pdf_pages(pdf)
            os.remove(pdf)
            listing, out = os.path.join(scratch, "trip.txt"), os.path.join(scratch, "out")
            # The pair shares one cache, as a person's two commands do: fresh for suggest.
            cache, state = tempfile.mkdtemp(dir=scratch), tempfile.mkdtemp(dir=scratch)
            env = dict(os.environ, XDG_CACHE_HOME=cache, XDG_STATE_HOME=state, LC_ALL="C.UTF-8")
            suggest = timed_to([collage, "suggest", trip, "--events", "--size", "A4"], env, listing)
            batch = timed([collage, "batch", listing, "--format", "pdf", "--size", "A4", "-o", out], env)
            pages["batch"] = sum(pdf_pages(os.path.join(out, n)) for n in os.listdir(out) if n.endswith(".pdf"))
            shutil.rmtree(out)
            shutil.rmtree(cache, ignore_errors=True)
            shutil.rmtree(state, ignore_errors=True)
            pair_runs.append((suggest[0] + batch[0], max(suggest[1], batch[1])))
            batch_runs.append(batch)

        library = os.path.join(work, f"book-library-{library_count}")
        make_trip_photos(library, library_count, library_count // 7)
        warm_page_cache(library)
        cache, state = tempfile.mkdtemp(dir=scratch), tempfile.mkdtemp(dir=scratch)
        env = dict(os.environ, XDG_CACHE_HOME=cache, XDG_STATE_HOME=state, LC_ALL="C.UTF-8")
        timed([collage, "book", library, "-o", os.path.join(scratch, "warmup.pdf"), "--pages", "2"], env)  # fills the cache
        long_runs = {}
        for n in (10, 100):
            pdf = os.path.join(scratch, f"book-{n}.pdf")
            long_runs[n] = timed([collage, "book", library, "-o", pdf, "--pages", str(n)], env)
            pages[n] = pdf_pages(pdf)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    def median(runs, i):
        return statistics.median(r[i] for r in runs)

    book_t, book_m = median(book_runs, 0), median(book_runs, 1)
    pair_t, pair_m = median(pair_runs, 0), median(pair_runs, 1)
    batch_m = median(batch_runs, 1)
    print(f"\n### `collage book` of a {count}-photo, three-event trip (12-megapixel JPEGs, A4 at 300 dpi), cold\n")
    print(f"Medians of {rounds} rounds; each run with a fresh XDG_CACHE_HOME.\n")
    print("| run | pages | seconds | x the pair | peak RSS (MiB) | goal |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    print(f"| `suggest --events` then `batch --format pdf` (the pair) | {pages['batch']} | {pair_t:.2f} | 1.00 | {pair_m:.0f} (batch {batch_m:.0f}) | |")
    verdict_t = "met" if book_t <= 1.1 * pair_t else "**missed**"
    verdict_m = "met" if book_m <= 1.3 * batch_m else "**missed**"
    print(f"| `book --pages 4`: the pair's pages and a cover | {pages['book']} | {book_t:.2f} | {book_t / pair_t:.2f} "
          f"| {book_m:.0f} ({book_m / batch_m:.2f} x batch's) | time <= 1.1 x: {verdict_t}; peak <= 1.3 x batch's: {verdict_m} |")
    whole_t, whole_m = median(whole_runs, 0), median(whole_runs, 1)
    print(f"| `book`: every photo worth showing | {pages['whole']} | {whole_t:.2f} | {whole_t / pair_t:.2f} "
          f"| {whole_m:.0f} ({whole_m / batch_m:.2f} x batch's) | |")
    print(f"\n### A book of 100 pages against one of 10, of {library_count} photos in {library_count // 7} events, warm\n")
    print("| run | pages | seconds | peak RSS (MiB) | goal |")
    print("| --- | ---: | ---: | ---: | --- |")
    for n in (10, 100):
        goal = ""
        if n == 100:
            ratio = long_runs[100][1] / long_runs[10][1]
            goal = f"{ratio:.2f} x the 10-page peak (<= 1.1 x: {'met' if ratio <= 1.1 else '**missed**'})"
        print(f"| `book --pages {n}` | {pages[n]} | {long_runs[n][0]:.2f} | {long_runs[n][1]:.0f} | {goal} |")


if __name__ == "__main__":
    main()
