#!/usr/bin/env bash
# Composes a collage of the photos in SampleImages/ with a private state
# folder, so it never touches your own selection, and prints where it went;
# beside it the same collage on a portrait and a banner canvas, and as an A4
# page to print (PDF).
set -euo pipefail
cd "$(dirname "$0")/.."

binary=.build/release/collage
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
export XDG_STATE_HOME="$state"

mkdir -p demo-output
# Six photos, one of each kind: the coffee cup as an iPhone-style HEIC.
"$binary" add SampleImages/astronaut-eileen-collins.jpg SampleImages/cameraman-grayscale.jpg \
  SampleImages/chelsea-the-cat.jpg SampleImages/coffee-cup.heic \
  SampleImages/rocket-exif-orientation-6.jpg SampleImages/retina-round-alpha.png
# The same photos with no option but the canvas: landscape (the default
# size), portrait and banner, which is what a person gets by default.
"$binary" save --keep --force --size 1080x1920 -o demo-output/collage-portrait.jpg
"$binary" save --keep --force --size 3000x500 -o demo-output/collage-banner.jpg
# An A4 page to print (issue #34): 2480x3508 pixels at 300 dpi, 10 mm
# (118 px) margins for a printer's edge, the title and captions as text; and
# its page as pdftoppm draws it, 800 px tall, which is the README's
# docs/images/collage-a4-pdf.png (copy it there to remake it).
"$binary" save --keep --force --size A4 --margin 118 --gap 24 \
  --title "Summer 2026" --caption name -o demo-output/collage-a4.pdf
pdftoppm -png -singlefile -scale-to 800 demo-output/collage-a4.pdf demo-output/collage-a4-pdf
"$binary" save --force -o demo-output/collage.jpg
scripts/layout-pictures.sh demo-output "$binary"
