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
// overlapping boxes; written out only to take the filters made separable
// beforehand.
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

// The five detectors' filters as dlib's build_fhog_filterbank makes them
// (the whole filters, and their separable terms from
// frontal_face_separable.inc), without its SVDs.
std::vector<scanner_type::fhog_filterbank> compiled_in_filters() {
    const long rows = FACE_MODEL_FILTER_ROWS, cols = FACE_MODEL_FILTER_COLS;
    std::vector<scanner_type::fhog_filterbank> banks(FACE_MODEL_DETECTORS);
    const float *next = face_model_separable;
    for (int d = 0; d < FACE_MODEL_DETECTORS; d++) {
        scanner_type::fhog_filterbank &bank = banks[d];
        bank.filters.resize(FACE_MODEL_PLANES);
        bank.row_filters.resize(FACE_MODEL_PLANES);
        bank.col_filters.resize(FACE_MODEL_PLANES);
        for (int plane = 0; plane < FACE_MODEL_PLANES; plane++) {
            const double *weights = face_model_weights[d] + (size_t)plane * rows * cols;
            bank.filters[plane].set_size(rows, cols);
            for (long r = 0; r < rows; r++)
                for (long c = 0; c < cols; c++) bank.filters[plane](r, c) = (float)weights[r * cols + c];
            for (int term = 0; term < face_model_ranks[d][plane]; term++) {
                dlib::matrix<float, 0, 1> column(rows), row(cols);
                for (long i = 0; i < rows; i++) column(i) = *next++;
                for (long i = 0; i < cols; i++) row(i) = *next++;
                bank.col_filters[plane].push_back(column);
                bank.row_filters[plane].push_back(row);
            }
        }
    }
    return banks;
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
    const std::vector<scanner_type::fhog_filterbank> filters = compiled_in_filters();
    const dlib::default_fhog_feature_extractor extract;
    pyramid pyr;
    dlib::array<dlib::array2d<float>> features;
    dlib::array2d<float> saliency;
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
        for (int d = 0; d < FACE_MODEL_DETECTORS; d++) {
            // Each detector's boxes over its own threshold (the last weight,
            // its bias; adjust_threshold is added to the model's own cut-off
            // of 0).
            const double cut = face_model_weights[d][FACE_MODEL_WEIGHTS - 1] + threshold;
            const dlib::rectangle area = dlib::impl::apply_filters_to_fhog(filters[d], features, saliency);
            for (long r = area.top(); r <= area.bottom(); ++r)
                for (long c = area.left(); c <= area.right(); ++c)
                    if (saliency[r][c] >= cut) {
                        dlib::rectangle rect = extract.feats_to_image(
                            dlib::centered_rect(dlib::point(c, r), window_width - 2 * padding,
                                                window_height - 2 * padding),
                            cell, window_height, window_width);
                        boxes[d].push_back(std::make_pair((double)saliency[r][c], pyr.rect_up(rect, l)));
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
