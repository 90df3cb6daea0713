// resample.c — anti-aliased "cover" scaling of one photo into one cell.
//
// Geometry. The cover factor is s = max(cellW / w, cellH / h). The photo
// scaled by s is centred on the cell and the overflow cropped, so output pixel
// x (0-based in the cell) samples the source at the continuous position
//     u = (x + 0.5) / s + (w - cellW / s) / 2
// where source pixel i covers [i, i + 1) and has its centre at i + 0.5 (the
// same for y). On the axis that decides s this reduces to u = (x + 0.5) / s.
//
// Filter. Lanczos-3, separable. When downscaling (s < 1) the kernel is
// stretched by 1/s (support 3/s source pixels) so that it also acts as the
// low-pass filter that prevents aliasing; when upscaling it is used as is
// (support 3). Each output pixel's taps are normalised to sum to 1; taps that
// fall outside the photo are folded onto the edge pixel (clamp-to-edge), so
// edges neither darken nor ring against an imaginary black border.
//
// Order: vertical pass first, then horizontal, one output row at a time.
//  - Both orders do the same number of multiply-adds when each pass is
//    restricted to what the visible output needs: the expensive term (source
//    rows x needed columns x vertical taps, or needed rows x output columns x
//    horizontal taps) is ~ (out pixels) * taps / s in either case.
//  - Vertical-first puts that expensive term in the pass whose inner loop is a
//    contiguous "row += weight * source row" over interleaved RGB bytes, which
//    the compiler vectorises (uint8 -> float, multiply-add, 8 or 16 lanes). The
//    horizontal pass (a short dot product per output sample) only runs on
//    output-sized rows.
//  - It streams: the intermediate is one float row of the needed source
//    columns, not a whole (source rows x output columns) image, so memory is
//    O(width) and stays in cache.
//
// Only pixels inside both the cell and the canvas are computed or written;
// every buffer is local to the call, so concurrent calls on disjoint cells of
// one canvas are safe.
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LANCZOS_LOBES 3.0
static const double pi = 3.14159265358979323846;

static double sinc(double x) {
    if (x == 0.0) return 1.0;
    double px = pi * x;
    return sin(px) / px;
}

static double lanczos3(double x) {
    if (x <= -LANCZOS_LOBES || x >= LANCZOS_LOBES) return 0.0;
    return sinc(x) * sinc(x / LANCZOS_LOBES);
}

// The taps of one axis for output positions [first_out, first_out + count):
// output o reads source samples start[o] .. start[o] + taps[o] - 1 with
// weights weight[o * max_taps + k].
typedef struct {
    int32_t *start;
    int32_t *taps;
    float *weight;
    int max_taps;
    int32_t lowest, highest;   // the source range all outputs together need
} axis_table;

static void axis_free(axis_table *table) {
    free(table->start);
    free(table->taps);
    free(table->weight);
    memset(table, 0, sizeof *table);
}

