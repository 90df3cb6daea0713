// jxl_load.c — JPEG XL through libjxl's decoder (0.7): the loader (JPEG XL
// is only read). Bare codestreams and the ISOBMFF container; lossy (VarDCT)
// and lossless (modular); grey, RGB, alpha; an animation's first frame (as
// libjxl composes it: coalescing is on by default).
//
// Orientation: libjxl is told to keep it (JxlDecoderSetKeepOrientation), so
// the pixels come stored and the header's orientation goes to the driver,
// whose resampler turns them upright as it does EXIF's. Colours: whatever
// libjxl says its output is (JXL_COLOR_PROFILE_TARGET_DATA: sRGB for lossy
// XYB files, the file's own space for lossless ones) becomes the colour tag,
// as H.273 code points where its encoding has them (colour.c tone-maps PQ
// and HLG from those) or as the ICC profile libjxl gives otherwise; colour.c
// converts the cell. Alpha comes unpremultiplied; the driver blends it.
//
// Shrink-on-load: libjxl has none, so the frame is decoded whole at full
// size into one image, which the driver halves (CI_SCALES_HALVINGS).
// Why not a cheaper decode for small cells: libjxl 0.7 has none that costs
// less. Measured on a 4000x3000 lossy file (cjxl -d 1; one thread): the
// whole decode takes 0.53 s; with JXL_DEC_FRAME_PROGRESSION at kDC the DC is
// ready after 0.05 s, but JxlDecoderFlushImage renders it upsampled to the
// full 12 megapixels, which took 0.55 s more (0.60-0.66 s in all, whether
// the file came whole or in 4-64 KiB pieces): no saving. The 1/8 DC image
// itself (JXL_DEC_DC_IMAGE, JxlDecoderSetDCOutBuffer) is deprecated and
// never delivered by 0.7 (the decoder asks for the full image buffer
// instead). So every draw decodes the whole frame.
//
// Threads: none of libjxl's (no parallel runner): the engine already draws
// the photos of a collage in parallel, one per core.
//
// Is the file whole? libjxl 0.7 cannot tell without decoding: a frame it is
// asked to skip (JxlDecoderSkipCurrentFrame), or not asked for, is passed
// over by its table of contents without reading its sections, so a file
// cut anywhere after its first frame header "succeeds"; parsing the table
// of contents ourselves means parsing every header before it (entropy-coded
// ICC profiles included). So `complete` decodes the first frame (below):
// asked by ci_check_complete, that is by `add` alone, never by the probe.
//
// The pixel limit is checked on the basic info, before libjxl allocates
// its frame and before ours.
//
// Broken files: libjxl says only that decoding failed, so the refusal is
// "broken JPEG XL data" (or "cut short" when it wanted more than the file).
// Debian's libjxl 0.7 also prints its own diagnostics of broken data to
// stderr ("lib/jxl/...: JXL_FAILURE: ..."), compiled in with no switch to
// turn them off; the engine's refusal is still its one line.
#include "../internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jxl_api.h"

// A JPEG XL being read: libjxl's decoder over the whole file in memory,
// past its header (basic info and colour encoding).
typedef struct {
    const char *name;
    ci_jxl_api api;  // libjxl, loaded on first use (jxl_api.c)
    JxlDecoder *decoder;
    JxlBasicInfo info;
    ci_colour_tag tag;
    uint8_t *icc;        // libjxl's profile of its output, when it has no H.273 form
} jxl_reader;

static void reader_close(jxl_reader *reader) {
    if (reader->decoder) reader->api.JxlDecoderDestroy(reader->decoder);
    free(reader->icc);
    reader->decoder = NULL;
    reader->icc = NULL;
    ci_jxl_api_close(&reader->api);
}

// libjxl gives no reason; its status says only that the data is broken.
static ci_status broken(const char *name, ci_error *err) {
    return ci_fail(err, CI_ERR_CORRUPT, "%s: broken JPEG XL data", name);
}

// An event that ends reading early: the file cut short (libjxl wants more
// than all of it; CI_ERR_CORRUPT either way, the probe's cue to read more),
// or broken. The input is never closed (JxlDecoderCloseInput): libjxl finds
// the end of a frame without it (it is needed only for metadata boxes), and
// with it a file cut short fails as broken data, not as input wanted.
static ci_status event_failure(const jxl_reader *reader, JxlDecoderStatus status, ci_error *err) {
    if (status == JXL_DEC_NEED_MORE_INPUT || status == JXL_DEC_SUCCESS)
        return ci_cut_short(reader->name, "the JPEG XL stream ends early", err);
    return broken(reader->name, err);
}

