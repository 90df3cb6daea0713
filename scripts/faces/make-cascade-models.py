#!/usr/bin/env python3
"""Regenerates the two OpenCV cascades compiled into Sources/CollageFaces/
from Debian's opencv-data, and with --check only compares (each and its
licence): the test suite runs that, so the committed models cannot drift
from Debian's without a failing test.

- profile_face_model.inc (LICENSE-opencv-profile-model.txt): faces in
  profile, /usr/share/opencv4/haarcascades/haarcascade_profileface.xml,
  a Haar cascade (issue #23);
- small_face_model.inc (LICENSE-opencv-small-face-model.txt): small
  frontal faces, /usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml,
  an LBP cascade with a 24 x 24 window (issue #31). Its file has no licence
  of its own: Debian's copyright file gives OpenCV's data/* one.

Why compiled in: cv::CascadeClassifier parses the cascade's 800 KB of XML
for each use (about 15 ms), and a loaded one cannot be shared between
threads; the engine keeps no global state. The arrays hold the XML's
numbers as OpenCV reads them (each rounded to a float, written with the
nine digits that name it exactly). cascades.cpp evaluates them.

usage: make-cascade-models.py [--check]
"""
import os
import struct
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FACES = os.path.join(ROOT, "Sources", "CollageFaces")
PROFILE_XML = "/usr/share/opencv4/haarcascades/haarcascade_profileface.xml"
SMALL_XML = "/usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml"
DEBIAN_COPYRIGHT = "/usr/share/doc/opencv-data/copyright"


def f32(text):
    """The C literal of the float OpenCV makes of a number: nine significant
    digits name a float exactly (no hexadecimal floats in C++14)."""
    value = struct.unpack("<f", struct.pack("<f", float(text)))[0]
    literal = "%.9g" % value
    if "." not in literal and "e" not in literal:
        literal += ".0"
    assert struct.unpack("<f", struct.pack("<f", float(literal)))[0] == value
    return literal + "f"


def fail(message):
    sys.stderr.write("make-cascade-models.py: %s\n" % message)
    sys.exit(1)


