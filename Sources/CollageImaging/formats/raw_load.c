// raw_load.c — camera RAW through libraw (libraw_r, its thread-safe build;
// C++ underneath, reached through its C API): DNG, CR2, CR3, NEF, ARW, RAF,
// ORF, RW2 and the other formats libraw knows. Only read.
//
// A RAW file holds the sensor's mosaic and, nearly always, the JPEG the
// camera showed. When that preview covers the cell (`choose`), it is what
// is drawn, through the engine's own JPEG loader (jpeg_load.c: its DCT
// scaling and row streaming), over the preview's bytes in memory: fast, and
// what the photographer saw. Otherwise libraw demosaics, with the camera's
// white balance, into 8-bit sRGB: at half size (libraw's half_size, one
// pixel per 2x2 of the mosaic, no interpolation) unless the cell needs more
// than half the photo, and hands the image over whole. Either way the rows
// are as stored and the file's orientation (libraw's flip) is the header's,
// turned upright by the driver.
//
// libraw reads whole files from memory: the file is bounded (RAW_MAX_FILE_
// BYTES) before it is read, and the decoded size against the pixel limit
// before the mosaic is unpacked. Each draw has its own libraw_data_t, and
// libraw's default error callbacks (which print to stderr) are replaced by
// ones recording into that draw's own state.
#include "../internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libraw/libraw.h>

// The preview is drawn and decoded by JPEG's loader (jpeg_load.c).
extern const ci_loader ci_jpeg_loader;

// The largest RAW read: a 150-megapixel back's uncompressed 16-bit files
// are about 300 MB.
#define RAW_MAX_FILE_BYTES ((size_t)512 << 20)

// How near a preview's shape must be to the photo's to stand in for it (a
// 4:3 preview of a 3:2 sensor has bars, and is not the photo).
#define RAW_PREVIEW_SHAPE_TOLERANCE 0.02

// ---------------------------------------------------------------------------
// libraw, one handle per draw

typedef struct {
    libraw_data_t *raw;
    char message[160];   // what libraw's data callback reported first
} raw_handle;

static void on_data_error(void *data, const char *file, const int offset) {
    raw_handle *handle = data;
    (void)file;
    if (!handle->message[0])
        snprintf(handle->message, sizeof handle->message, "broken data at offset %d", offset);
}

static void on_memory_error(void *data, const char *file, const char *where) {
    raw_handle *handle = data;
    (void)file;
    if (!handle->message[0])
        snprintf(handle->message, sizeof handle->message, "out of memory in %s", where ? where : "libraw");
}

static ci_status raw_failure(const raw_handle *handle, int code, const char *name, const char *what, ci_error *err) {
    ci_status status = code == LIBRAW_UNSUFFICIENT_MEMORY ? CI_ERR_NO_MEMORY
                       : code == LIBRAW_FILE_UNSUPPORTED  ? CI_ERR_UNSUPPORTED
                                                          : CI_ERR_CORRUPT;
    if (code == LIBRAW_FILE_UNSUPPORTED)
        return ci_fail(err, status, "%s: not a camera RAW file libraw reads", name);
    return ci_fail(err, status, "%s: %s (%s%s%s)", name, what, libraw_strerror(code), handle->message[0] ? ": " : "",
                   handle->message);
}

