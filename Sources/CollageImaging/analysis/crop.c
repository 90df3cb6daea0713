// crop.c — where a cover crop goes (issue #13), and fitting the whole photo.
//
// A photo whose shape differs from its cell's is cropped on one axis only:
// the part shown (the "window") can slide along that axis and nothing else.
// So every rule here comes down to one number, the window's centre on that
// axis, which the resampler (resample.c) takes as a focus:
//
//  - centre: the middle, as the original app did (and no focus at all, so
//    it is the same to the bit as before any of this existed);
//  - smart: the person's focus if set; else every face found when their
//    heads fit in the window together, else the largest group that does
//    (issue #41: or of the faces themselves, where more of them fit than of
//    the heads grown from them), the window centred on it; else the
//    camera's subject (EXIF), the window moved as little from the middle
//    as keeps it in; else the middle;
//  - attention: the window position holding the most "interest" (edges,
//    saturated colour, skin), in the spirit of libvips' attention crop.
//
// Faces and attention look at the photo's pixels: the driver (draw.c) then decodes
// the whole frame at its shrink-on-load scale (never the full-size photo)
// and hands it to ci_draw_frame, which searches a copy reduced further.
// They are only looked for when the window has room to move.
#include "../internal.h"

#include "collage_faces.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------
// The rule, without pixels

// The window's size in fractions of a photo pw x ph covering a cw x ch cell.
static void window_size(uint32_t pw, uint32_t ph, uint32_t cw, uint32_t ch, double *ww, double *wh) {
    *ww = *wh = 1.0;
    uint64_t cell_wide = (uint64_t)cw * ph, photo_wide = (uint64_t)pw * ch;
    if (photo_wide > cell_wide)
        *ww = (double)cell_wide / (double)photo_wide;   // the photo is wider: crop its sides
    else if (cell_wide > photo_wide)
        *wh = (double)photo_wide / (double)cell_wide;   // taller: crop top and bottom
}

// The axis the window can slide along and its length there: 1 (across)
// or 2 (down) when at least a pixel of the photo is cut off, else 0.
static int free_axis(uint32_t pw, uint32_t ph, uint32_t cw, uint32_t ch, double *length) {
    double ww = 1, wh = 1;
    if (pw && ph && cw && ch) window_size(pw, ph, cw, ch, &ww, &wh);
    *length = ww < 1 ? ww : wh;
    if (ww < 1 && (1 - ww) * pw >= 1) return 1;
    if (wh < 1 && (1 - wh) * ph >= 1) return 2;
    return 0;
}

static double clamp_centre(double centre, double length) {
    double half = length / 2;
    return centre < half ? half : centre > 1 - half ? 1 - half : centre;
}

// The centre of a window `length` long that keeps [lo, hi] in view, with
// up to `margin` to spare on each side, moved as little from the middle as
// that allows. Where [lo, hi] is longer than the window, it is centred.
static double keep_in_view(double lo, double hi, double length, double margin) {
    double slack = length - (hi - lo);
    if (slack <= 0) return clamp_centre((lo + hi) / 2, length);
    if (margin > slack / 2) margin = slack / 2;
    lo -= margin;
    hi += margin;
    double least = hi - length / 2, most = lo + length / 2;  // centres that keep it in view
    double centre = 0.5 < least ? least : 0.5 > most ? most : 0.5;
    return clamp_centre(centre, length);
}

// A face as the detector frames it (eyebrows to chin) grown to the head:
// the forehead and hair above, a little on each side and under the chin
// (in sizes of the face's box).
#define HEAD_ABOVE 0.45
#define HEAD_AROUND 0.15
ci_box ci_head_of(ci_box face) {
    double top = face.y - HEAD_ABOVE * face.height, bottom = face.y + (1 + HEAD_AROUND) * face.height;
    double left = face.x - HEAD_AROUND * face.width, right = face.x + (1 + HEAD_AROUND) * face.width;
    if (top < 0) top = 0;
    if (left < 0) left = 0;
    if (bottom > 1) bottom = 1;
    if (right > 1) right = 1;
    ci_box head = {left, top, right - left, bottom - top};
    return head;
}