// The colour tag of libjxl's output: H.273 code points when its encoding
// is one (libjxl's enums are H.273's numbers), else its ICC profile.
static ci_status read_colour(jxl_reader *reader, ci_error *err) {
    JxlColorEncoding encoding;
    if (reader->api.JxlDecoderGetColorAsEncodedProfile(reader->decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &encoding) ==
        JXL_DEC_SUCCESS) {
        int primaries = encoding.color_space == JXL_COLOR_SPACE_GRAY ? JXL_PRIMARIES_SRGB
                        : encoding.primaries == JXL_PRIMARIES_P3 ? 12  // Display P3 (D65), H.273's 12
                                                                 : (int)encoding.primaries;
        int transfer = (int)encoding.transfer_function;
        int known_primaries = primaries == JXL_PRIMARIES_SRGB || primaries == JXL_PRIMARIES_2100 || primaries == 12;
        int known_transfer = transfer == JXL_TRANSFER_FUNCTION_709 || transfer == JXL_TRANSFER_FUNCTION_LINEAR ||
                             transfer == JXL_TRANSFER_FUNCTION_SRGB || transfer == JXL_TRANSFER_FUNCTION_PQ ||
                             transfer == JXL_TRANSFER_FUNCTION_HLG;
        if (encoding.white_point == JXL_WHITE_POINT_D65 && known_primaries && known_transfer &&
            encoding.color_space != JXL_COLOR_SPACE_XYB && encoding.color_space != JXL_COLOR_SPACE_UNKNOWN) {
            reader->tag.has_nclx = 1;
            reader->tag.primaries = primaries;
            reader->tag.transfer = transfer;
            reader->tag.matrix = 0;
            reader->tag.full_range = 1;
            return CI_OK;
        }
    }
    size_t size = 0;
    if (reader->api.JxlDecoderGetICCProfileSize(reader->decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &size) !=
            JXL_DEC_SUCCESS ||
        size == 0)
        return CI_OK;  // none to be had: taken as sRGB, as an untagged photo is
    if (size > CI_MAX_FILE_BYTES) return broken(reader->name, err);
    reader->icc = malloc(size);
    if (!reader->icc) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory", reader->name);
    if (reader->api.JxlDecoderGetColorAsICCProfile(reader->decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, reader->icc, size) !=
        JXL_DEC_SUCCESS)
        return broken(reader->name, err);
    reader->tag.icc = reader->icc;
    reader->tag.icc_size = size;
    return CI_OK;
}

// Reads the header of the JPEG XL in data[0..size): the basic info,
// checked against `limits`, and the colour encoding. The decoder is left
// before the first frame. When the bytes are only the file's first,
// CI_ERR_CORRUPT (cut short) is the caller's cue to read more.
static ci_status reader_open(jxl_reader *reader, const uint8_t *data, size_t size, const char *name,
                             const ci_limits *limits, ci_error *err) {
    memset(reader, 0, sizeof *reader);
    reader->name = name;
    ci_status opened = ci_jxl_api_open(&reader->api, name, err);
    if (opened != CI_OK) return opened;
    reader->decoder = reader->api.JxlDecoderCreate(NULL);
    if (!reader->decoder) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: cannot create a JPEG XL decoder", name);
    JxlDecoder *decoder = reader->decoder;
    if (reader->api.JxlDecoderSubscribeEvents(decoder, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FULL_IMAGE) !=
            JXL_DEC_SUCCESS ||
        reader->api.JxlDecoderSetKeepOrientation(decoder, JXL_TRUE) != JXL_DEC_SUCCESS ||
        reader->api.JxlDecoderSetUnpremultiplyAlpha(decoder, JXL_TRUE) != JXL_DEC_SUCCESS ||
        reader->api.JxlDecoderSetInput(decoder, data, size) != JXL_DEC_SUCCESS)
        return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: libjxl refused its settings", name);
    for (;;) {
        JxlDecoderStatus status = reader->api.JxlDecoderProcessInput(decoder);
        if (status == JXL_DEC_BASIC_INFO) {
            if (reader->api.JxlDecoderGetBasicInfo(decoder, &reader->info) != JXL_DEC_SUCCESS) return broken(name, err);
            if (reader->info.xsize == 0 || reader->info.ysize == 0)
                return ci_fail(err, CI_ERR_CORRUPT, "%s: the image has no pixels", name);
            if (reader->info.orientation < 1 || reader->info.orientation > 8) reader->info.orientation = 1;
            // Before libjxl allocates anything the size decides.
            ci_status checked = ci_check_pixels(reader->info.xsize, reader->info.ysize, limits, name, err);
            if (checked != CI_OK) return checked;
        } else if (status == JXL_DEC_COLOR_ENCODING) {
            return read_colour(reader, err);
        } else {
            return event_failure(reader, status, err);
        }
    }
}