// libraw over `size` bytes (not copied: they must outlive the handle).
// Its own bound on what it allocates for a mosaic follows the pixel limit
// (16 bytes a pixel: 4 samples of 16 bits, for the demosaic's working
// image), from 64 MiB to its default of 2 GiB.
static ci_status handle_open(raw_handle *handle, const uint8_t *data, size_t size, const ci_limits *limits,
                             const char *name, ci_error *err) {
    memset(handle, 0, sizeof *handle);
    handle->raw = libraw_init(LIBRAW_OPIONS_NO_MEMERR_CALLBACK | LIBRAW_OPIONS_NO_DATAERR_CALLBACK);
    if (!handle->raw) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: cannot start libraw", name);
    uint64_t megabytes = ci_max_pixels(limits) * 16 >> 20;
    handle->raw->params.max_raw_memory_mb =
        (unsigned)(megabytes < 64 ? 64 : megabytes > LIBRAW_MAX_ALLOC_MB_DEFAULT ? LIBRAW_MAX_ALLOC_MB_DEFAULT : megabytes);
    libraw_set_dataerror_handler(handle->raw, on_data_error, handle);
    libraw_set_memerror_handler(handle->raw, on_memory_error, handle);
    int code = libraw_open_buffer(handle->raw, (void *)data, size);
    if (code != LIBRAW_SUCCESS) return raw_failure(handle, code, name, "cannot read the RAW file", err);
    if (handle->raw->sizes.width == 0 || handle->raw->sizes.height == 0)
        return ci_fail(err, CI_ERR_CORRUPT, "%s: the image has no pixels", name);
    return CI_OK;
}

static void handle_close(raw_handle *handle) {
    if (handle->raw) libraw_close(handle->raw);
    handle->raw = NULL;
}

// libraw's flip (dcraw's: bit 2 transposes, then bit 1 flips vertically,
// bit 0 horizontally) as the EXIF orientation the driver turns by.
static int orientation_of(const libraw_data_t *raw) {
    static const int exif[8] = {1, 2, 4, 3, 5, 8, 6, 7};
    int flip = raw->sizes.flip;
    return flip >= 0 && flip < 8 ? exif[flip] : 1;
}

// What the file says of itself, as ci_photo_info has it.
typedef struct {
    uint32_t width, height;      // the demosaiced image's, stored
    int orientation;
    char date_taken[CI_DATE_TAKEN_BYTES];
} raw_facts;

static void read_facts(const libraw_data_t *raw, raw_facts *facts) {
    memset(facts, 0, sizeof *facts);
    facts->width = raw->sizes.width;
    facts->height = raw->sizes.height;
    facts->orientation = orientation_of(raw);
    // libraw turned EXIF's DateTimeOriginal (local time) into a time_t
    // with mktime; localtime_r gives the camera's words back.
    time_t when = raw->other.timestamp;
    struct tm tm;
    if (when > 0 && localtime_r(&when, &tm))
        strftime(facts->date_taken, sizeof facts->date_taken, "%Y:%m:%d %H:%M:%S", &tm);
}

// The whole file in memory, no larger than RAW_MAX_FILE_BYTES.
static ci_status read_source(ci_source *source, ci_error *err) {
    if (source->file_size > RAW_MAX_FILE_BYTES)
        return ci_fail(err, CI_ERR_TOO_LARGE, "%s: a RAW file of %zu MiB is over the limit of %zu MiB", source->name,
                       source->file_size >> 20, RAW_MAX_FILE_BYTES >> 20);
    return ci_source_read_all(source, err);
}

// ---------------------------------------------------------------------------
// Probe

static ci_status raw_probe_source(ci_source *source, ci_photo_info *info, ci_error *err) {
    memset(info, 0, sizeof *info);
    ci_status status = read_source(source, err);
    if (status != CI_OK) return status;
    raw_handle handle;
    status = handle_open(&handle, source->buffer, source->filled, NULL, source->name, err);
    if (status == CI_OK) {
        raw_facts facts;
        read_facts(handle.raw, &facts);
        info->format = CI_FORMAT_RAW;
        info->width = facts.width;
        info->height = facts.height;
        info->orientation = facts.orientation;
        ci_oriented_size(facts.orientation, facts.width, facts.height, &info->display_width, &info->display_height);
        memcpy(info->date_taken, facts.date_taken, sizeof info->date_taken);
    }
    handle_close(&handle);
    return status;
}

// ---------------------------------------------------------------------------
// The camera's preview

