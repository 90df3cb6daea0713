// resample.c — anti-aliased "cover" scaling of one photo into one cell.
//
// Geometry. The cover factor is s = max(cellW / w, cellH / h). The photo
// scaled by s is centred on the cell and the overflow cropped, so output pixel
// x (0-based in the cell) samples the source at the continuous position
//     u = (x + 0.5) / s + (w - cellW / s) / 2
// where source pixel i covers [i, i + 1) and has its centre at i + 0.5 (the
// same for y). On the axis that decides s this reduces to u = (x + 0.5) / s.
// With a focus (crop.c: a face, the camera's subject, the person's choice)
// the window of cellW / s source pixels is centred on it instead, as far as
// the photo allows; without one the formula above is used as it is, so a
// centred crop is the same to the bit as before focus existed.
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
#include "../internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// The inner loops are plain C that the compiler vectorises, also for AVX2
// and FMA where the processor has them (CI_VECTOR_CLONES, internal.h).

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

// The taps of one axis (ci_axis_table, internal.h) for output positions
// [first_out, first_out + count): output o reads source samples start[o] ..
// start[o] + taps[o] - 1 with weights weight[o * max_taps + k].
typedef ci_axis_table axis_table;

static void axis_free(axis_table *table) {
    free(table->start);
    free(table->taps);
    free(table->weight);
    memset(table, 0, sizeof *table);
}

// Where a window `window` source pixels long starts when its centre is at
// fraction `centre` of the `size` source pixels: as close to that as the
// photo allows (the window never leaves it).
static double window_offset(uint32_t size, double window, double centre) {
    double room = (double)size - window;
    if (room <= 0.0) return room / 2.0;  // the axis that decides the scale: no room
    double offset = centre * (double)size - window / 2.0;
    return offset < 0.0 ? 0.0 : offset > room ? room : offset;
}

