// exif.c — what the engine reads of EXIF, through libexif: the orientation
// and the camera's subject.
#include "internal.h"

#include <libexif/exif-data.h>

// A SHORT or LONG component of `entry` (the standard says SHORT for all the
// tags read here; a few writers use LONG). -1 when there is none.
static long entry_number(ExifEntry *entry, ExifByteOrder order, unsigned index) {
    if (!entry || !entry->data || index >= entry->components) return -1;
    if (entry->format == EXIF_FORMAT_SHORT && entry->size >= 2 * (index + 1))
        return exif_get_short(entry->data + 2 * index, order);
    if (entry->format == EXIF_FORMAT_LONG && entry->size >= 4 * (index + 1))
        return (long)exif_get_long(entry->data + 4 * index, order);
    return -1;
}

// SubjectArea (a point, a circle or a rectangle, each by its centre) or
// SubjectLocation (a point), in pixels of the image the camera described:
// PixelXDimension x PixelYDimension where it gives them, else the stored
// size. As a box in fractions of that image.
static int read_subject(ExifData *exif, ExifByteOrder order, uint32_t width, uint32_t height,
                        ci_box *out) {
    ExifContent *ifd = exif->ifd[EXIF_IFD_EXIF];
    long ref_w = entry_number(exif_content_get_entry(ifd, EXIF_TAG_PIXEL_X_DIMENSION), order, 0);
    long ref_h = entry_number(exif_content_get_entry(ifd, EXIF_TAG_PIXEL_Y_DIMENSION), order, 0);
    double w = ref_w > 0 ? (double)ref_w : (double)width;
    double h = ref_h > 0 ? (double)ref_h : (double)height;
    if (w <= 0 || h <= 0) return 0;

    ExifEntry *area = exif_content_get_entry(ifd, EXIF_TAG_SUBJECT_AREA);
    ExifEntry *location = exif_content_get_entry(ifd, EXIF_TAG_SUBJECT_LOCATION);
    ExifEntry *entry = area && area->components >= 2 ? area : location;
    long x = entry_number(entry, order, 0), y = entry_number(entry, order, 1);
    if (x < 0 || y < 0 || x >= w || y >= h) return 0;
    double box_w = 0, box_h = 0;
    if (entry == area && area->components == 3) {
        long d = entry_number(area, order, 2);
        box_w = box_h = d > 0 ? (double)d : 0;
    } else if (entry == area && area->components >= 4) {
        long bw = entry_number(area, order, 2), bh = entry_number(area, order, 3);
        box_w = bw > 0 ? (double)bw : 0;
        box_h = bh > 0 ? (double)bh : 0;
    }
    double left = (double)x - box_w / 2, top = (double)y - box_h / 2;
    double right = left + box_w, bottom = top + box_h;
    if (left < 0) left = 0;
    if (top < 0) top = 0;
    if (right > w) right = w;
    if (bottom > h) bottom = h;
    *out = (ci_box){left / w, top / h, (right - left) / w, (bottom - top) / h};
    return 1;
}

int ci_exif_read(const uint8_t *app1, size_t size, uint32_t stored_width, uint32_t stored_height,
                 int *has_subject, ci_box *subject) {
    if (has_subject) *has_subject = 0;
    // libexif takes an unsigned int size; an APP1 payload is at most 65533
    // bytes, so anything larger is not one.
    if (!app1 || size < 6 || size > 0xFFFF) return 1;

    ExifData *exif = exif_data_new();
    if (!exif) return 1;
    // Read the tags as stored: "following the specification" lets libexif
    // add or rewrite entries, and we want exactly what the camera wrote.
    exif_data_unset_option(exif, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
    // Accepts the payload with its "Exif\0\0" header; on broken data it
    // simply loads fewer (or no) entries.
    exif_data_load_data(exif, app1, (unsigned int)size);
    // The TIFF header says whether the file is big- ("MM") or little-endian
    // ("II"); libexif records it on load.
    ExifByteOrder order = exif_data_get_byte_order(exif);

    long value = entry_number(exif_content_get_entry(exif->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION), order, 0);
    // 0 ("undefined", which some writers use) and anything else outside
    // 1-8 means "as stored".
    int orientation = value >= 1 && value <= 8 ? (int)value : 1;
    if (has_subject && subject) *has_subject = read_subject(exif, order, stored_width, stored_height, subject);
    exif_data_unref(exif);
    return orientation;
}

int ci_exif_orientation(const uint8_t *app1, size_t size) {
    return ci_exif_read(app1, size, 0, 0, NULL, NULL);
}
