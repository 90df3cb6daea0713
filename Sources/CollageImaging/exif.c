// exif.c — EXIF orientation through libexif. (Placeholder until implemented.)
#include "internal.h"

int ci_exif_orientation(const uint8_t *app1, size_t size) { return 1; }