def profile_licence(path):
    """The cascade's own header comment: its origin and the Intel licence."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start, end = text.find("<!--"), text.find("-->")
    if start < 0 or end < start or "Intel License Agreement" not in text[start:end]:
        fail("%s has no Intel licence in its header" % path)
    lines = [line.rstrip() for line in text[start + 4:end].strip("\n").splitlines()]
    return ("The profile-face cascade in profile_face_model.inc is OpenCV's\n"
            "haarcascade_profileface.xml (Debian's opencv-data), converted by\n"
            "scripts/faces/make-cascade-models.py. Its header, with its licence:\n\n"
            + "\n".join(lines).strip("\n") + "\n")


def read_cascade(path, feature_type, read_feature, subset_words):
    """A boosted cascade of stumps: its window, its features (each read by
    read_feature(node, width, height)), its stages (stumps, threshold) and
    its stumps in order (feature, the numbers after it: a threshold, or a
    categorical feature's subset_words words, then the two leaves)."""
    cascade = ET.parse(path).getroot().find("cascade")
    if cascade is None:
        fail("%s has no <cascade>" % path)
    if cascade.findtext("stageType", "").strip() != "BOOST" or cascade.findtext("featureType", "").strip() != feature_type:
        fail("%s is not a boosted %s cascade" % (path, feature_type))
    if int(cascade.find("featureParams").findtext("maxCatCount", "0")) != (256 if subset_words else 0):
        fail("%s's features are not what cascades.cpp evaluates" % path)
    width, height = int(cascade.findtext("width")), int(cascade.findtext("height"))
    features = [read_feature(feature, width, height) for feature in cascade.find("features")]

    stages = []
    weaks = []
    for stage in cascade.find("stages"):
        count = 0
        for weak in stage.find("weakClassifiers"):
            nodes = weak.findtext("internalNodes").split()
            leaves = weak.findtext("leafValues").split()
            if len(nodes) != 3 + max(1, subset_words) or nodes[0] != "0" or nodes[1] != "-1" or len(leaves) != 2:
                fail("a weak classifier that is not a stump")
            index = int(nodes[2])
            if not 0 <= index < len(features):
                fail("a weak classifier's feature out of range")
            weaks.append((index, nodes[3:], leaves[0], leaves[1]))
            count += 1
        stages.append((count, stage.findtext("stageThreshold").strip()))
    if len(stages) != int(cascade.findtext("stageNum")):
        fail("stageNum does not match the stages")
    return width, height, features, stages, weaks


def write_sizes(w, prefix, width, height, features, stages, weaks):
    for name, value in (("WINDOW_WIDTH", width), ("WINDOW_HEIGHT", height), ("FEATURES", len(features)),
                        ("STAGES", len(stages)), ("WEAKS", len(weaks))):
        w("#define %s_MODEL_%s %d\n" % (prefix.upper(), name, value))
    w("\n")


def write_stages(w, prefix, stages):
    upper = prefix.upper()
    w("// Each stage: how many weak classifiers (stumps) it has, in order, and\n")
    w("// the threshold its sum of their leaves must reach.\n")
    w("static const unsigned short %s_model_stage_weaks[%s_MODEL_STAGES] = {\n" % (prefix, upper))
    w(",".join(str(s[0]) for s in stages) + "};\n\n")
    w("static const float %s_model_stage_thresholds[%s_MODEL_STAGES] = {\n" % (prefix, upper))
    w(",\n".join(f32(s[1]) for s in stages) + "};\n\n")


def write_weak_features(w, prefix, weaks):
    w("static const unsigned short %s_model_weak_features[%s_MODEL_WEAKS] = {\n" % (prefix, prefix.upper()))
    for i in range(0, len(weaks), 16):
        w(",".join(str(x[0]) for x in weaks[i:i + 16]) + ",\n")
    w("};\n\n")


def haar_feature(feature, width, height):
    if int(feature.findtext("tilted", "0").strip() or 0) != 0:
        fail("a tilted feature: cascades.cpp evaluates upright ones only")
    rects = []
    for rect in feature.find("rects"):
        x, y, w, h, weight = rect.text.split()
        x, y, w, h = int(x), int(y), int(w), int(h)
        if x < 0 or y < 0 or w <= 0 or h <= 0 or x + w > width or y + h > height:
            fail("a feature's rectangle lies outside the window")
        rects.append((x, y, w, h, weight))
    if not 2 <= len(rects) <= 3:
        fail("a feature of %d rectangles" % len(rects))
    return rects


def write_preamble(w, xml, licence):
    """The generated file's opening comment: where it comes from, its licence."""
    w("// Generated by scripts/faces/make-cascade-models.py from OpenCV's\n")
    w("// %s (Debian's opencv-data). Do not edit.\n//\n" % xml)
    for line in licence:
        w("// %s\n" % line)
    w("// Numbers as OpenCV reads them: each a float.\n\n")


def generate_profile(path):
    width, height, features, stages, weaks = read_cascade(path, "HAAR", haar_feature, 0)
    out = []
    w = out.append
    write_preamble(w, "haarcascade_profileface.xml", [
        "The cascade: \"20x20 profile face detector. Contributed by David Bradley",
        "from Princeton University\", under the Intel License Agreement for the Open",
        "Source Computer Vision Library (see LICENSE-opencv-profile-model.txt beside",
        "this file)."])
    write_sizes(w, "profile", width, height, features, stages, weaks)
    w("// Each feature: up to three rectangles in the window (x, y, width,\n")
    w("// height; a third of all zeros when there are two) and their weights.\n")
    w("static const unsigned char profile_model_rects[PROFILE_MODEL_FEATURES][3][4] = {\n")
    for rects in features:
        cells = ["{%d,%d,%d,%d}" % r[:4] for r in rects] + ["{0,0,0,0}"] * (3 - len(rects))
        w("{%s},\n" % ",".join(cells))
    w("};\n\n")
    w("static const float profile_model_rect_weights[PROFILE_MODEL_FEATURES][3] = {\n")
    for rects in features:
        cells = [f32(r[4]) for r in rects] + ["0.0f"] * (3 - len(rects))
        w("{%s},\n" % ",".join(cells))
    w("};\n\n")
    write_stages(w, "profile", stages)
    w("// Each stump: its feature, the threshold on the feature's normalised\n")
    w("// value, and the leaf added below and at or above it.\n")
    write_weak_features(w, "profile", weaks)
    columns = [(x[1][0], x[2], x[3]) for x in weaks]
    for name, column in (("thresholds", 0), ("below", 1), ("above", 2)):
        w("static const float profile_model_weak_%s[PROFILE_MODEL_WEAKS] = {\n" % name)
        for i in range(0, len(columns), 6):
            w(",".join(f32(x[column]) for x in columns[i:i + 6]) + ",\n")
        w("};\n\n")
    return "".join(out)


def small_licence(path):
    """The cascade's file has no licence of its own: Debian's copyright file
    gives the one of OpenCV's data/*, quoted with its stanza."""
    with open(DEBIAN_COPYRIGHT, encoding="utf-8") as f:
        paragraphs = f.read().split("\n\n")
    stanza = [p for p in paragraphs if p.startswith("Files: data/*")]
    terms = [p for p in paragraphs if p.lower().startswith("license: bsd-3-clause\n")]
    if len(stanza) != 1 or not terms or "BSD-3-Clause" not in stanza[0]:
        fail("%s does not give data/* the BSD-3-Clause licence" % DEBIAN_COPYRIGHT)
    return ("The small-face cascade in small_face_model.inc is OpenCV's\n"
            "lbpcascade_frontalface.xml (Debian's opencv-data), converted by\n"
            "scripts/faces/make-cascade-models.py. The file carries no licence of its\n"
            "own; Debian's copyright file (%s) gives OpenCV's data/*\n"
            "this one:\n\n%s\n\n%s\n" % (DEBIAN_COPYRIGHT, stanza[0].strip("\n"), terms[0].strip("\n")))


def lbp_feature(feature, width, height):
    x, y, w, h = (int(v) for v in feature.findtext("rect").split())
    # A feature is a 3 x 3 grid of w x h blocks from (x, y).
    if x < 0 or y < 0 or w <= 0 or h <= 0 or x + 3 * w > width or y + 3 * h > height:
        fail("a feature's blocks lie outside the window")
    return (x, y, w, h)


def generate_small(path):
    width, height, features, stages, weaks = read_cascade(path, "LBP", lbp_feature, 8)
    for x in weaks:
        if any(not -2 ** 31 <= int(v) < 2 ** 31 for v in x[1]):
            fail("a subset word out of range")
    out = []
    w = out.append
    write_preamble(w, "lbpcascade_frontalface.xml", [
        "Under OpenCV's BSD-3-Clause licence for its data (see",
        "LICENSE-opencv-small-face-model.txt beside this file)."])
    write_sizes(w, "small", width, height, features, stages, weaks)
    w("// Each feature: the first of its 3 x 3 blocks (x, y) and their size.\n")
    w("static const unsigned char small_model_rects[SMALL_MODEL_FEATURES][4] = {\n")
    for i in range(0, len(features), 8):
        w(",".join("{%d,%d,%d,%d}" % f for f in features[i:i + 8]) + ",\n")
    w("};\n\n")
    write_stages(w, "small", stages)
    w("// Each stump: its feature, the set of the feature's 256 codes that take\n")
    w("// the first leaf (eight 32-bit words, bit c %% 32 of word c / 32), and its\n")
    w("// leaves: for a code in the set, and for one outside it.\n")
    write_weak_features(w, "small", weaks)
    w("static const unsigned int small_model_weak_subsets[SMALL_MODEL_WEAKS][8] = {\n")
    for x in weaks:
        w("{%s},\n" % ",".join("0x%08xu" % (int(v) & 0xffffffff) for v in x[1]))
    w("};\n\n")
    w("static const float small_model_weak_leaves[SMALL_MODEL_WEAKS][2] = {\n")
    for i in range(0, len(weaks), 4):
        w(",".join("{%s,%s}" % (f32(x[2]), f32(x[3])) for x in weaks[i:i + 4]) + ",\n")
    w("};\n")
    return "".join(out)


def main(argv):
    check = "--check" in argv
    for path in (PROFILE_XML, SMALL_XML, DEBIAN_COPYRIGHT):
        if not os.path.exists(path):
            fail("%s is missing: install Debian's opencv-data (scripts/install-deps.sh)" % path)
    files = ((os.path.join(FACES, "profile_face_model.inc"), PROFILE_XML, generate_profile(PROFILE_XML)),
             (os.path.join(FACES, "LICENSE-opencv-profile-model.txt"), PROFILE_XML, profile_licence(PROFILE_XML)),
             (os.path.join(FACES, "small_face_model.inc"), SMALL_XML, generate_small(SMALL_XML)),
             (os.path.join(FACES, "LICENSE-opencv-small-face-model.txt"), DEBIAN_COPYRIGHT, small_licence(SMALL_XML)))
    if check:
        for out, path, text in files:
            try:
                with open(out, encoding="utf-8") as f:
                    committed = f.read()
            except OSError:
                committed = None
            if committed != text:
                fail("%s differs from %s; run %s" % (out, path, argv[0]))
            print("%s matches %s" % (os.path.relpath(out, ROOT), path))
        return
    for out, _, text in files:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(out))
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
        print("wrote %s" % os.path.relpath(out, ROOT))


if __name__ == "__main__":
    main(sys.argv)