// `size` source samples, output positions first_out .. first_out + count - 1
// of a cell `cell_size` long, `inverse` = 1 / s.
static int axis_build(axis_table *table, uint32_t size, uint64_t cell_size, double inverse,
                      int64_t first_out, uint32_t count) {
    memset(table, 0, sizeof *table);
    double stretch = inverse > 1.0 ? inverse : 1.0;  // widen the kernel when downscaling
    double support = LANCZOS_LOBES * stretch;
    // Every tap index lies in floor(u - support) .. ceil(u + support).
    double span = ceil(2.0 * support) + 2.0;
    if (span > (double)size + 1.0) span = (double)size + 1.0;  // clamping never yields more
    int max_taps = (int)span;
    if (max_taps < 1) max_taps = 1;
    table->max_taps = max_taps;
    table->start = malloc(sizeof(int32_t) * count);
    table->taps = malloc(sizeof(int32_t) * count);
    table->weight = calloc((size_t)count * (size_t)max_taps, sizeof(float));
    double *raw = malloc(sizeof(double) * (size_t)max_taps);
    if (!table->start || !table->taps || !table->weight || !raw) {
        free(raw);
        axis_free(table);
        return 0;
    }
    double offset = ((double)size - (double)cell_size * inverse) / 2.0;
    int32_t last = (int32_t)size - 1;
    table->lowest = last;
    table->highest = 0;
    for (uint32_t o = 0; o < count; o++) {
        double u = ((double)(first_out + o) + 0.5) * inverse + offset;
        int64_t from = (int64_t)floor(u - support);
        int64_t to = (int64_t)ceil(u + support);
        // Clamp to the photo: [lo, hi] is where the folded taps land.
        int64_t lo = from < 0 ? 0 : from > last ? last : from;
        int64_t hi = to < 0 ? 0 : to > last ? last : to;
        int n = (int)(hi - lo + 1);
        if (n > max_taps) n = max_taps;  // cannot happen (span bound); keeps writes in range
        for (int k = 0; k < n; k++) raw[k] = 0.0;
        double sum = 0.0;
        for (int64_t i = from; i <= to; i++) {
            double w = lanczos3(((double)i + 0.5 - u) / stretch);
            if (w == 0.0) continue;
            int64_t j = i < lo ? lo : i > hi ? hi : i;
            int64_t k = j - lo;
            if (k >= n) k = n - 1;
            raw[k] += w;
            sum += w;
        }
        // Trim zero-weight taps at both ends (e.g. when u sits on a centre).
        int begin = 0, end = n;
        while (begin < end && raw[begin] == 0.0) begin++;
        while (end > begin && raw[end - 1] == 0.0) end--;
        if (begin == end || sum == 0.0) {  // not reachable with Lanczos; be safe
            int64_t nearest = (int64_t)floor(u);
            nearest = nearest < 0 ? 0 : nearest > last ? last : nearest;
            lo = nearest;
            begin = 0;
            end = 1;
            raw[0] = 1.0;
            sum = 1.0;
        }
        float *weights = table->weight + (size_t)o * max_taps;
        for (int k = begin; k < end; k++) weights[k - begin] = (float)(raw[k] / sum);
        table->start[o] = (int32_t)(lo + begin);
        table->taps[o] = end - begin;
        if (table->start[o] < table->lowest) table->lowest = table->start[o];
        int32_t top = table->start[o] + table->taps[o] - 1;
        if (top > table->highest) table->highest = top;
    }
    free(raw);
    return 1;
}

static inline uint8_t to_byte(float v) {
    // Lanczos lobes overshoot: clamp, then round half up.
    if (!(v > 0.0f)) return 0;  // also catches NaN
    if (v >= 254.5f) return 255;
    return (uint8_t)(v + 0.5f);
}

// row[k] = sum over taps t of weight[t] * source_row_t[k], k < length.
// Each loop is a contiguous multiply-add over whole rows, so it vectorises;
// taps are taken four at a time so the float row is loaded and stored once
// per four source rows (the pass is bound by memory traffic, not arithmetic).
static void vertical_pass(float *restrict row, size_t length, const uint8_t *restrict base,
                          size_t stride, int32_t start, int32_t taps, const float *restrict weight) {
    const uint8_t *restrict s0 = base + (size_t)start * stride;
    float w0 = weight[0];
    for (size_t k = 0; k < length; k++) row[k] = w0 * (float)s0[k];
    int32_t t = 1;
    for (; t + 4 <= taps; t += 4) {
        const uint8_t *restrict a = base + (size_t)(start + t) * stride;
        const uint8_t *restrict b = a + stride;
        const uint8_t *restrict c = b + stride;
        const uint8_t *restrict d = c + stride;
        float wa = weight[t], wb = weight[t + 1], wc = weight[t + 2], wd = weight[t + 3];
        for (size_t k = 0; k < length; k++)
            row[k] += wa * (float)a[k] + wb * (float)b[k] + wc * (float)c[k] + wd * (float)d[k];
    }
    for (; t < taps; t++) {
        const uint8_t *restrict src = base + (size_t)(start + t) * stride;
        float w = weight[t];
        for (size_t k = 0; k < length; k++) row[k] += w * (float)src[k];
    }
}

