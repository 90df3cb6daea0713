// cascades.cpp — two of OpenCV's boosted cascades, compiled in by
// scripts/faces/make-cascade-models.py, behind a C interface:
//  - faces in profile (issue #23): haarcascade_profileface (Haar-like
//    features, 20 x 20 window; profile_face_model.inc), scanned as is and
//    mirrored (the cascade knows faces looking one way);
//  - small frontal faces (issue #31): lbpcascade_frontalface (local binary
//    patterns, 24 x 24 window; small_face_model.inc), for faces smaller
//    than dlib's 80-pixel window sees. Cheap but not sure: the engine has
//    dlib confirm what it finds (analysis/faces.c).
// Both are evaluated by the same scan (one pyramid, one integral image a
// level, one grouping); only a window's classification differs.
//
// Why hand-written rather than cv::CascadeClassifier: the library's
// classifier parses the cascade's 800 KB of XML for each use (15 ms) and a
// loaded one cannot be shared between threads, while the engine keeps no
// global state and draws photos in parallel; and it would make OpenCV a
// dependency of the product. This follows what detectMultiScale does, step
// by step, so that its results agree (scripts/faces/compare_profiles.cpp
// compares them for the profile cascade): a pyramid of the picture shrunk
// by the scale factor with the window's size fixed (OpenCV's bit-exact
// bilinear resize), the integral image of each level (and for Haar
// features its squared one: a window's pixels are normalised by their
// standard deviation, and windows of almost flat grey rejected, as there),
// the stages' stumps summed against each stage's threshold, windows every
// 2 pixels below a scale of 2 and every pixel above, the next window
// skipped when one fails the first stage, and the windows found grouped
// like groupRectangles (min neighbours, eps 0.2).
//
// What is added: a region (cf_region): windows whose face, grown by the
// head's reach, lies wholly inside the part of the picture every crop shows
// are not evaluated, and the faces found there are not reported.
// And a largest size: the small faces' search stops where dlib's begins.
//
// No globals, no exceptions (memory is malloc'd and checked), no aborts:
// safe on any thread.
#include "collage_faces.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile_face_model.inc"
#include "small_face_model.inc"

