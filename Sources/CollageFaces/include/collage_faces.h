// collage_faces.h — frontal faces in a small grey picture, for placing crops
// (the engine's crop.c). A C interface to dlib's HOG face detector.
//
// Like the engine: no global state, no exceptions or aborts across this
// boundary, safe on any thread.
#ifndef COLLAGE_FACES_H
#define COLLAGE_FACES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// A face as the detector frames it (eyebrows to chin, roughly square), in
// pixels of the picture searched, and how sure it is (higher is surer; the
// detector's own cut-off is 0).
typedef struct {
    float x, y, width, height;
    float score;
} cf_face;

// Searches the 8-bit grey `pixels` (width x height, `stride` bytes a row)
// for faces of at least 80 x 80 pixels scoring at least `threshold`; writes
// the best `capacity` of them, surest first. Returns how many were found
// (which may exceed capacity), or -1 when it could not search (out of
// memory).
int cf_find_faces(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                  double threshold, cf_face *faces, int capacity);

#ifdef __cplusplus
}
#endif

#endif
