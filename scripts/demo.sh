#!/usr/bin/env bash
# Composes a collage of the photos in SampleImages/ with a private state
# folder, so it never touches your own selection; beside it the same collage
# on a portrait and a banner canvas, as an A4 page to print (PDF), in each
# layout, and two photo books. It ends with one line saying where they are, the main one
# first (issue #44: nine "Saved" lines and the small samples' warnings, with
# full paths, buried it); the commands' own output is in "$out"/demo.log,
# and shown in full if one fails.
# BINARY and OUT (the tests') choose the binary and the folder.
set -euo pipefail
cd "$(dirname "$0")/.."

binary=${BINARY:-.build/release/collage}
out=${OUT:-demo-output}
state=$(mktemp -d)
export XDG_STATE_HOME="$state"
# The photo books measure photos as `suggest` does: into a cache of their own.
export XDG_CACHE_HOME="$state/cache"

mkdir -p "$out"
log="$out/demo.log"
: > "$log"
trap 'status=$?; [ $status -eq 0 ] || cat "$log" >&4; rm -rf "$state"' EXIT
exec 3>&1 4>&2 >>"$log" 2>&1
# Six photos, one of each kind: the coffee cup as an iPhone-style HEIC.
"$binary" add SampleImages/astronaut-eileen-collins.jpg SampleImages/cameraman-grayscale.jpg \
  SampleImages/chelsea-the-cat.jpg SampleImages/coffee-cup.heic \
  SampleImages/rocket-exif-orientation-6.jpg SampleImages/retina-round-alpha.png
# The same photos with no option but the canvas: landscape (the default
# size), portrait and banner, which is what a person gets by default.
"$binary" save --keep --force --size 1080x1920 -o "$out"/collage-portrait.jpg
"$binary" save --keep --force --size 3000x500 -o "$out"/collage-banner.jpg
# An A4 page to print (issue #34): 2480x3508 pixels at 300 dpi, 10 mm
# (118 px) margins for a printer's edge, the title and captions as text; and
# its page as pdftoppm draws it, 800 px tall, which is the README's
# docs/images/collage-a4-pdf.png (copy it there to remake it).
"$binary" save --keep --force --size A4 --margin 118 --gap 24 \
  --title "Summer 2026" --caption name -o "$out"/collage-a4.pdf
pdftoppm -png -singlefile -scale-to 800 "$out"/collage-a4.pdf "$out"/collage-a4-pdf
"$binary" save --force -o "$out"/collage.jpg
# Photo books (issue #43): a trip of SampleImages' photos given the dates and
# GPS positions a phone writes (two days, in Arezzo and Florence: its pages
# are titled with the towns, its cover with their region), and SampleImages
# itself, undated: one page titled by its folder. The trip's cover and second
# page as pdftoppm draws them are the README's docs/images/book-cover.jpg and
# book-page.jpg (copy them there to remake them).
python3 scripts/make-trip.py SampleImages "$out"/trip
"$binary" book --force "$out"/trip -o "$out"/book-trip.pdf
"$binary" book --force SampleImages -o "$out"/book-samples.pdf
pdftoppm -jpeg -jpegopt quality=85 -r 40 -f 1 -l 1 -singlefile "$out"/book-trip.pdf "$out"/book-cover
pdftoppm -jpeg -jpegopt quality=85 -r 40 -f 2 -l 2 -singlefile "$out"/book-trip.pdf "$out"/book-page
scripts/layout-pictures.sh "$out" "$binary"

# The one line: the main collage, then the others, as they are in the folder.
others=()
for file in "$out"/*.jpg "$out"/*.png "$out"/*.pdf; do
  [ -e "$file" ] && [ "$file" != "$out/collage.jpg" ] && others+=("${file##*/}")
done
list=$(printf '%s, ' "${others[@]}")
echo "The collage is $out/collage.jpg; beside it in $out/: ${list%, } (what each command said: $log)." >&3