namespace {

// The search's settings: detectMultiScale's scale factor and min neighbours
// (its grouping's eps is fixed at 0.2). scripts/faces/compare_profiles.cpp
// may set others to try them.
#ifndef PROFILE_SCALE_FACTOR
#define PROFILE_SCALE_FACTOR 1.1
#endif
#ifndef PROFILE_MIN_NEIGHBOURS
#define PROFILE_MIN_NEIGHBOURS 3
#endif
// The same for small faces (scripts/faces/ may set others to try them),
// and the factor between its scales below a scale of 2, where windows go
// every 2 pixels: 5%, not 10%. A face of 5% of the short side is 32 pixels
// in the engine's 640-pixel picture, and the cascade fires on a face only
// near its own framing, so with 10% steps and 2-pixel strides too few
// windows landed on it to group (min neighbours 3). With 5% steps there
// the engine's search found 12 of the 13 faces of the crop evaluation's
// small group it missed (all but one of 5%; docs/quality.md). 5% at every
// scale found the same, for more time, and new false faces in windows of
// 50-90 pixels (SmallFaceTests).
#ifndef SMALL_SCALE_FACTOR
#define SMALL_SCALE_FACTOR 1.1
#endif
#ifndef SMALL_FINE_SCALE_FACTOR
#define SMALL_FINE_SCALE_FACTOR 1.05
#endif
#ifndef SMALL_MIN_NEIGHBOURS
#define SMALL_MIN_NEIGHBOURS 3
#endif
const double kGroupEps = 0.2;

static_assert(PROFILE_MODEL_WINDOW_WIDTH == PROFILE_MODEL_WINDOW_HEIGHT, "a square window");
static_assert(SMALL_MODEL_WINDOW_WIDTH == SMALL_MODEL_WINDOW_HEIGHT, "a square window");
// The largest window, which bounds the integral images' offsets.
const int kLargestWindow = SMALL_MODEL_WINDOW_WIDTH > PROFILE_MODEL_WINDOW_WIDTH ? SMALL_MODEL_WINDOW_WIDTH
                                                                                 : PROFILE_MODEL_WINDOW_WIDTH;

// OpenCV's rounding (cvRound): to nearest, ties to even.
inline int round_int(double v) { return (int)lrint(v); }
inline int round_int(float v) { return (int)lrintf(v); }

// a * b, or false when it overflows.
inline bool multiply(size_t a, size_t b, size_t *out) {
    if (b != 0 && a > (size_t)-1 / b) return false;
    *out = a * b;
    return true;
}

void *allocate(size_t count, size_t size) {
    size_t bytes;
    if (!multiply(count, size, &bytes)) return nullptr;
    return malloc(bytes ? bytes : 1);
}

struct Box {
    int x, y, width, height;
};

// A growable list of plain values (malloc'd: no exceptions, a failed
// push says so).
template <typename T> struct List {
    T *items = nullptr;
    size_t count = 0, capacity = 0;
    ~List() { free(items); }
    bool push(T item) {
        if (count == capacity) {
            size_t grown = capacity ? capacity * 2 : 64;
            size_t bytes;
            if (grown < capacity || !multiply(grown, sizeof(T), &bytes)) return false;
            T *more = (T *)realloc(items, bytes);
            if (!more) return false;
            items = more;
            capacity = grown;
        }
        items[count++] = item;
        return true;
    }
};

// A face as groupRectangles reports it: the averaged box, how many windows
// were grouped into it, and the pass (0 as is, 1 mirrored) it comes from.
struct Grouped {
    Box box;
    int neighbours, pass;
};

// Memory of one search, freed whatever happens.
struct Buffers {
    uint8_t *mirrored = nullptr;   // the picture mirrored (profiles)
    uint8_t *level = nullptr;      // one level of the pyramid
    uint32_t *sums = nullptr;      // its integral image, then its squared one
    uint16_t *rows = nullptr;      // two rows resized across, for resizing down
    int *xofs = nullptr;           // where each column of a level is read
    uint16_t *alpha = nullptr;     // and with which weights
    int *yofs = nullptr;           // where each row is read
    uint16_t *beta = nullptr;      // and with which weights
    ~Buffers() {
        free(mirrored);
        free(level);
        free(sums);
        free(rows);
        free(xofs);
        free(alpha);
        free(yofs);
        free(beta);
    }
};

// Where a face can change a crop, on the axis of the picture searched.
struct Reach {
    int axis;  // 0: everywhere, 1: x, 2: y
    double from, to, before, after;
    // Whether a face box starting at `at` and `size` long on the axis
    // reaches outside [from, to] when grown by `margin` of its size more.
    bool outside(double at, double size, double margin) const {
        if (axis == 0) return true;
        return at - (before + margin) * size < from || at + (1 + after + margin) * size > to;
    }
};

// Where a level's pixel is read on one axis, as OpenCV's bit-exact
// linear resize (INTER_LINEAR_EXACT, which the cascade's pyramid uses)
// places it: at (d + 0.5) * scale - 0.5, between pixels `offset[d]` and the
// next with weights `weight[2d]` and `weight[2d + 1]` of 256; the levels'
// pixels before `*first` read the source's first pixel, those from `*last`
// on its last.
void place(int source, int level, int *offset, uint16_t *weight, int *first, int *last) {
    double scale = 1.0 / ((double)level / source);
    *first = 0, *last = level;
    for (int d = 0; d < level; d++) {
        double at = scale * (d + 0.5) - 0.5;
        int i = (int)floor(at);
        offset[d] = 0, weight[2 * d] = 256, weight[2 * d + 1] = 0;
        if (i >= 0 && source > 1) {
            if (i < source - 1) {
                int after = round_int((at - i) * 256);
                offset[d] = i, weight[2 * d] = (uint16_t)(256 - after), weight[2 * d + 1] = (uint16_t)after;
            } else {
                offset[d] = source - 1;
                if (d < *last) *last = d;
            }
        } else if (d + 1 > *first) {
            *first = d + 1;
        }
    }
}

// One row resized across, in 256ths.
void resize_row(const uint8_t *s, int dw, const Buffers &b, int first, int last, uint16_t *row) {
    int d = 0;
    for (; d < first; d++) row[d] = (uint16_t)(s[0] << 8);
    for (; d < last; d++) {
        const uint8_t *p = s + b.xofs[d];
        row[d] = (uint16_t)(b.alpha[2 * d] * p[0] + b.alpha[2 * d + 1] * p[1]);
    }
    uint16_t end = (uint16_t)(s[b.xofs[dw - 1]] << 8);
    for (; d < dw; d++) row[d] = end;
}

// OpenCV's resize of 8-bit grey with INTER_LINEAR_EXACT: 8-bit weights,
// rows resized across first (in 256ths), then down, rounded.
void resize(const uint8_t *src, int sw, int sh, size_t sstride, uint8_t *dst, int dw, int dh, Buffers &b) {
    int first_x, last_x, first_y, last_y;
    place(sw, dw, b.xofs, b.alpha, &first_x, &last_x);
    place(sh, dh, b.yofs, b.beta, &first_y, &last_y);
    uint16_t *row0 = b.rows, *row1 = b.rows + dw;
    int have0 = -1, have1 = -1;  // the source rows row0 and row1 hold
    for (int dy = 0; dy < dh; dy++) {
        uint8_t *d = dst + (size_t)dy * dw;
        if (dy < first_y || dy >= last_y) {
            // Above the first row's centre, or below the last's: that row.
            int y = dy < first_y ? 0 : sh - 1;
            if (have0 != y) resize_row(src + (size_t)y * sstride, dw, b, first_x, last_x, row0), have0 = y;
            for (int x = 0; x < dw; x++) d[x] = (uint8_t)((row0[x] + 128) >> 8);
            continue;
        }
        int y = b.yofs[dy];
        if (have0 != y) {
            if (have1 == y) {
                uint16_t *t = row0;
                row0 = row1, row1 = t, have0 = y, have1 = -1;
            } else {
                resize_row(src + (size_t)y * sstride, dw, b, first_x, last_x, row0), have0 = y;
            }
        }
        if (have1 != y + 1) resize_row(src + (size_t)(y + 1) * sstride, dw, b, first_x, last_x, row1), have1 = y + 1;
        uint32_t w0 = b.beta[2 * dy], w1 = b.beta[2 * dy + 1];
        for (int x = 0; x < dw; x++) {
            uint32_t v = (w0 * row0[x] + w1 * row1[x] + 32768) >> 16;
            d[x] = (uint8_t)(v > 255 ? 255 : v);
        }
    }
}

// The integral image (w + 1) x (h + 1), `stride` words a row, of the
// w x h picture, and when `sq` is not null its squared one; 32-bit words
// that wrap, as OpenCV's do (a window's sums are exact differences all the
// same).
void integrate(const uint8_t *src, int w, int h, size_t sstride, uint32_t *sum, uint32_t *sq, size_t stride) {
    memset(sum, 0, (w + 1) * sizeof *sum);
    if (sq) memset(sq, 0, (w + 1) * sizeof *sq);
    for (int y = 0; y < h; y++) {
        const uint8_t *s = src + (size_t)y * sstride;
        const uint32_t *above = sum + (size_t)y * stride;
        uint32_t *row = sum + (size_t)(y + 1) * stride;
        row[0] = 0;
        uint32_t run = 0;
        for (int x = 0; x < w; x++) {
            run += s[x];
            row[x + 1] = above[x + 1] + run;
        }
        if (!sq) continue;
        const uint32_t *above_sq = sq + (size_t)y * stride;
        uint32_t *row_sq = sq + (size_t)(y + 1) * stride;
        row_sq[0] = 0;
        run = 0;
        for (int x = 0; x < w; x++) {
            run += (uint32_t)s[x] * s[x];
            row_sq[x + 1] = above_sq[x + 1] + run;
        }
    }
}

inline int rect_sum(const uint32_t *p, const int *o) { return (int)(p[o[0]] - p[o[1]] - p[o[2]] + p[o[3]]); }

// The cascades, each as the scan needs it: its window, whether it needs
// the squared integral image, its stumps laid out for an integral image of
// the search's stride (`load`: false when out of memory) and a window's
// classification (`classify`, of the window whose corner is `at` in the
// integral images: 1 when every stage passes, 0 when the first stage
// fails, -1 when a later one does or the window cannot be judged).
// Each stage's threshold is OpenCV's less 1e-5, as it reads it.

// A profile stump with its feature: the feature's rectangles as offsets of
// their corners in the integral image, from the window's top-left corner
// (a third of weight 0 reads nothing, and adds 0 as OpenCV's skipping it
// does), the threshold on its normalised value and its leaves. In the
// cascade's order, so that a window's evaluation reads them one after the
// other.
struct HaarStump {
    int ofs[3][4];
    float weight[3];
    float threshold;
    float leaves[2];  // below the threshold, at or above it
};

struct ProfileCascade {
    static const int kWindow = PROFILE_MODEL_WINDOW_WIDTH;
    static constexpr double kScaleFactor = PROFILE_SCALE_FACTOR;
    static constexpr double kFineScaleFactor = PROFILE_SCALE_FACTOR;  // one factor, as detectMultiScale
    static const int kMinNeighbours = PROFILE_MIN_NEIGHBOURS;
    static const bool kSquares = true;
    HaarStump *stumps = nullptr;
    int norm[4];  // the window's inner (kWindow - 2)^2 square, which normalises it
    ~ProfileCascade() { free(stumps); }

