// webp.c — WebP through libwebp: lossy, lossless, alpha; the same entry
// points as jpeg.c and png.c, and the WebP encoder.
//
// libwebp decodes straight at a reduced size (its scaled decoding: the
// rescaler runs on each row as it is decoded, so for lossy files the full
// size is never held), chosen by shrink.c's rule as for JPEG's DCT scaling:
// the filter target, 4/3 of the size that covers the cell, so the Lanczos
// pass that follows only ever shrinks by 3/4 or less. The rows then go
// through the streaming resampler, which also turns the photo upright.
//
// EXIF orientation is applied, as browsers do for WebP (Chromium's WebP
// decoder reads the EXIF chunk's orientation since 2020, and Firefox
// applies image-orientation: from-image to every format). ICCP profiles go
// to sRGB at cell size (colour.c). Animated WebPs are refused by name:
// a collage shows stills.
#include "internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>

static const char *reason(VP8StatusCode status) {
    switch (status) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported WebP feature";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "file is truncated";
    default: return "broken WebP data";
    }
}

static ci_status webp_failure(VP8StatusCode status, const char *name, ci_error *err) {
    ci_status code = status == VP8_STATUS_OUT_OF_MEMORY ? CI_ERR_NO_MEMORY
                     : status == VP8_STATUS_UNSUPPORTED_FEATURE ? CI_ERR_UNSUPPORTED
                                                                : CI_ERR_CORRUPT;
    return ci_fail(err, code, "%s: %s", name, reason(status));
}

// What the container says: size, alpha, orientation, the colour profile.
typedef struct {
    uint32_t width, height;
    int has_alpha;
    int orientation;
    char date_taken[CI_DATE_TAKEN_BYTES];
    ci_colour_tag tag;          // points into the file's bytes
    WebPDemuxer *demux;         // owns nothing; freed by header_free
} webp_header;

static void header_free(webp_header *header) {
    if (header->demux) WebPDemuxDelete(header->demux);
    header->demux = NULL;
}


static ci_status read_header(const uint8_t *data, size_t size, const char *name, webp_header *header,
                             ci_error *err) {
    memset(header, 0, sizeof *header);
    header->orientation = 1;
    WebPData bytes = {data, size};
    header->demux = WebPDemux(&bytes);
    if (!header->demux) {
        // The demuxer refuses what is cut short or broken; say which.
        WebPBitstreamFeatures features;
        VP8StatusCode status = WebPGetFeatures(data, size, &features);
        return webp_failure(status == VP8_STATUS_OK ? VP8_STATUS_BITSTREAM_ERROR : status, name, err);
    }
    uint32_t flags = WebPDemuxGetI(header->demux, WEBP_FF_FORMAT_FLAGS);
    if ((flags & ANIMATION_FLAG) || WebPDemuxGetI(header->demux, WEBP_FF_FRAME_COUNT) > 1)
        return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: animated WebP is not supported (a collage shows stills)", name);
    header->width = WebPDemuxGetI(header->demux, WEBP_FF_CANVAS_WIDTH);
    header->height = WebPDemuxGetI(header->demux, WEBP_FF_CANVAS_HEIGHT);
    if (header->width == 0 || header->height == 0)
        return ci_fail(err, CI_ERR_CORRUPT, "%s: the image has no pixels", name);
    WebPBitstreamFeatures features;
    VP8StatusCode status = WebPGetFeatures(data, size, &features);
    if (status != VP8_STATUS_OK) return webp_failure(status, name, err);
    if (features.has_animation)
        return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: animated WebP is not supported (a collage shows stills)", name);
    header->has_alpha = features.has_alpha;
    WebPChunkIterator chunk;
    if ((flags & EXIF_FLAG) && WebPDemuxGetChunk(header->demux, "EXIF", 1, &chunk)) {
        header->orientation = ci_exif_read_tiff(chunk.chunk.bytes, chunk.chunk.size, header->date_taken);
        WebPDemuxReleaseChunkIterator(&chunk);
    }
    if ((flags & ICCP_FLAG) && WebPDemuxGetChunk(header->demux, "ICCP", 1, &chunk)) {
        // The chunk's bytes live in `data`, which outlives the demuxer.
        header->tag.icc = chunk.chunk.bytes;
        header->tag.icc_size = chunk.chunk.size;
        WebPDemuxReleaseChunkIterator(&chunk);
    }
    return CI_OK;
}

