// png_load.c — PNG through libpng, from memory: the loader (png_save.c is
// the saver).
//
// Decoding: every colour type and bit depth, Adam-7 interlacing, palette and
// low-bit grey expanded, tRNS turned into alpha, 16-bit samples *rounded* to 8
// (png_set_scale_16, not the truncating png_set_strip_16). Gamma and colour
// chunks (gAMA, cHRM, sRGB, iCCP) are deliberately not applied
// (no png_set_gamma, no png_set_background): the samples are passed through
// as stored, as JPEG samples are, and the collage is written without colour
// metadata.
//
// Orientation is NOT applied to PNGs: the probe always reports orientation
// 1, and apply_orientation has no effect here. Of an eXIf chunk the probe
// reads only the capture date (`collage suggest`'s events), walking the
// chunks itself (libpng is told to skip eXIf: see skip_unused_chunks).
//
// Errors: libpng reports through our error callback, which records "NAME:
// reason" in a per-call context (no globals) and longjmps back. The setjmp
// lives in a helper (`*_body`) whose caller owns every resource in a struct;
// the caller's objects are not "local to the function containing setjmp", so
// C11 7.13.2.1p3 does not make them indeterminate after the longjmp and they
// need no `volatile`. The body itself keeps nothing it must see after a
// longjmp in its own locals.
#include "../internal.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "png.h"

// ---------------------------------------------------------------------------
// Shared: error context and the in-memory reader.


typedef struct {
    const uint8_t *data;
    size_t size;
    size_t position;
} png_cursor;

// The status for one of libpng's messages. libpng has no error codes, so the
// few messages that are not about broken data are recognised by their text.
static ci_status status_for_message(const char *message, ci_status fallback) {
    if (strstr(message, "emory")) return CI_ERR_NO_MEMORY;              // "Out of memory", "Insufficient memory"
    if (strstr(message, "exceeds user limit")) return CI_ERR_TOO_LARGE;  // png_set_user_limits
    return fallback;
}

void ci_png_on_error(png_structp png, png_const_charp message) {
    png_context *context = png_get_error_ptr(png);
    const char *text = message && *message ? message : "unknown libpng error";
    if (context->over_limit)  // the error itself only says "Invalid IHDR data"
        ci_fail(context->err, CI_ERR_TOO_LARGE,
                "%s: the width or height alone is over the pixel limit", context->name);
    else
        ci_fail(context->err, status_for_message(text, context->status), "%s: %s", context->name,
                text);
    // png_longjmp, not longjmp(png_jmpbuf(png)): during png_create_*_struct
    // libpng points the jump at its own buffer.
    png_longjmp(png, 1);
}

// Warnings (a bad ancillary-chunk CRC, an odd iCCP profile...) are what
// libpng recovers from on its own: stay silent rather than print to stderr.
// One matters: an IHDR over png_set_user_limits is reported as a warning
// followed by a generic "Invalid IHDR data" error.
void ci_png_on_warning(png_structp png, png_const_charp message) {
    png_context *context = png_get_error_ptr(png);
    if (message && strstr(message, "exceeds user limit")) context->over_limit = 1;
}

static void read_from_cursor(png_structp png, png_bytep destination, size_t length) {
    png_cursor *cursor = png_get_io_ptr(png);
    if (length > cursor->size - cursor->position) png_error(png, "file is truncated");
    memcpy(destination, cursor->data + cursor->position, length);
    cursor->position += length;
}

// Everything one read owns; the caller of the setjmp body frees it.
typedef struct {
    png_context context;
    png_cursor cursor;
    png_structp png;
    png_infop info;
    png_bytepp rows;
    uint8_t *icc;        // a copy of the iCCP profile, once read (decode)
    size_t icc_size;
} png_reader;

// Chunks we never use, skipped unread. libpng reads tEXt, zTXt, iTXt, iCCP,
// sPLT, eXIf, pCAL and sCAL into a buffer of the length the chunk *declares*,
// allocated and zeroed before a byte is read; its size check is only a
// warning when reading. A 683-byte file whose iTXt declared 1.6 GB thus took
// 1.6 GB and a second to refuse (found by fuzzing). Listed as "never keep",
// they go through png_crc_finish, which reads in small pieces. None affects
// the pixels: gamma chunks are not applied (see above), and the background
// is the caller's, not bKGD. iCCP is read (colour.c converts with it):
// libpng inflates it within its chunk memory limit (set_user_limits) and
// checks the profile's own declared length against what it inflated. Unknown chunks are skipped
// the same way.
static void skip_unused_chunks(png_structp png) {
    static const png_byte unused[] = "tEXt\0zTXt\0iTXt\0sPLT\0eXIf\0pCAL\0sCAL\0"
                                     "tIME\0pHYs\0oFFs\0hIST\0bKGD\0sBIT";
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, unused, (int)(sizeof unused / 5));
}