    bool load(size_t stride) {
        size_t o = stride + 1, wide = kWindow - 2, tall = (kWindow - 2) * stride;
        norm[0] = (int)o, norm[1] = (int)(o + wide), norm[2] = (int)(o + tall), norm[3] = (int)(o + tall + wide);
        stumps = (HaarStump *)allocate(PROFILE_MODEL_WEAKS, sizeof(HaarStump));
        if (!stumps) return false;
        for (int i = 0; i < PROFILE_MODEL_WEAKS; i++) {
            HaarStump &t = stumps[i];
            int feature = profile_model_weak_features[i];
            for (int k = 0; k < 3; k++) {
                const unsigned char *r = profile_model_rects[feature][k];
                size_t top = r[1] * stride + r[0], bottom = (r[1] + r[3]) * stride + r[0];
                t.ofs[k][0] = (int)top, t.ofs[k][1] = (int)(top + r[2]);
                t.ofs[k][2] = (int)bottom, t.ofs[k][3] = (int)(bottom + r[2]);
                t.weight[k] = profile_model_rect_weights[feature][k];
            }
            t.threshold = profile_model_weak_thresholds[i];
            t.leaves[0] = profile_model_weak_below[i];
            t.leaves[1] = profile_model_weak_above[i];
        }
        return true;
    }

