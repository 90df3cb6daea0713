#!/usr/bin/env bash
# The README's trip example (its "collage suggest" section): the two commands
#
#   collage suggest ~/Pictures/2026-07-Trip --events > trip.txt
#   collage batch trip.txt -o collages/
#
# run over the trip docs/quality.md describes (13 photos on three days, with
# a burst, blurred and darkened copies: SuggestPhotos, which the engine makes
# from SampleImages/ while the tests run), by the end-to-end test that checks
# them (theReadmesTripExample, which keeps its list and collages when
# COLLAGE_TRIP_OUT names a folder). The collages are then scaled to 1200
# pixels wide as DIR/trip-1.jpg, trip-2.jpg, trip-3.jpg (Pillow, which the
# tests install), and the list is printed as the README shows it.
#
#   scripts/trip-pictures.sh [DIR]     DIR defaults to docs/images
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/images}
kept=$(mktemp -d)
trap 'rm -rf "$kept"' EXIT

swift build --build-tests >&2
COLLAGE_TRIP_OUT="$kept/trip" swift test --skip-build --filter theReadmesTripExample >&2
mkdir -p "$out"
/usr/bin/python3 - "$kept/trip" "$out" <<'EOF'
import glob, os, sys
from PIL import Image

kept, out = sys.argv[1], sys.argv[2]
for number, path in enumerate(sorted(glob.glob(os.path.join(kept, "collage-*.jpg"))), 1):
    image = Image.open(path)
    small = image.resize((1200, round(image.height * 1200 / image.width)), Image.LANCZOS)
    target = os.path.join(out, f"trip-{number}.jpg")
    small.save(target, "JPEG", quality=82, optimize=True)
    print(f"{target}: {small.width}x{small.height}, {os.path.getsize(target) // 1024} KB", file=sys.stderr)
EOF
cat "$kept/trip/trip.txt"