// The embedded JPEG preview, as a memory source naming the RAW file, and
// its size; 0 when there is none that libraw hands over or it is no JPEG.
static int find_preview(raw_handle *handle, const char *name, ci_source *preview, ci_photo_info *info) {
    libraw_data_t *raw = handle->raw;
    if (libraw_unpack_thumb(raw) != LIBRAW_SUCCESS || raw->thumbnail.tformat != LIBRAW_THUMBNAIL_JPEG ||
        !raw->thumbnail.thumb || raw->thumbnail.tlength == 0)
        return 0;
    *preview = ci_source_memory((const uint8_t *)raw->thumbnail.thumb, raw->thumbnail.tlength, name);
    ci_error ignored;
    return ci_jpeg_loader.probe(preview, info, &ignored) == CI_OK;
}

// Whether a preview stored pw x ph has the photo's shape and, turned like
// it, covers need_width x need_height (upright).
static int preview_covers(const raw_facts *facts, uint32_t pw, uint32_t ph, uint32_t need_width, uint32_t need_height) {
    double photo = (double)facts->width / facts->height, shown = (double)pw / ph;
    if (shown < photo * (1 - RAW_PREVIEW_SHAPE_TOLERANCE) || shown > photo * (1 + RAW_PREVIEW_SHAPE_TOLERANCE)) return 0;
    uint32_t uw, uh;
    ci_oriented_size(facts->orientation, pw, ph, &uw, &uh);
    return uw >= need_width && uh >= need_height;
}

// ---------------------------------------------------------------------------
// Demosaicing

// libraw's demosaic into a new RGB image, stored orientation: at half size
// unless `full`. The decoded size is checked against the limit before the
// mosaic is unpacked.
static ci_status demosaic(raw_handle *handle, int full, const ci_limits *limits, const char *name, ci_image *out,
                          ci_error *err) {
    libraw_data_t *raw = handle->raw;
    uint32_t width = raw->sizes.width, height = raw->sizes.height;
    if (!full) {
        width = (width + 1) / 2;
        height = (height + 1) / 2;
    }
    ci_status status = ci_check_pixels(width, height, limits, name, err);
    if (status != CI_OK) return status;
    raw->params.half_size = !full;
    raw->params.use_camera_wb = 1;
    raw->params.output_color = 1;  // sRGB
    raw->params.output_bps = 8;
    raw->params.user_flip = 0;     // rows as stored: the driver turns them
    int code = libraw_unpack(raw);
    if (code != LIBRAW_SUCCESS) return raw_failure(handle, code, name, "cannot unpack the RAW data", err);
    code = libraw_dcraw_process(raw);
    if (code != LIBRAW_SUCCESS) return raw_failure(handle, code, name, "cannot demosaic the RAW data", err);
    int error = 0;
    libraw_processed_image_t *image = libraw_dcraw_make_mem_image(raw, &error);
    if (!image) return raw_failure(handle, error, name, "cannot demosaic the RAW data", err);
    if (image->type != LIBRAW_IMAGE_BITMAP || image->bits != 8 || (image->colors != 3 && image->colors != 1)) {
        libraw_dcraw_clear_mem(image);
        return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: libraw made an image of a kind not handled", name);
    }
    status = ci_image_alloc(out, image->width, image->height, 3, limits, name, err);
    if (status == CI_OK && (uint64_t)image->width * image->height * image->colors > image->data_size)
        status = ci_fail(err, CI_ERR_CORRUPT, "%s: libraw made a short image", name);
    if (status == CI_OK) {
        const uint8_t *in = image->data;
        for (uint32_t y = 0; y < out->height; y++) {
            uint8_t *row = out->pixels + (size_t)y * out->stride;
            if (image->colors == 3) {
                memcpy(row, in, (size_t)out->width * 3);
            } else {
                for (uint32_t x = 0; x < out->width; x++) row[3 * x] = row[3 * x + 1] = row[3 * x + 2] = in[x];
            }
            in += (size_t)out->width * image->colors;
        }
    }
    libraw_dcraw_clear_mem(image);
    // The mosaic and libraw's working image go before the resampling.
    libraw_recycle(raw);
    if (status != CI_OK) ci_image_free(out);
    return status;
}