// `size` source samples, output positions first_out .. first_out + count - 1
// of a cell `cell_size` long, `inverse` = 1 / s.
static int axis_build(axis_table *table, uint32_t size, uint64_t cell_size, double inverse,
                      const double *centre, int64_t first_out, uint32_t count) {
    memset(table, 0, sizeof *table);
    double stretch = inverse > 1.0 ? inverse : 1.0;  // widen the kernel when downscaling
    double support = LANCZOS_LOBES * stretch;
    // Every tap index lies in floor(u - support) .. ceil(u + support).
    double span = ceil(2.0 * support) + 2.0;
    if (span > (double)size + 1.0) span = (double)size + 1.0;  // clamping never yields more
    int max_taps = (int)span;
    if (max_taps < 1) max_taps = 1;
    max_taps += max_taps & 1;  // even: horizontal_pass4 takes taps two at a time
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
    if (centre) offset = window_offset(size, (double)cell_size * inverse, *centre);
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

// row[k] = sum over taps t of weight[t] * rows[t][k], k < length.
// Each loop is a contiguous multiply-add over whole rows, so it vectorises;
// taps are taken four at a time so the float row is loaded and stored once
// per four source rows (the pass is bound by memory traffic, not arithmetic).
CI_VECTOR_CLONES
static void vertical_pass(float *restrict row, size_t length, const uint8_t *const *rows,
                          int32_t taps, const float *restrict weight) {
    const uint8_t *restrict s0 = rows[0];
    float w0 = weight[0];
    for (size_t k = 0; k < length; k++) row[k] = w0 * (float)s0[k];
    int32_t t = 1;
    for (; t + 4 <= taps; t += 4) {
        const uint8_t *restrict a = rows[t];
        const uint8_t *restrict b = rows[t + 1];
        const uint8_t *restrict c = rows[t + 2];
        const uint8_t *restrict d = rows[t + 3];
        float wa = weight[t], wb = weight[t + 1], wc = weight[t + 2], wd = weight[t + 3];
        for (size_t k = 0; k < length; k++)
            row[k] += wa * (float)a[k] + wb * (float)b[k] + wc * (float)c[k] + wd * (float)d[k];
    }
    for (; t < taps; t++) {
        const uint8_t *restrict src = rows[t];
        float w = weight[t];
        for (size_t k = 0; k < length; k++) row[k] += w * (float)src[k];
    }
}

// The same over rows already converted to float (see ci_cover_plan_push).
CI_VECTOR_CLONES
static void vertical_pass_float(float *restrict row, size_t length, const float *const *rows,
                                int32_t taps, const float *restrict weight) {
    const float *restrict s0 = rows[0];
    float w0 = weight[0];
    for (size_t k = 0; k < length; k++) row[k] = w0 * s0[k];
    int32_t t = 1;
    for (; t + 4 <= taps; t += 4) {
        const float *restrict a = rows[t];
        const float *restrict b = rows[t + 1];
        const float *restrict c = rows[t + 2];
        const float *restrict d = rows[t + 3];
        float wa = weight[t], wb = weight[t + 1], wc = weight[t + 2], wd = weight[t + 3];
        for (size_t k = 0; k < length; k++)
            row[k] += wa * a[k] + wb * b[k] + wc * c[k] + wd * d[k];
    }
    for (; t < taps; t++) {
        const float *restrict src = rows[t];
        float w = weight[t];
        for (size_t k = 0; k < length; k++) row[k] += w * src[k];
    }
}

CI_VECTOR_CLONES
static void to_floats(float *restrict out, const uint8_t *restrict in, size_t length) {
    for (size_t k = 0; k < length; k++) out[k] = (float)in[k];
}

// RGB rows as 4 floats a pixel (the 4th 0), so that RGB goes through
// horizontal_pass4 as RGBX does: the same sums, so the same pixels, at
// its speed (a smart draw's frame is RGB: draw.c's packed_frame_sink).
CI_VECTOR_CLONES
static void to_floats_widened(float *restrict out, const uint8_t *restrict in, size_t pixels) {
    for (size_t k = 0; k < pixels; k++, in += 3, out += 4) {
        out[0] = (float)in[0];
        out[1] = (float)in[1];
        out[2] = (float)in[2];
        out[3] = 0.0f;
    }
}

// The horizontal pass over one vertically filtered row of 3 floats per
// pixel, written through the orientation walk (step bytes between pixels).
static void horizontal_pass3(const float *row, const axis_table *across, uint32_t count,
                             uint8_t *out, ptrdiff_t step) {
    for (uint32_t x = 0; x < count; x++, out += step) {
        const float *restrict src = row + (size_t)(across->start[x] - across->lowest) * 3;
        const float *restrict weight = across->weight + (size_t)x * across->max_taps;
        int32_t taps = across->taps[x];
        float r = 0.0f, g = 0.0f, b = 0.0f;
        for (int32_t t = 0; t < taps; t++) {
            float wt = weight[t];
            r += wt * src[3 * t];
            g += wt * src[3 * t + 1];
            b += wt * src[3 * t + 2];
        }
        out[0] = to_byte(r);
        out[1] = to_byte(g);
        out[2] = to_byte(b);
    }
}

// The same for 4 floats per pixel (the 4th is ignored). Consecutive taps
// read consecutive pixels, so one 8-lane vector holds two taps' pixels and
// `weight4` (each weight repeated 4 times) the matching weights: a tap pair
// is one multiply-add (a fused one in the AVX2 build). Every output pixel
// takes the same number of tap pairs, `pairs` (the most any pixel of the row
// needs, rounded up): the weight table is zero past each pixel's taps and the
// row has 2 * pairs spare zero pixels at its end, so the extra taps add
// nothing, and a fixed count lets the loop be unrolled without a remainder.
typedef float float4 __attribute__((vector_size(16)));
typedef float float8 __attribute__((vector_size(32)));

// Rounds, clamps and stores the first three lanes as to_byte does.
static inline void store_rgb(uint8_t *out, float4 v) {
#if defined(__SSE2__)
    __m128 t = _mm_add_ps((__m128)v, _mm_set1_ps(0.5f));
    t = _mm_max_ps(t, _mm_setzero_ps());  // NaN gives the second operand: 0
    t = _mm_min_ps(t, _mm_set1_ps(255.0f));
    __m128i i = _mm_cvttps_epi32(t);
    out[0] = (uint8_t)_mm_cvtsi128_si32(i);
    out[1] = (uint8_t)_mm_cvtsi128_si32(_mm_srli_si128(i, 4));
    out[2] = (uint8_t)_mm_cvtsi128_si32(_mm_srli_si128(i, 8));
#else
    out[0] = to_byte(v[0]);
    out[1] = to_byte(v[1]);
    out[2] = to_byte(v[2]);
#endif
}

// One output pixel from `pairs` tap pairs. memcpy, not a function returning
// float8: that would change the calling convention between the baseline and
// AVX builds.
static inline __attribute__((always_inline)) void pixel_from_pairs(const float *src, const float *weight,
                                                                   int pairs, uint8_t *out) {
    float8 sum = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (int p = 0; p < pairs; p++) {
        float8 pixels, weights;
        memcpy(&pixels, src + 8 * p, sizeof pixels);
        memcpy(&weights, weight + 8 * p, sizeof weights);
        sum += pixels * weights;
    }
    float4 low = {sum[0], sum[1], sum[2], sum[3]}, high = {sum[4], sum[5], sum[6], sum[7]};
    store_rgb(out, low + high);
}

#define HORIZONTAL_ROW(pairs)                                                                 \
    for (uint32_t x = 0; x < count; x++, out += step)                                        \
        pixel_from_pairs(row + (size_t)(start[x] - lowest) * 4, weight4 + (size_t)x * stride, \
                         pairs, out)

CI_VECTOR_CLONES
static void horizontal_pass4(const float *row, const axis_table *across, const float *weight4,
                             int pairs, uint32_t count, uint8_t *out, ptrdiff_t step) {
    const int32_t *start = across->start;
    const int32_t lowest = across->lowest;
    const size_t stride = (size_t)across->max_taps * 4;
    // The common counts as constants, so that each loop is fully unrolled.
    switch (pairs) {
    case 1: HORIZONTAL_ROW(1); break;
    case 2: HORIZONTAL_ROW(2); break;
    case 3: HORIZONTAL_ROW(3); break;
    case 4: HORIZONTAL_ROW(4); break;
    case 5: HORIZONTAL_ROW(5); break;
    case 6: HORIZONTAL_ROW(6); break;
    case 7: HORIZONTAL_ROW(7); break;
    case 8: HORIZONTAL_ROW(8); break;
    default: HORIZONTAL_ROW(pairs); break;
    }
}

// ---------------------------------------------------------------------------
// Orientation of the output

// Where pixel (a, b) of a stored-orientation cell sw x sh lands in the upright
// cell, and back (orient.c's mapping, by pixel centres; exact for any size
// below 2^52).
static void stored_to_upright(int orientation, int64_t sw, int64_t sh, int64_t a, int64_t b,
                              int64_t *x, int64_t *y) {
    double fx, fy;
    ci_point_upright(orientation, (double)sw, (double)sh, (double)a + 0.5, (double)b + 0.5, &fx, &fy);
    *x = (int64_t)(fx - 0.5);
    *y = (int64_t)(fy - 0.5);
}

static void upright_to_stored(int orientation, int64_t sw, int64_t sh, int64_t x, int64_t y,
                              int64_t *a, int64_t *b) {
    double fa, fb;
    ci_point_stored(orientation, (double)sw, (double)sh, (double)x + 0.5, (double)y + 0.5, &fa, &fb);
    *a = (int64_t)(fa - 0.5);
    *b = (int64_t)(fb - 0.5);
}

// ---------------------------------------------------------------------------
// The plan

void ci_cover_plan_free(ci_cover_plan *plan) {
    if (!plan) return;
    axis_free(&plan->across);
    axis_free(&plan->down);
    free(plan->ring);
    free(plan->storage);
    free(plan->float_storage);
    free(plan->row);
    free(plan->tap_rows);
    free(plan->weight4);
    memset(plan, 0, sizeof *plan);
}

ci_status ci_cover_plan_init(ci_cover_plan *plan, uint32_t w, uint32_t h, int channels,
                             int orientation, ci_image *canvas, ci_rect cell, const ci_focus *focus,
                             const char *name, ci_error *err) {
    memset(plan, 0, sizeof *plan);
    if (!name) name = "(image)";
    if (!canvas || !canvas->pixels || canvas->channels != 3 || canvas->width == 0 ||
        canvas->height == 0 || canvas->stride < (size_t)canvas->width * 3)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: invalid canvas", name);
    if (channels != 3 && channels != 4)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT,
                       "%s: resampling needs RGB images (source has %d channels)", name, channels);
    if (w == 0 || h == 0) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: invalid image geometry", name);
    if (cell.width == 0 || cell.height == 0)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: empty cell %ux%u", name, cell.width,
                       cell.height);
    // Tap indices are int32_t.
    if (w > INT32_MAX || h > INT32_MAX)
        return ci_fail(err, CI_ERR_TOO_LARGE, "%s: %ux%u is too large to resample", name, w, h);
    if (orientation < 1 || orientation > 8) orientation = 1;
    plan->in_channels = plan->channels = channels;

    if (ci_cell_off_canvas(canvas, cell)) {
        plan->empty = 1;
        return CI_OK;
    }

    // The visible part of the cell, in upright cell coordinates: [x0, x1) x [y0, y1),
    // not empty.
    int64_t x0 = cell.x < 0 ? -(int64_t)cell.x : 0;
    int64_t y0 = cell.y < 0 ? -(int64_t)cell.y : 0;
    int64_t x1 = (int64_t)canvas->width - cell.x;
    int64_t y1 = (int64_t)canvas->height - cell.y;
    if (x1 > (int64_t)cell.width) x1 = cell.width;
    if (y1 > (int64_t)cell.height) y1 = cell.height;

    // The cell in stored orientation, and the visible part of it.
    int transposed = orientation >= 5;
    uint32_t sw = transposed ? cell.height : cell.width;
    uint32_t sh = transposed ? cell.width : cell.height;
    int64_t ca, cb, da, db;
    upright_to_stored(orientation, sw, sh, x0, y0, &ca, &cb);
    upright_to_stored(orientation, sw, sh, x1 - 1, y1 - 1, &da, &db);
    int64_t a0 = ca < da ? ca : da, a1 = (ca < da ? da : ca) + 1;
    int64_t b0 = cb < db ? cb : db, b1 = (cb < db ? db : cb) + 1;
    plan->out_w = (uint32_t)(a1 - a0);
    plan->out_h = (uint32_t)(b1 - b0);

    // Canvas byte offsets of stored-cell pixels (a0, b0), (a0 + 1, b0), (a0, b0 + 1).
    int64_t x, y;
    stored_to_upright(orientation, sw, sh, a0, b0, &x, &y);
    ptrdiff_t stride = (ptrdiff_t)canvas->stride;
    ptrdiff_t origin = (ptrdiff_t)(cell.y + y) * stride + (ptrdiff_t)(cell.x + x) * 3;
    stored_to_upright(orientation, sw, sh, a0 + 1, b0, &x, &y);
    ptrdiff_t along_a = (ptrdiff_t)(cell.y + y) * stride + (ptrdiff_t)(cell.x + x) * 3 - origin;
    stored_to_upright(orientation, sw, sh, a0, b0 + 1, &x, &y);
    ptrdiff_t along_b = (ptrdiff_t)(cell.y + y) * stride + (ptrdiff_t)(cell.x + x) * 3 - origin;
    plan->canvas_pixels = canvas->pixels;
    plan->origin = origin;
    plan->step_a = along_a;
    plan->step_b = along_b;

    if (w == sw && h == sh) {
        // Same size: the mapping is the identity, copy the visible part.
        plan->identity = 1;
        plan->first_row = (uint32_t)b0;
        plan->last_row = (uint32_t)(b1 - 1);
        plan->first_column = (uint32_t)a0;
        plan->columns = plan->out_w;
        return CI_OK;
    }

    // 1 / s, taken from the axis that decides s so that axis maps exactly:
    // s = sw / w when sw * h >= sh * w (exact in 64 bits).
    double inverse = (uint64_t)sw * h >= (uint64_t)sh * w ? (double)w / (double)sw
                                                            : (double)h / (double)sh;
    // The focus, upright, as fractions of the stored photo's axes.
    double centre_a = 0.5, centre_b = 0.5;
    if (focus) ci_focus_to_stored(focus, orientation, &centre_a, &centre_b);
    if (!axis_build(&plan->across, w, sw, inverse, focus ? &centre_a : NULL, a0, plan->out_w) ||
        !axis_build(&plan->down, h, sh, inverse, focus ? &centre_b : NULL, b0, plan->out_h)) {
        ci_cover_plan_free(plan);
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory for resampling", name);
    }
    plan->first_row = (uint32_t)plan->down.lowest;
    plan->last_row = (uint32_t)plan->down.highest;
    plan->first_column = (uint32_t)plan->across.lowest;
    plan->columns = (uint32_t)(plan->across.highest - plan->across.lowest + 1);

    // The rows to keep: output row y is written once every row up to the
    // last one any output row <= y reads has arrived, and it still needs its
    // first row then.
    int32_t reach = 0, ring = 1;
    for (uint32_t o = 0; o < plan->out_h; o++) {
        int32_t last = plan->down.start[o] + plan->down.taps[o] - 1;
        if (last > reach) reach = last;
        if (reach - plan->down.start[o] + 1 > ring) ring = reach - plan->down.start[o] + 1;
    }
    plan->ring_rows = (uint32_t)ring;
    return CI_OK;
}

