// metadata.h — what a saved collage says of itself (metadata.c); the
// savers embed it. Not part of the public API.
#ifndef COLLAGE_IMAGING_METADATA_H
#define COLLAGE_IMAGING_METADATA_H

#include "../internal.h"

struct ci_output_tags {
    uint8_t *icc;        // an sRGB ICC profile
    size_t icc_size;
    uint8_t *exif;       // NULL, or "Exif\0\0" and a TIFF structure holding DateTimeOriginal
    size_t exif_size;    // and the resolution (containers with an EXIF chunk of their own take
                         // it from byte 6)
    int dots_per_inch;   // 0, or the print resolution, for the formats' own density fields
};

// The profile, and the EXIF block when the options' `date_taken` is a date
// ("YYYY:MM:DD HH:MM:SS") or they give a print resolution (checked: 0 or
// 1-65535). Free with ci_output_tags_free, also after a failure.
ci_status ci_output_tags_make(const ci_save_options *options, ci_output_tags *tags, ci_error *err);
void ci_output_tags_free(ci_output_tags *tags);

#endif
