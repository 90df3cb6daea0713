// faces.cpp — dlib's frontal face detector (HOG features, five linear
// filters: frontal, looking left and right, tilted left and right) behind a
// C interface.
//
// The model's numbers are compiled in (frontal_face_model.inc, generated
// from Debian's dlib by scripts/faces/make-model.sh): dlib's own
// get_frontal_face_detector() decodes a compressed string for 0.4-1.1 s
// first. So is their separable form (frontal_face_separable.inc): dlib
// makes it with an SVD of each filter, 2 ms that every search would pay,
// since nothing is kept between calls.
// dlib's own matrix code is enough for the small decompositions the detector
// needs at build time; without BLAS and LAPACK nothing here needs a library,
// only dlib's headers. Debian's config.h turns them on and has no include
// guard: it is read once, through the two guarded headers that include it,
// and its switches turned off after.
//
// The search is object_detector's: the scanner's pyramid, HOG features and
// filters for each of the five detectors, then the suppression of
// overlapping boxes; written out to take the filters made separable
// beforehand, and to run them faster than dlib's loop does on these sizes
// (filter_level).
#include <dlib/assert.h>
#include <dlib/test_for_odr_violations.h>
#undef DLIB_USE_BLAS
#undef DLIB_USE_LAPACK

#include <dlib/image_processing/frontal_face_detector.h>

#include <algorithm>
#include <new>
#include <vector>

#include "collage_faces.h"
#include "frontal_face_model.inc"
#include "frontal_face_separable.inc"

namespace {

// The model was trained scanning a pyramid whose levels shrink by 5/6
// (pyramid_down<6>); this scans one whose levels shrink by 3/4. Measured on
// the astronaut's face at 34 sizes from 56 to 254 pixels, on the W6 scenery:
// the same 33 found at both steps (3/4 also misses only the 56-pixel one;
// 2/3 missed a 218-pixel face too), and the crop evaluation's faces kept are
// the same (docs/quality.md), for 28% less time (17.3 instead of 23.9 ms on
// a 640 x 480 photo; 40% of it computing HOG features, 45% filtering them).
using pyramid = dlib::pyramid_down<4>;
using scanner_type = dlib::scan_fhog_pyramid<pyramid>;

// The five detectors' filters over one level's HOG features: what dlib's
// apply_filters_to_fhog computes with each filter's separable terms
// (frontal_face_separable.inc), written here because dlib's loop was most
// of the search's time on these small planes (a 480 x 640 picture has 60 x
// 80 cells; dlib filters each plane row by row, 8 columns at a time, and
// the 1-7 columns left over one at a time, once for every term of every
// plane of every detector: 310 passes a level). Here each pass runs over
// rows padded to whole vectors, each output summed in a register, which the
// compiler vectorises without a remainder: the whole search takes a third
// less time (issue #31, docs/performance.md), and finds the same faces. The
// sums are the same products added in another order, so a score may
// differ from dlib's in its last bits.
//
// Saliencies: for each detector, at (i, j) for every place the window
// fits, the sum over planes and terms of column[m] * row[n] * plane(i + m,
// j + n): dlib's saliency image at (i + ROWS / 2, j + COLS / 2).
struct Saliencies {
    long rows = 0, columns = 0, stride = 0;
    std::vector<float> values;  // FACE_MODEL_DETECTORS images of rows x stride
    float at(int detector, long i, long j) const { return values[((size_t)detector * rows + i) * stride + j]; }
};

// Where each detector's terms for each plane start in face_model_separable:
// per term, the column filter (ROWS values) then the row filter (COLS).
struct SeparableTerms {
    const float *first[FACE_MODEL_DETECTORS][FACE_MODEL_PLANES];
    SeparableTerms() {
        const float *next = face_model_separable;
        for (int d = 0; d < FACE_MODEL_DETECTORS; d++)
            for (int plane = 0; plane < FACE_MODEL_PLANES; plane++) {
                first[d][plane] = next;
                next += face_model_ranks[d][plane] * (FACE_MODEL_FILTER_ROWS + FACE_MODEL_FILTER_COLS);
            }
    }
};

// One pass of a separable term over `count` columns (a whole number of
// vectors): each output summed in a register over the filter's taps, the
// taps' loop unrolled (its length is a constant) so that the columns' loop
// is the one vectorised.
template <long taps>
inline void filter_row(float *__restrict dst, const float *__restrict src, long step, const float *weights, long count) {
    for (long j = 0; j < count; j++) {
        float sum = 0;
        for (long n = 0; n < taps; n++) sum += weights[n] * src[n * step + j];
        dst[j] = sum;
    }
}

template <long taps>
inline void add_filtered_row(float *__restrict dst, const float *__restrict src, long step, const float *weights,
                             long count) {
    for (long j = 0; j < count; j++) {
        float sum = 0;
        for (long n = 0; n < taps; n++) sum += weights[n] * src[n * step + j];
        dst[j] += sum;
    }
}

void filter_level(const dlib::array<dlib::array2d<float>> &features, const SeparableTerms &terms, Saliencies &out,
                  std::vector<float> &plane, std::vector<float> &row_pass) {
    const long filter_rows = FACE_MODEL_FILTER_ROWS, filter_cols = FACE_MODEL_FILTER_COLS;
    const long nr = features[0].nr(), nc = features[0].nc();
    out.rows = nr - filter_rows + 1;
    out.columns = nc - filter_cols + 1;
    if (out.rows <= 0 || out.columns <= 0) {
        out.rows = out.columns = 0;
        return;
    }
    const long vector_floats = 8;  // AVX's; SSE's 4 divides it
    out.stride = (out.columns + vector_floats - 1) / vector_floats * vector_floats;
    // A plane's rows padded with zeros to every column the row pass reads.
    const long width = out.stride + filter_cols - 1;
    out.values.assign((size_t)FACE_MODEL_DETECTORS * out.rows * out.stride, 0.0f);
    plane.assign((size_t)nr * width, 0.0f);
    row_pass.resize((size_t)nr * out.stride);
    for (int p = 0; p < FACE_MODEL_PLANES; p++) {
        for (long r = 0; r < nr; r++) std::copy(&features[p][r][0], &features[p][r][0] + nc, &plane[r * width]);
        for (int d = 0; d < FACE_MODEL_DETECTORS; d++) {
            const float *term = terms.first[d][p];
            float *saliency = &out.values[(size_t)d * out.rows * out.stride];
            for (int t = 0; t < face_model_ranks[d][p]; t++, term += filter_rows + filter_cols) {
                const float *column = term, *row = term + filter_rows;
                for (long r = 0; r < nr; r++)
                    filter_row<FACE_MODEL_FILTER_COLS>(&row_pass[r * out.stride], &plane[r * width], 1, row, out.stride);
                for (long i = 0; i < out.rows; i++)
                    add_filtered_row<FACE_MODEL_FILTER_ROWS>(saliency + i * out.stride, &row_pass[i * out.stride],
                                                             out.stride, column, out.stride);
            }
        }
    }
}

// The caller's grey picture as dlib's generic image interface reads it:
// searched where it lies, not copied into an array2d first.
struct GreyView {
    const uint8_t *pixels;
    long width, height;
    size_t stride;
};
inline long num_rows(const GreyView &view) { return view.height; }
inline long num_columns(const GreyView &view) { return view.width; }
inline const void *image_data(const GreyView &view) { return view.pixels; }
inline long width_step(const GreyView &view) { return (long)view.stride; }

}  // namespace

