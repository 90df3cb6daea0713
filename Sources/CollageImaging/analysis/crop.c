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
// Faces and attention look at the photo's pixels: the driver (draw.c) then decodes
// the whole frame at its shrink-on-load scale (never the full-size photo)
// and hands it to ci_draw_frame, which looks at a copy reduced further:
// the faces through the face search (faces.c), the attention map here.
// They are only looked for when the window has room to move.
#include "../internal.h"
#include "faces.h"

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

// A face as the detector frames it grown to the head (HEAD_ABOVE and
// HEAD_AROUND, faces.h: the face search asks where a head could change
// the crop by the same sizes).
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

// The long side the attention map is made at.
#define ATTENTION_LONG_SIDE 96

// The attention crop: an interest map of the reduced photo (edges of the
// luminance, saturated colour, skin tones, as libvips' attention crop
// weighs them), and the window position along the free axis that holds the
// most of it (libvips centres on the single hottest point instead, which
// one bright spot can capture). Ties go to the position nearest the middle.
static ci_status attention_centre(const ci_image *frame, int orientation, int along_x, double length,
                                  double *centre, const char *name, ci_error *err) {
    uint32_t dw, dh, w, h;
    ci_oriented_size(orientation, frame->width, frame->height, &dw, &dh);
    ci_reduced_size(dw, dh, ATTENTION_LONG_SIDE, 1, &w, &h);
    if (w < 3) w = 3 > dw ? dw : 3;
    if (h < 3) h = 3 > dh ? dh : 3;
    ci_image small;
    ci_status status = ci_reduce_upright(frame, orientation, w, h, 3, &small, name, err);
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
            status = ci_find_faces_for_crop(frame, orientation, axis, length, faces, &count, name, err);
        else
            status = ci_find_faces_near_edges(frame, orientation, faces, &count, name, err);
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
