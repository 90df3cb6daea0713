// faces.cpp — dlib's frontal face detector (HOG features, five linear
// filters: frontal, looking left and right, tilted left and right) behind a
// C interface.
//
// The model's numbers are compiled in (frontal_face_model.inc, generated
// from Debian's dlib by scripts/faces/make-model.sh): dlib's own
// get_frontal_face_detector() decodes a compressed string for 0.4-1.1 s
// first. The detector is built for each search (about 2 ms: dlib splits each
// filter into separable parts) and nothing is kept between calls.
// dlib's own matrix code is enough for the small decompositions the detector
// needs at build time; without BLAS and LAPACK nothing here needs a library,
// only dlib's headers. Debian's config.h turns them on and has no include
// guard: it is read once, through the two guarded headers that include it,
// and its switches turned off after.
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

namespace {

// The model was trained scanning a pyramid whose levels shrink by 5/6
// (pyramid_down<6>); this scans one whose levels shrink by 3/4. Measured on
// the astronaut's face at 34 sizes from 56 to 254 pixels, on the W6 scenery:
// the same 33 found at both steps (3/4 also misses only the 56-pixel one;
// 2/3 missed a 218-pixel face too), and the crop evaluation's faces kept are
// the same (docs/quality.md), for 28% less time (17.3 instead of 23.9 ms on
// a 640 x 480 photo; 40% of it computing HOG features, 45% filtering them).
using scanner_type = dlib::scan_fhog_pyramid<dlib::pyramid_down<4>>;
using detector_type = dlib::object_detector<scanner_type>;

detector_type make_detector() {
    scanner_type scanner;
    scanner.set_detection_window_size(FACE_MODEL_WINDOW_WIDTH, FACE_MODEL_WINDOW_HEIGHT);
    scanner.set_padding(FACE_MODEL_PADDING);
    scanner.set_cell_size(FACE_MODEL_CELL_SIZE);
    scanner.set_min_pyramid_layer_size(FACE_MODEL_MIN_LAYER_WIDTH, FACE_MODEL_MIN_LAYER_HEIGHT);
    scanner.set_nuclear_norm_regularization_strength(FACE_MODEL_NUCLEAR_NORM);
    std::vector<dlib::matrix<double, 0, 1>> weights(FACE_MODEL_DETECTORS);
    for (int d = 0; d < FACE_MODEL_DETECTORS; d++) {
        weights[d].set_size(FACE_MODEL_WEIGHTS);
        for (int i = 0; i < FACE_MODEL_WEIGHTS; i++) weights[d](i) = face_model_weights[d][i];
    }
    return detector_type(scanner, dlib::test_box_overlap(FACE_MODEL_OVERLAP_IOU, FACE_MODEL_OVERLAP_COVERED),
                         weights);
}

}  // namespace

extern "C" int cf_find_faces(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                             double threshold, cf_face *faces, int capacity) {
    if (!pixels || width == 0 || height == 0 || stride < width) return 0;
    try {
        dlib::array2d<unsigned char> picture(height, width);
        for (uint32_t y = 0; y < height; y++)
            std::copy(pixels + (size_t)y * stride, pixels + (size_t)y * stride + width, &picture[y][0]);
        detector_type detector = make_detector();
        std::vector<dlib::rect_detection> found;
        // adjust_threshold is added to the model's own cut-off of 0.
        detector(picture, found, threshold);
        std::sort(found.begin(), found.end(), [](const dlib::rect_detection &a, const dlib::rect_detection &b) {
            return a.detection_confidence > b.detection_confidence;
        });
        int count = (int)found.size();
        for (int i = 0; i < count && i < capacity; i++) {
            const dlib::rectangle &r = found[i].rect;
            faces[i] = cf_face{(float)r.left(), (float)r.top(), (float)r.width(), (float)r.height(),
                               (float)found[i].detection_confidence};
        }
        return count;
    } catch (const std::bad_alloc &) {
        return -1;
    } catch (...) {
        // dlib reports misuse by exceptions; none is expected here, and
        // none may cross into C.
        return -1;
    }
}