// The float ring is used when it takes at most this much; beyond (extreme
// reductions of huge images), rows stay 8-bit and are converted per tap.
#define FLOAT_RING_BUDGET ((size_t)16 << 20)

ci_status ci_cover_plan_start(ci_cover_plan *plan, uint32_t first_column, uint32_t columns,
                              int own_rows, const char *name, ci_error *err) {
    if (!name) name = "(image)";
    if (plan->empty) return CI_OK;
    if (first_column > plan->first_column ||
        (uint64_t)first_column + columns < (uint64_t)plan->first_column + plan->columns)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: rows do not hold the needed columns", name);
    plan->skip_bytes = (size_t)(plan->first_column - first_column) * (size_t)plan->in_channels;
    plan->row_bytes = (size_t)columns * (size_t)plan->in_channels;
    if (plan->identity) plan->ring_rows = 1;
    // Each source row is read by several output rows: converting it to float
    // once, as it arrives, beats converting it once per tap. RGB is widened
    // to 4 floats then (to_floats_widened).
    plan->floats = !plan->identity &&
                   (size_t)plan->columns * 4 <= FLOAT_RING_BUDGET / sizeof(float) / plan->ring_rows;
    if (plan->floats) plan->channels = 4;
    size_t length = (size_t)plan->columns * (size_t)plan->channels;  // samples the filter reads
    plan->ring = calloc(plan->ring_rows, sizeof *plan->ring);
    if (own_rows) {
        size_t rows = plan->floats ? 1 : plan->ring_rows;  // floats: the 8-bit row is converted at once
        if (plan->row_bytes > SIZE_MAX / rows)
            return ci_fail(err, CI_ERR_TOO_LARGE, "%s: too large to resample", name);
        plan->storage = malloc(plan->row_bytes * rows);
    }
    if (plan->floats) plan->float_storage = malloc(sizeof(float) * length * plan->ring_rows);
    if (!plan->identity) {
        // horizontal_pass4 reads 2 * pairs taps for every pixel: the most
        // any pixel has, rounded up to a pair (never more than max_taps,
        // which is even), and up to that many zero pixels past the row.
        int32_t most = 1;
        for (uint32_t x = 0; x < plan->out_w; x++)
            if (plan->across.taps[x] > most) most = plan->across.taps[x];
        plan->pairs = (most + 1) / 2;
        plan->row = calloc(length + (size_t)plan->across.max_taps * 4, sizeof(float));
        if (plan->channels == 4) {
            size_t weights = (size_t)plan->out_w * (size_t)plan->across.max_taps;
            plan->weight4 = malloc(sizeof(float) * 4 * weights);
            if (plan->weight4)
                for (size_t i = 0; i < weights; i++)
                    for (int c = 0; c < 4; c++) plan->weight4[4 * i + c] = plan->across.weight[i];
        }
        plan->tap_rows = malloc(sizeof *plan->tap_rows * (size_t)plan->down.max_taps);
    }
    if (!plan->ring || (own_rows && !plan->storage) || (plan->floats && !plan->float_storage) ||
        (!plan->identity && (!plan->row || !plan->tap_rows || (plan->channels == 4 && !plan->weight4))))
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory for resampling", name);
    return CI_OK;
}

