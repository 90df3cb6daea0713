// reduce.c — a frame reduced by averaging to a small upright picture, for
// looking at a photo rather than showing it: the one reduction that the
// face search (faces.c, grey), the attention crop (crop.c, colour) and
// suggest's measures (measure.c, grey) each ask for at their own size.
#include "../internal.h"

#include <stdlib.h>
#include <string.h>

// Dividing by n as a multiplication: for n < 2^16 and a sum of at most
// 256 n (under 2^24), (x * (floor(2^40 / n) + 1)) >> 40 is x / n exactly
// (the multiplier's excess e <= n, and x e < 2^40). Larger n divide.
typedef struct {
    uint64_t n, multiplier;
} divisor;

static divisor divisor_of(uint64_t n) {
    divisor d = {n ? n : 1, 0};
    if (d.n < 65536) d.multiplier = ((uint64_t)1 << 40) / d.n + 1;
    return d;
}

static uint8_t rounded_average(uint64_t sum, const divisor *d) {
    uint64_t x = sum + d->n / 2;
    return (uint8_t)(d->multiplier ? (x * d->multiplier) >> 40 : x / d->n);
}

// band[i] = row[i] (the band's first row) or band[i] += row[i]: most of
// ci_reduce_upright's time, the frame's every byte (CI_VECTOR_CLONES: AVX2
// widens and adds 8 bytes an instruction).
CI_VECTOR_CLONES
static void band_sum(uint32_t *restrict band, const uint8_t *restrict row, size_t count, int first) {
    if (first)
        for (size_t i = 0; i < count; i++) band[i] = row[i];
    else
        for (size_t i = 0; i < count; i++) band[i] += row[i];
}

void ci_reduced_size(uint32_t dw, uint32_t dh, uint32_t side, int by_long_side, uint32_t *w, uint32_t *h) {
    const uint32_t measured = by_long_side ? (dw > dh ? dw : dh) : (dw < dh ? dw : dh);
    *w = dw;
    *h = dh;
    if (measured <= side) return;
    *w = (uint32_t)((uint64_t)dw * side / measured);
    *h = (uint32_t)((uint64_t)dh * side / measured);
}

// Grey as the detectors and measures see it: the luma of a colour (BT.601's
// weights in 256ths, rounded). Of the averaged colour, not the average of
// each pixel's grey: the same to within a level, and a third of the work.
static inline uint8_t luma(uint8_t r, uint8_t g, uint8_t b) {
    return (uint8_t)((77 * r + 150 * g + 29 * b + 128) >> 8);
}

// A box filter is enough for looking at a photo; it reads each pixel of the
// frame once. Reduced as stored, then turned upright (ci_apply_orientation):
// the small picture is quicker to turn than each pixel is to place (issue
// #23: this was a fifth of the face search's cost).
ci_status ci_reduce_upright(const ci_image *frame, int orientation, uint32_t width, uint32_t height, int channels_out,
                            ci_image *out, const char *name, ci_error *err) {
    memset(out, 0, sizeof *out);
    if (!frame || !frame->pixels || frame->width == 0 || frame->height == 0 || frame->channels < 3 ||
        (channels_out != 1 && channels_out != 3))
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: cannot look at an invalid image", name);
    uint32_t sw, sh;
    ci_oriented_size(orientation, width, height, &sw, &sh);  // upright to stored: the same swap
    if (sw > frame->width) sw = frame->width;
    if (sh > frame->height) sh = frame->height;
    if (sw == 0) sw = 1;
    if (sh == 0) sh = 1;
    ci_status status = ci_image_alloc(out, sw, sh, channels_out, NULL, name, err);
    if (status != CI_OK) return status;
    const int channels = frame->channels;
    const size_t row_values = (size_t)frame->width * (size_t)channels;
    // Each band of frame rows summed down its columns first: one pass over
    // contiguous bytes, vectorised (band_sum).
    uint32_t *band = malloc(row_values * sizeof *band);
    uint32_t *column = malloc(((size_t)sw + 1) * sizeof *column);
    if (!band || !column) {
        free(band);
        free(column);
        ci_image_free(out);
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory looking at the photo", name);
    }
    // Output column a averages frame columns column[a] .. column[a + 1] - 1.
    for (uint32_t a = 0; a <= sw; a++) column[a] = (uint32_t)((uint64_t)a * frame->width / sw);
    for (uint32_t b = 0; b < sh; b++) {
        uint32_t row0 = (uint32_t)((uint64_t)b * frame->height / sh);
        uint32_t row1 = (uint32_t)((uint64_t)(b + 1) * frame->height / sh);
        for (uint32_t r = row0; r < row1; r++)
            band_sum(band, frame->pixels + (size_t)r * frame->stride, row_values, r == row0);
        uint8_t *q = out->pixels + (size_t)b * out->stride;
        // Output columns are `narrow` or `narrow + 1` frame columns wide, so
        // two divisors serve the row, each as a multiplier (the divisions
        // were most of this function's time).
        const uint32_t narrow = frame->width / sw, rows = row1 - row0;
        divisor by[2] = {divisor_of((uint64_t)narrow * rows), divisor_of((uint64_t)(narrow + 1) * rows)};
        for (uint32_t a = 0; a < sw; a++) {
            uint64_t red = 0, green = 0, blue = 0;
            for (uint32_t c = column[a]; c < column[a + 1]; c++) {
                const uint32_t *v = band + (size_t)c * channels;
                red += v[0];
                green += v[1];
                blue += v[2];
            }
            const divisor *n = &by[column[a + 1] - column[a] > narrow];
            const uint8_t r = rounded_average(red, n), g = rounded_average(green, n), bl = rounded_average(blue, n);
            if (channels_out == 1) {
                q[a] = luma(r, g, bl);
            } else {
                q[a * 3] = r;
                q[a * 3 + 1] = g;
                q[a * 3 + 2] = bl;
            }
        }
    }
    free(band);
    free(column);
    status = ci_apply_orientation(out, orientation, name, err);
    if (status != CI_OK) ci_image_free(out);
    return status;
}
