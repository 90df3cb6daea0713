// metadata.h — what a saved collage says of itself (metadata.c); the
// savers embed it. Not part of the public API.
#ifndef COLLAGE_IMAGING_METADATA_H
#define COLLAGE_IMAGING_METADATA_H

#include "internal.h"

struct ci_output_tags {
    uint8_t *icc;        // an sRGB ICC profile
    size_t icc_size;
    uint8_t *exif;       // NULL, or "Exif\0\0" and a TIFF structure holding DateTimeOriginal
    size_t exif_size;    // (containers with an EXIF chunk of their own take it from byte 6)
};

// The profile, and the EXIF block when `date_taken` is a date
// ("YYYY:MM:DD HH:MM:SS"). Free with ci_output_tags_free, also after a failure.
ci_status ci_output_tags_make(const char *date_taken, ci_output_tags *tags, ci_error *err);
void ci_output_tags_free(ci_output_tags *tags);

#endif