uint8_t *ci_cover_plan_slot(ci_cover_plan *plan) {
    if (!plan->storage) return NULL;
    if (plan->floats) return plan->storage;
    return plan->storage + (size_t)(plan->pushed % plan->ring_rows) * plan->row_bytes;
}

// Writes output row `o` (stored-cell coordinates, relative to the visible part).
static void emit_row(ci_cover_plan *plan, uint32_t o) {
    const axis_table *down = &plan->down;
    const void **rows = plan->tap_rows;
    int32_t count = down->taps[o];
    for (int32_t t = 0; t < count; t++) {
        uint32_t source = (uint32_t)(down->start[o] + t);
        rows[t] = plan->ring[(source - plan->first_row) % plan->ring_rows];
    }
    size_t length = (size_t)plan->columns * (size_t)plan->channels;
    const float *weight = down->weight + (size_t)o * down->max_taps;
    if (plan->floats)
        vertical_pass_float(plan->row, length, (const float *const *)rows, count, weight);
    else
        vertical_pass(plan->row, length, (const uint8_t *const *)rows, count, weight);
    uint8_t *out = plan->canvas_pixels + plan->origin + (ptrdiff_t)o * plan->step_b;
    if (plan->channels == 4)
        horizontal_pass4(plan->row, &plan->across, plan->weight4, plan->pairs, plan->out_w, out,
                         plan->step_a);
    else
        horizontal_pass3(plan->row, &plan->across, plan->out_w, out, plan->step_a);
}

