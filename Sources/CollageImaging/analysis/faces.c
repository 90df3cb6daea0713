// faces.c — the face search (issues #13, #23, #31, #41): where the faces
// of a photo are, as boxes of the upright photo, surest first. The smart
// crop (crop.c) asks for the faces a crop of its window could cut, or for
// those a caption's band could cover; `collage suggest` (measure.c) for
// the frontal faces anywhere. dlib's HOG detector and OpenCV's cascades
// (CollageFaces) look at a grey copy reduced from the frame the driver
// decoded (ci_reduce_upright, drawing/reduce.c).
#include "../internal.h"
#include "faces.h"

#include "collage_faces.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

// The short side faces are searched at. The detector's window is 80 x 80
// pixels, so this decides the smallest face found: about a sixth of the
// photo's short side at 480. Chosen on the crop evaluation
// (docs/quality.md): at 480 smart keeps every face; at 360 or 400 the faces
// of 14% of the short side were lost and it kept 69%. It is also most of
// smart's cost (docs/performance.md).
#define FACE_SEARCH_SHORT_SIDE 480
// Faces scoring below this are not faces (dlib's own cut-off is 0): round
// badges on the astronaut's spacesuit scored -0.3 to 0.1, her face 1.0 to
// 1.6 (docs/quality.md).
#define FACE_SCORE_THRESHOLD 0.2

// Faces in profile are searched at half the frontal search's size (the
// cascade's window is 20 pixels, dlib's 80), for faces of at least an
// eighth of the short side there: the crop evaluation's smallest faces are
// 14% of it, 34 pixels high at 240 (docs/quality.md). At a third (160
// pixels) they are 22, so near the window that the cascade missed 19 of
// them, and the evaluation kept 95.0%, its bar exactly; at half it keeps
// 96.6%, for 8% more time where the fall-backs run (docs/performance.md).
#define PROFILE_SHRINK 2
#define PROFILE_MIN_SHARE 0.125
// ...and only where the crop hides at least this share of the photo's
// axis: the search costs about twice the frontal one, and a crop
// hiding less can cut a face only at the photo's very edge.
#define PROFILE_MIN_HIDDEN 0.12

// Whether a crop of a window `length` long on `axis` hides enough for the
// fall-backs (profiles, then turned faces) to be worth their cost.
static int profiles_wanted(int axis, double length) {
    return (axis == 1 || axis == 2) && 1 - length >= PROFILE_MIN_HIDDEN;
}

// The grey picture shrunk PROFILE_SHRINK times, by averaging (a last partial
// row or column is dropped).
static uint8_t *shrunk(const ci_image *grey, uint32_t *width, uint32_t *height) {
    const uint32_t k = PROFILE_SHRINK;
    *width = grey->width / k;
    *height = grey->height / k;
    if (*width == 0 || *height == 0) return NULL;
    uint8_t *out = malloc((size_t)*width * *height);
    if (!out) return NULL;
    for (uint32_t y = 0; y < *height; y++) {
        for (uint32_t x = 0; x < *width; x++) {
            uint32_t sum = 0;
            for (uint32_t j = 0; j < k; j++) {
                const uint8_t *p = grey->pixels + (size_t)(k * y + j) * grey->stride + (size_t)k * x;
                for (uint32_t i = 0; i < k; i++) sum += p[i];
            }
            out[(size_t)y * *width + x] = (uint8_t)((sum + k * k / 2) / (k * k));
        }
    }
    return out;
}

static int overlapping(ci_box a, ci_box b) {
    double w = fmin(a.x + a.width, b.x + b.width) - fmax(a.x, b.x);
    double h = fmin(a.y + a.height, b.y + b.height) - fmax(a.y, b.y);
    return w > 0 && h > 0 && w * h >= 0.3 * fmin(a.width * a.height, b.width * b.height);
}

// Adds a face a fall-back search found, unless it is one already known.
static void add_new_face(ci_box box, ci_box *faces, int *count) {
    if (*count >= CI_MAX_FACES) return;
    for (int j = 0; j < *count; j++)
        if (overlapping(faces[j], box)) return;
    faces[(*count)++] = box;
}

// Where a face in a w x h picture can change the crop of a window `length`
// long on `axis`: that window shows the middle [1 - length, length]
// wherever it goes, so a face whose head and margin lie there cannot move it.
static cf_region crop_region(int axis, double length, uint32_t w, uint32_t h) {
    const double extent = axis == 1 ? w : h, margin = FACE_MARGIN * length;
    const cf_region region = {axis, (1 - length + margin) * extent, (length - margin) * extent,
                              axis == 1 ? HEAD_AROUND : HEAD_ABOVE, HEAD_AROUND};
    return region;
}