static ci_status reader_open(png_reader *reader, const uint8_t *data, size_t size,
                             const char *name, ci_error *err) {
    memset(reader, 0, sizeof *reader);
    reader->context.name = name;
    reader->context.err = err;
    reader->context.status = CI_ERR_CORRUPT;
    reader->cursor.data = data;
    reader->cursor.size = size;
    reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader->context, ci_png_on_error,
                                         ci_png_on_warning);
    if (!reader->png) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: cannot create a PNG reader", name);
    reader->info = png_create_info_struct(reader->png);
    if (!reader->info) {
        png_destroy_read_struct(&reader->png, NULL, NULL);
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: cannot create a PNG reader", name);
    }
    png_set_read_fn(reader->png, &reader->cursor, read_from_cursor);
    skip_unused_chunks(reader->png);
    return CI_OK;
}

static void reader_close(png_reader *reader) {
    if (reader->png) png_destroy_read_struct(&reader->png, &reader->info, NULL);
    free(reader->rows);
    reader->rows = NULL;
}

// The dimension limits handed to libpng: its defaults (1,000,000) would refuse
// a legitimately long strip, and nothing can be wider or taller than the pixel
// limit anyway. This is a backstop that stops libpng inside png_read_info;
// the real width x height check is ci_image_alloc's, made right after.
static void set_user_limits(png_structp png, uint64_t max_pixels) {
    png_uint_32 side = max_pixels > PNG_UINT_31_MAX ? PNG_UINT_31_MAX : (png_uint_32)max_pixels;
    png_set_user_limits(png, side, side);
}

// ---------------------------------------------------------------------------
// Probe

static ci_status probe_body(png_reader *reader, ci_photo_info *info) {
    if (setjmp(png_jmpbuf(reader->png))) return reader->context.err->status;
    set_user_limits(reader->png, PNG_UINT_31_MAX);  // probing allocates nothing big
    png_read_info(reader->png, reader->info);
    png_structp png = reader->png;
    png_infop pinfo = reader->info;
    int color_type = png_get_color_type(png, pinfo);
    memset(info, 0, sizeof *info);
    info->format = CI_FORMAT_PNG;
    info->width = png_get_image_width(png, pinfo);
    info->height = png_get_image_height(png, pinfo);
    info->orientation = 1;  // eXIf is ignored: see the top of this file
    info->display_width = info->width;
    info->display_height = info->height;
    info->has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0 ||
                      png_get_valid(png, pinfo, PNG_INFO_tRNS) != 0;
    return CI_OK;
}

// The capture date of an eXIf chunk before the image data, within the
// `size` bytes at hand, into date_taken (left empty when there is none).
// Chunk lengths are checked against the bytes there are; nothing is
// allocated but ci_exif_read_tiff's bounded copy.
static void read_exif_date(const uint8_t *data, size_t size, char *date_taken) {
    size_t at = 8;  // past the signature
    while (at + 12 <= size) {
        const uint32_t length = (uint32_t)data[at] << 24 | (uint32_t)data[at + 1] << 16 | (uint32_t)data[at + 2] << 8 |
                                data[at + 3];
        const uint8_t *type = data + at + 4;
        if (memcmp(type, "IDAT", 4) == 0 || length > size - at - 12) return;
        if (memcmp(type, "eXIf", 4) == 0) {
            ci_exif_read_tiff(data + at + 8, length, date_taken);
            return;
        }
        at += 12 + (size_t)length;
    }
}

static ci_status png_probe_memory(const uint8_t *data, size_t size, const char *name,
                       ci_photo_info *info, ci_error *err) {
    if (!name) name = "(memory)";
    if (!data || !info) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: missing argument", name);
    // A local error record so the status survives even when err is NULL.
    ci_error local;
    png_reader reader;
    ci_status status = reader_open(&reader, data, size, name, &local);
    if (status == CI_OK) status = probe_body(&reader, info);
    reader_close(&reader);
    if (status != CI_OK) {
        memset(info, 0, sizeof *info);
        if (err) *err = local;
    } else {
        read_exif_date(data, size, info->date_taken);
    }
    return status;
}

