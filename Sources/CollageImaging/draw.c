// draw.c — one photo into one cell of the collage.
//
// read -> probe (oriented size) -> decode with shrink-on-load to the smallest
// size that still covers the cell, oriented, alpha over the background ->
// resample to cover the cell (resample.c). Every buffer is local to the call:
// calls on disjoint cells of one canvas may run concurrently.
#include "internal.h"

#include <stdlib.h>
#include <string.h>

// ceil(a * b / c) for 32-bit operands, exact: a * b + c - 1 < 2^64.
static uint64_t mul_div_ceil(uint32_t a, uint32_t b, uint32_t c) {
    return ((uint64_t)a * b + c - 1) / c;
}

ci_status ci_draw_photo(const char *path, ci_image *canvas, ci_rect cell,
                        ci_color background, const ci_limits *limits, ci_error *err) {
    if (!path) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_draw_photo: missing path");
    if (!canvas || !canvas->pixels || canvas->channels != 3 || canvas->width == 0 ||
        canvas->height == 0 || canvas->stride < (size_t)canvas->width * 3)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: the canvas must be a non-empty RGB image",
                       path);
    if (cell.width == 0 || cell.height == 0)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: empty cell %ux%u", path, cell.width,
                       cell.height);

    uint8_t *data;
    size_t size;
    ci_status status = ci_read_file(path, &data, &size, err);
    if (status != CI_OK) return status;

    ci_photo_info info;
    memset(&info, 0, sizeof info);
    ci_format format = ci_sniff_format(data, size);
    switch (format) {
    case CI_FORMAT_JPEG: status = ci_jpeg_probe(data, size, path, &info, err); break;
    case CI_FORMAT_PNG: status = ci_png_probe(data, size, path, &info, err); break;
    default: status = ci_fail(err, CI_ERR_NOT_IMAGE, "%s: not a JPEG or PNG file", path); break;
    }
    if (status != CI_OK) {
        free(data);
        return status;
    }
    if (info.display_width == 0 || info.display_height == 0) {
        free(data);
        return ci_fail(err, CI_ERR_CORRUPT, "%s: the image has no pixels", path);
    }

    // A cell entirely off the canvas: the file has been checked (so a broken
    // file is still reported), but there is nothing to decode for.
    int64_t right = (int64_t)cell.x + cell.width, bottom = (int64_t)cell.y + cell.height;
    if (right <= 0 || bottom <= 0 || cell.x >= (int64_t)canvas->width ||
        cell.y >= (int64_t)canvas->height) {
        free(data);
        return CI_OK;
    }

    // Shrink-on-load target: the photo scaled by the cover factor
    // s = max(cellW / dw, cellH / dh), rounded up, in integers so that the
    // deciding axis comes out exactly as the cell (a floating-point ceil could
    // ask for one pixel more and defeat a DCT scale). Never more than the full
    // size: decoders do not upscale for us.
    uint32_t dw = info.display_width, dh = info.display_height;
    uint64_t min_w, min_h;
    if ((uint64_t)cell.width * dh >= (uint64_t)cell.height * dw) {  // width decides
        min_w = cell.width;
        min_h = mul_div_ceil(dh, cell.width, dw);
    } else {
        min_h = cell.height;
        min_w = mul_div_ceil(dw, cell.height, dh);
    }
    if (min_w > dw) min_w = dw;
    if (min_h > dh) min_h = dh;

    ci_decode_options options;
    memset(&options, 0, sizeof options);
    options.min_width = (uint32_t)min_w;
    options.min_height = (uint32_t)min_h;
    options.apply_orientation = 1;
    options.keep_alpha = 0;
    options.background = background;
    if (limits) options.limits = *limits;

    ci_image photo;
    memset(&photo, 0, sizeof photo);
    if (format == CI_FORMAT_JPEG)
        status = ci_jpeg_decode(data, size, path, &options, &photo, err);
    else
        status = ci_png_decode(data, size, path, &options, &photo, err);
    free(data);  // before resampling: lowers the peak when cells are drawn in parallel
    if (status != CI_OK) {
        ci_image_free(&photo);
        return status;
    }

    status = ci_resample_cover(&photo, canvas, cell, path, err);
    ci_image_free(&photo);
    return status;
}