    // The normaliser of the window whose integral starts at p (squares at
    // q): one over its pixels' standard deviation (times the area), or
    // false when the window is too flat to judge.
    bool normaliser_at(const uint32_t *p, const uint32_t *q, float *normaliser) const {
        const double area = (kWindow - 2) * (kWindow - 2);
        int valsum = rect_sum(p, norm);
        uint32_t valsqsum = q[norm[0]] - q[norm[1]] - q[norm[2]] + q[norm[3]];
        double nf = area * valsqsum - (double)valsum * valsum;
        if (!(nf > 0.)) return false;
        *normaliser = (float)(1. / sqrt(nf));
        return area * *normaliser < 1e-1;
    }

    // One stump's leaf at the window whose integral starts at p.
    static double leaf(const HaarStump &t, const uint32_t *p, float normaliser) {
        float value = t.weight[0] * rect_sum(p, t.ofs[0]) + t.weight[1] * rect_sum(p, t.ofs[1]);
        value += t.weight[2] * rect_sum(p, t.ofs[2]);
        value *= normaliser;
        // An index rather than a choice: a branch on it would be mispredicted
        // half the time.
        return t.leaves[!(value < t.threshold)];
    }

    // (Evaluating the first stages for a row of windows at once, in loops
    // the compiler vectorises, measured no faster: most windows go on to
    // later stages.)
    int classify(const uint32_t *sum, const uint32_t *sq, size_t at) const {
        const uint32_t *p = sum + at, *q = sq + at;
        float normaliser;
        if (!normaliser_at(p, q, &normaliser)) return -1;
        const HaarStump *stump = stumps;
        for (int stage = 0; stage < PROFILE_MODEL_STAGES; stage++) {
            double sum = 0;
            for (const HaarStump *end = stump + profile_model_stage_weaks[stage]; stump < end; stump++)
                sum += leaf(*stump, p, normaliser);
            if (sum < profile_model_stage_thresholds[stage] - 1e-5f) return stage == 0 ? 0 : -1;
        }
        return 1;
    }
};

// A small-face stump with its feature: a 3 x 3 grid of equal blocks, whose
// 16 corners are offsets in the integral image from the window's top-left
// corner (corner 4 i + j is j blocks across and i down); the set of its
// codes that take the first leaf, and its leaves.
struct LbpStump {
    int ofs[16];
    uint32_t subset[8];
    float leaves[2];  // a code in the set, one outside it
};

struct SmallFaceCascade {
    static const int kWindow = SMALL_MODEL_WINDOW_WIDTH;
    static constexpr double kScaleFactor = SMALL_SCALE_FACTOR;
    static constexpr double kFineScaleFactor = SMALL_FINE_SCALE_FACTOR;  // below a scale of 2
    static const int kMinNeighbours = SMALL_MIN_NEIGHBOURS;
    static const bool kSquares = false;  // local binary patterns compare sums: nothing to normalise
    LbpStump *stumps = nullptr;
    ~SmallFaceCascade() { free(stumps); }