typedef struct {
    double lo, hi, area;
} span;

static int by_lo(const void *a, const void *b) {
    double d = ((const span *)a)->lo - ((const span *)b)->lo;
    return d < 0 ? -1 : d > 0 ? 1 : 0;
}

// The largest group of spans (sorted by lo) that fits a window `length`
// long: most members, then most area, then nearest the middle. Returns
// how many, 0 when none fits alone; the group is [*lo, *hi].
static int largest_group(const span *spans, int count, double length, double *lo, double *hi) {
    int best_count = 0;
    double best_area = 0, best_distance = 0;
    for (int i = 0; i < count; i++) {
        double group_hi = spans[i].hi, area = 0;
        int members = 0;
        for (int j = i; j < count; j++) {
            double reach = spans[j].hi > group_hi ? spans[j].hi : group_hi;
            if (reach - spans[i].lo > length) continue;  // this one does not fit with them
            group_hi = reach;
            area += spans[j].area;
            members++;
        }
        if (members == 0) continue;
        double distance = fabs((spans[i].lo + group_hi) / 2 - 0.5);
        if (members > best_count || (members == best_count && area > best_area + 1e-12) ||
            (members == best_count && fabs(area - best_area) <= 1e-12 && distance < best_distance)) {
            best_count = members;
            best_area = area;
            best_distance = distance;
            *lo = spans[i].lo;
            *hi = group_hi;
        }
    }
    return best_count;
}

// The faces on the free axis, grown to their heads (`heads`) or as the
// detector framed them, sorted by where they start.
static void face_spans(const ci_box *faces, int count, int along_x, int heads, span *spans) {
    for (int i = 0; i < count; i++) {
        ci_box box = heads ? ci_head_of(faces[i]) : faces[i];
        spans[i].lo = along_x ? box.x : box.y;
        spans[i].hi = along_x ? box.x + box.width : box.y + box.height;
        spans[i].area = faces[i].width * faces[i].height;
    }
    qsort(spans, (size_t)count, sizeof spans[0], by_lo);
}

// The part of the free axis to centre the window on: the most heads a
// window `length` long holds whole (all of them when they fit together;
// then most face area, then nearest the middle). Where the heads as grown
// from the faces (an estimate, generous with hair) hold fewer people than
// the faces themselves, the faces' group: two people side by side in a
// narrow cell are both kept, each head as far as the window allows.
// Returns 0 when no single face fits; then [*lo, *hi] is the largest head.
static int faces_in_view(const ci_box *faces, int count, int along_x, double length, double *lo,
                         double *hi) {
    span spans[CI_MAX_FACES];
    if (count > CI_MAX_FACES) count = CI_MAX_FACES;
    face_spans(faces, count, along_x, 1, spans);
    int heads = largest_group(spans, count, length, lo, hi);
    if (heads == count) return 1;
    // The heads' spans, to fall back on when not even one face fits.
    int largest = 0;
    for (int i = 1; i < count; i++)
        if (spans[i].area > spans[largest].area) largest = i;
    double largest_lo = spans[largest].lo, largest_hi = spans[largest].hi;
    double face_lo, face_hi;
    face_spans(faces, count, along_x, 0, spans);
    if (largest_group(spans, count, length, &face_lo, &face_hi) > heads) {
        *lo = face_lo;
        *hi = face_hi;
        return 1;
    }
    if (heads > 0) return 1;
    *lo = largest_lo;
    *hi = largest_hi;
    return 0;
}

// The room kept around faces, in window lengths, when there is room.
#define FACE_MARGIN 0.04