// Faces in profile (issue #23), added to the frontal ones found: those
// of the shrunk picture whose head could change the crop (crop_region), and
// that are not a frontal face already. Asked only where profiles_wanted.
static ci_status add_profiles(const ci_image *grey, int axis, double length, ci_box *faces, int *count,
                              const char *name, ci_error *err) {
    uint32_t w, h;
    uint8_t *picture = shrunk(grey, &w, &h);
    if (!picture) {
        if (w == 0 || h == 0) return CI_OK;
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory looking for faces", name);
    }
    const cf_region region = crop_region(axis, length, w, h);
    cf_face found[CI_MAX_FACES];
    uint32_t min_size = (uint32_t)(PROFILE_MIN_SHARE * (w < h ? w : h));
    int n = cf_find_profiles(picture, w, h, w, &region, min_size, found, CI_MAX_FACES);
    free(picture);
    if (n < 0) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory looking for faces", name);
    if (n > CI_MAX_FACES) n = CI_MAX_FACES;
    for (int i = 0; i < n; i++)
        add_new_face((ci_box){found[i].x / w, found[i].y / h, found[i].width / w, found[i].height / h}, faces, count);
    return CI_OK;
}

// Faces tilted by 45 degrees, which dlib's filters do not find, still
// score a little below FACE_SCORE_THRESHOLD (-0.3 to 0.2 where a face is
// 1 to 1.6): around such a weak candidate the picture is turned by 40
// degrees each way and searched again. The crop evaluation's turned faces
// kept went from 139 to 176 of 180 (docs/quality.md); a photo with no
// candidate pays nothing more.
#define TURNED_SEARCH_DEGREES 40.0
#define CANDIDATE_THRESHOLD -0.8
#define MAX_CANDIDATES 4

// The part of the grey picture around `around` (pixels; grown by its own
// size each way) turned by `degrees` about its centre and enlarged `zoom`
// times into a canvas that holds it all (bilinear, mid-grey outside); the
// frontal faces found there are added, each as the box (in fractions of
// the picture) around its box turned back.
static ci_status add_found_around(const ci_image *grey, cf_face around, double degrees, double zoom, ci_box *faces,
                                  int *count, const char *name, ci_error *err) {
    double a = degrees * M_PI / 180, c = cos(a), s = sin(a);
    double left = fmax(0, around.x - around.width), top = fmax(0, around.y - around.height);
    double right = fmin(grey->width, around.x + 2 * around.width);
    double bottom = fmin(grey->height, around.y + 2 * around.height);
    if (right - left < 2 || bottom - top < 2) return CI_OK;
    uint32_t x0 = (uint32_t)left, y0 = (uint32_t)top, w = (uint32_t)(right - x0), h = (uint32_t)(bottom - y0);
    // At most twice the part's pixels (itself within the picture) times zoom squared.
    uint32_t tw = (uint32_t)ceil(zoom * (fabs(w * c) + fabs(h * s)));
    uint32_t th = (uint32_t)ceil(zoom * (fabs(w * s) + fabs(h * c)));
    uint8_t *out = malloc((size_t)tw * th);
    if (!out) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory looking for faces", name);
    double cx = w / 2.0, cy = h / 2.0, tcx = tw / 2.0, tcy = th / 2.0;
    for (uint32_t y = 0; y < th; y++) {
        for (uint32_t x = 0; x < tw; x++) {
            double dx = (x + 0.5 - tcx) / zoom, dy = (y + 0.5 - tcy) / zoom;
            double sx = c * dx + s * dy + cx - 0.5, sy = -s * dx + c * dy + cy - 0.5;
            uint8_t v = 128;
            if (sx >= 0 && sy >= 0 && sx < w - 1 && sy < h - 1) {
                uint32_t px = (uint32_t)sx, py = (uint32_t)sy;
                double fx = sx - px, fy = sy - py;
                const uint8_t *p = grey->pixels + (size_t)(y0 + py) * grey->stride + x0 + px;
                double upper = p[0] + fx * (p[1] - p[0]);
                double lower = p[grey->stride] + fx * (p[grey->stride + 1] - p[grey->stride]);
                v = (uint8_t)(upper + fy * (lower - upper) + 0.5);
            }
            out[(size_t)y * tw + x] = v;
        }
    }
    cf_face found[CI_MAX_FACES];
    int n = cf_find_faces(out, tw, th, tw, FACE_SCORE_THRESHOLD, found, CI_MAX_FACES);
    free(out);
    if (n < 0) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory looking for faces", name);
    if (n > CI_MAX_FACES) n = CI_MAX_FACES;
    for (int i = 0; i < n; i++) {
        double bx0 = 1e9, by0 = 1e9, bx1 = -1e9, by1 = -1e9;
        for (int k = 0; k < 4; k++) {
            double px = (found[i].x + (k & 1) * found[i].width - tcx) / zoom;
            double py = (found[i].y + (k >> 1) * found[i].height - tcy) / zoom;
            double sx = c * px + s * py + cx + x0, sy = -s * px + c * py + cy + y0;
            bx0 = fmin(bx0, sx), by0 = fmin(by0, sy), bx1 = fmax(bx1, sx), by1 = fmax(by1, sy);
        }
        bx0 = fmax(0, bx0), by0 = fmax(0, by0), bx1 = fmin(grey->width, bx1), by1 = fmin(grey->height, by1);
        if (bx1 <= bx0 || by1 <= by0) continue;
        add_new_face((ci_box){bx0 / grey->width, by0 / grey->height, (bx1 - bx0) / grey->width,
                              (by1 - by0) / grey->height},
                     faces, count);
    }
    return CI_OK;
}

