// internal.h — what the engine's C files share. Not part of the public API.
#ifndef COLLAGE_IMAGING_INTERNAL_H
#define COLLAGE_IMAGING_INTERNAL_H

#include "collage_imaging.h"

#include <stdarg.h>

// The largest file we read into memory. Real photos are far smaller; the
// limit keeps a hostile "file" (a huge sparse file) from exhausting memory.
#define CI_MAX_FILE_BYTES ((size_t)1 << 30)  // 1 GiB

// Sets err (if not NULL) to `status` and a printf-style message; returns status.
ci_status ci_fail(ci_error *err, ci_status status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

// Reads a whole regular file into a new malloc'd buffer. Refuses folders,
// FIFOs and devices without blocking, and empty or oversized files.
ci_status ci_read_file(const char *path, uint8_t **data, size_t *size, ci_error *err);


// The effective pixel limit of `limits` (NULL or 0 means the default).
uint64_t ci_max_pixels(const ci_limits *limits);

// Allocates image->pixels for width x height x channels after checking the
// size against the pixel limit and for overflow. `name` is for the message.
ci_status ci_image_alloc(ci_image *image, uint32_t width, uint32_t height, int channels,
                         const ci_limits *limits, const char *name, ci_error *err);

// Oriented size of a width x height image for EXIF orientation 1-8.
void ci_oriented_size(int orientation, uint32_t width, uint32_t height,
                      uint32_t *out_width, uint32_t *out_height);

// --- JPEG (jpeg.c) ---
ci_status ci_jpeg_probe(const uint8_t *data, size_t size, const char *name,
                        ci_photo_info *info, ci_error *err);
// Decodes to RGB (3 channels), or RGBA with alpha 255 when options->keep_alpha.
// Applies shrink-on-load for options->min_width/min_height (in oriented
// coordinates) and, with options->apply_orientation, the EXIF orientation.
ci_status ci_jpeg_decode(const uint8_t *data, size_t size, const char *name,
                         const ci_decode_options *options, ci_image *out, ci_error *err);

// --- EXIF (exif.c) ---
// The orientation (1-8) in an APP1 "Exif\0\0" payload; 1 when absent/invalid.
int ci_exif_orientation(const uint8_t *app1, size_t size);

// --- Orientation (orient.c) ---
// Replaces image's pixels by the upright version for EXIF `orientation`.
// Frees the old buffer on success; leaves `image` untouched on failure.
ci_status ci_apply_orientation(ci_image *image, int orientation, const char *name, ci_error *err);

// --- PNG (png.c) ---
ci_status ci_png_probe(const uint8_t *data, size_t size, const char *name,
                       ci_photo_info *info, ci_error *err);
// Decodes any colour type and bit depth (16-bit rounded to 8, tRNS to alpha,
// interlacing handled, gamma not applied) to RGBA when options->keep_alpha,
// else to RGB composited over options->background.
ci_status ci_png_decode(const uint8_t *data, size_t size, const char *name,
                        const ci_decode_options *options, ci_image *out, ci_error *err);

// --- Resampling (resample.c) ---
// Scales the RGB `source` to cover `cell` (factor max(cellW/w, cellH/h)),
// centred, cropped, with an anti-aliased separable filter, and writes the part
// of the cell inside `canvas`. Identity (copy) when source size == cell size.
ci_status ci_resample_cover(const ci_image *source, ci_image *canvas, ci_rect cell,
                            const char *name, ci_error *err);

#endif
