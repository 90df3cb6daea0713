// draw.c — one photo into one cell of the collage.
//
// JPEG: decoded straight into the cell (ci_jpeg_draw_fd): shrink-on-load to
// the smallest DCT scale that still covers the cell, only the visible part
// transformed, each row resampled as it arrives, oriented on the way out. The
// file is read a buffer at a time and the photo is never held whole.
//
// PNG: read -> probe -> decode (alpha over the background) -> resample to
// cover the cell (resample.c).
//
// Every buffer is local to the call: calls on disjoint cells of one canvas
// may run concurrently.
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The read buffer: the first read also tells the format apart.
#define READ_BUFFER_BYTES 65536

// ceil(a * b / c) for 32-bit operands, exact: a * b + c - 1 < 2^64.
static uint64_t mul_div_ceil(uint32_t a, uint32_t b, uint32_t c) {
    return ((uint64_t)a * b + c - 1) / c;
}

void ci_cover_min_size(uint32_t dw, uint32_t dh, ci_rect cell, uint32_t *min_w, uint32_t *min_h) {
    // The photo scaled by the cover factor s = max(cellW / dw, cellH / dh),
    // rounded up, in integers so that the deciding axis comes out exactly as
    // the cell (a floating-point ceil could ask for one pixel more and defeat
    // a DCT scale). Never more than the full size: decoders do not upscale
    // for us.
    uint64_t w, h;
    if ((uint64_t)cell.width * dh >= (uint64_t)cell.height * dw) {  // width decides
        w = cell.width;
        h = mul_div_ceil(dh, cell.width, dw);
    } else {
        h = cell.height;
        w = mul_div_ceil(dw, cell.height, dh);
    }
    *min_w = (uint32_t)(w > dw ? dw : w);
    *min_h = (uint32_t)(h > dh ? dh : h);
}

// The PNG path: the whole file in memory (`data`, taken over and freed).
static ci_status draw_png(uint8_t *data, size_t size, const char *path, ci_image *canvas,
                          ci_rect cell, ci_color background, const ci_limits *limits,
                          ci_error *err) {
    ci_photo_info info;
    memset(&info, 0, sizeof info);
    ci_status status = ci_png_probe(data, size, path, &info, err);
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

    ci_decode_options options;
    memset(&options, 0, sizeof options);
    ci_cover_min_size(info.display_width, info.display_height, cell, &options.min_width,
                      &options.min_height);
    options.apply_orientation = 1;
    options.keep_alpha = 0;
    options.background = background;
    if (limits) options.limits = *limits;

    ci_image photo;
    memset(&photo, 0, sizeof photo);
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

    int fd;
    size_t file_size;
    ci_status status = ci_open_file(path, &fd, &file_size, err);
    if (status != CI_OK) return status;
    size_t capacity = file_size < READ_BUFFER_BYTES ? (file_size < 16 ? 16 : file_size)
                                                    : READ_BUFFER_BYTES;
    uint8_t *buffer = malloc(capacity);
    if (!buffer) {
        close(fd);
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory reading the file", path);
    }
    int error;
    size_t filled = ci_read_up_to(fd, buffer, capacity, &error);
    if (error || filled == 0) {
        free(buffer);
        close(fd);
        return error ? ci_fail(err, CI_ERR_OPEN, "%s: %s", path, strerror(error))
                     : ci_fail(err, CI_ERR_NOT_IMAGE, "%s: is empty", path);
    }

    switch (ci_sniff_format(buffer, filled)) {
    case CI_FORMAT_JPEG:
        status = ci_jpeg_draw_fd(fd, buffer, capacity, filled, path, canvas, cell, limits, err);
        free(buffer);
        close(fd);
        return status;
    case CI_FORMAT_PNG: {
        // The whole file: what was read, then the rest.
        uint8_t *data = buffer;
        size_t size = filled;
        if (filled == capacity && file_size > capacity) {
            data = realloc(buffer, file_size);
            if (!data) {
                free(buffer);
                close(fd);
                return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory reading %zu bytes", path,
                               file_size);
            }
            size += ci_read_up_to(fd, data + filled, file_size - filled, &error);
            if (error) {
                free(data);
                close(fd);
                return ci_fail(err, CI_ERR_OPEN, "%s: %s", path, strerror(error));
            }
        }
        close(fd);
        return draw_png(data, size, path, canvas, cell, background, limits, err);
    }
    default:
        free(buffer);
        close(fd);
        return ci_fail(err, CI_ERR_NOT_IMAGE, "%s: not a JPEG or PNG file", path);
    }
}