void ci_cover_plan_push(ci_cover_plan *plan, const uint8_t *row) {
    if (plan->empty || !plan->ring) return;
    uint32_t source = plan->first_row + plan->pushed;
    if (source > plan->last_row) return;
    row += plan->skip_bytes;
    plan->pushed++;
    if (plan->identity) {
        uint8_t *out = plan->canvas_pixels + plan->origin + (ptrdiff_t)(source - plan->first_row) * plan->step_b;
        for (uint32_t a = 0; a < plan->out_w; a++, out += plan->step_a, row += plan->in_channels) {
            out[0] = row[0];
            out[1] = row[1];
            out[2] = row[2];
        }
        return;
    }
    uint32_t slot = (source - plan->first_row) % plan->ring_rows;
    if (plan->floats) {
        size_t length = (size_t)plan->columns * (size_t)plan->channels;
        float *converted = plan->float_storage + (size_t)slot * length;
        if (plan->in_channels == 3) to_floats_widened(converted, row, plan->columns);
        else to_floats(converted, row, length);
        plan->ring[slot] = converted;
    } else {
        plan->ring[slot] = row;
    }
    const axis_table *down = &plan->down;
    while (plan->next_out < plan->out_h &&
           (uint32_t)(down->start[plan->next_out] + down->taps[plan->next_out] - 1) <= source) {
        emit_row(plan, plan->next_out);
        plan->next_out++;
    }
}