namespace dlib {
template <> struct image_traits<GreyView> {
    typedef unsigned char pixel_type;
};
}  // namespace dlib

namespace {

int search(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride, double threshold,
           cf_face *faces, int capacity) {
    const GreyView picture{pixels, (long)width, (long)height, stride};
    scanner_type scanner;
    scanner.set_detection_window_size(FACE_MODEL_WINDOW_WIDTH, FACE_MODEL_WINDOW_HEIGHT);
    scanner.set_padding(FACE_MODEL_PADDING);
    scanner.set_cell_size(FACE_MODEL_CELL_SIZE);
    scanner.set_min_pyramid_layer_size(FACE_MODEL_MIN_LAYER_WIDTH, FACE_MODEL_MIN_LAYER_HEIGHT);
    scanner.set_nuclear_norm_regularization_strength(FACE_MODEL_NUCLEAR_NORM);

    // scan_fhog_pyramid::load and detect, one level at a time: load keeps
    // every level's HOG features (31 planes of floats) until the search
    // ends, 2.3 times the first level's, which alone is 0.6 MB on a
    // 640 x 480 picture; here each level's are dropped once its five
    // filters have run (issue #32). The levels are made as load makes them
    // (each from the one before), and each detector's boxes collected in
    // detect's order, level by level, then sorted as it sorts them: the
    // same boxes and scores.
    const unsigned long levels = [&] {
        pyramid pyr;
        dlib::rectangle rect = dlib::get_rect(picture);
        unsigned long count = 0;
        do {
            rect = pyr.rect_down(rect);
            ++count;
        } while (rect.width() >= FACE_MODEL_MIN_LAYER_WIDTH && rect.height() >= FACE_MODEL_MIN_LAYER_HEIGHT &&
                 count < scanner.get_max_pyramid_levels());
        return count;
    }();
    const long window_width = (long)scanner.get_fhog_window_width();
    const long window_height = (long)scanner.get_fhog_window_height();
    const long padding = (long)scanner.get_padding(), cell = (long)scanner.get_cell_size();
    const SeparableTerms terms;
    const dlib::default_fhog_feature_extractor extract;
    pyramid pyr;
    dlib::array<dlib::array2d<float>> features;
    Saliencies saliencies;
    std::vector<float> plane, row_pass;
    dlib::array2d<unsigned char> level, next;
    std::vector<std::vector<std::pair<double, dlib::rectangle>>> boxes(FACE_MODEL_DETECTORS);
    for (unsigned long l = 0; l < levels; l++) {
        if (l == 0) {
            extract(picture, features, cell, window_height, window_width);
        } else {
            if (l == 1) pyr(picture, level);
            else pyr(next, level);
            extract(level, features, cell, window_height, window_width);
            swap(level, next);
        }
        filter_level(features, terms, saliencies, plane, row_pass);
        for (int d = 0; d < FACE_MODEL_DETECTORS; d++) {
            // Each detector's boxes over its own threshold (the last weight,
            // its bias; adjust_threshold is added to the model's own cut-off
            // of 0).
            const double cut = face_model_weights[d][FACE_MODEL_WEIGHTS - 1] + threshold;
            for (long i = 0; i < saliencies.rows; ++i)
                for (long j = 0; j < saliencies.columns; ++j) {
                    const float score = saliencies.at(d, i, j);
                    if (score >= cut) {
                        const long r = i + FACE_MODEL_FILTER_ROWS / 2, c = j + FACE_MODEL_FILTER_COLS / 2;
                        dlib::rectangle rect = extract.feats_to_image(
                            dlib::centered_rect(dlib::point(c, r), window_width - 2 * padding,
                                                window_height - 2 * padding),
                            cell, window_height, window_width);
                        boxes[d].push_back(std::make_pair((double)score, pyr.rect_up(rect, l)));
                    }
                }
        }
    }

    // object_detector::operator(): each detector's boxes, surest first,
    // scored above its bias...
    std::vector<dlib::rect_detection> found;
    for (int d = 0; d < FACE_MODEL_DETECTORS; d++) {
        const double bias = face_model_weights[d][FACE_MODEL_WEIGHTS - 1];
        std::sort(boxes[d].rbegin(), boxes[d].rend(), dlib::impl::compare_pair_rect);
        for (const auto &box : boxes[d]) found.push_back(dlib::rect_detection{box.first - bias, (unsigned long)d, box.second});
    }
    // ...then, surest first, a box overlapping one kept goes.
    std::sort(found.rbegin(), found.rend());
    const dlib::test_box_overlap overlaps(FACE_MODEL_OVERLAP_IOU, FACE_MODEL_OVERLAP_COVERED);
    std::vector<dlib::rect_detection> kept;
    for (const dlib::rect_detection &candidate : found)
        if (std::none_of(kept.begin(), kept.end(),
                         [&](const dlib::rect_detection &k) { return overlaps(k.rect, candidate.rect); }))
            kept.push_back(candidate);

    int count = (int)kept.size();
    for (int i = 0; i < count && i < capacity; i++) {
        const dlib::rectangle &r = kept[i].rect;
        faces[i] = cf_face{(float)r.left(), (float)r.top(), (float)r.width(), (float)r.height(),
                           (float)kept[i].detection_confidence};
    }
    return count;
}

}  // namespace

#if defined(__x86_64__) && defined(__clang__) && !defined(CF_X86_64_V3_COPY)
// This file compiled for x86-64-v3 (faces_x86_64_v3.cpp).
extern "C" int cf_find_faces_x86_64_v3(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                                       double threshold, cf_face *faces, int capacity);
#define CF_HAS_X86_64_V3_COPY 1
#endif

extern "C" int cf_find_faces(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                             double threshold, cf_face *faces, int capacity) {
    if (!pixels || width == 0 || height == 0 || stride < width) return 0;
#ifdef CF_HAS_X86_64_V3_COPY
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return cf_find_faces_x86_64_v3(pixels, width, height, stride, threshold, faces, capacity);
#endif
    try {
        return search(pixels, width, height, stride, threshold, faces, capacity);
    } catch (const std::bad_alloc &) {
        return -1;
    } catch (...) {
        // dlib reports misuse by exceptions; none is expected here, and
        // none may cross into C.
        return -1;
    }
}