    bool load(size_t stride) {
        stumps = (LbpStump *)allocate(SMALL_MODEL_WEAKS, sizeof(LbpStump));
        if (!stumps) return false;
        for (int i = 0; i < SMALL_MODEL_WEAKS; i++) {
            LbpStump &t = stumps[i];
            const unsigned char *r = small_model_rects[small_model_weak_features[i]];
            for (int row = 0; row < 4; row++)
                for (int column = 0; column < 4; column++)
                    t.ofs[4 * row + column] = (int)((r[1] + row * r[3]) * stride + r[0] + column * r[2]);
            memcpy(t.subset, small_model_weak_subsets[i], sizeof t.subset);
            t.leaves[0] = small_model_weak_leaves[i][0];
            t.leaves[1] = small_model_weak_leaves[i][1];
        }
        return true;
    }

    // The feature's code at the window whose integral starts at p: a bit
    // for each outer block, set when its sum is at least the centre's, in
    // OpenCV's order (clockwise from the top-left, 128 first).
    static int code(const LbpStump &t, const uint32_t *p) {
        const int *o = t.ofs;
        auto block = [&](int corner) {
            return (int)(p[o[corner]] - p[o[corner + 1]] - p[o[corner + 4]] + p[o[corner + 5]]);
        };
        int centre = block(5);
        return (block(0) >= centre ? 128 : 0) | (block(1) >= centre ? 64 : 0) | (block(2) >= centre ? 32 : 0) |
               (block(6) >= centre ? 16 : 0) | (block(10) >= centre ? 8 : 0) | (block(9) >= centre ? 4 : 0) |
               (block(8) >= centre ? 2 : 0) | (block(4) >= centre ? 1 : 0);
    }

