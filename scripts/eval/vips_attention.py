#!/usr/bin/env python3
"""How many faces `vips thumbnail --smartcrop attention` keeps whole, on the
crop evaluation's own photos and cells (docs/quality.md), per group of the
set (frontal, profile, turned, small) and in all: the row of the table that
CropEvaluationTests writes to DIR/table.md.

The Swift test CropEvaluationTests writes the photos and their labelled face
boxes when COLLAGE_EVAL_OUT is set; this runs vips on each (photo, cell)
pair and finds where vips put its crop by matching its output against the
photo scaled to cover the cell (the crop can only slide along one axis, so
a one-dimensional search finds it to the pixel).

usage: COLLAGE_EVAL_OUT=DIR swift test --filter smartKeepsTheFacesThatFit
       scripts/eval/vips_attention.py [--misses] [--group GROUP] DIR
--misses also lists the photo-cell pairs whose face vips cut; --group
measures one group only (its row then has that group alone).
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image


def crop_offset(photo, out, along_x, every=4):
    """The offset (in cell pixels) of `out` inside `photo` scaled to cover it:
    every offset compared on every `every`-th pixel each way, then the best
    one's neighbours on every pixel: 16 times less work than every offset on
    every pixel, and the same faces kept and cut on the evaluation's 764
    pairs (checked against that full search)."""
    w, h = out.size
    pw, ph = photo.size
    scale = max(w / pw, h / ph)
    sw, sh = max(w, round(pw * scale)), max(h, round(ph * scale))
    scaled = np.asarray(photo.resize((sw, sh), Image.BILINEAR), dtype=np.float32)
    target = np.asarray(out, dtype=np.float32)
    span = (sw - w) if along_x else (sh - h)

    def error(offset, step):
        window = scaled[:, offset:offset + w] if along_x else scaled[offset:offset + h, :]
        return float(np.mean(np.abs(window[::step, ::step] - target[::step, ::step])))

    coarse = min(range(span + 1), key=lambda offset: error(offset, every))
    near = range(max(0, coarse - 2 * every), min(span, coarse + 2 * every) + 1)
    return min(near, key=lambda offset: error(offset, 1)), (sw, sh)


GROUPS = ["frontal", "profile", "turned", "small"]


def cell(kept, total):
    """'kept / total (share)', as the Swift test writes its table."""
    return f"{kept} / {total} ({100 * kept / max(1, total):.1f}%)"


def main():
    args = sys.argv[1:]
    show_misses = "--misses" in args
    only = args[args.index("--group") + 1] if "--group" in args else None
    folder = [a for i, a in enumerate(args) if a != "--misses" and a != "--group" and (i == 0 or args[i - 1] != "--group")][0]
    labels = json.load(open(os.path.join(folder, "labels.json")))
    if only:
        labels = [item for item in labels if item.get("group", "frontal") == only]
    kept, total, misses = {}, {}, []
    with tempfile.TemporaryDirectory() as tmp:
        for item in labels:
            path = item["photo"]
            if not os.path.isabs(path):
                path = os.path.join(folder, path)
            if not os.path.exists(path):  # the real photos are read where they are
                path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../SampleImages", item["photo"])
            w, h = item["cell"]
            out = os.path.join(tmp, "out.png")
            subprocess.run(["vips", "thumbnail", path, out, str(w), "--height", str(h),
                            "--crop", "attention"], check=True)
            photo = Image.open(path).convert("RGB")
            result = Image.open(out).convert("RGB")
            pw, ph = photo.size
            along_x = pw / ph > w / h
            offset, (sw, sh) = crop_offset(photo, result, along_x)
            fx, fy, fw, fh = item["face"]
            if along_x:
                left, right = offset / sw, (offset + w) / sw
                whole = fx >= left - 0.002 and fx + fw <= right + 0.002
            else:
                top, bottom = offset / sh, (offset + h) / sh
                whole = fy >= top - 0.002 and fy + fh <= bottom + 0.002
            group = item.get("group", "frontal")  # labels written before the groups
            total[group] = total.get(group, 0) + 1
            kept[group] = kept.get(group, 0) + whole
            if not whole:
                misses.append(f"vips missed: {group} {item['photo']} in {w}x{h}")
    groups = GROUPS + sorted(set(total) - set(GROUPS))
    cells = [cell(kept.get(g, 0), total.get(g, 0)) for g in groups]
    cells.append(cell(sum(kept.values()), sum(total.values())))
    print("| vips thumbnail --smartcrop attention | " + " | ".join(cells) + " |")
    if show_misses:
        print("\n".join(misses))


if __name__ == "__main__":
    main()