// ---------------------------------------------------------------------------
// The loader

typedef struct {
    ci_source *source;
    const ci_draw_request *request;
    raw_handle handle;
    raw_facts facts;
    ci_source preview;       // the camera's JPEG, in libraw's buffer
    void *jpeg;              // its JPEG loader's state, when the preview is drawn
    ci_image image;          // else the demosaiced image
} raw_draw;

static ci_status raw_open(void *state, ci_source *source, const ci_draw_request *request, ci_header *header,
                          ci_error *err) {
    raw_draw *draw = state;
    draw->source = source;
    draw->request = request;
    ci_status status = read_source(source, err);
    if (status == CI_OK)
        status = handle_open(&draw->handle, source->buffer, source->filled, request->limits, source->name, err);
    if (status != CI_OK) return status;
    read_facts(draw->handle.raw, &draw->facts);
    header->width = draw->facts.width;
    header->height = draw->facts.height;
    header->orientation = draw->facts.orientation;
    ci_oriented_size(header->orientation, header->width, header->height, &header->display_width,
                     &header->display_height);
    // Full size, or half (libraw's half_size); the driver picks by its rule.
    header->scales = CI_SCALES_HALVINGS;
    memcpy(header->date_taken, draw->facts.date_taken, sizeof header->date_taken);
    return CI_OK;
}

static void raw_choose(void *state, uint32_t need_width, uint32_t need_height, ci_header *header) {
    raw_draw *draw = state;
    // 0 x 0 asks for the full image (a decode at full size, as TIFF's
    // levels and HEIF's thumbnails read it): the photo at the size the
    // probe reports, never a preview of another size.
    if (need_width == 0 && need_height == 0) return;
    ci_photo_info info;
    if (!find_preview(&draw->handle, draw->source->name, &draw->preview, &info) ||
        !preview_covers(&draw->facts, info.width, info.height, need_width, need_height))
        return;
    // The JPEG loader reads the preview's header; the RAW's flip turns it
    // (a camera's preview is stored as the sensor is).
    ci_header preview;
    memset(&preview, 0, sizeof preview);
    ci_error ignored;
    draw->jpeg = calloc(1, ci_jpeg_loader.state_size);
    if (!draw->jpeg) return;
    if (ci_jpeg_loader.open(draw->jpeg, &draw->preview, draw->request, &preview, &ignored) != CI_OK) {
        ci_jpeg_loader.close(draw->jpeg);
        free(draw->jpeg);
        draw->jpeg = NULL;
        return;
    }
    header->width = preview.width;
    header->height = preview.height;
    header->scales = preview.scales;
    header->tag = preview.tag;
}

static ci_status raw_start(void *state, ci_scale *scale, ci_header *header, uint32_t *width, uint32_t *height,
                           ci_image **whole, ci_error *err) {
    raw_draw *draw = state;
    if (draw->jpeg) return ci_jpeg_loader.start(draw->jpeg, scale, header, width, height, whole, err);
    // Full size, or half: libraw's only halving; the driver does the rest.
    const int full = scale->eighths >= 8;
    scale->eighths = full ? 8 : 4;
    ci_status status = demosaic(&draw->handle, full, draw->request->limits, draw->source->name, &draw->image, err);
    if (draw->source->fd >= 0) {
        // The file's bytes go before resampling, as PNG's do.
        free(draw->source->buffer);
        draw->source->buffer = NULL;
        draw->source->capacity = draw->source->filled = 0;
    }
    if (status != CI_OK) return status;
    *width = draw->image.width;
    *height = draw->image.height;
    *whole = &draw->image;
    return CI_OK;
}

static ci_status raw_begin(void *state, ci_header *header, uint32_t *first_column, uint32_t *columns, ci_error *err) {
    raw_draw *draw = state;
    // Rows are asked for only of the preview (a demosaic is handed over whole).
    if (!draw->jpeg) return CI_OK;
    return ci_jpeg_loader.begin(draw->jpeg, header, first_column, columns, err);
}