// The codec's probe: from the first bytes read, and from the whole file only
// when the chunks before the image data run past them (or the file is
// broken).
static ci_status png_probe_source(ci_source *source, ci_photo_info *info, ci_error *err) {
    ci_status status = png_probe_memory(source->buffer, source->filled, source->name, info, err);
    if (status != CI_OK && source->filled < source->file_size) {
        status = ci_source_read_all(source, err);
        if (status == CI_OK) status = png_probe_memory(source->buffer, source->filled, source->name, info, err);
    }
    return status;
}

// ---------------------------------------------------------------------------
// Decode

static ci_status decode_body(png_reader *reader, const ci_limits *limits, ci_image *out) {
    if (setjmp(png_jmpbuf(reader->png))) return reader->context.err->status;
    png_structp png = reader->png;
    png_infop info = reader->info;
    const char *name = reader->context.name;

    set_user_limits(png, ci_max_pixels(limits));
    png_read_info(png, info);

    png_uint_32 width, height;
    int bit_depth, color_type, interlace;
    png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    // The ICC profile, copied: libpng's copy goes with its structures.
    png_charp profile_name;
    int compression;
    png_bytep profile;
    png_uint_32 profile_size;
    if (png_get_iCCP(png, info, &profile_name, &compression, &profile, &profile_size) && profile &&
        profile_size > 0) {
        reader->icc = malloc(profile_size);
        if (reader->icc) {
            memcpy(reader->icc, profile, profile_size);
            reader->icc_size = profile_size;
        }
    }
    int has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0 || png_get_valid(png, info, PNG_INFO_tRNS) != 0;

    // Alpha is decoded whenever there is any: the driver blends it.
    int decoded_channels = has_alpha ? 4 : 3;

    // The pixel limit is checked here, right after the header and before
    // png_read_update_info, which allocates libpng's own row buffers.
    ci_status status = ci_image_alloc(out, width, height, decoded_channels, limits, name,
                                      reader->context.err);
    if (status != CI_OK) return status;

    // To 8-bit RGB(A): palette to RGB, grey below 8 bits to 8, tRNS to alpha,
    // 16 bits rounded to 8 (scale_16 gives round(v * 255 / 65535); strip_16
    // would truncate to v >> 8), grey to RGB. No png_set_gamma, no background.
    png_set_expand(png);
    png_set_scale_16(png);
    png_set_gray_to_rgb(png);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);

    if (png_get_bit_depth(png, info) != 8 || png_get_channels(png, info) != decoded_channels ||
        png_get_rowbytes(png, info) != (size_t)width * decoded_channels)
        return ci_fail(reader->context.err, CI_ERR_UNSUPPORTED,
                       "%s: unexpected PNG layout after conversion (%d-bit, %d channels)", name,
                       png_get_bit_depth(png, info), png_get_channels(png, info));

    reader->rows = malloc(sizeof(png_bytep) * height);
    if (!reader->rows)
        return ci_fail(reader->context.err, CI_ERR_NO_MEMORY, "%s: out of memory", name);
    for (png_uint_32 y = 0; y < height; y++) reader->rows[y] = out->pixels + (size_t)y * out->stride;

    if (passes > 1) {
        png_read_image(png, reader->rows);  // Adam-7 needs every row at once
    } else {
        for (png_uint_32 y = 0; y < height; y++) png_read_row(png, reader->rows[y], NULL);
    }
    // Reading to IEND checks the rest of the file: a file cut short after its
    // last image row, or with a bad CRC in a trailing critical chunk, is an
    // error rather than a silent success.
    png_read_end(png, NULL);
    return CI_OK;
}

// The decode, and the file's ICC profile (*icc, malloc'd, NULL when none;
// the caller frees it), colours as stored.
static ci_status png_decode_tagged(const uint8_t *data, size_t size, const char *name,
                                   const ci_limits *limits, ci_image *out, uint8_t **icc,
                                   size_t *icc_size, ci_error *err) {
    *icc = NULL;
    *icc_size = 0;
    if (!name) name = "(memory)";
    if (!data || !out)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: missing argument", name);
    memset(out, 0, sizeof *out);
    ci_error local;
    png_reader reader;
    ci_status status = reader_open(&reader, data, size, name, &local);
    if (status == CI_OK) status = decode_body(&reader, limits, out);
    *icc = reader.icc;  // taken before reader_close, which does not free it
    *icc_size = reader.icc_size;
    reader_close(&reader);
    if (status != CI_OK) {
        ci_image_free(out);
        free(*icc);
        *icc = NULL;
        if (err) *err = local;
    }
    return status;
}