ci_placed_by ci_place_crop(uint32_t photo_width, uint32_t photo_height, uint32_t cell_width,
                           uint32_t cell_height, const ci_placement_hints *hints, ci_box *shown) {
    double ww = 1, wh = 1;
    if (photo_width && photo_height && cell_width && cell_height)
        window_size(photo_width, photo_height, cell_width, cell_height, &ww, &wh);
    double cx = 0.5, cy = 0.5, length;
    ci_placed_by by = CI_PLACED_CENTRE;
    int axis = free_axis(photo_width, photo_height, cell_width, cell_height, &length);
    int along_x = axis == 1;
    if (hints && axis) {
        double centre = 0.5;
        if (hints->has_focus) {
            centre = clamp_centre(along_x ? hints->focus_x : hints->focus_y, length);
            by = CI_PLACED_FOCUS;
        } else if (hints->faces && hints->face_count > 0) {
            double lo, hi;
            // Centred on the heads kept: the room left is shared out on
            // both sides of them (a head's box is an estimate of it).
            faces_in_view(hints->faces, hints->face_count, along_x, length, &lo, &hi);
            centre = clamp_centre((lo + hi) / 2, length);
            by = CI_PLACED_FACES;
        } else if (hints->has_subject) {
            ci_box s = hints->subject;
            double lo = along_x ? s.x : s.y, hi = lo + (along_x ? s.width : s.height);
            centre = keep_in_view(lo, hi, length, 0.1 * length);
            by = CI_PLACED_SUBJECT;
        }
        if (along_x) cx = centre;
        else cy = centre;
    }
    if (shown) {
        shown->x = cx - ww / 2;
        shown->y = cy - wh / 2;
        shown->width = ww;
        shown->height = wh;
    }
    return by;
}

// ---------------------------------------------------------------------------
// Looking at the pixels

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
// The long side the attention map is made at.
#define ATTENTION_LONG_SIDE 96

// Dividing by n as a multiplication: for n < 2^16 and a sum of at most
// 256 n (under 2^24), (x * (floor(2^40 / n) + 1)) >> 40 is x / n exactly
// (the multiplier's excess e <= n, and x e < 2^40). Larger n divide.
typedef struct {
    uint64_t n, multiplier;
} divisor;

static divisor divisor_of(uint64_t n) {
    divisor d = {n ? n : 1, 0};
    if (d.n < 65536) d.multiplier = ((uint64_t)1 << 40) / d.n + 1;
    return d;
}

static uint8_t rounded_average(uint64_t sum, const divisor *d) {
    uint64_t x = sum + d->n / 2;
    return (uint8_t)(d->multiplier ? (x * d->multiplier) >> 40 : x / d->n);
}

// band[i] = row[i] (the band's first row) or band[i] += row[i]: most of
// reduce_upright's time, the frame's every byte (CI_VECTOR_CLONES: AVX2
// widens and adds 8 bytes an instruction).
CI_VECTOR_CLONES
static void band_sum(uint32_t *restrict band, const uint8_t *restrict row, size_t count, int first) {
    if (first)
        for (size_t i = 0; i < count; i++) band[i] = row[i];
    else
        for (size_t i = 0; i < count; i++) band[i] += row[i];
}

