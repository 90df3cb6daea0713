#!/usr/bin/env python3
"""Makes W-portraits for make bench (issue 13): six 3024x4032 phone-style
portraits, each a W6 photo turned upright with the astronaut's head and
shoulders (SampleImages/, NASA, public domain) pasted near the top, where
portraits frame people and where a centred crop into a landscape cell cuts
the head off. Deterministic: the same W6 photos give the same bytes.

usage: make_portraits.py W6_DIR OUTPUT_DIR
"""
import os
import sys

from PIL import Image

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
w6, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
astronaut = Image.open(os.path.join(root, "SampleImages", "astronaut-eileen-collins.jpg")).convert("RGB")
head = astronaut.crop((90, 20, 300, 300))
scales = [4.5, 5.0, 5.5, 4.8, 5.2, 6.0]
lefts = [300, 800, 1200, 500, 1500, 700]
tops = [60, 150, 40, 300, 100, 0]
for i in range(6):
    photo = Image.open(os.path.join(w6, "photo-%d.jpg" % (i + 1))).convert("RGB").transpose(Image.ROTATE_90)
    pasted = head.resize((int(210 * scales[i]), int(280 * scales[i])), Image.LANCZOS)
    photo.paste(pasted, (lefts[i], tops[i]))
    photo.save(os.path.join(out, "portrait-%d.jpg" % (i + 1)), quality=92, subsampling=2)
