// exif.c — what the engine reads of EXIF, through libexif: the orientation,
// the camera's subject and the date taken.
#include "../internal.h"

#include <libexif/exif-data.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

// A date tag's "YYYY:MM:DD HH:MM:SS" into date_taken when it is one, with
// its offset tag's "+HH:MM" (EXIF 2.31) after it when that is one. Some
// cameras write blanks or zeros for a clock never set ("    :  :     :  :  ",
// "0000:00:00 00:00:00"): those are no date.
static void read_date_tag(ExifContent *ifd, ExifTag date_tag, ExifTag offset_tag, char *date_taken) {
    ExifEntry *entry = exif_content_get_entry(ifd, date_tag);
    if (!entry || !entry->data || entry->format != EXIF_FORMAT_ASCII) return;
    ci_exif_date(entry->data, entry->size, date_taken);
    if (!date_taken[0]) return;
    entry = exif_content_get_entry(ifd, offset_tag);
    if (!entry || !entry->data || entry->format != EXIF_FORMAT_ASCII || entry->size < 6) return;
    const unsigned char *zone = entry->data;
    for (int i = 1; i < 6; i++)
        if (i == 3 ? zone[i] != ':' : !(zone[i] >= '0' && zone[i] <= '9')) return;
    int zone_hours = (zone[1] - '0') * 10 + (zone[2] - '0'), zone_minutes = (zone[4] - '0') * 10 + (zone[5] - '0');
    if ((zone[0] != '+' && zone[0] != '-') || zone_hours > 14 || zone_minutes > 59) return;
    memcpy(date_taken + 19, zone, 6);
    date_taken[25] = '\0';
}

// GPSDateStamp ("YYYY:MM:DD") and GPSTimeStamp (three rationals), in UTC:
// the date as the other tags write it, "+00:00" after it.
static void read_gps_date(ExifData *exif, ExifByteOrder order, char *date_taken) {
    ExifContent *gps = exif->ifd[EXIF_IFD_GPS];
    ExifEntry *day = exif_content_get_entry(gps, EXIF_TAG_GPS_DATE_STAMP);
    ExifEntry *time = exif_content_get_entry(gps, EXIF_TAG_GPS_TIME_STAMP);
    if (!day || !day->data || day->format != EXIF_FORMAT_ASCII || day->size < 10) return;
    if (!time || !time->data || time->format != EXIF_FORMAT_RATIONAL || time->components != 3 || time->size < 24) return;
    int parts[3];
    for (int i = 0; i < 3; i++) {
        ExifRational r = exif_get_rational(time->data + 8 * i, order);
        if (r.denominator == 0) return;
        double value = (double)r.numerator / r.denominator;
        if (!(value >= 0 && value < 61)) return;
        parts[i] = (int)value;
    }
    char text[20];
    memcpy(text, day->data, 10);
    snprintf(text + 10, sizeof text - 10, " %02d:%02d:%02d", parts[0], parts[1], parts[2]);
    ci_exif_date((const unsigned char *)text, 19, date_taken);
    if (!date_taken[0]) return;
    memcpy(date_taken + 19, "+00:00", 7);
}

// When the photo was taken: DateTimeOriginal, else DateTimeDigitized, else
// DateTime (the file's last change by the camera or an editor, still the
// camera's clock), else the GPS's UTC date and time, each the first that is
// a date. A copy's file time is never one (PhotoTime).
static void read_date_taken(ExifData *exif, ExifByteOrder order, char *date_taken) {
    read_date_tag(exif->ifd[EXIF_IFD_EXIF], EXIF_TAG_DATE_TIME_ORIGINAL, EXIF_TAG_OFFSET_TIME_ORIGINAL, date_taken);
    if (!date_taken[0])
        read_date_tag(exif->ifd[EXIF_IFD_EXIF], EXIF_TAG_DATE_TIME_DIGITIZED, EXIF_TAG_OFFSET_TIME_DIGITIZED, date_taken);
    if (!date_taken[0]) read_date_tag(exif->ifd[EXIF_IFD_0], EXIF_TAG_DATE_TIME, EXIF_TAG_OFFSET_TIME, date_taken);
    if (!date_taken[0]) read_gps_date(exif, order, date_taken);
}

