// table.c — the formats the engine reads, in sniffing order: each a loader
// that says what a photo is and hands over its pixels (internal.h,
// ci_loader). A new format is its loader file and one line here (and, if
// it is written too, its writer in writers.c's table).
#include "../internal.h"

#include <stddef.h>
#include <stdio.h>  // before jpeglib.h, which uses FILE

#include <lcms2.h>

// Each in its loader's file (formats/*_load.c).
extern const ci_loader ci_jpeg_loader, ci_png_loader, ci_heif_loader, ci_webp_loader;
extern const ci_loader ci_raw_loader, ci_tiff_loader;
extern const ci_loader ci_gif_loader, ci_jxl_loader;

// Camera RAW before TIFF: most RAW files begin like a TIFF, and only libraw
// tells them apart (its confirm); a TIFF it does not read goes on to TIFF.
static const ci_loader *const loaders[] = {
    &ci_jpeg_loader,
    &ci_png_loader,
    &ci_heif_loader,
    &ci_webp_loader,
    &ci_gif_loader,
    &ci_jxl_loader,
    &ci_raw_loader,
    &ci_tiff_loader,
};

#define LOADER_COUNT (sizeof loaders / sizeof loaders[0])

ci_format ci_sniff_format(const uint8_t *data, size_t size) {
    for (size_t i = 0; i < LOADER_COUNT; i++)
        if (loaders[i]->sniff(data, size) && (!loaders[i]->confirm || loaders[i]->confirm(data, size)))
            return loaders[i]->format;
    return CI_FORMAT_UNKNOWN;
}

const ci_loader *ci_loader_for(ci_format format) {
    for (size_t i = 0; i < LOADER_COUNT; i++)
        if (loaders[i]->format == format) return loaders[i];
    return NULL;
}

size_t ci_formats(size_t index, ci_format_info *info) {
    if (info && index < LOADER_COUNT) {
        const ci_loader *loader = loaders[index];
        info->format = loader->format;
        info->name = loader->name;
        info->title = loader->title;
        info->extensions = loader->extensions;
        info->smallest_scale = loader->smallest_scale;
    }
    return LOADER_COUNT;
}

ci_status ci_fail_not_image(const char *name, ci_error *err) {
    // "not a JPEG, PNG, HEIF or WebP file": the table's names.
    char names[256] = "";
    size_t length = 0;
    for (size_t i = 0; i < LOADER_COUNT; i++) {
        const char *joint = i == 0 ? "" : i + 1 == LOADER_COUNT ? " or " : ", ";
        int wrote = snprintf(names + length, sizeof names - length, "%s%s", joint, loaders[i]->name);
        if (wrote < 0 || (size_t)wrote >= sizeof names - length) break;
        length += (size_t)wrote;
    }
    return ci_fail(err, CI_ERR_NOT_IMAGE, "%s: not a %s file", name, names);
}

size_t ci_library_versions(char *out, size_t size) {
    char text[1024] = "";
    size_t length = 0;
    // Appends `part` and a separator, as far as it fits.
    #define APPEND(part)                                                                              \
        do {                                                                                          \
            int wrote = snprintf(text + length, sizeof text - length, "%s%s", length ? ", " : "", part); \
            if (wrote > 0) length += (size_t)wrote < sizeof text - length ? (size_t)wrote : sizeof text - length - 1; \
        } while (0)
    for (size_t i = 0; i < LOADER_COUNT; i++) {
        if (!loaders[i]->library) continue;
        char library[128] = "";
        loaders[i]->library(library, sizeof library);
        if (library[0]) APPEND(library);
    }
    // The colour, metadata and text libraries every format shares (libexif
    // has no version function).
    char lcms[32];
    int cms = cmsGetEncodedCMMversion();
    snprintf(lcms, sizeof lcms, "lcms2 %d.%d", cms / 1000, cms / 10 % 100);
    APPEND(lcms);
    APPEND("libexif");
    char text_libraries[128];
    ci_text_library(text_libraries, sizeof text_libraries);
    APPEND(text_libraries);
    #undef APPEND
    if (out && size) snprintf(out, size, "%s", text);
    return length;
}
