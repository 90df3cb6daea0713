// orient.c — turns a decoded image upright for its EXIF orientation, and
// says where a point of a stored image lands upright (and back).
#include "../internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Output pixels are visited in square tiles so that the orientations that
// transpose (5-8), which read the source column-wise, stay within a few
// cache lines per source row instead of touching a new row for every pixel.
#define TILE 64

// Where output pixel (x, y) comes from: the source byte offset
// origin + x * step_x + y * step_y. Offsets, not pointers, because the
// negative steps would otherwise form pointers outside the buffer.
typedef struct {
    ptrdiff_t origin, step_x, step_y;
} walk;

static walk walk_for(int orientation, const ci_image *src) {
    ptrdiff_t c = src->channels;
    ptrdiff_t s = (ptrdiff_t)src->stride;
    ptrdiff_t last_col = ((ptrdiff_t)src->width - 1) * c;
    ptrdiff_t last_row = ((ptrdiff_t)src->height - 1) * s;
    switch (orientation) {
    case 2: return (walk){last_col, -c, s};             // mirrored left-right
    case 3: return (walk){last_col + last_row, -c, -s}; // rotated 180°
    case 4: return (walk){last_row, c, -s};             // mirrored top-bottom
    case 5: return (walk){0, s, c};                     // transposed
    case 6: return (walk){last_row, -s, c};             // needs 90° clockwise
    case 7: return (walk){last_col + last_row, -s, -c}; // transverse
    case 8: return (walk){last_col, s, -c};             // needs 90° counter-clockwise
    default: return (walk){0, c, s};                    // 1: as stored
    }
}

ci_status ci_apply_orientation(ci_image *image, int orientation, const char *name, ci_error *err) {
    if (orientation < 2 || orientation > 8) return CI_OK;
    if (!image || !image->pixels || (image->channels != 1 && image->channels != 3 && image->channels != 4))
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: cannot orient an invalid image", name);

    uint32_t out_w, out_h;
    ci_oriented_size(orientation, image->width, image->height, &out_w, &out_h);
    // The image already passed the caller's pixel limit and orienting does
    // not add pixels, so allow exactly its own size rather than the default.
    ci_limits same = {(uint64_t)image->width * image->height};
    ci_image out;
    ci_status status = ci_image_alloc(&out, out_w, out_h, image->channels, &same, name, err);
    if (status != CI_OK) return status;

    walk w = walk_for(orientation, image);
    const uint8_t *src = image->pixels;
    const int c = image->channels;
    for (uint32_t ty = 0; ty < out_h; ty += TILE) {
        uint32_t y_end = out_h - ty < TILE ? out_h : ty + TILE;
        for (uint32_t tx = 0; tx < out_w; tx += TILE) {
            uint32_t x_end = out_w - tx < TILE ? out_w : tx + TILE;
            for (uint32_t y = ty; y < y_end; y++) {
                uint8_t *dst = out.pixels + (size_t)y * out.stride + (size_t)tx * c;
                ptrdiff_t at = w.origin + (ptrdiff_t)y * w.step_y + (ptrdiff_t)tx * w.step_x;
                // Separate loops so the copy size is a constant the compiler inlines.
                if (c == 1) {
                    for (uint32_t x = tx; x < x_end; x++, dst++, at += w.step_x) *dst = src[at];
                } else if (c == 3) {
                    for (uint32_t x = tx; x < x_end; x++, dst += 3, at += w.step_x)
                        memcpy(dst, src + at, 3);
                } else {
                    for (uint32_t x = tx; x < x_end; x++, dst += 4, at += w.step_x)
                        memcpy(dst, src + at, 4);
                }
            }
        }
    }

    free(image->pixels);
    *image = out;
    return CI_OK;
}

void ci_point_upright(int orientation, double sw, double sh, double a, double b, double *x, double *y) {
    switch (orientation) {
    case 2: *x = sw - a; *y = b; break;
    case 3: *x = sw - a; *y = sh - b; break;
    case 4: *x = a; *y = sh - b; break;
    case 5: *x = b; *y = a; break;
    case 6: *x = sh - b; *y = a; break;
    case 7: *x = sh - b; *y = sw - a; break;
    case 8: *x = b; *y = sw - a; break;
    default: *x = a; *y = b; break;
    }
}

void ci_point_stored(int orientation, double sw, double sh, double x, double y, double *a, double *b) {
    switch (orientation) {
    case 2: *a = sw - x; *b = y; break;
    case 3: *a = sw - x; *b = sh - y; break;
    case 4: *a = x; *b = sh - y; break;
    case 5: *a = y; *b = x; break;
    case 6: *a = y; *b = sh - x; break;
    case 7: *a = sw - y; *b = sh - x; break;
    case 8: *a = sw - y; *b = x; break;
    default: *a = x; *b = y; break;
    }
}

// ---------------------------------------------------------------------------
// Fractions of the photo: the mapping above on a 1 x 1 image

void ci_focus_to_stored(const ci_focus *focus, int orientation, double *a, double *b) {
    ci_point_stored(orientation, 1, 1, focus->x, focus->y, a, b);
}

ci_box ci_box_upright(ci_box stored, int orientation) {
    double x0, y0, x1, y1;
    ci_point_upright(orientation, 1, 1, stored.x, stored.y, &x0, &y0);
    ci_point_upright(orientation, 1, 1, stored.x + stored.width, stored.y + stored.height, &x1, &y1);
    ci_box box = {fmin(x0, x1), fmin(y0, y1), fabs(x1 - x0), fabs(y1 - y0)};
    return box;
}
