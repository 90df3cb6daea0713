// metadata.c — what a collage file says of itself: an sRGB ICC profile
// (what its pixels are: every photo is converted to sRGB when drawn) and,
// when a photo has one, an EXIF block with the date the earliest photo was
// taken. Nothing else: the photos' own EXIF is never copied, so no location
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

// DateTimeOriginal in an Exif sub-IFD, written by libexif: "Exif\0\0" and
// a little-endian TIFF structure.
static ci_status make_exif(const char *date_taken, ci_output_tags *tags, ci_error *err) {
    ExifData *exif = exif_data_new();
    if (!exif) return ci_fail(err, CI_ERR_NO_MEMORY, "out of memory for the collage's EXIF");
    // Only what is added here: "following the specification" would add the
    // tags a camera writes (resolution, colour space, versions).
    exif_data_unset_option(exif, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
    exif_data_set_byte_order(exif, EXIF_BYTE_ORDER_INTEL);
    ExifEntry *entry = exif_entry_new();
    unsigned char *data = NULL;
    unsigned int size = 0;
    if (entry) {
        exif_content_add_entry(exif->ifd[EXIF_IFD_EXIF], entry);
        exif_entry_initialize(entry, EXIF_TAG_DATE_TIME_ORIGINAL);  // 20 bytes of ASCII
        if (entry->data && entry->size >= CI_DATE_TAKEN_BYTES) {
            memcpy(entry->data, date_taken, CI_DATE_TAKEN_BYTES - 1);
            entry->data[CI_DATE_TAKEN_BYTES - 1] = '\0';
            exif_data_save_data(exif, &data, &size);
        }
        exif_entry_unref(entry);
    }
    exif_data_unref(exif);
    if (!data || size == 0) {
        free(data);
        return ci_fail(err, CI_ERR_NO_MEMORY, "out of memory for the collage's EXIF");
    }
    tags->exif = data;  // libexif's default allocator is malloc's
    tags->exif_size = size;
    return CI_OK;
}

// "YYYY:MM:DD HH:MM:SS", as ci_photo_info.date_taken holds it.
static int is_date(const char *text) {
    const char *pattern = "dddd:dd:dd dd:dd:dd";
    if (!text || strnlen(text, CI_DATE_TAKEN_BYTES) != 19) return 0;
    for (int i = 0; i < 19; i++) {
        int digit = text[i] >= '0' && text[i] <= '9';
        if (pattern[i] == 'd' ? !digit : text[i] != pattern[i]) return 0;
    }
    return 1;
}

ci_status ci_output_tags_make(const char *date_taken, ci_output_tags *tags, ci_error *err) {
    memset(tags, 0, sizeof *tags);
    ci_status status = make_icc(tags, err);
    if (status == CI_OK && is_date(date_taken)) status = make_exif(date_taken, tags, err);
    if (status != CI_OK) ci_output_tags_free(tags);
    return status;
}

void ci_output_tags_free(ci_output_tags *tags) {
    if (!tags) return;
    free(tags->icc);
    free(tags->exif);
    memset(tags, 0, sizeof *tags);
}