void ci_exif_date(const unsigned char *text, size_t size, char *date_taken) {
    if (!text || size < 19) return;
    const char *pattern = "dddd:dd:dd dd:dd:dd";
    for (int i = 0; i < 19; i++) {
        int digit = text[i] >= '0' && text[i] <= '9';
        if (pattern[i] == 'd' ? !digit : text[i] != (unsigned char)pattern[i]) return;
    }
    int year = (text[0] - '0') * 1000 + (text[1] - '0') * 100 + (text[2] - '0') * 10 + (text[3] - '0');
    int month = (text[5] - '0') * 10 + (text[6] - '0'), day = (text[8] - '0') * 10 + (text[9] - '0');
    int hour = (text[11] - '0') * 10 + (text[12] - '0'), minute = (text[14] - '0') * 10 + (text[15] - '0');
    int second = (text[17] - '0') * 10 + (text[18] - '0');
    if (year < 1 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return;
    memcpy(date_taken, text, 19);
    date_taken[19] = '\0';
}

// One GPS coordinate: three rationals (degrees, minutes, seconds) and its
// reference ('N'/'S', 'E'/'W'), within `limit` degrees; 0 when it is none.
static int read_coordinate(ExifContent *gps, ExifTag tag, ExifTag ref_tag, char negative, double limit,
                           ExifByteOrder order, double *out) {
    ExifEntry *value = exif_content_get_entry(gps, tag);
    ExifEntry *ref = exif_content_get_entry(gps, ref_tag);
    if (!value || !value->data || value->format != EXIF_FORMAT_RATIONAL || value->components != 3 || value->size < 24)
        return 0;
    if (!ref || !ref->data || ref->format != EXIF_FORMAT_ASCII || ref->size < 1) return 0;
    double parts[3];
    for (int i = 0; i < 3; i++) {
        ExifRational r = exif_get_rational(value->data + 8 * i, order);
        if (r.denominator == 0) return 0;
        parts[i] = (double)r.numerator / r.denominator;
    }
    double degrees = parts[0] + parts[1] / 60 + parts[2] / 3600;
    if (!(degrees <= limit)) return 0;
    *out = ref->data[0] == (unsigned char)negative ? -degrees : degrees;
    return 1;
}

// GPSLatitude and GPSLongitude with their references. A phone that had no
// fix writes none, or (some) zeros with no reference: no position then.
static void read_position(ExifData *exif, ExifByteOrder order, ci_position *position) {
    ExifContent *gps = exif->ifd[EXIF_IFD_GPS];
    double latitude, longitude;
    if (!gps || !read_coordinate(gps, EXIF_TAG_GPS_LATITUDE, EXIF_TAG_GPS_LATITUDE_REF, 'S', 90, order, &latitude) ||
        !read_coordinate(gps, EXIF_TAG_GPS_LONGITUDE, EXIF_TAG_GPS_LONGITUDE_REF, 'W', 180, order, &longitude))
        return;
    position->known = 1;
    position->latitude = latitude;
    position->longitude = longitude;
}

int ci_exif_read(const uint8_t *app1, size_t size, uint32_t stored_width, uint32_t stored_height,
                 int *has_subject, ci_box *subject, char *date_taken, ci_position *position) {
    if (has_subject) *has_subject = 0;
    if (date_taken) date_taken[0] = '\0';
    if (position) memset(position, 0, sizeof *position);
    // An APP1 payload is at most 65533 bytes, but a container's EXIF (HEIF's
    // Exif item, with the camera's thumbnail) can be a few hundred KiB.
    if (!app1 || size < 6 || size > CI_EXIF_MAX_BYTES) return 1;

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
    if (date_taken) read_date_taken(exif, order, date_taken);
    if (position) read_position(exif, order, position);
    exif_data_unref(exif);
    return orientation;
}

int ci_exif_orientation(const uint8_t *app1, size_t size) {
    return ci_exif_read(app1, size, 0, 0, NULL, NULL, NULL, NULL);
}

int ci_exif_read_tiff(const uint8_t *data, size_t size, char *date_taken, ci_position *position) {
    if (date_taken) date_taken[0] = '\0';
    if (position) memset(position, 0, sizeof *position);
    if (!data) return 1;
    if (size >= 6 && memcmp(data, "Exif\0\0", 6) == 0) return ci_exif_read(data, size, 0, 0, NULL, NULL, date_taken, position);
    // libexif finds the TIFF structure after that header only.
    if (size > CI_EXIF_MAX_BYTES - 6) return 1;
    uint8_t *app1 = malloc(size + 6);
    if (!app1) return 1;
    memcpy(app1, "Exif\0\0", 6);
    memcpy(app1 + 6, data, size);
    int orientation = ci_exif_read(app1, size + 6, 0, 0, NULL, NULL, date_taken, position);
    free(app1);
    return orientation;
}