// The frame reduced to grey, upright, its short side at most `short_side`.
static ci_status grey_upright(const ci_image *frame, int orientation, uint32_t short_side, ci_image *grey,
                             const char *name, ci_error *err) {
    uint32_t dw, dh, w, h;
    ci_oriented_size(orientation, frame->width, frame->height, &dw, &dh);
    ci_reduced_size(dw, dh, short_side, 0, &w, &h);
    return ci_reduce_upright(frame, orientation, w, h, 1, grey, name, err);
}

// Small faces (issue #31): dlib's 80-pixel window sees faces of about a
// sixth of the short side at FACE_SEARCH_SHORT_SIDE, while a person
// standing full length has a face of 5 to 10% of it. OpenCV's LBP cascade
// (a 24-pixel window) finds candidates from there up to where dlib takes
// over, where they could change the crop (crop_region), in a picture of
// its own, larger than dlib's (as far as the frame decoded has the
// pixels): at 480 a face of 5% is 24 pixels, the window itself, and the
// cascade frames faces with a margin, so it found 16 of the evaluation's
// 30 faces of 5%; at 640, 25, and with its scales 5% apart instead of 10%
// (cascades.cpp), all the evaluation's faces of 5% but one (docs/quality.md).
// It passes busy
// textures too, so each of the surest few is confirmed by dlib on the part
// around it enlarged until the candidate is SMALL_CONFIRM_SIZE pixels
// (dlib's window, with room: the candidate's box is a little larger than
// the face).
#define SMALL_FACE_SEARCH_SHORT_SIDE 640
#define SMALL_FACE_LARGEST_SHARE 0.1875  // 90 pixels at 480: dlib's window, with room
#define SMALL_CONFIRM_SIZE 110.0
#define SMALL_CONFIRM_RATIO 1.5
#define MAX_SMALL_CANDIDATES 4
// `from` and `to` (fractions of the height) bound the rows searched: the
// whole picture for a crop (its candidates where they could change the crop
// of a window `length` long on `axis`), a caption band's edge for the band
// alone (axis 0: every candidate there).
static ci_status add_small_faces(const ci_image *frame, int orientation, int axis, double length, double from,
                                 double to, ci_box *faces, int *count, const char *name, ci_error *err) {
    ci_image grey;
    ci_status status = grey_upright(frame, orientation, SMALL_FACE_SEARCH_SHORT_SIDE, &grey, name, err);
    if (status != CI_OK) return status;
    const uint32_t top = (uint32_t)floor(from * grey.height);
    uint32_t bottom = (uint32_t)ceil(to * grey.height);
    if (bottom > grey.height) bottom = grey.height;
    const uint32_t shortest = grey.width < grey.height ? grey.width : grey.height;
    const uint32_t largest = (uint32_t)(SMALL_FACE_LARGEST_SHARE * shortest);
    const cf_region everywhere = {0, 0, 0, 0, 0};
    const cf_region region = axis ? crop_region(axis, length, grey.width, grey.height) : everywhere;
    cf_face found[MAX_SMALL_CANDIDATES];
    int n = bottom > top ? cf_find_small_faces(grey.pixels + (size_t)top * grey.stride, grey.width, bottom - top,
                                               grey.stride, &region, 0, largest, found, MAX_SMALL_CANDIDATES)
                         : 0;
    if (n < 0) status = ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory looking for faces", name);
    if (n > MAX_SMALL_CANDIDATES) n = MAX_SMALL_CANDIDATES;
    for (int i = 0; i < n; i++) found[i].y += top;  // in the whole picture's rows
    for (int i = 0; i < n && status == CI_OK; i++) {
        int before = *count;
        status = add_found_around(&grey, found[i], 0, SMALL_CONFIRM_SIZE / found[i].height, faces, count, name, err);
        // A confirmation is the candidate's face: about its size, over it
        // (in busy texture, enlarged, dlib can frame something else).
        const ci_box candidate = {found[i].x / grey.width, found[i].y / grey.height, found[i].width / grey.width,
                                  found[i].height / grey.height};
        for (int j = before; j < *count; j++) {
            double ratio = faces[j].height / candidate.height;
            if (ratio < 1 / SMALL_CONFIRM_RATIO || ratio > SMALL_CONFIRM_RATIO || !overlapping(faces[j], candidate))
                faces[j--] = faces[--*count];
        }
    }
    ci_image_free(&grey);
    return status;
}