static ci_status webp_probe_source(ci_source *source, ci_photo_info *info, ci_error *err) {
    memset(info, 0, sizeof *info);
    ci_status status = ci_source_read_all(source, err);
    if (status != CI_OK) return status;
    webp_header header;
    status = read_header(source->buffer, source->filled, source->name, &header, err);
    if (status == CI_OK) {
        info->format = CI_FORMAT_WEBP;
        info->width = header.width;
        info->height = header.height;
        info->orientation = header.orientation;
        ci_oriented_size(header.orientation, header.width, header.height, &info->display_width,
                         &info->display_height);
        info->has_alpha = header.has_alpha;
        memcpy(info->date_taken, header.date_taken, sizeof info->date_taken);
    }
    header_free(&header);
    return status;
}

// Decodes at width x height (stored orientation; the full size or smaller,
// same aspect) into libwebp's buffer: RGBA when the file has alpha, else RGB.
static ci_status decode_scaled(const uint8_t *data, size_t size, const webp_header *header,
                               uint32_t width, uint32_t height, const ci_limits *limits,
                               WebPDecoderConfig *config, const char *name, ci_error *err) {
    // The limit speaks of the photo: libwebp's lossless decoder holds the
    // whole image (4 bytes a pixel) whatever the output size.
    ci_status status = ci_check_pixels(header->width, header->height, limits, name, err);
    if (status != CI_OK) return status;
    if (!WebPInitDecoderConfig(config)) return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: libwebp version mismatch", name);
    VP8StatusCode code = WebPGetFeatures(data, size, &config->input);
    if (code != VP8_STATUS_OK) return webp_failure(code, name, err);
    if ((uint32_t)config->input.width != header->width || (uint32_t)config->input.height != header->height)
        return ci_fail(err, CI_ERR_CORRUPT, "%s: the image is not the size its header says", name);
    if (width < header->width || height < header->height) {
        config->options.use_scaling = 1;
        config->options.scaled_width = (int)width;
        config->options.scaled_height = (int)height;
    }
    config->output.colorspace = header->has_alpha ? MODE_RGBA : MODE_RGB;
    code = WebPDecode(data, size, config);
    if (code != VP8_STATUS_OK) return webp_failure(code, name, err);
    if ((uint32_t)config->output.width != width || (uint32_t)config->output.height != height)
        return ci_fail(err, CI_ERR_CORRUPT, "%s: decoded at an unexpected size", name);
    return CI_OK;
}

// Over `background`, rounded as png.c does.
static inline uint8_t over(unsigned c, unsigned a, unsigned bg) {
    return (uint8_t)((c * a + bg * (255u - a) + 127u) / 255u);
}

// Row `y` of the decoded image, columns first..first+count, into `out` as
// RGB(X) (`channels` 3 or 4, the fourth 255) with alpha composited, or as
// RGBA when `keep_alpha`.
static void row_out(const WebPDecoderConfig *config, uint32_t y, uint32_t first, uint32_t count,
                    uint8_t *out, int channels, int keep_alpha, ci_color background) {
    const WebPRGBABuffer *rgba = &config->output.u.RGBA;
    int in_channels = config->output.colorspace == MODE_RGBA ? 4 : 3;
    const uint8_t *in = rgba->rgba + (size_t)y * (size_t)rgba->stride + (size_t)first * in_channels;
    for (uint32_t x = 0; x < count; x++, in += in_channels, out += channels) {
        unsigned a = in_channels == 4 ? in[3] : 255;
        if (keep_alpha || a == 255) {
            out[0] = in[0];
            out[1] = in[1];
            out[2] = in[2];
        } else {
            out[0] = over(in[0], a, background.r);
            out[1] = over(in[1], a, background.g);
            out[2] = over(in[2], a, background.b);
        }
        if (channels == 4) out[3] = keep_alpha ? (uint8_t)a : 255;
    }
}

