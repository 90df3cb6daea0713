// metadata.c — what a collage file says of itself: an sRGB ICC profile
// (what its pixels are: every photo is converted to sRGB when drawn) and,
// when a photo has one, an EXIF block with the date the earliest photo was
// taken, and with the print resolution when one was asked (issue #34).
// Nothing else: the photos' own EXIF is never copied, so no location
// and no camera serial leaves with a collage.
#include "metadata.h"

#include <lcms2.h>
#include <libexif/exif-data.h>
#include <stdlib.h>
#include <string.h>

// lcms2's built-in sRGB (a v4 profile with parametric curves: 588 bytes;
// as v2 it tabulates its curves and takes 8.8 KB), on a context of its own.
static ci_status make_icc(ci_output_tags *tags, ci_error *err) {
    cmsContext context = cmsCreateContext(NULL, NULL);
    cmsHPROFILE profile = context ? cmsCreate_sRGBProfileTHR(context) : NULL;
    cmsUInt32Number size = 0;
    ci_status status = CI_ERR_NO_MEMORY;
    if (profile && cmsSaveProfileToMem(profile, NULL, &size) && size > 0) {
        tags->icc = malloc(size);
        if (tags->icc && cmsSaveProfileToMem(profile, tags->icc, &size) && size >= 36) {
            // lcms2 dates the header with the time the profile was made;
            // a fixed date (2026-01-01, big-endian year, month, day, h, m, s)
            // keeps a collage's bytes the same from one save to the next.
            static const uint8_t made[12] = {0x07, 0xEA, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0};
            memcpy(tags->icc + 24, made, sizeof made);
            tags->icc_size = size;
            status = CI_OK;
        }
    }
    if (profile) cmsCloseProfile(profile);
    if (context) cmsDeleteContext(context);
    if (status != CI_OK) return ci_fail(err, status, "out of memory for the collage's colour profile");
    return CI_OK;
}

// An ASCII entry `tag` of `length` characters (and its NUL) in the Exif
// sub-IFD, holding `text`. Returns 0 when out of memory.
static int add_text(ExifData *exif, ExifTag tag, const char *text, unsigned length) {
    ExifEntry *entry = exif_entry_new();
    if (!entry) return 0;
    exif_content_add_entry(exif->ifd[EXIF_IFD_EXIF], entry);
    // libexif's initialiser knows DateTimeOriginal (20 bytes) but gives
    // OffsetTimeOriginal no data, so the data is made here for both.
    exif_entry_initialize(entry, tag);
    ExifMem *mem = exif_mem_new_default();
    int added = 0;
    if (mem) {
        unsigned char *data = exif_mem_alloc(mem, length + 1);
        if (data) {
            if (entry->data) exif_mem_free(mem, entry->data);
            memcpy(data, text, length);
            data[length] = '\0';
            entry->data = data;
            entry->size = length + 1;
            entry->components = length + 1;
            entry->format = EXIF_FORMAT_ASCII;
            added = 1;
        }
        exif_mem_unref(mem);
    }
    exif_entry_unref(entry);
    return added;
}

// XResolution and YResolution (`dots_per_inch`/1) and ResolutionUnit
// (inches) in IFD0, where TIFF readers and print dialogs look. Returns 0
// when out of memory.
static int add_resolution(ExifData *exif, int dots_per_inch) {
    const ExifTag tags[] = {EXIF_TAG_X_RESOLUTION, EXIF_TAG_Y_RESOLUTION, EXIF_TAG_RESOLUTION_UNIT};
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
        ExifEntry *entry = exif_entry_new();
        if (!entry) return 0;
        exif_content_add_entry(exif->ifd[EXIF_IFD_0], entry);
        // libexif's initialiser makes 72/1 and inches (2); the resolution is set after.
        exif_entry_initialize(entry, tags[i]);
        int made = entry->data != NULL;
        if (made && tags[i] != EXIF_TAG_RESOLUTION_UNIT)
            exif_set_rational(entry->data, EXIF_BYTE_ORDER_INTEL, (ExifRational){(ExifLong)dots_per_inch, 1});
        exif_entry_unref(entry);
        if (!made) return 0;
    }
    return 1;
}

// DateTimeOriginal (and OffsetTimeOriginal when the date has one) in an
// Exif sub-IFD, and the print resolution in IFD0 when given, written by
// libexif: "Exif\0\0" and a little-endian TIFF structure.
static ci_status make_exif(const char *date_taken, int dots_per_inch, ci_output_tags *tags, ci_error *err) {
    ExifData *exif = exif_data_new();
    if (!exif) return ci_fail(err, CI_ERR_NO_MEMORY, "out of memory for the collage's EXIF");
    // Only what is added here: "following the specification" would add the
    // tags a camera writes (resolution, colour space, versions).
    exif_data_unset_option(exif, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
    exif_data_set_byte_order(exif, EXIF_BYTE_ORDER_INTEL);
    unsigned char *data = NULL;
    unsigned int size = 0;
    int added = 1;
    if (date_taken) added = add_text(exif, EXIF_TAG_DATE_TIME_ORIGINAL, date_taken, 19);
    if (added && date_taken && date_taken[19])
        added = add_text(exif, EXIF_TAG_OFFSET_TIME_ORIGINAL, date_taken + 19, 6);
    if (added && dots_per_inch > 0) added = add_resolution(exif, dots_per_inch);
    if (added) exif_data_save_data(exif, &data, &size);
    exif_data_unref(exif);
    if (!data || size == 0) {
        free(data);
        return ci_fail(err, CI_ERR_NO_MEMORY, "out of memory for the collage's EXIF");
    }
    tags->exif = data;  // libexif's default allocator is malloc's
    tags->exif_size = size;
    return CI_OK;
}

// "YYYY:MM:DD HH:MM:SS" or "YYYY:MM:DD HH:MM:SS+HH:MM", as
// ci_photo_info.date_taken holds it.
static int is_date(const char *text) {
    const char *pattern = "dddd:dd:dd dd:dd:dd+dd:dd";
    size_t length = text ? strnlen(text, CI_DATE_TAKEN_BYTES) : 0;
    if (length != 19 && length != 25) return 0;
    for (size_t i = 0; i < length; i++) {
        if (i == 19 && (text[i] == '+' || text[i] == '-')) continue;
        int digit = text[i] >= '0' && text[i] <= '9';
        if (pattern[i] == 'd' ? !digit : text[i] != pattern[i]) return 0;
    }
    return 1;
}

ci_status ci_output_tags_make(const ci_save_options *options, ci_output_tags *tags, ci_error *err) {
    memset(tags, 0, sizeof *tags);
    if (options->dots_per_inch < 0 || options->dots_per_inch > 65535)  // JFIF's and pHYs' fields hold no more
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "a print resolution of %d dpi is outside 1 to 65535",
                       options->dots_per_inch);
    tags->dots_per_inch = options->dots_per_inch;
    const char *date = is_date(options->date_taken) ? options->date_taken : NULL;
    ci_status status = make_icc(tags, err);
    if (status == CI_OK && (date || tags->dots_per_inch > 0)) status = make_exif(date, tags->dots_per_inch, tags, err);
    if (status != CI_OK) ci_output_tags_free(tags);
    return status;
}

void ci_output_tags_free(ci_output_tags *tags) {
    if (!tags) return;
    free(tags->icc);
    free(tags->exif);
    memset(tags, 0, sizeof *tags);
}