ci_status ci_resample_cover(const ci_image *source, ci_image *canvas, ci_rect cell,
                            const char *name, ci_error *err) {
    if (!name) name = "(image)";
    if (!source || !canvas || !source->pixels || !canvas->pixels)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: missing image", name);
    if (source->channels != 3 || canvas->channels != 3)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT,
                       "%s: resampling needs RGB images (source has %d channels, canvas %d)", name,
                       source->channels, canvas->channels);
    if (source->width == 0 || source->height == 0 || source->stride < (size_t)source->width * 3 ||
        canvas->width == 0 || canvas->height == 0 || canvas->stride < (size_t)canvas->width * 3)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: invalid image geometry", name);
    if (cell.width == 0 || cell.height == 0)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: empty cell %ux%u", name, cell.width,
                       cell.height);
    // Tap indices are int32_t.
    if (source->width > INT32_MAX || source->height > INT32_MAX)
        return ci_fail(err, CI_ERR_TOO_LARGE, "%s: %ux%u is too large to resample", name,
                       source->width, source->height);

    // The visible part of the cell, in cell coordinates: [x0, x1) x [y0, y1).
    int64_t x0 = cell.x < 0 ? -(int64_t)cell.x : 0;
    int64_t y0 = cell.y < 0 ? -(int64_t)cell.y : 0;
    int64_t x1 = (int64_t)canvas->width - cell.x;
    int64_t y1 = (int64_t)canvas->height - cell.y;
    if (x1 > (int64_t)cell.width) x1 = cell.width;
    if (y1 > (int64_t)cell.height) y1 = cell.height;
    if (x0 >= x1 || y0 >= y1) return CI_OK;  // nothing of the cell is on the canvas
    uint32_t out_w = (uint32_t)(x1 - x0), out_h = (uint32_t)(y1 - y0);
    uint8_t *out_origin = canvas->pixels + (size_t)(cell.y + y0) * canvas->stride +
                          (size_t)(cell.x + x0) * 3;

    uint32_t w = source->width, h = source->height;
    if (w == cell.width && h == cell.height) {
        // Same size: the mapping is the identity, copy the visible part.
        for (uint32_t y = 0; y < out_h; y++)
            memcpy(out_origin + (size_t)y * canvas->stride,
                   source->pixels + (size_t)(y0 + y) * source->stride + (size_t)x0 * 3,
                   (size_t)out_w * 3);
        return CI_OK;
    }

    // 1 / s, taken from the axis that decides s so that axis maps exactly:
    // s = cellW / w when cellW * h >= cellH * w (exact in 64 bits).
    double inverse = (uint64_t)cell.width * h >= (uint64_t)cell.height * w
                         ? (double)w / (double)cell.width
                         : (double)h / (double)cell.height;

    axis_table across, down;
    if (!axis_build(&across, w, cell.width, inverse, x0, out_w))
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory for resampling", name);
    if (!axis_build(&down, h, cell.height, inverse, y0, out_h)) {
        axis_free(&across);
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory for resampling", name);
    }

    // The intermediate row holds only the source columns the visible output
    // reads: [across.lowest, across.highest].
    size_t columns = (size_t)(across.highest - across.lowest + 1);
    size_t length = columns * 3;
    float *row = malloc(sizeof(float) * length);
    if (!row) {
        axis_free(&across);
        axis_free(&down);
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory for resampling", name);
    }
    const uint8_t *column_base = source->pixels + (size_t)across.lowest * 3;
    int max_taps = across.max_taps;

    for (uint32_t y = 0; y < out_h; y++) {
        vertical_pass(row, length, column_base, source->stride, down.start[y], down.taps[y],
                      down.weight + (size_t)y * down.max_taps);
        uint8_t *out = out_origin + (size_t)y * canvas->stride;
        for (uint32_t x = 0; x < out_w; x++) {
            const float *restrict src = row + (size_t)(across.start[x] - across.lowest) * 3;
            const float *restrict weight = across.weight + (size_t)x * max_taps;
            int32_t taps = across.taps[x];
            float r = 0.0f, g = 0.0f, b = 0.0f;
            for (int32_t t = 0; t < taps; t++) {
                float wt = weight[t];
                r += wt * src[3 * t];
                g += wt * src[3 * t + 1];
                b += wt * src[3 * t + 2];
            }
            out[3 * x] = to_byte(r);
            out[3 * x + 1] = to_byte(g);
            out[3 * x + 2] = to_byte(b);
        }
    }

    free(row);
    axis_free(&across);
    axis_free(&down);
    return CI_OK;
}