// The stored-orientation size covering an upright need_width x need_height.
static void scaled_size(const webp_header *header, uint32_t need_width, uint32_t need_height,
                        uint32_t *width, uint32_t *height) {
    uint32_t dw, dh;
    ci_oriented_size(header->orientation, header->width, header->height, &dw, &dh);
    ci_shrink_target target = ci_shrink_target_for_box(dw, dh, need_width, need_height, 0);
    uint32_t w = target.width, h = target.height;
    if (need_width == 0 && need_height == 0) {
        w = dw;
        h = dh;
    }
    if (header->orientation >= 5) {
        uint32_t t = w;
        w = h;
        h = t;
    }
    *width = w;
    *height = h;
}

// ---------------------------------------------------------------------------
// Draw

static ci_status draw_inner(ci_source *source, ci_image *canvas, ci_rect cell,
                            const ci_draw_request *request, webp_header *header,
                            WebPDecoderConfig *config, int *decoded, ci_cover_plan *plan,
                            ci_image *frame, ci_error *err) {
    const char *name = source->name;
    ci_status status = ci_source_read_all(source, err);
    if (status == CI_OK) status = read_header(source->buffer, source->filled, name, header, err);
    if (status != CI_OK || ci_cell_off_canvas(canvas, cell)) return status;

    // The filter target (4/3 headroom), or the covering size where that
    // alone would break the pixel limit: shrink.c's rule, as for JPEG.
    uint32_t dw, dh;
    ci_oriented_size(header->orientation, header->width, header->height, &dw, &dh);
    cell = ci_fit_cell(request, canvas, cell, dw, dh);
    ci_shrink_target target = ci_shrink_target_for_box(dw, dh, cell.width, cell.height, 0);
    uint32_t want_w = target.filter_width < dw ? target.filter_width : dw;
    uint32_t want_h = target.filter_height < dh ? target.filter_height : dh;
    if ((uint64_t)want_w * want_h > ci_max_pixels(request->limits)) {
        want_w = target.width;
        want_h = target.height;
    }
    // Keep the photo's aspect exactly on one axis: the other follows it.
    if ((uint64_t)want_w * dh >= (uint64_t)want_h * dw)
        want_h = (uint32_t)(((uint64_t)want_w * dh + dw - 1) / dw);
    else
        want_w = (uint32_t)(((uint64_t)want_h * dw + dh - 1) / dh);
    if (want_w > dw) want_w = dw;
    if (want_h > dh) want_h = dh;
    uint32_t width = header->orientation >= 5 ? want_h : want_w;
    uint32_t height = header->orientation >= 5 ? want_w : want_h;

    status = decode_scaled(source->buffer, source->filled, header, width, height, request->limits,
                           config, name, err);
    *decoded = status == CI_OK;
    if (status != CI_OK) return status;
    if (ci_placement_needs_pixels(request, dw, dh, cell)) {
        // Smart or attention: the whole frame at this scale, looked at, then drawn.
        status = ci_image_alloc(frame, width, height, 4, request->limits, name, err);
        if (status != CI_OK) return status;
        for (uint32_t y = 0; y < height; y++)
            row_out(config, y, 0, width, frame->pixels + (size_t)y * frame->stride, 4, 0, request->background);
        status = ci_draw_frame(frame, header->orientation, canvas, cell, request, name, err);
        if (status != CI_OK) return status;
        return ci_colour_convert_cell(&header->tag, canvas, cell, name, err);
    }
    ci_focus focus_storage;
    const ci_focus *focus = ci_placement_without_pixels(request, dw, dh, cell, &focus_storage);
    status = ci_cover_plan_init(plan, width, height, 4, header->orientation, canvas, cell, focus, name, err);
    if (status == CI_OK) status = ci_cover_plan_start(plan, plan->first_column, plan->columns, 1, name, err);
    if (status != CI_OK) return status;
    for (uint32_t y = plan->first_row; y <= plan->last_row; y++) {
        uint8_t *slot = ci_cover_plan_slot(plan);
        row_out(config, y, plan->first_column, plan->columns, slot, 4, 0, request->background);
        ci_cover_plan_push(plan, slot);
    }
    return ci_colour_convert_cell(&header->tag, canvas, cell, name, err);
}