// The frame reduced by averaging to about `width` x `height` upright pixels
// (never more than it has), as 3 bytes a pixel. A box filter is enough for
// looking at a photo; it reads each pixel of the frame once. Reduced as
// stored, then turned upright: the small picture is quicker to turn than
// each pixel is to place (issue #23: this was a fifth of the face search's
// cost).
static ci_status reduce_upright(const ci_image *frame, int orientation, uint32_t width, uint32_t height,
                                ci_image *out, const char *name, ci_error *err) {
    uint32_t sw, sh;
    ci_oriented_size(orientation, width, height, &sw, &sh);  // upright to stored: the same swap
    if (sw > frame->width) sw = frame->width;
    if (sh > frame->height) sh = frame->height;
    if (sw == 0) sw = 1;
    if (sh == 0) sh = 1;
    ci_status status = ci_image_alloc(out, sw, sh, 3, NULL, name, err);
    if (status != CI_OK) return status;
    const int channels = frame->channels;
    const size_t row_values = (size_t)frame->width * (size_t)channels;
    // Each band of frame rows summed down its columns first: one pass over
    // contiguous bytes, vectorised (band_sum).
    uint32_t *band = malloc(row_values * sizeof *band);
    uint32_t *column = malloc(((size_t)sw + 1) * sizeof *column);
    if (!band || !column) {
        free(band);
        free(column);
        ci_image_free(out);
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory looking at the photo", name);
    }
    // Output column a averages frame columns column[a] .. column[a + 1] - 1.
    for (uint32_t a = 0; a <= sw; a++) column[a] = (uint32_t)((uint64_t)a * frame->width / sw);
    for (uint32_t b = 0; b < sh; b++) {
        uint32_t row0 = (uint32_t)((uint64_t)b * frame->height / sh);
        uint32_t row1 = (uint32_t)((uint64_t)(b + 1) * frame->height / sh);
        for (uint32_t r = row0; r < row1; r++)
            band_sum(band, frame->pixels + (size_t)r * frame->stride, row_values, r == row0);
        uint8_t *q = out->pixels + (size_t)b * out->stride;
        // Output columns are `narrow` or `narrow + 1` frame columns wide, so
        // two divisors serve the row, each as a multiplier (the divisions
        // were most of this function's time).
        const uint32_t narrow = frame->width / sw, rows = row1 - row0;
        divisor by[2] = {divisor_of((uint64_t)narrow * rows), divisor_of((uint64_t)(narrow + 1) * rows)};
        for (uint32_t a = 0; a < sw; a++) {
            uint64_t red = 0, green = 0, blue = 0;
            for (uint32_t c = column[a]; c < column[a + 1]; c++) {
                const uint32_t *v = band + (size_t)c * channels;
                red += v[0];
                green += v[1];
                blue += v[2];
            }
            const divisor *n = &by[column[a + 1] - column[a] > narrow];
            q[a * 3] = rounded_average(red, n);
            q[a * 3 + 1] = rounded_average(green, n);
            q[a * 3 + 2] = rounded_average(blue, n);
        }
    }
    free(band);
    free(column);
    status = ci_apply_orientation(out, orientation, name, err);
    if (status != CI_OK) ci_image_free(out);
    return status;
}

