#!/usr/bin/env bash
# One collage of the six sample photos in each layout, for the README's
# "Layouts" section: `scripts/layout-pictures.sh DIR [BINARY]` writes
# DIR/layout-grid.jpg, layout-auto.jpg (both on a portrait canvas, where the
# grid's slivers show most), layout-rows.jpg (the height follows the photos)
# and layout-columns.jpg (the width follows); and title.jpg, an auto collage
# titled in three scripts that fonts-dejavu-core (which `make demo`
# installs) covers (Latin, Greek and Arabic), captioned with the photos'
# names and, for the cat, a caption of its own. `make demo` runs it into
# demo-output/; the README's pictures are its output in docs/images/.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/layout-pictures.sh DIR [BINARY]}
binary=${2:-.build/release/collage}

state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
export XDG_STATE_HOME="$state"

mkdir -p "$out"
"$binary" add SampleImages/astronaut-eileen-collins.jpg SampleImages/cameraman-grayscale.jpg \
  SampleImages/chelsea-the-cat.jpg SampleImages/coffee-cup.heic \
  SampleImages/rocket-exif-orientation-6.jpg SampleImages/retina-round-alpha.png >/dev/null
common=(--keep --force --gap 6 --margin 6 --quality 85)
"$binary" save "${common[@]}" --layout grid --size 540x960 -o "$out/layout-grid.jpg"
"$binary" save "${common[@]}" --layout auto --size 540x960 -o "$out/layout-auto.jpg"
"$binary" save "${common[@]}" --layout rows --size 720x -o "$out/layout-rows.jpg"
"$binary" save "${common[@]}" --layout columns --size x480 -o "$out/layout-columns.jpg"
# The cat's own caption: the layouts above are drawn without it.
"$binary" caption 3 "Chelsea, the cat" >/dev/null
"$binary" save "${common[@]}" --size 960x540 \
  --title "Summer 2026 · Καλοκαίρι · صيف" --caption name -o "$out/title.jpg"
