// faces.h — the face search (faces.c), as the crop's rule (crop.c) and
// suggest's measures (measure.c) ask for it. Internal to analysis/.
#ifndef CI_ANALYSIS_FACES_H
#define CI_ANALYSIS_FACES_H

#include "../internal.h"

// A face as the detector frames it (eyebrows to chin) grown to the head:
// the forehead and hair above, a little on each side and under the chin
// (in sizes of the face's box). The crop keeps heads in view (ci_head_of);
// the search looks only where such a head could change the crop.
#define HEAD_ABOVE 0.45
#define HEAD_AROUND 0.15
// The room kept around faces, in window lengths, when there is room.
#define FACE_MARGIN 0.04

// Faces in the frame (stored orientation `orientation`), as boxes in
// fractions of the upright photo, surest first: frontal faces; when there
// are none, small frontal faces, then faces in profile, that could change
// the crop of a window `length` long on `axis` (1 across, 2 down); when
// there are still none, frontal faces tilted further than dlib sees.
ci_status ci_find_faces_for_crop(const ci_image *frame, int orientation, int axis, double length, ci_box *faces,
                                 int *count, const char *name, ci_error *err);
// The faces a caption's band could cover, where they cannot move the crop:
// frontal and small faces near the bottom edge, and the top's only where
// the bottom has one.
ci_status ci_find_faces_near_edges(const ci_image *frame, int orientation, ci_box *faces, int *count,
                                   const char *name, ci_error *err);
// The smart crop's frontal faces anywhere in the frame, as boxes of the
// upright photo: for `collage suggest`, which asks whether a photo shows
// people, not where a crop goes.
ci_status ci_find_faces(const ci_image *frame, int orientation, ci_box *faces, int *count, const char *name,
                        ci_error *err);

#endif
