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
    if (ci_cell_off_canvas(canvas, cell)) {
        free(data);
        return CI_OK;
    }

    // PNGs have no shrink-on-load and no orientation (png.c): only the
    // background matters.
    ci_decode_options options;
    memset(&options, 0, sizeof options);
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
    size_t file_size, capacity, filled;
    uint8_t *buffer;
    ci_status status = ci_open_prefix(path, &fd, &file_size, &buffer, &capacity, &filled, err);
    if (status != CI_OK) return status;

    switch (ci_sniff_format(buffer, filled)) {
    case CI_FORMAT_JPEG:
        status = ci_jpeg_draw_fd(fd, buffer, capacity, filled, path, canvas, cell, limits, err);
        free(buffer);
        close(fd);
        return status;
    case CI_FORMAT_PNG: {
        // The whole file: what was read, then the rest.
        if (filled == capacity && file_size > capacity) {
            status = ci_read_rest(fd, &buffer, &filled, file_size, path, err);
            if (status != CI_OK) {
                free(buffer);
                close(fd);
                return status;
            }
        }
        close(fd);
        return draw_png(buffer, filled, path, canvas, cell, background, limits, err);
    }
    default:
        free(buffer);
        close(fd);
        return ci_fail(err, CI_ERR_NOT_IMAGE, "%s: not a JPEG or PNG file", path);
    }
}
