#!/usr/bin/env bash
# Installs the Debian packages that collage builds against, when they are
# missing: with apt-get as root, through sudo when it needs no password,
# otherwise it says what to install and stops.
#
#   scripts/install-deps.sh [--test-fonts] [PACKAGE...]
#
# Packages given as arguments are installed too (make bench passes the
# contenders it found missing), in the same apt-get run.
set -euo pipefail

# pkg-config module -> Debian package
declare -A packages=(
  [libjpeg]=libjpeg-dev
  [libpng]=libpng-dev
  [libexif]=libexif-dev
  [chafa]=libchafa-dev
  [glib-2.0]=libglib2.0-dev
  [libheif]=libheif-dev
  [libde265]=libde265-dev
  [lcms2]=liblcms2-dev
  [libwebpdemux]=libwebp-dev
  [pangocairo]=libpango1.0-dev
  [cairo]=libcairo2-dev
  [fontconfig]=libfontconfig-dev
  [libtiff-4]=libtiff-dev
  [libgif]=libgif-dev
  [libjxl]=libjxl-dev
  [libjxl_threads]=libjxl-dev
  [libraw_r]=libraw-dev
  [sqlite3]=libsqlite3-dev
)

missing=()
# tmux drives the picker's end-to-end tests.
if ! command -v tmux >/dev/null 2>&1; then
  missing+=(tmux)
fi
# GNU parallel runs the README's recipe for splitting a batch across
# machines (batch --shard) in the batch tests; moreutils' parallel, which
# has the same name, takes other arguments.
if ! parallel --version 2>/dev/null | grep -q 'GNU parallel'; then
  missing+=(parallel)
fi
# man renders the installed manual page in the install test.
if ! command -v man >/dev/null 2>&1; then
  missing+=(man-db)
fi
# heif-convert (libheif's own decoder) is what the HEIF tests compare with,
# and heif-enc makes their AVIFs; cwebp and dwebp do the same for WebP.
if ! command -v heif-convert >/dev/null 2>&1 || ! command -v heif-enc >/dev/null 2>&1; then
  missing+=(libheif-examples)
fi
if ! command -v cwebp >/dev/null 2>&1 || ! command -v dwebp >/dev/null 2>&1; then
  missing+=(webp)
fi
# avifenc (libavif's) writes the limited-range AVIF the colour tests strip
# of its colour box: heif-enc 1.15 writes AV1 in full range only.
if ! command -v avifenc >/dev/null 2>&1; then
  missing+=(libavif-bin)
fi
# cjxl (libjxl's) makes the JPEG XL tests' linear-light, tagged and animated
# files; img2webp and webpmux (Debian webp) the animated WebPs.
if ! command -v cjxl >/dev/null 2>&1; then
  missing+=(libjxl-tools)
fi
if ! command -v img2webp >/dev/null 2>&1 || ! command -v webpmux >/dev/null 2>&1; then
  missing+=(webp)
fi
# python3 (its standard library only) writes `make demo`'s trip of dated,
# GPS-tagged photos (scripts/make-trip.py) for its photo book.
if ! command -v python3 >/dev/null 2>&1; then
  missing+=(python3)
fi
# poppler-utils (pdfinfo, pdffonts, pdftotext, pdftoppm) reads back the PDF
# pages the print tests write (issue #34); exiftool the resolution the JPEG,
# PNG, WebP and AVIF files say they print at.
if ! command -v pdfinfo >/dev/null 2>&1 || ! command -v pdftoppm >/dev/null 2>&1; then
  missing+=(poppler-utils)
fi
if ! command -v exiftool >/dev/null 2>&1; then
  missing+=(libimage-exiftool-perl)
fi
# Debian's Pillow reads the print resolution back as another reader does.
if ! /usr/bin/python3 -c 'import PIL' >/dev/null 2>&1; then
  missing+=(python3-pil)
fi
# dlib's face detector is compiled from its headers (no library is linked);
# scripts/faces/make-model.sh links libdlib with BLAS and LAPACK to read the
# model, which the test suite checks.
if [ ! -e /usr/include/dlib/image_processing/frontal_face_detector.h ] ||
   ! ls /usr/lib/*/libdlib.a >/dev/null 2>&1 ||
   ! ls /usr/lib/*/liblapack.so >/dev/null 2>&1 || ! ls /usr/lib/*/libblas.so >/dev/null 2>&1; then
  missing+=(libdlib-dev libblas-dev liblapack-dev)
fi
# The profile-face and small-face cascades are compiled in (Sources/
# CollageFaces/*_face_model.inc); the test suite regenerates them from Debian's
# opencv-data (scripts/faces/make-cascade-models.py --check). Only to build
# and test: collage neither links OpenCV nor reads the file.
if [ ! -e /usr/share/opencv4/haarcascades/haarcascade_profileface.xml ]; then
  missing+=(opencv-data)
fi
# Titles are drawn with the fonts fontconfig finds: the tests draw Latin
# with DejaVu (fonts-dejavu-core) and ask fc-match (fontconfig) which font
# "Sans" is.
if ! command -v fc-match >/dev/null 2>&1; then
  missing+=(fontconfig)
fi
if [ ! -e /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf ]; then
  missing+=(fonts-dejavu-core)
fi
# With --test-fonts (make test): the fonts the text tests draw Japanese,
# Arabic and emoji with.
if [ "${1:-}" = "--test-fonts" ]; then
  shift
  [ -e /usr/share/fonts/truetype/noto/NotoSans-Bold.ttf ] || missing+=(fonts-noto-core)
  [ -e /usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc ] || missing+=(fonts-noto-cjk)
  [ -e /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ] || missing+=(fonts-noto-color-emoji)
fi
if ! command -v pkg-config >/dev/null 2>&1; then
  missing+=(pkg-config)
fi
for module in "${!packages[@]}"; do
  if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$module"; then
    missing+=("${packages[$module]}")
  fi
done

missing+=("$@")
[ ${#missing[@]} -eq 0 ] && exit 0
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)

echo "collage needs these Debian packages: ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
  runner=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  runner=(sudo)
else
  echo "Install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "apt-get is not available here: install the equivalents of ${missing[*]} with your package manager" >&2
  exit 1
fi
echo "Installing them with apt-get..." >&2
"${runner[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${runner[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "Installed: ${missing[*]}" >&2