static ci_status raw_rows(void *state, uint32_t first_row, uint32_t last_row, uint32_t first_column, uint32_t columns,
                          const ci_row_sink *sink, ci_error *err) {
    raw_draw *draw = state;
    if (!draw->jpeg) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: no rows to read", draw->source->name);
    return ci_jpeg_loader.rows(draw->jpeg, first_row, last_row, first_column, columns, sink, err);
}

static void raw_close(void *state) {
    raw_draw *draw = state;
    if (draw->jpeg) ci_jpeg_loader.close(draw->jpeg);
    free(draw->jpeg);
    ci_image_free(&draw->image);
    handle_close(&draw->handle);
}

// ---------------------------------------------------------------------------
// The table's entry

static int tiff_header(const uint8_t *data, size_t size) {
    return size >= 4 && ((memcmp(data, "II*\0", 4) == 0) || memcmp(data, "MM\0*", 4) == 0);
}

// The RAW formats' own first bytes: Olympus' ORF (IIRO, IIRS, MMOR),
// Panasonic's RW2 (IIU\0), Fuji's RAF, Canon's CR3 (ISO BMFF, brand `crx `)
// and CR2 (a TIFF with "CR" after its header). Any other TIFF may be a RAW
// (DNG, NEF, ARW, PEF...): `confirm` asks libraw.
static int raw_magic(const uint8_t *data, size_t size) {
    if (size >= 4 && (memcmp(data, "IIRO", 4) == 0 || memcmp(data, "IIRS", 4) == 0 || memcmp(data, "MMOR", 4) == 0 ||
                      memcmp(data, "IIU\0", 4) == 0))
        return 1;
    if (size >= 16 && memcmp(data, "FUJIFILMCCD-RAW ", 16) == 0) return 1;
    if (size >= 12 && memcmp(data + 4, "ftypcrx ", 8) == 0) return 1;
    if (size >= 10 && tiff_header(data, size) && data[8] == 'C' && data[9] == 'R') return 1;
    return 0;
}

static int raw_sniff(const uint8_t *data, size_t size) { return raw_magic(data, size) || tiff_header(data, size); }

// A TIFF that libraw reads as a camera's RAW (a DNG: its DNGVersion tag; a
// NEF or ARW: its maker's tags); 0.2-0.3 ms. Only the first bytes a file's
// probe reads are looked at (CI_READ_BUFFER_BYTES, where a RAW's first
// directory and maker notes are), from a file or from memory alike, so
// every path to a photo sniffs it the same.
static int raw_confirm(const uint8_t *data, size_t size) {
    if (raw_magic(data, size)) return 1;
    // The picker's 64 bytes cannot tell (libraw would start for nothing,
    // 0.2 ms a file): a TIFF, which it also reads.
    if (size <= CI_SNIFF_BYTES) return 0;
    if (size > CI_READ_BUFFER_BYTES) size = CI_READ_BUFFER_BYTES;
    raw_handle handle;
    ci_error ignored;
    int yes = handle_open(&handle, data, size, NULL, "", &ignored) == CI_OK;
    handle_close(&handle);
    return yes;
}

static void raw_library(char *out, size_t size) { snprintf(out, size, "libraw %s", libraw_version()); }

const ci_loader ci_raw_loader = {
    .format = CI_FORMAT_RAW,
    .name = "camera RAW",
    .title = "camera RAW (DNG, CR2, CR3, NEF, ARW, RAF, ORF, RW2)",
    .extensions = "dng cr2 cr3 nef arw raf orf rw2",
    .library = raw_library,
    .smallest_scale = 4,
    .sniff = raw_sniff,
    .confirm = raw_confirm,
    .probe = raw_probe_source,
    .state_size = sizeof(raw_draw),
    .open = raw_open,
    .choose = raw_choose,
    .start = raw_start,
    .begin = raw_begin,
    .rows = raw_rows,
    .close = raw_close,
};