    int classify(const uint32_t *sum, const uint32_t *, size_t at) const {
        const uint32_t *p = sum + at;
        const LbpStump *stump = stumps;
        for (int stage = 0; stage < SMALL_MODEL_STAGES; stage++) {
            double sum = 0;
            for (const LbpStump *end = stump + small_model_stage_weaks[stage]; stump < end; stump++) {
                int c = code(*stump, p);
                sum += stump->leaves[(stump->subset[c >> 5] & (1u << (c & 31))) ? 0 : 1];
            }
            if (sum < small_model_stage_thresholds[stage] - 1e-5f) return stage == 0 ? 0 : -1;
        }
        return 1;
    }
};

// The first of `step`'s multiples at or after v.
inline int step_up(int v, int step) { return (v + step - 1) / step * step; }

// Scans the picture at every scale whose window is min_size to max_size
// pixels, adding the windows found (in pixels of the picture) to `found`.
// False when out of memory.
template <typename Cascade>
bool scan(const Cascade &cascade, const uint8_t *pixels, int width, int height, size_t pstride, const Reach &reach,
          int min_size, int max_size, Buffers &b, size_t stride, List<Box> &found) {
    const int kWindow = Cascade::kWindow;
    for (double factor = 1;; factor *= factor < 2 ? Cascade::kFineScaleFactor : Cascade::kScaleFactor) {
        int window = round_int(kWindow * factor);
        if (window > width || window > height || window > max_size) break;
        if (window < min_size) continue;
        float scale = (float)factor;
        int lw = round_int((float)width / scale), lh = round_int((float)height / scale);
        if (lw < kWindow || lh < kWindow) break;
        const uint8_t *level = pixels;
        size_t lstride = pstride;
        if (lw != width || lh != height) {
            resize(pixels, width, height, pstride, b.level, lw, lh, b);
            level = b.level;
            lstride = (size_t)lw;
        }
        uint32_t *sum = b.sums, *sq = Cascade::kSquares ? b.sums + stride * (size_t)(height + 1) : nullptr;
        integrate(level, lw, lh, lstride, sum, sq, stride);
        int step = scale >= 2 ? 1 : 2;
        int xs = lw + 1 - kWindow, ys = lh + 1 - kWindow;  // windows across and down
        int box = round_int(kWindow * scale);
        // With a region, the windows whose face (with the head's reach and a
        // margin of the grouping's eps, so that the windows grouped with one
        // that reaches out are there too) stays inside are skipped: on the
        // axis, those from first_inside up to first_outside.
        int first_inside = 0, first_outside = 0;
        if (reach.axis != 0) {
            int n = reach.axis == 1 ? xs : ys;
            first_inside = n, first_outside = n;
            for (int i = 0; i < n; i++) {
                bool out = reach.outside(round_int(i * scale), box, kGroupEps);
                if (!out && first_inside == n) first_inside = i;
                if (out && first_inside < n) {
                    first_outside = i;
                    break;
                }
            }
        }
        for (int y = 0; y < ys; y += step) {
            if (reach.axis == 2 && y >= first_inside && y < first_outside) {
                y = step_up(first_outside, step) - step;
                continue;
            }
            const size_t row = (size_t)y * stride;
            for (int x = 0; x < xs; x += step) {
                if (reach.axis == 1 && x >= first_inside && x < first_outside) {
                    x = step_up(first_outside, step) - step;
                    continue;
                }
                int result = cascade.classify(sum, sq, row + x);
                if (result > 0 && !found.push(Box{round_int(x * scale), round_int(y * scale), box, box}))
                    return false;
                // OpenCV skips the window after one that fails the first stage.
                if (result == 0) x += step;
            }
        }
    }
    return true;

}

// OpenCV's SimilarRects.
bool similar(const Box &a, const Box &b, double eps) {
    double delta = eps * ((a.width < b.width ? a.width : b.width) + (a.height < b.height ? a.height : b.height)) * 0.5;
    return abs(a.x - b.x) <= delta && abs(a.y - b.y) <= delta && abs(a.x + a.width - b.x - b.width) <= delta &&
           abs(a.y + a.height - b.y - b.height) <= delta;
}

int root_of(int *parent, int i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

// OpenCV's groupRectangles(rects, weights, minNeighbours, eps): classes of
// similar boxes, each averaged; those of more than minNeighbours boxes kept
// unless inside a class's box that is much surer. Appends them to `out`;
// false when out of memory.
bool group(const List<Box> &raw, int pass, int min_neighbours, List<Grouped> &out) {
    size_t n = raw.count;
    if (n == 0) return true;
    int *parent = (int *)allocate(n, sizeof(int));
    int *label = (int *)allocate(n, sizeof(int));
    long long *sums = (long long *)allocate(n, 4 * sizeof(long long));
    int *counts = (int *)allocate(n, sizeof(int));
    Box *means = (Box *)allocate(n, sizeof(Box));
    bool ok = parent && label && sums && counts && means;
    if (ok) {
        for (size_t i = 0; i < n; i++) parent[i] = (int)i;
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                if (similar(raw.items[i], raw.items[j], kGroupEps)) {
                    int a = root_of(parent, (int)i), c = root_of(parent, (int)j);
                    if (a != c) parent[c] = a;
                }
        int classes = 0;
        for (size_t i = 0; i < n; i++) label[i] = -1;
        for (size_t i = 0; i < n; i++) {
            int r = root_of(parent, (int)i);
            if (label[r] < 0) label[r] = classes++;
            label[i] = label[r];
        }
        memset(sums, 0, n * 4 * sizeof(long long));
        memset(counts, 0, n * sizeof(int));
        for (size_t i = 0; i < n; i++) {
            long long *s = sums + 4 * label[i];
            s[0] += raw.items[i].x, s[1] += raw.items[i].y, s[2] += raw.items[i].width, s[3] += raw.items[i].height;
            counts[label[i]]++;
        }
        for (int c = 0; c < classes; c++) {
            float s = 1.f / counts[c];
            means[c] = Box{round_int(sums[4 * c] * s), round_int(sums[4 * c + 1] * s), round_int(sums[4 * c + 2] * s),
                           round_int(sums[4 * c + 3] * s)};
        }
        for (int i = 0; i < classes && ok; i++) {
            const Box &r1 = means[i];
            int n1 = counts[i];
            if (n1 <= min_neighbours) continue;
            int j;
            for (j = 0; j < classes; j++) {
                int n2 = counts[j];
                if (j == i || n2 <= min_neighbours) continue;
                const Box &r2 = means[j];
                int dx = round_int(r2.width * kGroupEps), dy = round_int(r2.height * kGroupEps);
                if (r1.x >= r2.x - dx && r1.y >= r2.y - dy && r1.x + r1.width <= r2.x + r2.width + dx &&
                    r1.y + r1.height <= r2.y + r2.height + dy && (n2 > (n1 > 3 ? n1 : 3) || n1 < 3))
                    break;
            }
            if (j == classes) ok = out.push(Grouped{r1, n1, pass});
        }
    }
    free(parent);
    free(label);
    free(sums);
    free(counts);
    free(means);
    return ok;
}

}  // namespace

// One cascade's search: the picture as is, and mirrored when `mirror` (each
// pass grouped apart, as two calls of detectMultiScale would); the faces
// whose box reaches out of the region, surest first, a face found both
// ways kept once (the surer).
template <typename Cascade>
static int search(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride, const cf_region *region,
                  uint32_t min_size, uint32_t max_size, bool mirror, cf_face *faces, int capacity) {
    const int kWindow = Cascade::kWindow;
    if (!faces || capacity < 0) capacity = 0;
    if (!pixels || width < (uint32_t)kWindow || height < (uint32_t)kWindow || stride < width) return 0;
    // Offsets in the integral images are ints: pictures wider than that
    // cannot be searched (nor held).
    if (width > (1u << 24) || height > (1u << 24)) return -1;
    int w = (int)width, h = (int)height;
    size_t istride = (size_t)w + 1;
    if (istride * (kLargestWindow + 1) > (size_t)0x7fffffff) return -1;
    int largest = max_size > (uint32_t)INT32_MAX ? INT32_MAX : (int)max_size;

    Reach reach{0, 0, 0, 0, 0};
    if (region && (region->axis == 1 || region->axis == 2)) {
        reach = Reach{region->axis, region->from, region->to, region->reach_before, region->reach_after};
        if (!(reach.from <= reach.to)) reach.axis = 0;  // nothing shown by every crop (or NaN): everywhere
    }

    Buffers b;
    Cascade cascade;
    size_t pixels_count, sums_count;
    if (!multiply((size_t)w, (size_t)h, &pixels_count) || !multiply(istride, (size_t)h + 1, &sums_count) ||
        (Cascade::kSquares && !multiply(sums_count, 2, &sums_count)))
        return -1;
    if (mirror) b.mirrored = (uint8_t *)allocate(pixels_count, 1);
    b.level = (uint8_t *)allocate(pixels_count, 1);
    b.sums = (uint32_t *)allocate(sums_count, sizeof(uint32_t));
    b.rows = (uint16_t *)allocate((size_t)w, 2 * sizeof(uint16_t));
    b.xofs = (int *)allocate((size_t)w, sizeof(int));
    b.alpha = (uint16_t *)allocate((size_t)w, 2 * sizeof(uint16_t));
    b.yofs = (int *)allocate((size_t)h, sizeof(int));
    b.beta = (uint16_t *)allocate((size_t)h, 2 * sizeof(uint16_t));
    if ((mirror && !b.mirrored) || !b.level || !b.sums || !b.rows || !b.xofs || !b.alpha || !b.yofs || !b.beta ||
        !cascade.load(istride))
        return -1;
    if (mirror)
        for (int y = 0; y < h; y++) {
            const uint8_t *s = pixels + (size_t)y * stride;
            uint8_t *d = b.mirrored + (size_t)y * w;
            for (int x = 0; x < w; x++) d[x] = s[w - 1 - x];
        }

    List<Grouped> grouped;
    for (int pass = 0; pass < (mirror ? 2 : 1); pass++) {
        Reach r = reach;  // the region mirrored too
        if (pass == 1 && r.axis == 1) r = Reach{1, w - reach.to, w - reach.from, reach.after, reach.before};
        List<Box> raw;
        size_t before = grouped.count;
        if (!scan(cascade, pass == 0 ? pixels : b.mirrored, w, h, pass == 0 ? stride : (size_t)w, r, (int)min_size,
                  largest, b, istride, raw) ||
            !group(raw, pass, Cascade::kMinNeighbours, grouped))
            return -1;
        if (pass == 1)
            for (size_t i = before; i < grouped.count; i++) {
                Box &f = grouped.items[i].box;
                f.x = w - f.x - f.width;
            }
    }
    // Surest first; faces that do not reach out of the region dropped.
    size_t n = grouped.count;
    int *order = (int *)allocate(n ? n : 1, sizeof(int));
    bool *kept = (bool *)allocate(n ? n : 1, sizeof(bool));
    if (!order || !kept) {
        free(order);
        free(kept);
        return -1;
    }
    for (size_t i = 0; i < n; i++) order[i] = (int)i;
    for (size_t i = 1; i < n; i++) {  // insertion sort: a handful of faces, stable
        int v = order[i];
        size_t j = i;
        while (j > 0 && grouped.items[order[j - 1]].neighbours < grouped.items[v].neighbours) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    int count = 0;
    bool on_x = reach.axis == 1;
    for (size_t i = 0; i < n; i++) {
        const Box &f = grouped.items[order[i]].box;
        kept[i] = reach.outside(on_x ? f.x : f.y, on_x ? f.width : f.height, 0);
        for (size_t k = 0; k < i && kept[i]; k++) {
            const Box &g = grouped.items[order[k]].box;
            if (!kept[k] || grouped.items[order[k]].pass == grouped.items[order[i]].pass) continue;
            int ix = (f.x + f.width < g.x + g.width ? f.x + f.width : g.x + g.width) - (f.x > g.x ? f.x : g.x);
            int iy = (f.y + f.height < g.y + g.height ? f.y + f.height : g.y + g.height) - (f.y > g.y ? f.y : g.y);
            long long smaller = f.width < g.width ? (long long)f.width * f.height : (long long)g.width * g.height;
            if (ix > 0 && iy > 0 && 2LL * ix * iy >= smaller) kept[i] = false;
        }
        if (!kept[i]) continue;
        if (count < capacity)
            faces[count] = cf_face{(float)f.x, (float)f.y, (float)f.width, (float)f.height,
                                   (float)grouped.items[order[i]].neighbours};
        count++;
    }
    free(kept);
    free(order);
    return count;
}

extern "C" int cf_find_profiles(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                                const cf_region *region, uint32_t min_size, cf_face *faces, int capacity) {
    return search<ProfileCascade>(pixels, width, height, stride, region, min_size, UINT32_MAX, true, faces, capacity);
}

extern "C" int cf_find_small_faces(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                                   const cf_region *region, uint32_t min_size, uint32_t max_size, cf_face *faces,
                                   int capacity) {
    return search<SmallFaceCascade>(pixels, width, height, stride, region, min_size, max_size, false, faces,
                                    capacity);
}
