// collage_faces.h — faces in a small grey picture, for placing crops
// (the engine's analysis/faces.c). A C interface to dlib's HOG face detector and to
// two of OpenCV's cascades (cascades.cpp).
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

// Where a face can change a crop. A crop slides along one axis; the part
// of the picture every placement shows cannot move it, so a face whose
// head lies wholly inside that part need not be looked for. NULL (or axis
// 0): everywhere.
typedef struct {
    int axis;                        // 0: everywhere; 1: across (x); 2: down (y)
    double from, to;                 // on that axis, in pixels of the picture: the part every crop shows
    double reach_before, reach_after;  // how far a head reaches beyond its face's box, before (left or up)
                                       // and after it on that axis, in sizes of the box on that axis
} cf_region;

// Searches the 8-bit grey `pixels` (width x height, `stride` bytes a row)
// for faces of at least 80 x 80 pixels scoring at least `threshold`; writes
// the best `capacity` of them, surest first. Returns how many were found
// (which may exceed capacity), or -1 when it could not search (out of
// memory).
int cf_find_faces(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                  double threshold, cf_face *faces, int capacity);

// Faces in profile, facing either way, in the 8-bit grey picture: OpenCV's
// haarcascade_profileface (compiled in) scanned as is and mirrored. Faces
// at least min_size pixels high; `region` limits the search to where a face
// can change a crop (NULL: everywhere). Writes the best `capacity`, surest
// first (score: how many raw detections were grouped into it); returns how
// many were found, or -1 when out of memory.
int cf_find_profiles(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                     const cf_region *region, uint32_t min_size, cf_face *faces, int capacity);

// Small frontal faces, which dlib's 80-pixel window cannot see: OpenCV's
// lbpcascade_frontalface (24 x 24 window, compiled in), faces min_size to
// max_size pixels high, in the region (NULL: everywhere), as for profiles.
// Quick but not sure (busy textures can pass it): candidates for a surer
// search to confirm. Writes the best `capacity`, surest first (score: how
// many raw detections were grouped into it); returns how many were found,
// or -1 when out of memory.
int cf_find_small_faces(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                        const cf_region *region, uint32_t min_size, uint32_t max_size, cf_face *faces,
                        int capacity);

#ifdef __cplusplus
}
#endif

#endif