// The searches' buffers, freed, handed back to the system (issue #32).
// glibc keeps what is freed for reuse, and once a block over its mmap
// threshold (128 KiB at first) is freed it raises the threshold to that
// block's size: the searches' buffers after (grey pictures, dlib's HOG
// features, the cascades' integral images, 0.3-2 MB each) then come from
// each drawing thread's heap and stay there when freed, piling up photo
// after photo. With this and the grey picture packed, W6's smart save
// peaks at 41 MiB instead of 42.6 (docs/performance.md). malloc_trim is
// glibc's call for that, safe on any thread (measured at no cost on W6);
// elsewhere this does nothing. Not under AddressSanitizer: its allocator
// owns the memory, and glibc's own heap, which malloc_trim walks, is not
// in use (make test-sanitized: a `save`'s drawing thread crashed in it,
// SEGV in glibc's mtrim, once in a whole-suite run).
static void hand_back_freed_memory(void) {
#if defined(__GLIBC__) && !defined(CI_ADDRESS_SANITIZER)
    malloc_trim(0);
#endif
}

// A face the detector found in the rows of `small` from `top` on, as a box
// in fractions of the whole picture. The detector may frame a face at the
// edge partly outside the picture: the box is cut to it.
static ci_box box_of(const cf_face *found, const ci_image *small, uint32_t top) {
    ci_box box = {found->x / small->width, (found->y + top) / small->height, found->width / small->width,
                  found->height / small->height};
    if (box.x < 0) { box.width += box.x; box.x = 0; }
    if (box.y < 0) { box.height += box.y; box.y = 0; }
    if (box.x + box.width > 1) box.width = 1 - box.x;
    if (box.y + box.height > 1) box.height = 1 - box.y;
    return box;
}

// Frontal faces in the rows of `small` between `from` and `to` (fractions
// of its height), added to `faces` (those overlapping one already there are
// the same face).
static ci_status add_faces_in_rows(const ci_image *small, double from, double to, ci_box *faces, int *count,
                                   const char *name, ci_error *err) {
    uint32_t top = (uint32_t)floor(from * small->height), bottom = (uint32_t)ceil(to * small->height);
    if (bottom > small->height) bottom = small->height;
    if (bottom <= top) return CI_OK;
    cf_face found[CI_MAX_FACES];
    int n = cf_find_faces(small->pixels + (size_t)top * small->stride, small->width, bottom - top, small->stride,
                          FACE_SCORE_THRESHOLD, found, CI_MAX_FACES);
    if (n < 0) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory looking for faces", name);
    if (n > CI_MAX_FACES) n = CI_MAX_FACES;
    for (int i = 0; i < n; i++)
        if (found[i].score >= FACE_SCORE_THRESHOLD) add_new_face(box_of(&found[i], small, top), faces, count);
    return CI_OK;
}

// The share of the picture's height searched at each edge for a caption's
// band alone: a band is at most a sixth of its cell, and a face of up to a
// fifth of the height whose head reaches into it lies within this.
#define EDGE_ROWS 0.4

// The share of the height searched at each edge for the small faces of
// people standing full length (5 to 17% of the short side): a band of up to
// a sixth of its cell covers one only where its face is this near the edge.
#define SMALL_EDGE_ROWS 0.25

