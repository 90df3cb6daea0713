#!/usr/bin/env python3
"""How many faces `vips thumbnail --smartcrop attention` keeps whole, on the
crop evaluation's own photos and cells (docs/quality.md).

The Swift test CropEvaluationTests writes the photos and their labelled face
boxes when COLLAGE_EVAL_OUT is set; this runs vips on each (photo, cell)
pair and finds where vips put its crop by matching its output against the
photo scaled to cover the cell (the crop can only slide along one axis, so
a one-dimensional search finds it to the pixel).

usage: COLLAGE_EVAL_OUT=DIR swift test --filter smartKeepsAtLeast95
       scripts/eval/vips_attention.py DIR
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image


def crop_offset(photo, out, along_x):
    """The offset (in cell pixels) of `out` inside `photo` scaled to cover it."""
    w, h = out.size
    pw, ph = photo.size
    scale = max(w / pw, h / ph)
    sw, sh = max(w, round(pw * scale)), max(h, round(ph * scale))
    scaled = np.asarray(photo.resize((sw, sh), Image.BILINEAR), dtype=np.float32)
    target = np.asarray(out, dtype=np.float32)
    best, best_offset = None, 0
    span = (sw - w) if along_x else (sh - h)
    for offset in range(span + 1):
        window = scaled[:, offset:offset + w] if along_x else scaled[offset:offset + h, :]
        d = float(np.mean(np.abs(window - target)))
        if best is None or d < best:
            best, best_offset = d, offset
    return best_offset, (sw, sh)


def main():
    folder = sys.argv[1]
    labels = json.load(open(os.path.join(folder, "labels.json")))
    kept = 0
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
            kept += whole
    total = len(labels)
    print(f"| vips thumbnail --smartcrop attention | {kept} / {total} | {100 * kept / total:.1f}% |")


if __name__ == "__main__":
    main()