// The display size, orientation and alpha as ci_photo_info has them.
static void reader_info(const jxl_reader *reader, ci_photo_info *info) {
    memset(info, 0, sizeof *info);
    info->format = CI_FORMAT_JXL;
    info->width = reader->info.xsize;
    info->height = reader->info.ysize;
    info->orientation = (int)reader->info.orientation;
    ci_oriented_size(info->orientation, info->width, info->height, &info->display_width, &info->display_height);
    info->has_alpha = reader->info.alpha_bits > 0;
}

// ---------------------------------------------------------------------------
// The pixels

// Decodes the first frame into a new `image` at full size: RGB, or RGBA
// (straight alpha) when the file has alpha.
static ci_status reader_pixels(jxl_reader *reader, const ci_limits *limits, ci_image *image, ci_error *err) {
    const char *name = reader->name;
    const int channels = reader->info.alpha_bits > 0 ? 4 : 3;
    ci_status status = ci_image_alloc(image, reader->info.xsize, reader->info.ysize, channels, limits, name, err);
    if (status != CI_OK) return status;
    // Grey comes as RGB (libjxl repeats it), so every output has 3 or 4 channels.
    JxlPixelFormat format = {(uint32_t)channels, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    const size_t bytes = image->stride * image->height;
    for (status = CI_ERR_CORRUPT;;) {
        JxlDecoderStatus event = reader->api.JxlDecoderProcessInput(reader->decoder);
        if (event == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            size_t needed = 0;
            if (reader->api.JxlDecoderImageOutBufferSize(reader->decoder, &format, &needed) != JXL_DEC_SUCCESS || needed != bytes ||
                reader->api.JxlDecoderSetImageOutBuffer(reader->decoder, &format, image->pixels, bytes) != JXL_DEC_SUCCESS) {
                status = broken(name, err);
                break;
            }
        } else if (event == JXL_DEC_FULL_IMAGE) {
            // The first frame is all that is drawn: nothing after it is read.
            status = CI_OK;
            break;
        } else {
            status = event_failure(reader, event, err);
            break;
        }
    }
    if (status != CI_OK) ci_image_free(image);
    return status;
}

// ---------------------------------------------------------------------------
// Probe: from the first bytes read, and from the whole file only when the
// header runs past them.

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

// The capture date of a container's `Exif` box, among the `size` bytes at
// hand, into date_taken (left empty when there is none): `collage
// suggest`'s events. libjxl walks the boxes (and decompresses a `brob` one:
// cjxl compresses the EXIF it keeps) in a decoder of its own, which decodes
// no pixels; the box is read into a buffer grown up to CI_EXIF_MAX_BYTES,
// its TIFF structure after a 4-byte offset to it.
static void read_exif_date(const ci_jxl_api *api, const uint8_t *data, size_t size, char *date_taken, ci_position *position) {
    JxlDecoder *decoder = api->JxlDecoderCreate(NULL);
    if (!decoder) return;
    uint8_t *box = NULL;
    size_t capacity = 0;
    int reading = 0;  // inside the Exif box
    if (api->JxlDecoderSubscribeEvents(decoder, JXL_DEC_BOX) == JXL_DEC_SUCCESS &&
        api->JxlDecoderSetDecompressBoxes(decoder, JXL_TRUE) == JXL_DEC_SUCCESS &&
        api->JxlDecoderSetInput(decoder, data, size) == JXL_DEC_SUCCESS) {
        api->JxlDecoderCloseInput(decoder);
        for (;;) {
            JxlDecoderStatus status = api->JxlDecoderProcessInput(decoder);
            if (reading) {
                // The buffer given last ends at `capacity`: what it did not
                // fill is what libjxl gives back.
                const size_t used = capacity - api->JxlDecoderReleaseBoxBuffer(decoder);
                if (status == JXL_DEC_BOX_NEED_MORE_OUTPUT && capacity < CI_EXIF_MAX_BYTES) {
                    const size_t grown = capacity * 4 > CI_EXIF_MAX_BYTES ? CI_EXIF_MAX_BYTES : capacity * 4;
                    uint8_t *bigger = realloc(box, grown);
                    if (!bigger) break;
                    box = bigger;
                    capacity = grown;
                    if (api->JxlDecoderSetBoxBuffer(decoder, box + used, capacity - used) != JXL_DEC_SUCCESS) break;
                    continue;
                }
                if (status != JXL_DEC_BOX_NEED_MORE_OUTPUT && used > 4) {
                    const uint32_t offset = be32(box);
                    if (offset < used - 4) ci_exif_read_tiff(box + 4 + offset, used - 4 - offset, date_taken, position);
                }
                break;
            }
            JxlBoxType type;
            if (status != JXL_DEC_BOX || api->JxlDecoderGetBoxType(decoder, type, JXL_TRUE) != JXL_DEC_SUCCESS) break;
            if (memcmp(type, "Exif", 4) != 0) continue;
            capacity = 4096;
            box = malloc(capacity);
            if (!box || api->JxlDecoderSetBoxBuffer(decoder, box, capacity) != JXL_DEC_SUCCESS) break;
            reading = 1;
        }
    }
    free(box);
    api->JxlDecoderDestroy(decoder);
}

static ci_status jxl_probe(ci_source *source, ci_photo_info *info, ci_error *err) {
    memset(info, 0, sizeof *info);
    // Probing allocates nothing the size decides: no limit yet (the draw's).
    ci_limits unlimited = {UINT64_MAX};
    jxl_reader reader;
    ci_status status = reader_open(&reader, source->buffer, source->filled, source->name, &unlimited, err);
    if (status == CI_ERR_CORRUPT && source->filled < source->file_size) {
        reader_close(&reader);
        status = ci_source_read_all(source, err);
        if (status == CI_OK)
            status = reader_open(&reader, source->buffer, source->filled, source->name, &unlimited, err);
    }
    if (status == CI_OK) {
        reader_info(&reader, info);
        read_exif_date(&reader.api, source->buffer, source->filled, info->date_taken, &info->position);
    }
    reader_close(&reader);
    return status;
}

// ---------------------------------------------------------------------------
// The loader: the whole file in memory, the first frame decoded whole and
// handed over as one image.

typedef struct {
    ci_source *source;
    const ci_draw_request *request;
    jxl_reader reader;
    ci_image photo;
} jxl_draw;

static ci_status jxl_open(void *state, ci_source *source, const ci_draw_request *request, ci_header *header,
                          ci_error *err) {
    jxl_draw *draw = state;
    draw->source = source;
    draw->request = request;
    ci_status status = ci_source_read_all(source, err);
    if (status == CI_OK)
        status = reader_open(&draw->reader, source->buffer, source->filled, source->name, request->limits, err);
    if (status != CI_OK) return status;
    ci_photo_info info;
    reader_info(&draw->reader, &info);
    header->width = info.width;
    header->height = info.height;
    header->orientation = info.orientation;
    header->display_width = info.display_width;
    header->display_height = info.display_height;
    header->scales = CI_SCALES_HALVINGS;
    header->has_alpha = draw->reader.info.alpha_bits > 0;
    header->tag = draw->reader.tag;
    return CI_OK;
}

static ci_status jxl_start(void *state, ci_scale *scale, ci_header *header, uint32_t *width,
                           uint32_t *height, ci_image **whole, ci_error *err) {
    jxl_draw *draw = state;
    (void)header;
    ci_status status = reader_pixels(&draw->reader, draw->request->limits, &draw->photo, err);
    if (status != CI_OK) return status;
    scale->eighths = 8;
    *width = draw->photo.width;
    *height = draw->photo.height;
    *whole = &draw->photo;
    return CI_OK;
}

static void jxl_close(void *state) {
    jxl_draw *draw = state;
    reader_close(&draw->reader);
    ci_image_free(&draw->photo);
}

// ---------------------------------------------------------------------------
// Is the file whole?
//
// libjxl 0.7 has no cheaper way to tell than decoding: a frame's length is
// in its bit-packed header, behind a possibly entropy-coded ICC profile,
// and skipping frames "succeeds" without reading them. So `add` decodes
// the first frame here, each pixel dropped as it comes (no image of ours is
// made): 0.5 s for 12 megapixels on one core, the price of refusing a file
// cut short at `add` rather than at `save`, paid there only (ci_check_complete;
// a probe for the photo's size reads the header alone). A photo over the
// default pixel limit is not decoded here: the draw checks it against
// --max-pixels.

static void drop_pixels(void *opaque, size_t x, size_t y, size_t count, const void *pixels) {
    (void)opaque, (void)x, (void)y, (void)count, (void)pixels;
}

static ci_status decode_all(jxl_reader *reader, ci_error *err) {
    JxlPixelFormat format = {3, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    for (;;) {
        JxlDecoderStatus event = reader->api.JxlDecoderProcessInput(reader->decoder);
        if (event == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            if (reader->api.JxlDecoderSetImageOutCallback(reader->decoder, &format, drop_pixels, NULL) != JXL_DEC_SUCCESS)
                return broken(reader->name, err);
        } else if (event == JXL_DEC_FULL_IMAGE) {
            return CI_OK;
        } else {
            return event_failure(reader, event, err);
        }
    }
}

static ci_status jxl_complete(int fd, const char *name, ci_error *err) {
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 0) return ci_fail(err, CI_ERR_OPEN, "%s: cannot read it again", name);
    if ((uint64_t)st.st_size > CI_MAX_FILE_BYTES) return ci_fail(err, CI_ERR_TOO_LARGE, "%s: file is too large", name);
    size_t size = (size_t)st.st_size;
    uint8_t *data = malloc(size ? size : 1);
    if (!data) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory", name);
    int error = 0;
    size_t filled = ci_read_up_to(fd, data, size, &error);
    ci_status status = error ? ci_fail(err, CI_ERR_OPEN, "%s: %s", name, strerror(error)) : CI_OK;
    jxl_reader reader;
    memset(&reader, 0, sizeof reader);
    if (status == CI_OK) {
        ci_limits limits = {0};  // the default: a larger photo is the draw's to judge
        ci_error quiet;
        status = reader_open(&reader, data, filled, name, &limits, &quiet);
        if (status == CI_ERR_TOO_LARGE) status = CI_OK;
        else if (status != CI_OK && err) *err = quiet;
        else status = decode_all(&reader, err);
    }
    reader_close(&reader);
    free(data);
    return status;
}

// ---------------------------------------------------------------------------
// The table's entry

// libjxl as loaded: its version, major * 1000000 + minor * 1000 + patch.
static void jxl_library(char *out, size_t size) {
    ci_jxl_api api;
    ci_error err;
    if (ci_jxl_api_open(&api, "--version", &err) != CI_OK) {
        snprintf(out, size, "libjxl (not installed)");
        return;
    }
    uint32_t version = api.JxlDecoderVersion();
    snprintf(out, size, "libjxl %u.%u.%u", version / 1000000, version / 1000 % 1000, version % 1000);
    ci_jxl_api_close(&api);
}

// A bare codestream (FF 0A) or the container's signature box.
static int jxl_sniff(const uint8_t *data, size_t size) {
    static const uint8_t container[12] = {0, 0, 0, 0x0C, 'J', 'X', 'L', ' ', 0x0D, 0x0A, 0x87, 0x0A};
    return (size >= 2 && data[0] == 0xFF && data[1] == 0x0A) ||
           (size >= 12 && memcmp(data, container, sizeof container) == 0);
}

const ci_loader ci_jxl_loader = {
    .format = CI_FORMAT_JXL,
    .name = "JPEG XL",
    .title = "JPEG XL",
    .extensions = "jxl",
    .library = jxl_library,
    .smallest_scale = 8,
    .sniff = jxl_sniff,
    .complete = jxl_complete,
    .probe = jxl_probe,
    .state_size = sizeof(jxl_draw),
    .open = jxl_open,
    .start = jxl_start,
    .close = jxl_close,
};