// Faces a caption's band could cover where they cannot move the crop (it
// has no room, or the person's focus places it, or the photo is contained):
// the frontal search in the bottom rows, where the band goes, then, where
// it finds none, the small faces' in the band's own rows (the person at the
// foot of a lighthouse: issue #41); and only where a face is found there,
// both in the top rows too, where the band would go instead. Less than half
// of a whole search (issue #41: searching the whole photo for every
// captioned photo cost W6 0.08 s, half its time; the small faces' search
// over the bottom 40% cost it 0.33 s; over the band's quarter, only where
// no frontal face is there, W6 captioned took 1.00x its time before, and
// 1.01x with --fit contain, where every photo is searched). A larger face,
// whose chin alone a band could reach, is not looked for.
ci_status ci_find_faces_near_edges(const ci_image *frame, int orientation, ci_box *faces, int *count,
                                   const char *name, ci_error *err) {
    *count = 0;
    ci_image small;
    ci_status status = grey_upright(frame, orientation, FACE_SEARCH_SHORT_SIDE, &small, name, err);
    if (status != CI_OK) return status;
    status = add_faces_in_rows(&small, 1 - EDGE_ROWS, 1, faces, count, name, err);
    if (status == CI_OK && *count == 0)
        status = add_small_faces(frame, orientation, 0, 0, 1 - SMALL_EDGE_ROWS, 1, faces, count, name, err);
    if (status == CI_OK && *count > 0) {
        const int at_bottom = *count;
        status = add_faces_in_rows(&small, 0, EDGE_ROWS, faces, count, name, err);
        if (status == CI_OK && *count == at_bottom)
            status = add_small_faces(frame, orientation, 0, 0, 0, SMALL_EDGE_ROWS, faces, count, name, err);
    }
    ci_image_free(&small);
    hand_back_freed_memory();
    return status;
}

// Faces in the frame, as boxes in fractions of the upright photo, surest
// first: frontal faces; when there are none, small frontal faces, then
// faces in profile, that could change the crop of a window `length` long
// on `axis` (1 across, 2 down); when there are still none, frontal faces
// tilted further than dlib sees.
ci_status ci_find_faces_for_crop(const ci_image *frame, int orientation, int axis, double length, ci_box *faces,
                                 int *count, const char *name, ci_error *err) {
    *count = 0;
    ci_image small;
    ci_status status = grey_upright(frame, orientation, FACE_SEARCH_SHORT_SIDE, &small, name, err);
    if (status != CI_OK) return status;
    cf_face found[CI_MAX_FACES];
    // Searched down to the weak candidates' score: the boxes over
    // FACE_SCORE_THRESHOLD are the same as a search at it (suppression goes
    // surest first, so a weaker box never removes a stronger one).
    int n = cf_find_faces(small.pixels, small.width, small.height, small.stride, CANDIDATE_THRESHOLD,
                          found, CI_MAX_FACES);
    if (n < 0) {
        ci_image_free(&small);
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory looking for faces", name);
    }
    if (n > CI_MAX_FACES) n = CI_MAX_FACES;
    // Surest first: the faces, then the weak candidates (the surest few).
    int faces_found = 0;
    while (faces_found < n && found[faces_found].score >= FACE_SCORE_THRESHOLD) faces_found++;
    const cf_face *weak = found + faces_found;
    const int candidates = n - faces_found < MAX_CANDIDATES ? n - faces_found : MAX_CANDIDATES;
    n = faces_found;
    for (int i = 0; i < n; i++) faces[i] = box_of(&found[i], &small, 0);
    *count = n;
    // The fall-backs only where no frontal face was found (those place the
    // crop when there are any) and the crop hides enough, each only while
    // nothing is found: small frontal faces; faces in profile (the search
    // costs about twice the frontal one); faces tilted further than dlib's
    // tilted filters reach (about 30 degrees), around the weak candidates,
    // turned TURNED_SEARCH_DEGREES each way.
    if (n == 0 && profiles_wanted(axis, length)) {
        status = add_small_faces(frame, orientation, axis, length, 0, 1, faces, count, name, err);
        if (status == CI_OK && *count == 0) status = add_profiles(&small, axis, length, faces, count, name, err);
        for (int i = 0; i < candidates && status == CI_OK && *count == 0; i++)
            for (int turn = -1; turn <= 1 && status == CI_OK; turn += 2)
                status = add_found_around(&small, weak[i], turn * TURNED_SEARCH_DEGREES, 1, faces, count, name, err);
    }
    ci_image_free(&small);
    hand_back_freed_memory();
    return status;
}

ci_status ci_find_faces(const ci_image *frame, int orientation, ci_box *faces, int *count, const char *name,
                        ci_error *err) {
    // Axis 0: looked for everywhere, frontal faces only (the fall-backs
    // are for faces a crop could cut).
    return ci_find_faces_for_crop(frame, orientation, 0, 1, faces, count, name, err);
}