// The size of a frame dw x dh (upright) reduced so its short side is at most `short_side`.
static void reduced_size(uint32_t dw, uint32_t dh, uint32_t short_side, uint32_t *w, uint32_t *h) {
    uint32_t shortest = dw < dh ? dw : dh;
    if (shortest <= short_side) {
        *w = dw;
        *h = dh;
        return;
    }
    *w = (uint32_t)((uint64_t)dw * short_side / shortest);
    *h = (uint32_t)((uint64_t)dh * short_side / shortest);
}

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
    reduced_size(dw, dh, short_side, &w, &h);
    memset(grey, 0, sizeof *grey);
    ci_status status = reduce_upright(frame, orientation, w, h, grey, name, err);
    if (status != CI_OK) return status;
    // Grey, in place and packed a byte a pixel (the detectors look at
    // luminance only): each grey pixel lands at or before the colour pixel
    // it is made of, so the rows can be walked forwards. The rest of the
    // buffer is handed back before the searches allocate theirs (issue #32).
    uint8_t *packed = grey->pixels;
    for (uint32_t y = 0; y < grey->height; y++) {
        const uint8_t *row = grey->pixels + (size_t)y * grey->stride;
        for (uint32_t x = 0; x < grey->width; x++, packed++)
            *packed = (uint8_t)((77 * row[x * 3] + 150 * row[x * 3 + 1] + 29 * row[x * 3 + 2] + 128) >> 8);
    }
    grey->stride = grey->width;
    grey->channels = 1;
    uint8_t *smaller = realloc(grey->pixels, (size_t)grey->width * grey->height);
    if (smaller) grey->pixels = smaller;  // (else the larger buffer serves as well)
    return CI_OK;
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
static ci_status find_faces_near_edges(const ci_image *frame, int orientation, ci_box *faces, int *count,
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
static ci_status find_faces(const ci_image *frame, int orientation, int axis, double length, ci_box *faces,
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
    return find_faces(frame, orientation, 0, 1, faces, count, name, err);
}

// The attention crop: an interest map of the reduced photo (edges of the
// luminance, saturated colour, skin tones, as libvips' attention crop
// weighs them), and the window position along the free axis that holds the
// most of it (libvips centres on the single hottest point instead, which
// one bright spot can capture). Ties go to the position nearest the middle.
static ci_status attention_centre(const ci_image *frame, int orientation, int along_x, double length,
                                  double *centre, const char *name, ci_error *err) {
    uint32_t dw, dh, w, h;
    ci_oriented_size(orientation, frame->width, frame->height, &dw, &dh);
    uint32_t longest = dw > dh ? dw : dh;
    w = dw, h = dh;
    if (longest > ATTENTION_LONG_SIDE) {
        w = (uint32_t)((uint64_t)dw * ATTENTION_LONG_SIDE / longest);
        h = (uint32_t)((uint64_t)dh * ATTENTION_LONG_SIDE / longest);
    }
    if (w < 3) w = 3 > dw ? dw : 3;
    if (h < 3) h = 3 > dh ? dh : 3;
    ci_image small;
    memset(&small, 0, sizeof small);
    ci_status status = reduce_upright(frame, orientation, w, h, &small, name, err);
    if (status != CI_OK) return status;
    uint32_t n = along_x ? small.width : small.height;
    double *profile = calloc(n, sizeof *profile);
    if (!profile) {
        ci_image_free(&small);
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory looking at the photo", name);
    }
    for (uint32_t y = 0; y < small.height; y++) {
        for (uint32_t x = 0; x < small.width; x++) {
            const uint8_t *p = small.pixels + (size_t)y * small.stride + (size_t)x * 3;
            int r = p[0], g = p[1], b = p[2];
            // Edges: the luminance's Laplacian (clamped at the border).
            uint32_t xl = x ? x - 1 : x, xr = x + 1 < small.width ? x + 1 : x;
            uint32_t yu = y ? y - 1 : y, yd = y + 1 < small.height ? y + 1 : y;
#define LUMA(px, py) (77 * small.pixels[(size_t)(py) * small.stride + (size_t)(px) * 3] + \
                      150 * small.pixels[(size_t)(py) * small.stride + (size_t)(px) * 3 + 1] + \
                      29 * small.pixels[(size_t)(py) * small.stride + (size_t)(px) * 3 + 2])
            double edge = fabs(4.0 * LUMA(x, y) - LUMA(xl, y) - LUMA(xr, y) - LUMA(x, yu) - LUMA(x, yd)) / 256.0;
#undef LUMA
            int max = r > g ? (r > b ? r : b) : (g > b ? g : b);
            int min = r < g ? (r < b ? r : b) : (g < b ? g : b);
            double saturation = max - min > 60 ? (max - min) / 2.0 : 0;
            // Skin: the usual YCbCr box (Chai and Ngan), bright enough to matter.
            double cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b;
            double cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b;
            double skin = cb >= 77 && cb <= 127 && cr >= 133 && cr <= 173 && max > 60 ? 96 : 0;
            profile[along_x ? x : y] += edge + saturation + skin;
        }
    }
    ci_image_free(&small);
    // The window covers `span` map cells; slide it.
    uint32_t span_cells = (uint32_t)lround(length * n);
    if (span_cells < 1) span_cells = 1;
    if (span_cells > n) span_cells = n;
    double sum = 0, best = -1;
    for (uint32_t i = 0; i < span_cells; i++) sum += profile[i];
    uint32_t best_start = 0;
    double best_distance = 2;
    for (uint32_t start = 0;; start++) {
        double mid = (start + span_cells / 2.0) / n, distance = fabs(mid - 0.5);
        if (sum > best + 1e-9 || (fabs(sum - best) <= 1e-9 && distance < best_distance)) {
            best = sum;
            best_start = start;
            best_distance = distance;
        }
        if (start + span_cells >= n) break;
        sum += profile[start + span_cells] - profile[start];
    }
    free(profile);
    *centre = clamp_centre((best_start + span_cells / 2.0) / n, length);
    return CI_OK;
}

