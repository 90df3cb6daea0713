// exif.c — the EXIF orientation tag, read through libexif.
#include "internal.h"

#include <libexif/exif-data.h>

int ci_exif_orientation(const uint8_t *app1, size_t size) {
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

    int orientation = 1;
    ExifEntry *entry = exif_content_get_entry(exif->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
    if (entry && entry->data && entry->components >= 1) {
        // The TIFF header says whether the file is big- ("MM") or
        // little-endian ("II"); libexif records it on load.
        ExifByteOrder order = exif_data_get_byte_order(exif);
        long value = 0;
        // The standard says SHORT; a few writers use LONG.
        if (entry->format == EXIF_FORMAT_SHORT && entry->size >= 2)
            value = exif_get_short(entry->data, order);
        else if (entry->format == EXIF_FORMAT_LONG && entry->size >= 4)
            value = (long)exif_get_long(entry->data, order);
        // 0 ("undefined", which some writers use) and anything else outside
        // 1-8 means "as stored".
        if (value >= 1 && value <= 8) orientation = (int)value;
    }
    exif_data_unref(exif);
    return orientation;
}