static ci_status webp_draw_source(ci_source *source, ci_image *canvas, ci_rect cell,
                                  const ci_draw_request *request, ci_error *err) {
    webp_header header;
    memset(&header, 0, sizeof header);
    WebPDecoderConfig config;
    memset(&config, 0, sizeof config);
    int decoded = 0;
    ci_cover_plan plan;
    memset(&plan, 0, sizeof plan);
    ci_image frame;
    memset(&frame, 0, sizeof frame);
    ci_status status = draw_inner(source, canvas, cell, request, &header, &config, &decoded, &plan, &frame, err);
    ci_cover_plan_free(&plan);
    ci_image_free(&frame);
    if (decoded) WebPFreeDecBuffer(&config.output);
    header_free(&header);
    return status;
}

// ---------------------------------------------------------------------------
// Decode (previews, ci_decode_file)

static ci_status webp_decode(const uint8_t *data, size_t size, const char *name,
                             const ci_decode_options *options, ci_image *out, ci_error *err) {
    memset(out, 0, sizeof *out);
    webp_header header;
    ci_status status = read_header(data, size, name, &header, err);
    WebPDecoderConfig config;
    memset(&config, 0, sizeof config);
    int decoded = 0;
    uint32_t width = 0, height = 0;
    if (status == CI_OK) {
        scaled_size(&header, options->min_width, options->min_height, &width, &height);
        status = decode_scaled(data, size, &header, width, height, &options->limits, &config, name, err);
        decoded = status == CI_OK;
    }
    int channels = options->keep_alpha ? 4 : 3;
    if (status == CI_OK) status = ci_image_alloc(out, width, height, channels, &options->limits, name, err);
    if (status == CI_OK) {
        for (uint32_t y = 0; y < height; y++)
            row_out(&config, y, 0, width, out->pixels + (size_t)y * out->stride, channels,
                    options->keep_alpha, options->background);
    }
    if (decoded) WebPFreeDecBuffer(&config.output);
    if (status == CI_OK && options->apply_orientation)
        status = ci_apply_orientation(out, header.orientation, name, err);
    if (status == CI_OK && !options->keep_colours) status = ci_colour_convert_image(&header.tag, out, name, err);
    header_free(&header);
    if (status != CI_OK) ci_image_free(out);
    return status;
}

const ci_codec ci_webp_codec = {
    .format = CI_FORMAT_WEBP,
    .name = "WebP",
    .probe = webp_probe_source,
    .draw = webp_draw_source,
    .decode = webp_decode,
};

// ---------------------------------------------------------------------------
// Encode

ci_status ci_encode_webp(const ci_image *image, int quality, uint8_t **out, size_t *out_size,
                         ci_error *err) {
    if (out) *out = NULL;
    if (out_size) *out_size = 0;
    if (!image || !image->pixels || image->channels != 3 || !out || !out_size)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_encode_webp: an RGB image is needed");
    if (image->width > WEBP_MAX_DIMENSION || image->height > WEBP_MAX_DIMENSION)
        return ci_fail(err, CI_ERR_ENCODE, "WebP images are at most %dx%d pixels; this one is %ux%u",
                       WEBP_MAX_DIMENSION, WEBP_MAX_DIMENSION, image->width, image->height);
    if (image->stride > INT_MAX) return ci_fail(err, CI_ERR_ENCODE, "the image is too large for WebP");
    if (quality < 1) quality = 1;
    if (quality > 100) quality = 100;
    uint8_t *encoded = NULL;
    size_t size = WebPEncodeRGB(image->pixels, (int)image->width, (int)image->height, (int)image->stride,
                                (float)quality, &encoded);
    if (size == 0 || !encoded) {
        WebPFree(encoded);
        return ci_fail(err, CI_ERR_ENCODE, "the WebP encoder failed");
    }
    // Into a buffer of our own, which ci_buffer_free (free) releases.
    *out = malloc(size);
    if (!*out) {
        WebPFree(encoded);
        return ci_fail(err, CI_ERR_NO_MEMORY, "out of memory for a %zu-byte WebP", size);
    }
    memcpy(*out, encoded, size);
    WebPFree(encoded);
    *out_size = size;
    return CI_OK;
}