// ---------------------------------------------------------------------------
// Draws

ci_rect ci_fit_cell(const ci_draw_request *request, ci_image *canvas, ci_rect cell, uint32_t dw,
                    uint32_t dh) {
    if (request->fit != CI_FIT_CONTAIN || dw == 0 || dh == 0) return cell;
    // The background under the whole cell, then the photo in the part it fits.
    int64_t x0 = cell.x < 0 ? 0 : cell.x, y0 = cell.y < 0 ? 0 : cell.y;
    int64_t x1 = (int64_t)cell.x + cell.width, y1 = (int64_t)cell.y + cell.height;
    if (x1 > (int64_t)canvas->width) x1 = canvas->width;
    if (y1 > (int64_t)canvas->height) y1 = canvas->height;
    for (int64_t y = y0; y < y1; y++) {
        uint8_t *p = canvas->pixels + (size_t)y * canvas->stride + (size_t)x0 * 3;
        for (int64_t x = x0; x < x1; x++, p += 3) {
            p[0] = request->background.r;
            p[1] = request->background.g;
            p[2] = request->background.b;
        }
    }
    ci_rect fitted = cell;
    // A photo within a pixel of its cell's shape fills the cell: the band
    // rounding would leave is a hairline of background across a photo that
    // fits (justified rows and columns shape every cell like its photo, to
    // the pixel), and covering instead crops less than a pixel of the cell.
    if ((uint64_t)dw * cell.height > (uint64_t)dh * cell.width + dw) {
        // Wider than the cell: full width, bands above and below.
        uint64_t h = ((uint64_t)dh * cell.width * 2 + dw) / (2 * (uint64_t)dw);
        fitted.height = h < 1 ? 1 : (uint32_t)h;
        fitted.y = cell.y + (int32_t)((cell.height - fitted.height) / 2);
    } else if ((uint64_t)dw * cell.height + dh < (uint64_t)dh * cell.width) {
        uint64_t w = ((uint64_t)dw * cell.height * 2 + dh) / (2 * (uint64_t)dh);
        fitted.width = w < 1 ? 1 : (uint32_t)w;
        fitted.x = cell.x + (int32_t)((cell.width - fitted.width) / 2);
    }
    if (request->placement) {
        request->placement->placed_by = CI_PLACED_WHOLE;
        request->placement->shown = (ci_box){0, 0, 1, 1};
    }
    return fitted;
}

int ci_placement_needs_pixels(const ci_draw_request *request, uint32_t dw, uint32_t dh, ci_rect cell) {
    // A caption's band is placed clear of the faces, which must be found then.
    if (request->faces_wanted && request->crop == CI_CROP_SMART && request->placement) return 1;
    if (request->fit == CI_FIT_CONTAIN || request->has_focus) return 0;
    if (request->crop != CI_CROP_SMART && request->crop != CI_CROP_ATTENTION) return 0;
    double length;
    return free_axis(dw, dh, cell.width, cell.height, &length) != 0;
}