// ---------------------------------------------------------------------------
// A whole image in memory

ci_status ci_resample_cover(const ci_image *source, int orientation, ci_image *canvas, ci_rect cell,
                            const ci_focus *focus, const char *name, ci_error *err) {
    if (!name) name = "(image)";
    if (!source || !canvas || !source->pixels || !canvas->pixels)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: missing image", name);
    if ((source->channels != 3 && source->channels != 4) || canvas->channels != 3)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT,
                       "%s: resampling needs RGB images (source has %d channels, canvas %d)", name,
                       source->channels, canvas->channels);
    if (source->width == 0 || source->height == 0 ||
        source->stride < (size_t)source->width * (size_t)source->channels || canvas->width == 0 ||
        canvas->height == 0 || canvas->stride < (size_t)canvas->width * 3)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: invalid image geometry", name);

    ci_cover_plan plan;
    ci_status status = ci_cover_plan_init(&plan, source->width, source->height, source->channels,
                                          orientation, canvas, cell, focus, name, err);
    if (status == CI_OK && !plan.empty) {
        status = ci_cover_plan_start(&plan, 0, source->width, 0, name, err);
        for (uint32_t y = plan.first_row; status == CI_OK && y <= plan.last_row; y++)
            ci_cover_plan_push(&plan, source->pixels + (size_t)y * source->stride);
    }
    ci_cover_plan_free(&plan);
    return status;
}