static ci_colour_tag tag_for(const uint8_t *icc, size_t size) {
    ci_colour_tag tag;
    memset(&tag, 0, sizeof tag);
    tag.icc = icc;
    tag.icc_size = size;
    return tag;
}

// ---------------------------------------------------------------------------
// The loader: the whole file in memory, decoded whole (RGBA where the file
// has alpha) and handed to the driver as one image. PNGs have no
// shrink-on-load and no orientation.

typedef struct {
    ci_source *source;
    const ci_draw_request *request;
    ci_image photo;
    uint8_t *icc;
    size_t icc_size;
} png_draw;

static ci_status png_open(void *state, ci_source *source, const ci_draw_request *request,
                          ci_header *header, ci_error *err) {
    png_draw *draw = state;
    draw->source = source;
    draw->request = request;
    ci_status status = ci_source_read_all(source, err);
    if (status != CI_OK) return status;
    ci_photo_info info;
    memset(&info, 0, sizeof info);
    status = png_probe_memory(source->buffer, source->filled, source->name, &info, err);
    if (status != CI_OK) return status;
    if (info.display_width == 0 || info.display_height == 0)
        return ci_fail(err, CI_ERR_CORRUPT, "%s: the image has no pixels", source->name);
    header->width = header->display_width = info.width;
    header->height = header->display_height = info.height;
    header->orientation = 1;
    header->scales = CI_SCALES_FULL;
    return CI_OK;
}

static ci_status png_start(void *state, ci_scale *scale, ci_header *header, uint32_t *width,
                           uint32_t *height, ci_image **whole, ci_error *err) {
    png_draw *draw = state;
    ci_source *source = draw->source;
    ci_status status = png_decode_tagged(source->buffer, source->filled, source->name, draw->request->limits,
                                         &draw->photo, &draw->icc, &draw->icc_size, err);
    if (source->fd >= 0) {
        // The file's bytes go before resampling: it lowers the peak when
        // cells are drawn in parallel.
        free(source->buffer);
        source->buffer = NULL;
        source->capacity = source->filled = 0;
    }
    if (status != CI_OK) return status;
    header->tag = tag_for(draw->icc, draw->icc_size);
    header->has_alpha = draw->photo.channels == 4;
    *width = draw->photo.width;
    *height = draw->photo.height;
    *whole = &draw->photo;
    return CI_OK;
}

static void png_close(void *state) {
    png_draw *draw = state;
    ci_image_free(&draw->photo);
    free(draw->icc);
}

// ---------------------------------------------------------------------------
// Is the file whole?

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static ci_status png_walk(ci_walker *w, const char *name, ci_error *err) {
    if (!ci_walk_skip(w, 8)) return ci_cut_short(name, "no IEND chunk", err);  // signature
    for (;;) {
        uint8_t header[8];
        for (int i = 0; i < 8; i++)
            if (!ci_walk_byte(w, &header[i])) return ci_cut_short(name, "no IEND chunk", err);
        // IEND, with its CRC (libpng checks it).
        if (memcmp(header + 4, "IEND", 4) == 0) return ci_walk_skip(w, 4) ? CI_OK : ci_cut_short(name, "no IEND chunk", err);
        uint32_t length = be32(header);
        if (length > 0x7FFFFFFFu) return ci_fail(err, CI_ERR_CORRUPT, "%s: a chunk has a bad length", name);
        if (!ci_walk_skip(w, (uint64_t)length + 4)) return ci_cut_short(name, "no IEND chunk", err);  // data and CRC
    }
}

static ci_status png_complete(int fd, const char *name, ci_error *err) {
    return ci_walk_file(fd, png_walk, name, err);
}

static int png_sniff(const uint8_t *data, size_t size) {
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    return size >= 8 && memcmp(data, signature, 8) == 0;
}

static void png_library(char *out, size_t size) { snprintf(out, size, "libpng %s", png_get_libpng_ver(NULL)); }

const ci_loader ci_png_loader = {
    .format = CI_FORMAT_PNG,
    .name = "PNG",
    .title = "PNG",
    .extensions = "png",
    .library = png_library,
    .smallest_scale = 8,
    .sniff = png_sniff,
    .complete = png_complete,
    .probe = png_probe_source,
    .state_size = sizeof(png_draw),
    .open = png_open,
    .start = png_start,
    .close = png_close,
};