// The hints known without pixels: the person's focus and the camera's subject.
static ci_placement_hints request_hints(const ci_draw_request *request) {
    ci_placement_hints hints;
    memset(&hints, 0, sizeof hints);
    if (request->crop == CI_CROP_CENTRE) return hints;
    hints.has_focus = request->has_focus;
    hints.focus_x = request->focus.x;
    hints.focus_y = request->focus.y;
    if (request->crop == CI_CROP_SMART) {
        hints.has_subject = request->has_subject;
        hints.subject = request->subject;
    }
    return hints;
}

// Reports the placement and returns the focus for the resampler (NULL: the
// middle, drawn exactly as a centred crop). `attention`: the hints' focus
// is the attention crop's centre, and is reported as such.
static const ci_focus *place(const ci_draw_request *request, uint32_t dw, uint32_t dh, ci_rect cell,
                             const ci_placement_hints *hints, int attention, ci_focus *storage) {
    if (request->fit == CI_FIT_CONTAIN) return NULL;  // the whole photo: ci_fit_cell reported it
    ci_box shown;
    ci_placed_by by = ci_place_crop(dw, dh, cell.width, cell.height, hints, &shown);
    if (attention) by = CI_PLACED_ATTENTION;
    if (request->placement) {
        request->placement->placed_by = by;
        request->placement->shown = shown;
        request->placement->has_subject = request->has_subject;
        request->placement->subject = request->subject;
    }
    storage->x = shown.x + shown.width / 2;
    storage->y = shown.y + shown.height / 2;
    if (storage->x == 0.5 && storage->y == 0.5) return NULL;
    return storage;
}

const ci_focus *ci_placement_without_pixels(const ci_draw_request *request, uint32_t dw, uint32_t dh,
                                            ci_rect cell, ci_focus *storage) {
    ci_placement_hints hints = request_hints(request);
    // Smart has not looked for faces here: either there is no room to move
    // or the person's focus decides.
    return place(request, dw, dh, cell, &hints, 0, storage);
}

ci_status ci_draw_frame(const ci_image *frame, int orientation, ci_image *canvas, ci_rect cell,
                        const ci_draw_request *request, const char *name, ci_error *err) {
    // Called where ci_placement_needs_pixels said so: smart without a focus,
    // or attention, with room to move; or smart asked for the faces.
    uint32_t dw, dh;
    ci_oriented_size(orientation, frame->width, frame->height, &dw, &dh);
    ci_placement_hints hints = request_hints(request);
    ci_box faces[CI_MAX_FACES];
    ci_status status;
    int attention = request->crop == CI_CROP_ATTENTION;
    if (attention) {
        // The attention crop's centre, placed as a focus would be.
        double length, centre;
        int along_x = free_axis(dw, dh, cell.width, cell.height, &length) == 1;
        status = attention_centre(frame, orientation, along_x, length, &centre, name, err);
        if (status != CI_OK) return status;
        hints.has_focus = 1;
        hints.focus_x = along_x ? centre : 0.5;
        hints.focus_y = along_x ? 0.5 : centre;
    } else {
        int count = 0;
        double length;
        int axis = free_axis(dw, dh, cell.width, cell.height, &length);
        // Faces place the crop where it can move, covering, with no focus;
        // otherwise they are wanted for a caption's band alone (faces_wanted).
        if (axis && !request->has_focus && request->fit != CI_FIT_CONTAIN)
            status = find_faces(frame, orientation, axis, length, faces, &count, name, err);
        else
            status = find_faces_near_edges(frame, orientation, faces, &count, name, err);
        if (status != CI_OK) return status;
        hints.faces = faces;
        hints.face_count = count;
        if (request->placement) {
            request->placement->face_count = count;
            memcpy(request->placement->faces, faces, sizeof faces[0] * (size_t)count);
        }
    }
    ci_focus storage;
    const ci_focus *focus = place(request, dw, dh, cell, &hints, attention, &storage);

    return ci_resample_cover(frame, orientation, canvas, cell, focus, name, err);
}
