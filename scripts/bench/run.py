#!/usr/bin/env python3
"""Runs the collage benchmark (issue 5) and prints the tables.

Every contender composes the same 3x2 grid of 640x540 cells (centre-cropped
fill) on a 1920x1080 canvas from the same photos, JPEG quality 90 with 4:2:0
chroma. Runs alternate: each round runs every contender once, in an order
that rotates from round to round, after one untimed warm-up run each. Each
run is timed from here (wall, perf_counter) and through /usr/bin/time -f
(user + system CPU and peak RSS of the whole process tree: the largest
process's maximum resident set). The tables give medians.

Quality: each contender writes its collage once more as a PNG (lossless,
untimed), compared with a reference made by ImageMagick without
shrink-on-load (every photo decoded at full size, Lanczos-3 to cover its
cell); PSNR over all RGB samples.

Called by scripts/bench/bench.sh, which builds collage, installs the other
tools and makes the photos. Environment:
  BENCH_RUNS        rounds for W6 (default 11)
  BENCH_BATCH_RUNS  rounds for Batch (default 5)
  BENCH_ONLY        comma-separated contender names to run (default: all)
  BENCH_COLLAGE_EXTRA  "label=binary;..." more collage builds for W6
  BENCH_HEIC_RUNS   rounds for W-HEIC (default 7; 0 skips it)
  BENCH_HEIC_EXTRA  1: W-HEIC times the BENCH_COLLAGE_EXTRA builds too
  BENCH_FORMATS_RUNS rounds for W-TIFF, W-GIF, W-JPEGXL, W-DNG and AVIF out
                    (default 5; 0 skips them; the files: make_formats.sh)
  BENCH_TESTDATA    the conformance data W-HEIC's phone photos come from
                    (default ../shared/testdata beside the repository)
  BENCH_P3_RUNS     rounds for W6-P3 (default 15; 0 skips it)
  BENCH_CROP_RUNS   rounds for W6-crop and W-portraits (default 11; 0 skips them)
  BENCH_LAYOUT_RUNS rounds for W6-layout (default 11; 0 skips it)
  BENCH_TEXT_RUNS   rounds for W6-text (default 11; 0 skips it)
  BENCH_PRINT_RUNS  rounds for W6-print (default 7; 0 skips it)
  BENCH_PICTURE_RUNS rounds for Picture (default 11; 0 skips it)
  BENCH_BANNER      0 skips the banner check (default: it runs, once, untimed)

Issue #23's goals: the last table of the results (goals-23.md in the work
folder, which bench.sh appends after the picker's times) sets each goal of
the issue beside what this run measured, from the tables above it, and says
met or missed: W6-crop's smart / centre (<= 1.15 x), W-portraits' smart /
centre (<= 1.3 x), W6's collage / vips (<= 0.35 x), Batch's collage / vips
x10 (<= 0.33 x), Picture's smart (<= 0.15 s; centre beside it), and the
banner's head kept. Beside the two against vips, the same ratio with
`--crop centre` (W6 and Batch time it too): W6 has no faces and smart then
draws centre's bytes, so that row is what the default would cost were the
face search free, and says whether the bound is within reach at all. A
goal whose workload was skipped (its knob at 0, or vips left out by
BENCH_ONLY) reads "not measured".

Picture (issue 23): the picture of W6 the collage screen shows, 80 columns
wide, with --crop centre and smart (the default), alternating. `collage
preview --width 80 --graphics symbols` draws it through the same
PreviewService.collagePicture as the screen (smart and attention at the
canvas's size, so faces are seen; centre at the picture's). Before each run
W6 is added in a fresh state folder, untimed; the timed script execs the
preview, so the wall, CPU and peak RSS are the preview process's alone.

W6-print (issue #34): W6 on an A4 canvas at 300 dpi (2480x3508, the default
layout) saved as a PDF and as a JPEG, alternating; the goals are the PDF at
most 1.3 x the JPEG's wall and 1.5 x its size. Beside them ImageMagick
wrapping that JPEG in a PDF (`convert collage.jpg -density 300 collage.pdf`,
the JPEG made once, untimed). Debian's ImageMagick policy forbids writing
PDF, so as root its runs have a policy that allows it bind-mounted over
/etc/ImageMagick-6/policy.xml in a mount namespace of their own (unshare:
a few milliseconds of each run); elsewhere that row is left out.

Banner (issue 23): the cameraman of SampleImages (his face in profile,
512 x 512) added twice and planned on a 3000 x 500 canvas, `save --dry-run
--json`: the grid's two cells are 1500 x 500 (3:1), so centre shows his rows
171-341 and cuts his head (rows 65-200). Reports the rows the first cell
shows with centre and with smart, and whether smart keeps the head.

W6-text (issue 20): W6 plain, and titled with every photo captioned by its
name (Pango and Cairo loaded, seven runs laid out and drawn); then the same
pair on a 64x64 canvas, where the photos cost little, so the difference is
the first text's cost in a process (loading the libraries, fontconfig's
configuration, the first font).

W6-layout (issue 19; auto the default since issue 31): W6 with the default
layout, with `--layout auto` named (the same bytes, and the same time within
noise) and with `--layout grid` (every other W6 row's layout, as the other
tools draw it; auto reads the six headers to plan); then auto's search alone,
timed by the binary itself (COLLAGE_TRACE_LAYOUT=1 on a dry run).

W6-P3 (issue 12): the W6 photos again, each tagged Display P3 (the profile
arrow.heic carries, in an APP2 marker): collage on W6 and on W6-P3,
alternating, so the difference is what converting the colours costs.

W6-crop and W-portraits (issue 13): what placing crops costs. collage on
W6 with --crop centre, smart (the default: W6 has no faces and no EXIF
subject, so smart looks for faces and draws exactly what centre draws) and
attention; then the same on six portraits with a face near the top
(scripts/bench/make_portraits.py), alternating.

W-HEIC (issue 12): six 12-megapixel iPhone HEICs (arrow.heic and pug.heic,
three of each, read in place from the conformance data) into the same grid,
against vips and ImageMagick on the same files. No PSNR: collage converts
their Display P3 colours to sRGB and the others keep them as coded, so a
pixel comparison would measure the colour handling, not the scaling.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from shlex import quote as sh_quote

import numpy as np
from PIL import Image

CANVAS = (1920, 1080)
COLUMNS, ROWS = 3, 2
CELL = (640, 540)
QUALITY = 90
PICTURE_COLUMNS = 80
# The banner check (issue 23): the cameraman, a face in profile, twice in a
# 3000 x 500 grid (two 1500 x 500 cells, 3:1, so centre shows the middle
# third of his 512 rows, 171-341); his head is rows 65-200 of the photo.
BANNER_SIZE = "3000x500"
BANNER_HEAD_ROWS = (65, 200)
# W6-print (issue #34): an A4 page at 300 dpi, in pixels.
A4_PIXELS = (2480, 3508)


class Contender:
    def __init__(self, name, script, rounds_limit=None, psnr=True, setup=None):
        self.name = name
        self.script = script          # f(out_path, fmt) -> bash script text
        self.setup = setup            # None, or f(out_path) -> bash script run untimed before each run
        self.rounds_limit = rounds_limit
        self.psnr = psnr
        self.runs = []                # (wall, cpu, rss_kib)
        self.quality = None


def time_run(script, env, scratch):
    """Runs `script` with bash under /usr/bin/time; returns (wall s, cpu s, peak KiB)."""
    report = os.path.join(scratch, "time.txt")
    started = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", report, "bash", "-c", script],
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit("benchmark command failed (%d):\n%s\n%s" % (done.returncode, script,
                                                             done.stderr.decode(errors="replace")))
    with open(report) as f:
        user, system, rss = f.read().split()[-3:]
    return wall, float(user) + float(system), int(rss)


def read_ppm16(convert, path):
    """An image as float RGB on the 0-255 scale, read at 16 bits through ImageMagick."""
    data = subprocess.run([convert, path, "-depth", "16", "ppm:-"], check=True,
                          capture_output=True).stdout
    magic, size, maxval, pixels = data.split(b"\n", 3)
    width, height = map(int, size.split())
    assert magic == b"P6" and maxval == b"65535"
    return np.frombuffer(pixels, dtype=">u2").reshape(height, width, 3).astype(np.float64) / 257.0


def psnr(path, reference):
    """PSNR of an 8-bit image against the 16-bit reference (read_ppm16)."""
    a = np.asarray(Image.open(path).convert("RGB"), dtype=np.float64)
    if a.shape != reference.shape:
        return float("nan")
    mse = np.mean((a - reference) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def make_reference(convert, photos, out):
    """Full-resolution decode, Lanczos-3 cover, centre crop: the quality reference.

    Written with 16-bit samples: ImageMagick 6.9.11 (Q16) writing 8 bits
    truncates, which puts its own 8-bit output half a level below the exact
    result everywhere (mean error -0.50) and would cost every other tool about
    3 dB against it. At 16 bits the reference carries no such bias (an exact
    double-precision Lanczos-3 of the same decode, rounded to 8 bits, scores
    58.9 dB against it on W6's photo 1)."""
    if os.path.exists(out):
        return
    cell = "%dx%d" % CELL
    args = [convert]
    for row in range(ROWS):
        args.append("(")
        for column in range(COLUMNS):
            args += ["(", photos[row * COLUMNS + column], "-filter", "Lanczos", "-resize", cell + "^",
                     "-gravity", "center", "-extent", cell, ")"]
        args += ["+append", ")"]
    args += ["-append", "-depth", "16", out + ".tmp.png"]
    subprocess.run(args, check=True)
    os.replace(out + ".tmp.png", out)


def prepare(contender, out, env):
    """Runs the contender's untimed setup for a run writing `out`, if it has one."""
    if contender.setup:
        subprocess.run(["bash", "-c", contender.setup(out)], env=env, check=True, stdout=subprocess.DEVNULL)


def run_rounds(contenders, rounds, env, scratch, outdir, label):
    for c in contenders:  # warm-up: page cache, shared libraries, state folders
        warm = os.path.join(outdir, "warm-%s-%s" % (safe(label), safe(c.name)))
        prepare(c, warm, env)
        time_run(c.script(warm, "jpg"), env, scratch)
        remove(warm)
    for r in range(rounds):
        order = contenders[r % len(contenders):] + contenders[:r % len(contenders)]
        for c in order:
            if c.rounds_limit is not None and len(c.runs) >= c.rounds_limit:
                continue
            target = os.path.join(outdir, "run-%s-%s-%d" % (safe(label), safe(c.name), r))
            prepare(c, target, env)
            c.runs.append(time_run(c.script(target, "jpg"), env, scratch))
            remove(target)
        print("%s: round %d/%d done" % (label, r + 1, rounds), file=sys.stderr)


def safe(name):
    return "".join(ch if ch.isalnum() else "-" for ch in name)


def remove(path):
    for candidate in (path, path + ".jpg", path + ".png", path + ".pdf"):
        if os.path.isdir(candidate):
            shutil.rmtree(candidate, ignore_errors=True)
        elif os.path.exists(candidate):
            os.remove(candidate)


def table(contenders, baseline_name, title):
    base = statistics.median(r[0] for r in next(c for c in contenders if c.name == baseline_name).runs)
    lines = ["| %s | wall (median) | CPU (user+sys) | peak RSS | PSNR vs reference | wall / collage |" % title,
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for c in contenders:
        if not c.runs:
            continue
        wall = statistics.median(r[0] for r in c.runs)
        cpu = statistics.median(r[1] for r in c.runs)
        rss = statistics.median(r[2] for r in c.runs) / 1024.0
        quality = "reference" if c.quality == "reference" else (
            "%.1f dB" % c.quality if isinstance(c.quality, float) else "")
        lines.append("| %s | %.3f s | %.2f s | %.1f MiB | %s | %.2f |" % (
            c.name, wall, cpu, rss, quality, wall / base))
    lines.append("")
    lines.append("Runs per row: " + ", ".join("%s %d" % (c.name, len(c.runs)) for c in contenders if c.runs)
                 + ". Spread (min-max wall): " + ", ".join(
                     "%s %.3f-%.3f" % (c.name, min(r[0] for r in c.runs), max(r[0] for r in c.runs))
                     for c in contenders if c.runs) + ".")
    return "\n".join(lines)


def layout_bytes_identical(a, b, env, outdir):
    """Whether two contenders' W6 JPEGs are the same bytes."""
    files = []
    for c in (a, b):
        target = os.path.join(outdir, "bytes-" + safe(c.name))
        subprocess.run(["bash", "-c", c.script(target, "jpg")], env=env, check=True, stdout=subprocess.DEVNULL)
        with open(target + ".jpg", "rb") as f:
            files.append(f.read())
    return files[0] == files[1]


def layout_search_times(collage, photos, env, scratch):
    """`auto`'s planning time alone, on W6 and on a mixed six (two portraits,
    two landscapes, a panorama, a square, made by cropping W6's photos)."""
    from PIL import Image
    mixed_dir = tempfile.mkdtemp(prefix="mixed-", dir=scratch)
    mixed = []
    for i, (w, h) in enumerate([(3, 4), (3, 4), (4, 3), (4, 3), (3, 1), (1, 1)]):
        path = os.path.join(mixed_dir, "m%d.jpg" % i)
        Image.new("RGB", (w * 200, h * 200), (40 * i, 90, 140)).save(path, quality=90)
        mixed.append(path)
    results = []
    for name, files, size in (("W6 on 1920x1080", photos, "1920x1080"), ("W6 on 1080x1920", photos, "1080x1920"),
                              ("the mixed six on 1920x1080", mixed, "1920x1080")):
        state = tempfile.mkdtemp(prefix="state-", dir=scratch)
        run_env = dict(env, XDG_STATE_HOME=state, COLLAGE_TRACE_LAYOUT="1")
        subprocess.run([collage, "add"] + files, env=run_env, check=True, stdout=subprocess.DEVNULL)
        out = subprocess.run([collage, "save", "--dry-run", "--layout", "auto", "--crop", "centre", "--size", size],
                             env=run_env, capture_output=True, text=True, check=True)
        line = [l for l in out.stderr.splitlines() if l.startswith("layout:")]
        results.append("%s %s" % (name, line[0].split(" planned in ")[1].split(" (")[0] if line else "?"))
        shutil.rmtree(state, ignore_errors=True)
    return results


def banner_rows(collage, photo, env, scratch):
    """The rows of `photo` the banner's first cell shows, by crop: {crop: (first, end)}
    (end exclusive), from `save --dry-run --json` (untimed; the crop is the
    engine's own, as `save` would draw it)."""
    state = tempfile.mkdtemp(prefix="state-", dir=scratch)
    run_env = dict(env, XDG_STATE_HOME=state)
    try:
        subprocess.run([collage, "add", photo, photo], env=run_env, check=True, stdout=subprocess.DEVNULL)
        rows = {}
        for crop in ("centre", "smart"):
            out = subprocess.run([collage, "save", "--dry-run", "--json", "--size", BANNER_SIZE, "--layout", "grid",
                                  "--crop", crop],
                                 env=run_env, capture_output=True, text=True, check=True).stdout
            shown = json.loads(out)["photos"][0]["shown"]
            rows[crop] = (shown["y"], shown["y"] + shown["height"])
        return rows
    finally:
        shutil.rmtree(state, ignore_errors=True)


def head_kept(rows):
    """Whether rows (first, end) shown of the cameraman hold his head."""
    return rows[0] <= BANNER_HEAD_ROWS[0] and rows[1] >= BANNER_HEAD_ROWS[1]


def median_wall(contenders, name):
    """The median wall of the contender called `name`, or None where it did not run."""
    found = [c for c in contenders if c.name == name and c.runs]
    return statistics.median(r[0] for r in found[0].runs) if found else None


def goals_table(rows):
    """Issue 23's goals as measured in this run, from rows of (goal,
    measured, goal text, met): met None where the run did not measure it."""
    lines = ["| Issue #23 goals | measured in this run | goal | |", "| --- | ---: | ---: | --- |"]
    for goal, measured, wanted, met in rows:
        verdict = ("not measured" if met is None else "for comparison" if met == "context"
                   else "for comparison, %s the bound" % ("under" if met[1] else "over") if isinstance(met, tuple)
                   else "**met**" if met else "**missed**")
        lines.append("| %s | %s | %s | %s |" % (goal, measured if met is not None else "", wanted, verdict))
    return "\n".join(lines)


def context(row):
    """A goals_table row shown beside a goal, not a goal itself: its
    verdict says only whether the goal's bound would hold."""
    goal, measured, wanted, met = row
    return row if met is None else (goal, measured, wanted, ("context", met))


def ratio_goal(goal, numerator, denominator, limit, what):
    """A goals_table row for a ratio of two median walls (None: not measured)."""
    if numerator is None or not denominator:
        return (goal, "", "<= %.2f x" % limit, None)
    value = numerator / denominator
    return (goal, "%.3f x (%.3f s / %.3f s, %s)" % (value, numerator, denominator, what), "<= %.2f x" % limit,
            value <= limit)


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: run.py COLLAGE_BINARY PHOTO_DIR WORK_DIR RESULTS_FILE")
    collage, photo_dir, work, results = sys.argv[1:]
    extra_builds = [item.split("=", 1) for item in os.environ.get("BENCH_COLLAGE_EXTRA", "").split(";") if "=" in item]
    photos = [os.path.join(photo_dir, "photo-%d.jpg" % i) for i in range(1, 7)]
    vips, convert, montage = "/usr/bin/vips", "/usr/bin/convert", "/usr/bin/montage"
    python = "/usr/bin/python3"
    here = os.path.dirname(os.path.abspath(__file__))
    pillow_script = os.path.join(here, "pillow_collage.py")
    rounds = int(os.environ.get("BENCH_RUNS", "11"))
    batch_rounds = int(os.environ.get("BENCH_BATCH_RUNS", "5"))
    only = set(filter(None, os.environ.get("BENCH_ONLY", "").split(",")))

    os.makedirs(work, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="scratch-", dir=work)
    outdir = tempfile.mkdtemp(prefix="out-", dir=work)
    env = dict(os.environ)
    env["LC_ALL"] = "C"
    quoted = " ".join(sh_quote(p) for p in photos)

    # --- W6 contenders: bash scripts writing OUT.{jpg,png} ---
    def collage_on(files, extra="", binary=collage, layout="grid", canvas=CANVAS):
        """`binary add FILES`, then save with the W6 options and `extra`: two
        processes, in a fresh state folder per run, as a user would. In the
        grid (3 x 2 on the W6 canvas), as vips, ImageMagick and Pillow draw it,
        so every contender does the same work; layout=None: the default (auto)."""
        listed = " ".join(sh_quote(p) for p in files)
        if layout:
            extra = "--layout %s %s" % (layout, extra)
        def script(out, fmt):
            return ("state=$(mktemp -d %s/state-XXXXXX) && export XDG_STATE_HOME=$state && "
                    "%s add %s >/dev/null && %s save -o %s --size %dx%d --quality %d %s >/dev/null; "
                    "rc=$?; rm -rf \"$state\"; exit $rc") % (
                        sh_quote(scratch), sh_quote(binary), listed, sh_quote(binary),
                        sh_quote(out + "." + fmt), canvas[0], canvas[1], QUALITY, extra)
        return script


    def vips_w6(out, fmt):
        target = out + "." + fmt + ("[Q=%d,subsample-mode=on]" % QUALITY if fmt == "jpg" else "")
        thumbs = " ".join("$d/%d.v" % i for i in range(6))
        lines = ["d=$(mktemp -d %s/vips-XXXXXX)" % sh_quote(scratch)]
        for i, p in enumerate(photos):
            lines.append("%s thumbnail %s $d/%d.v %d --height %d --crop centre &" % (
                vips, sh_quote(p), i, CELL[0], CELL[1]))
        lines.append("wait")
        lines.append("%s arrayjoin \"%s\" %s --across %d; rc=$?" % (vips, thumbs, sh_quote(target), COLUMNS))
        lines.append("rm -rf \"$d\"; exit $rc")
        return "\n".join(lines)

    def magick_w6(out, fmt):
        cell = "%dx%d" % CELL
        size = "%dx%d" % (2 * CELL[0] * 9 // 8, 2 * CELL[1])  # twice the covered size, as IM advises
        extra = "-quality %d -sampling-factor 2x2" % QUALITY if fmt == "jpg" else "-depth 8"
        return ("%s -define jpeg:size=%s %s -thumbnail %s^ -gravity center -extent %s "
                "-tile %dx%d -geometry +0+0 %s %s") % (
                    montage, size, quoted, cell, cell, COLUMNS, ROWS, extra, sh_quote(out + "." + fmt))

    def pillow_w6(out, fmt):
        return "%s %s %s %s" % (python, sh_quote(pillow_script), sh_quote(out + "." + fmt), quoted)

    def reference_w6(out, fmt):
        cell = "%dx%d" % CELL
        parts = []
        for row in range(ROWS):
            parts.append("\\( " + " ".join(
                "\\( %s -filter Lanczos -resize %s^ -gravity center -extent %s \\)" % (
                    sh_quote(photos[row * COLUMNS + c]), cell, cell) for c in range(COLUMNS)) + " +append \\)")
        extra = "-quality %d -sampling-factor 2x2" % QUALITY if fmt == "jpg" else "-depth 8"
        return "%s %s -append %s %s" % (convert, " ".join(parts), extra, sh_quote(out + "." + fmt))

    def floor_w6(out, fmt):
        # Not a collage: libjpeg-turbo decoding the six photos at 1/4 scale,
        # two at a time, output discarded.
        return "printf '%%s\\n' %s | xargs -P 2 -I{} sh -c 'djpeg -scale 1/4 \"$1\" >/dev/null' _ {}" % quoted

    # `--crop centre` beside the default: it is what smart costs where the
    # face search would cost nothing (smart draws the same bytes when no
    # face is found, and W6 has none), so the run shows how close to vips
    # the default could come with faces free (issue 23).
    w6 = [Contender("collage", collage_on(photos)),
          Contender("collage --crop centre", collage_on(photos, "--crop centre"), psnr=False)]
    w6 += [Contender(label, collage_on(photos, binary=binary)) for label, binary in extra_builds]
    w6 += [Contender("vips", vips_w6), Contender("ImageMagick (jpeg:size)", magick_w6),
           Contender("Pillow (draft)", pillow_w6),
           Contender("ImageMagick (full decode)", reference_w6, rounds_limit=3),
           Contender("floor: djpeg -scale 1/4, 2 at a time", floor_w6, psnr=False)]
    if only:
        w6 = [c for c in w6 if c.name in only or c.name == "collage"]

    # --- Batch: ten W6 collages (the six photos, rotated) ---
    orders = [photos[k:] + photos[:k] for k in range(10)]
    list_file = os.path.join(scratch, "batch.txt")
    with open(list_file, "w") as f:
        f.write("\n\n".join("\n".join(order) for order in orders) + "\n")

    def collage_batch_with(extra):
        def script(out, fmt):
            # The grid, as the ten vips runs draw it (auto is the default).
            return "%s batch %s -o %s --format %s --size %dx%d --layout grid --quality %d %s >/dev/null" % (
                sh_quote(collage), sh_quote(list_file), sh_quote(out), fmt, CANVAS[0], CANVAS[1], QUALITY, extra)
        return script

    def repeat(single):
        def script(out, fmt):
            lines = ["mkdir -p %s" % sh_quote(out)]
            for k, order in enumerate(orders):
                lines.append("( %s ) || exit 1" % single(order, os.path.join(out, "collage-%03d" % (k + 1)), fmt))
            return "\n".join(lines)
        return script

    def vips_one(order, out, fmt):
        target = out + "." + fmt + ("[Q=%d,subsample-mode=on]" % QUALITY if fmt == "jpg" else "")
        lines = ["d=$(mktemp -d %s/vips-XXXXXX)" % sh_quote(scratch)]
        for i, p in enumerate(order):
            lines.append("%s thumbnail %s $d/%d.v %d --height %d --crop centre &" % (
                vips, sh_quote(p), i, CELL[0], CELL[1]))
        lines.append("wait")
        lines.append("%s arrayjoin \"%s\" %s --across %d; rc=$?" % (
            vips, " ".join("$d/%d.v" % i for i in range(6)), sh_quote(target), COLUMNS))
        lines.append("rm -rf \"$d\"; exit $rc")
        return "\n".join(lines)

    def magick_one(order, out, fmt):
        cell = "%dx%d" % CELL
        size = "%dx%d" % (2 * CELL[0] * 9 // 8, 2 * CELL[1])
        extra = "-quality %d -sampling-factor 2x2" % QUALITY if fmt == "jpg" else "-depth 8"
        return "%s -define jpeg:size=%s %s -thumbnail %s^ -gravity center -extent %s -tile %dx%d -geometry +0+0 %s %s" % (
            montage, size, " ".join(sh_quote(p) for p in order), cell, cell, COLUMNS, ROWS, extra,
            sh_quote(out + "." + fmt))

    def pillow_batch(out, fmt):
        return "mkdir -p %s && %s %s --batch %s %s %s" % (
            sh_quote(out), python, sh_quote(pillow_script), sh_quote(list_file), sh_quote(out), fmt)

    batch = [Contender("collage batch", collage_batch_with(""), psnr=False),
             Contender("collage batch --crop centre", collage_batch_with("--crop centre"), psnr=False),
             Contender("vips x10", repeat(vips_one), psnr=False),
             Contender("ImageMagick x10", repeat(magick_one), psnr=False),
             Contender("Pillow (one process, 10 collages)", pillow_batch, psnr=False)]
    if only:
        batch = [c for c in batch if c.name in only or c.name.startswith("collage batch")]

    # --- W-HEIC: phone HEICs ---
    heic_rounds = int(os.environ.get("BENCH_HEIC_RUNS", "7"))
    testdata = os.environ.get("BENCH_TESTDATA", os.path.join(here, "..", "..", "..", "shared", "testdata"))
    heif_dir = os.path.join(testdata, "heif", "pillow-heif")
    heics = [os.path.join(heif_dir, name) for name in ["arrow.heic", "pug.heic"] * 3]
    heic = []
    if heic_rounds > 0 and all(os.path.exists(p) for p in heics):
        heic_quoted = " ".join(sh_quote(p) for p in heics)

        def vips_heic(out, fmt):
            return vips_one(heics, out, fmt)

        def magick_heic(out, fmt):
            cell = "%dx%d" % CELL
            extra = "-quality %d -sampling-factor 2x2" % QUALITY if fmt == "jpg" else "-depth 8"
            return "%s %s -thumbnail %s^ -gravity center -extent %s -tile %dx%d -geometry +0+0 %s %s" % (
                montage, heic_quoted, cell, cell, COLUMNS, ROWS, extra, sh_quote(out + "." + fmt))

        heic = [Contender("collage", collage_on(heics), psnr=False)]
        # The extra builds too, when asked (BENCH_HEIC_EXTRA=1): one that
        # cannot read HEIC would fail its runs.
        if os.environ.get("BENCH_HEIC_EXTRA") == "1":
            heic += [Contender(label, collage_on(heics, binary=binary), psnr=False) for label, binary in extra_builds]
        heic += [Contender("vips", vips_heic, psnr=False),
                 Contender("ImageMagick", magick_heic, rounds_limit=3, psnr=False)]
        if only:
            heic = [c for c in heic if c.name in only or c.name == "collage"]
    elif heic_rounds > 0:
        print("W-HEIC skipped: %s is absent" % heif_dir, file=sys.stderr)

    # --- W-formats (issue #22): W6's photos as TIFF, GIF, JPEG XL and DNG ---
    formats_rounds = int(os.environ.get("BENCH_FORMATS_RUNS", "5"))
    formats_dir = os.path.join(os.path.dirname(photos[0]), "..", "formats")
    workloads = []  # (title, contenders)
    if formats_rounds > 0 and os.path.isdir(formats_dir):
        for kind, ext in [("TIFF", "tif"), ("GIF", "gif"), ("JPEG XL", "jxl"), ("DNG", "dng")]:
            files = [os.path.join(formats_dir, ext if ext != "tif" else "tiff", "photo-%d.%s" % (i, ext)) for i in range(1, 7)]
            if not all(os.path.exists(f) for f in files):
                continue
            contenders = [Contender("collage", collage_on(files), psnr=False)]
            # vips where it reads the format (its Debian build has no libraw).
            if subprocess.run(["/usr/bin/vipsheader", files[0]], capture_output=True).returncode == 0:
                contenders.append(Contender("vips", lambda out, fmt, files=files: vips_one(files, out, fmt), psnr=False))
            # ImageMagick where it reads the format (Debian's 6.9 has no JPEG XL delegate).
            if subprocess.run(["/usr/bin/identify", files[0]], capture_output=True).returncode == 0:
                contenders.append(Contender("ImageMagick", lambda out, fmt, files=files: magick_one(files, out, fmt),
                                            rounds_limit=3, psnr=False))
            if ext == "dng" and shutil.which("dcraw_emu"):
                # libraw's own tool: six half-size demosaics, two at a time (no collage).
                def dcraw(out, fmt, files=files):
                    return "d=$(mktemp -d %s/dcraw-XXXXXX); for f in %s; do cp \"$f\" $d/; done; " \
                           "ls $d/*.dng | xargs -P 2 -n 1 dcraw_emu -h -T; rc=$?; rm -rf $d; exit $rc" % (
                               sh_quote(scratch), " ".join(sh_quote(f) for f in files))
                contenders.append(Contender("dcraw_emu -h (decode only)", dcraw, psnr=False))
            workloads.append(("W-%s (6 x 12 MP %s)" % (kind.replace(" ", ""), kind), contenders))

    # --- AVIF out (issue #22): W6 saved as AVIF against the same as JPEG ---
    avif = []
    if formats_rounds > 0:
        avif = [Contender("collage -o .jpg", collage_on(photos), psnr=False),
                Contender("collage -o .avif", lambda out, fmt: collage_on(photos)(out, "avif"), psnr=False)]

    # --- W6-P3: the same photos tagged Display P3 ---
    p3_rounds = int(os.environ.get("BENCH_P3_RUNS", "15"))
    p3 = []
    arrow = os.path.join(heif_dir, "arrow.heic")
    if p3_rounds > 0 and os.path.exists(arrow):
        data = open(arrow, "rb").read()
        at = data.find(b"colrprof")
        size = int.from_bytes(data[at - 4:at], "big")
        profile = data[at + 8:at - 4 + size]
        segment = b"ICC_PROFILE\x00\x01\x01" + profile
        app2 = b"\xff\xe2" + (len(segment) + 2).to_bytes(2, "big") + segment
        p3_dir = os.path.join(work, "w6-p3")
        os.makedirs(p3_dir, exist_ok=True)
        for p in photos:
            jpeg = open(p, "rb").read()
            with open(os.path.join(p3_dir, os.path.basename(p)), "wb") as f:
                f.write(jpeg[:2] + app2 + jpeg[2:])
        p3_photos = [os.path.join(p3_dir, os.path.basename(p)) for p in photos]

        p3 = [Contender("collage, W6 untagged", collage_on(photos), psnr=False),
              Contender("collage, W6 tagged Display P3", collage_on(p3_photos), psnr=False)]
    elif p3_rounds > 0:
        print("W6-P3 skipped: %s is absent" % arrow, file=sys.stderr)

    # --- W6-crop and W-portraits: what placing crops costs ---
    crop_rounds = int(os.environ.get("BENCH_CROP_RUNS", "11"))
    crops, portraits = [], []
    if crop_rounds > 0:
        portrait_dir = os.path.join(work, "portraits")
        if not os.path.exists(os.path.join(portrait_dir, "portrait-6.jpg")):
            subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "make_portraits.py"),
                            os.path.dirname(photos[0]), portrait_dir], check=True)
        portrait_photos = [os.path.join(portrait_dir, "portrait-%d.jpg" % i) for i in range(1, 7)]

        crops = [Contender("collage --crop %s" % c, collage_on(photos, "--crop " + c), psnr=False)
                 for c in ("centre", "smart", "attention")]
        portraits = [Contender("collage --crop %s" % c, collage_on(portrait_photos, "--crop " + c), psnr=False)
                     for c in ("centre", "smart", "attention")]

    # --- Picture (issue 23): the collage screen's picture of W6, 80 columns ---
    # `collage preview` draws it through the same PreviewService.collagePicture
    # as the collage screen. W6 is added in a fresh state folder before each
    # run, untimed; the timed script execs the preview, so its wall is the
    # preview process's alone.
    picture_rounds = int(os.environ.get("BENCH_PICTURE_RUNS", "11"))
    pictures = []
    if picture_rounds > 0:
        def picture_setup(out):
            return "mkdir -p %s && XDG_STATE_HOME=%s %s add %s >/dev/null" % (
                sh_quote(out), sh_quote(out), sh_quote(collage), quoted)

        def picture_on(crop):
            def script(out, fmt):
                return "XDG_STATE_HOME=%s exec %s preview --width %d --graphics symbols --crop %s" % (
                    sh_quote(out), sh_quote(collage), PICTURE_COLUMNS, crop)
            return script
        pictures = [Contender("collage preview --crop centre", picture_on("centre"), psnr=False, setup=picture_setup),
                    Contender("collage preview --crop smart (the default)", picture_on("smart"), psnr=False,
                              setup=picture_setup)]

    # --- W6-layout (issue 19): the grid named explicitly, and auto ---
    layout_rounds = int(os.environ.get("BENCH_LAYOUT_RUNS", "11"))
    layouts = []
    if layout_rounds > 0:
        layouts = [Contender("collage (default)", collage_on(photos, layout=None), psnr=False),
                   Contender("collage --layout auto", collage_on(photos, layout="auto"), psnr=False),
                   Contender("collage --layout grid", collage_on(photos), psnr=False)]

    # --- W6-text (issue 20): a title and six captions, and the first text's cost ---
    text_rounds = int(os.environ.get("BENCH_TEXT_RUNS", "11"))
    texts, first_text = [], []
    if text_rounds > 0:
        titled = "--title 'Summer 2026 · Καλοκαίρι' --caption name"
        texts = [Contender("collage (default)", collage_on(photos), psnr=False),
                 Contender("collage --title T --caption name", collage_on(photos, titled), psnr=False)]
        first_text = [Contender("collage --size 64x64", collage_on(photos[:2], "--size 64x64"), psnr=False),
                      Contender("collage --size 64x64 --title T", collage_on(photos[:2], "--size 64x64 --title T"),
                                psnr=False)]

    # --- W6-print (issue #34): W6 on an A4 page at 300 dpi, PDF against JPEG ---
    print_rounds = int(os.environ.get("BENCH_PRINT_RUNS", "7"))
    prints = []
    if print_rounds > 0:
        on_a4 = collage_on(photos, "--dpi 300", layout=None, canvas=A4_PIXELS)
        print_jpeg = os.path.join(work, "print-w6")
        subprocess.run(["bash", "-c", on_a4(print_jpeg, "jpg")], env=env, check=True, stdout=subprocess.DEVNULL)
        prints = [Contender("collage -o .jpg", on_a4, psnr=False),
                  Contender("collage -o .pdf", lambda out, fmt: on_a4(out, "pdf"), psnr=False)]
        if os.geteuid() == 0 and shutil.which("unshare"):
            policy = os.path.join(work, "imagemagick-policy.xml")
            with open("/etc/ImageMagick-6/policy.xml") as f:
                allowed = f.read().replace('<policy domain="coder" rights="none" pattern="PDF" />',
                                           '<policy domain="coder" rights="read|write" pattern="PDF" />')
            with open(policy, "w") as f:
                f.write(allowed)

            def magick_pdf(out, fmt):
                return ("unshare --mount sh -c 'mount --bind \"$1\" /etc/ImageMagick-6/policy.xml && shift && exec \"$@\"' "
                        "_ %s %s %s -density 300 %s") % (sh_quote(policy), convert, sh_quote(print_jpeg + ".jpg"),
                                                         sh_quote(out + ".pdf"))
            prints.append(Contender("ImageMagick: convert collage.jpg -density 300 collage.pdf", magick_pdf, psnr=False))
        else:
            print("W6-print: ImageMagick's PDF left out (Debian's policy forbids writing PDF; as root "
                  "the bench allows it in a mount namespace of its own)", file=sys.stderr)

    # --- Quality ---
    reference_file = os.path.join(work, "reference-w6-16bit.png")
    make_reference(convert, photos, reference_file)
    reference = read_ppm16(convert, reference_file)
    for c in w6:
        if not c.psnr:
            continue
        if c.name == "ImageMagick (full decode)":
            c.quality = "reference"
            continue
        target = os.path.join(outdir, "quality-" + safe(c.name))
        subprocess.run(["bash", "-c", c.script(target, "png")], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        c.quality = psnr(target + ".png", reference)
        os.replace(target + ".png", os.path.join(work, "quality-%s.png" % safe(c.name)))
    print("quality done", file=sys.stderr)

    load_before = open("/proc/loadavg").read().split()[:3]
    run_rounds(w6, rounds, env, scratch, outdir, "W6")
    if batch_rounds > 0:
        run_rounds(batch, batch_rounds, env, scratch, outdir, "Batch")
    if heic:
        run_rounds(heic, heic_rounds, env, scratch, outdir, "W-HEIC")
    for title, contenders in workloads:
        run_rounds(contenders, formats_rounds, env, scratch, outdir, title)
    if avif:
        run_rounds(avif, formats_rounds, env, scratch, outdir, "AVIF out")
    if p3:
        run_rounds(p3, p3_rounds, env, scratch, outdir, "W6-P3")
    if crops:
        run_rounds(crops, crop_rounds, env, scratch, outdir, "W6-crop")
        run_rounds(portraits, crop_rounds, env, scratch, outdir, "W-portraits")
    if pictures:
        run_rounds(pictures, picture_rounds, env, scratch, outdir, "Picture")
    banner = None
    if os.environ.get("BENCH_BANNER", "1") != "0":
        banner = banner_rows(collage, os.path.join(here, "..", "..", "SampleImages", "cameraman-grayscale.jpg"),
                             env, scratch)
    if layouts:
        run_rounds(layouts, layout_rounds, env, scratch, outdir, "W6-layout")
    if texts:
        run_rounds(texts, text_rounds, env, scratch, outdir, "W6-text")
        run_rounds(first_text, text_rounds, env, scratch, outdir, "first text")
    if prints:
        run_rounds(prints, print_rounds, env, scratch, outdir, "W6-print")
    load_after = open("/proc/loadavg").read().split()[:3]

    busy = subprocess.run(["ps", "-eo", "pcpu,ni,comm", "--sort=-pcpu"], capture_output=True,
                          text=True).stdout.splitlines()[1:6]
    report = [table(w6, "collage", "W6"), ""]
    if batch_rounds > 0:
        report += [table(batch, "collage batch", "Batch (10 x W6)"), ""]
    if heic:
        report += [table(heic, "collage", "W-HEIC (6 x 12 MP HEIC)")]
        vips_runs = [c for c in heic if c.name == "vips" and c.runs]
        if vips_runs:
            ours = statistics.median(r[0] for r in heic[0].runs)
            theirs = statistics.median(r[0] for r in vips_runs[0].runs)
            report += ["", "W-HEIC: collage's wall is %.2f x vips's; peak RSS %.1f vs %.1f MiB." % (
                ours / theirs, statistics.median(r[2] for r in heic[0].runs) / 1024.0,
                statistics.median(r[2] for r in vips_runs[0].runs) / 1024.0)]
        report += [""]
    for title, contenders in workloads:
        report += [table(contenders, "collage", title), ""]
    if avif:
        report += [table(avif, "collage -o .jpg", "AVIF out: W6 saved as AVIF (libaom speed 8) and as JPEG"), ""]
    if p3:
        report += [table(p3, "collage, W6 untagged", "W6-P3 (colour conversion)")]
        plain = statistics.median(r[0] for r in p3[0].runs)
        tagged = statistics.median(r[0] for r in p3[1].runs)
        cpu_plain = statistics.median(r[1] for r in p3[0].runs)
        cpu_tagged = statistics.median(r[1] for r in p3[1].runs)
        report += ["", "W6-P3: converting six Display P3 photos costs %+.1f%% of W6's wall (%+.1f ms), %+.1f%% of its CPU." % (
            100 * (tagged - plain) / plain, 1000 * (tagged - plain), 100 * (cpu_tagged - cpu_plain) / cpu_plain), ""]
    for title, group in (("W6-crop (six 12 MP photos, no faces)", crops),
                         ("W-portraits (six 12 MP portraits, a face near the top)", portraits)):
        if group:
            report += [table(group, "collage --crop centre", title)]
            centre = statistics.median(r[0] for r in group[0].runs)
            report += ["", "%s: smart takes %.2f x centre's wall, attention %.2f x." % (
                title.split(" ")[0], statistics.median(r[0] for r in group[1].runs) / centre,
                statistics.median(r[0] for r in group[2].runs) / centre), ""]
    if pictures:
        report += [table(pictures, "collage preview --crop centre",
                         "Picture (W6 as the collage screen shows it, %d columns of symbols; the preview "
                         "process alone)" % PICTURE_COLUMNS)]
        report += ["", "Picture: smart takes %.3f s, centre %.3f s (%.2f x)." % (
            median_wall(pictures, pictures[1].name), median_wall(pictures, pictures[0].name),
            median_wall(pictures, pictures[1].name) / median_wall(pictures, pictures[0].name)), ""]
    if banner:
        report += ["Banner: the cameraman (a face in profile, 512 x 512) in a %s grid of two: centre shows his "
                   "rows %d-%d, smart %d-%d; his head (rows %d-%d) is %s by smart." % (
                       BANNER_SIZE, banner["centre"][0], banner["centre"][1], banner["smart"][0],
                       banner["smart"][1], BANNER_HEAD_ROWS[0], BANNER_HEAD_ROWS[1],
                       "kept" if head_kept(banner["smart"]) else "cut"), ""]
    if layouts:
        report += [table(layouts, "collage (default)", "W6-layout (auto by name, and the grid)")]
        same = layout_bytes_identical(layouts[0], layouts[1], env, outdir)
        report += ["", "W6-layout: `--layout auto` writes %s bytes as the default." % ("the same" if same else "DIFFERENT"),
                   "auto's search, the layout alone (COLLAGE_TRACE_LAYOUT, median of 21): %s." % "; ".join(
                       layout_search_times(collage, photos, env, scratch)), ""]
    if texts:
        report += [table(texts, "collage (default)", "W6-text (a title and six captions)")]
        plain = statistics.median(r[0] for r in texts[0].runs)
        text = statistics.median(r[0] for r in texts[1].runs)
        tiny = statistics.median(r[0] for r in first_text[0].runs)
        tiny_text = statistics.median(r[0] for r in first_text[1].runs)
        report += ["", "W6-text: a title and six captions cost %+.1f%% of W6's wall (%+.1f ms); the first text in a "
                   "process costs %.1f ms (64x64, two photos: %.1f ms with a title, %.1f ms without)." % (
                       100 * (text - plain) / plain, 1000 * (text - plain), 1000 * (tiny_text - tiny),
                       1000 * tiny_text, 1000 * tiny), ""]
    if prints:
        report += [table(prints, "collage -o .jpg", "W6-print (an A4 page at 300 dpi: 2480x3508, as PDF and as JPEG)")]
        sizes = {}
        for c in prints:  # each file once more, untimed, for its size
            target = os.path.join(outdir, "size-" + safe(c.name))
            subprocess.run(["bash", "-c", c.script(target, "jpg")], env=env, check=True, stdout=subprocess.DEVNULL)
            written = [target + ext for ext in (".jpg", ".pdf") if os.path.exists(target + ext)]
            sizes[c.name] = os.path.getsize(written[0])
            remove(target)
        jpeg_wall, pdf_wall = median_wall(prints, prints[0].name), median_wall(prints, prints[1].name)
        jpeg_size, pdf_size = sizes[prints[0].name], sizes[prints[1].name]
        line = ("W6-print: the PDF takes %.2f x the JPEG's wall (goal <= 1.3 x: %s) and is %.2f x its size "
                "(%d against %d bytes; goal <= 1.5 x: %s)." % (
                    pdf_wall / jpeg_wall, "met" if pdf_wall / jpeg_wall <= 1.3 else "missed", pdf_size / jpeg_size,
                    pdf_size, jpeg_size, "met" if pdf_size / jpeg_size <= 1.5 else "missed"))
        if len(prints) > 2:
            line += " ImageMagick wraps the JPEG in a PDF in %.3f s (median, the JPEG already made), %d bytes (%.2f x the JPEG)." % (
                median_wall(prints, prints[2].name), sizes[prints[2].name], sizes[prints[2].name] / jpeg_size)
        report += ["", line, ""]
    report += ["Load average before %s, after %s. Busiest processes at the end (%%CPU, nice, name): %s." % (
        "/".join(load_before), "/".join(load_after), "; ".join(" ".join(l.split()) for l in busy))]
    text = "\n".join(report)
    print(text)
    with open(results, "w") as f:
        f.write(text + "\n")

    # Issue 23's goals, from the tables above; bench.sh appends them to the
    # results last, after the picker's measurement.
    picture_smart = median_wall(pictures, pictures[1].name) if pictures else None
    picture_centre = median_wall(pictures, pictures[0].name) if pictures else None
    goals = [
        ratio_goal("W6 (no faces), smart / `--crop centre`, wall", median_wall(crops, "collage --crop smart"),
                   median_wall(crops, "collage --crop centre"), 1.15, "W6-crop"),
        ratio_goal("portraits with faces, smart / centre, wall", median_wall(portraits, "collage --crop smart"),
                   median_wall(portraits, "collage --crop centre"), 1.3, "W-portraits, six"),
        ratio_goal("W6 default against vips", median_wall(w6, "collage"), median_wall(w6, "vips"), 0.35, "W6"),
        context(ratio_goal("the same with faces free (`--crop centre`)", median_wall(w6, "collage --crop centre"),
                           median_wall(w6, "vips"), 0.35, "W6")),
        ratio_goal("ten W6 in `batch`, against ten vips runs", median_wall(batch, "collage batch"),
                   median_wall(batch, "vips x10"), 0.33, "Batch"),
        context(ratio_goal("the same with faces free (`--crop centre`)",
                           median_wall(batch, "collage batch --crop centre"), median_wall(batch, "vips x10"), 0.33,
                           "Batch")),
        ("collage-screen picture at %d columns, smart" % PICTURE_COLUMNS,
         "%.3f s" % picture_smart if picture_smart is not None else "", "<= 0.15 s",
         None if picture_smart is None else picture_smart <= 0.15),
        ("the same, `--crop centre` (0.10 s when the issue was filed)",
         "%.3f s" % picture_centre if picture_centre is not None else "", "", None if picture_centre is None else "context"),
        ("the cameraman (a face in profile) in a %s banner" % BANNER_SIZE,
         "smart shows rows %d-%d (centre %d-%d)" % (banner["smart"] + banner["centre"]) if banner else "",
         "head (rows %d-%d) kept" % BANNER_HEAD_ROWS, None if banner is None else head_kept(banner["smart"])),
    ]
    with open(os.path.join(work, "goals-23.md"), "w") as f:
        f.write(goals_table(goals) + "\n")
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.rmtree(outdir, ignore_errors=True)


if __name__ == "__main__":
    main()
