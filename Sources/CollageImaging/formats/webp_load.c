// webp_load.c — WebP through libwebp: the loader (lossy, lossless, alpha);
// webp_save.c is the saver.
//
// libwebp decodes straight at a reduced size (its scaled decoding: the
// rescaler runs on each row as it is decoded, so for lossy files the full
// size is never held), chosen by shrink.c's rule for any size
// (ci_any_scale): the filter target, 4/3 of the size that covers the cell,
// so the Lanczos pass that follows only ever shrinks by 3/4 or less. The
// driver (draw.c) streams the rows through the resampler, which also turns
// the photo upright.
//
// EXIF orientation is applied, as browsers do for WebP (Chromium's WebP
// decoder reads the EXIF chunk's orientation since 2020, and Firefox
// applies image-orientation: from-image to every format). ICCP profiles go
// to sRGB at cell size (colour.c). An animated WebP is drawn from its first
// frame, as an animated GIF is (a collage shows stills): the demuxer finds
// the frame's bitstream, which libwebp decodes like a still's (anim_decode.c
// does the same), scaled; the later frames are never decoded. A first frame
// smaller than its canvas is placed on the canvas's transparency, which the
// background shows through, as a GIF's is.
#include "../internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/demux.h>

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
    WebPData bitstream;         // what libwebp decodes: the file, or an animation's first frame
    int partial;                // that frame does not cover the canvas: it goes at
    uint32_t frame_x, frame_y, frame_width, frame_height;  // this place of it
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
    header->width = WebPDemuxGetI(header->demux, WEBP_FF_CANVAS_WIDTH);
    header->height = WebPDemuxGetI(header->demux, WEBP_FF_CANVAS_HEIGHT);
    if (header->width == 0 || header->height == 0)
        return ci_fail(err, CI_ERR_CORRUPT, "%s: the image has no pixels", name);
    header->bitstream = bytes;
    if ((flags & ANIMATION_FLAG) || WebPDemuxGetI(header->demux, WEBP_FF_FRAME_COUNT) > 1) {
        WebPIterator frame;
        if (!WebPDemuxGetFrame(header->demux, 1, &frame))
            return ci_fail(err, CI_ERR_CORRUPT, "%s: the animation has no frame", name);
        // The demuxer has checked that the frame lies inside the canvas.
        header->frame_x = (uint32_t)frame.x_offset;
        header->frame_y = (uint32_t)frame.y_offset;
        header->frame_width = (uint32_t)frame.width;
        header->frame_height = (uint32_t)frame.height;
        header->partial = header->frame_x != 0 || header->frame_y != 0 || header->frame_width != header->width ||
                          header->frame_height != header->height;
        header->bitstream = frame.fragment;  // inside `data`
        WebPDemuxReleaseIterator(&frame);
    }
    WebPBitstreamFeatures features;
    VP8StatusCode status = WebPGetFeatures(header->bitstream.bytes, header->bitstream.size, &features);
    if (status != VP8_STATUS_OK) return webp_failure(status, name, err);
    header->has_alpha = features.has_alpha || header->partial;
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

// An animation's first frame smaller than its canvas, into config's output
// as a transparent canvas of width x height (the canvas scaled) with the
// frame decoded in its place, scaled alike (its edges rounded outwards).
// The canvas is handed to the output as libwebp's own memory
// (private_memory, allocated with WebPMalloc), so WebPFreeDecBuffer frees
// it as it frees what WebPDecode allocates.
static ci_status decode_partial(const webp_header *header, uint32_t width, uint32_t height, WebPDecoderConfig *config,
                                const char *name, ci_error *err) {
    const uint8_t *data = header->bitstream.bytes;
    size_t size = header->bitstream.size;
    VP8StatusCode code = WebPGetFeatures(data, size, &config->input);
    if (code != VP8_STATUS_OK) return webp_failure(code, name, err);
    if ((uint32_t)config->input.width != header->frame_width || (uint32_t)config->input.height != header->frame_height)
        return ci_fail(err, CI_ERR_CORRUPT, "%s: the first frame is not the size its header says", name);
    uint32_t left = (uint32_t)((uint64_t)header->frame_x * width / header->width);
    uint32_t top = (uint32_t)((uint64_t)header->frame_y * height / header->height);
    uint32_t right = (uint32_t)(((uint64_t)(header->frame_x + header->frame_width) * width + header->width - 1) /
                                header->width);
    uint32_t bottom = (uint32_t)(((uint64_t)(header->frame_y + header->frame_height) * height + header->height - 1) /
                                 header->height);
    if (left >= width) left = width - 1;
    if (top >= height) top = height - 1;
    if (right > width) right = width;
    if (bottom > height) bottom = height;
    if (right <= left) right = left + 1;
    if (bottom <= top) bottom = top + 1;
    size_t stride = (size_t)width * 4, bytes = stride * height;
    uint8_t *canvas = WebPMalloc(bytes);
    if (!canvas) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory", name);
    memset(canvas, 0, bytes);
    if (right - left != header->frame_width || bottom - top != header->frame_height) {
        config->options.use_scaling = 1;
        config->options.scaled_width = (int)(right - left);
        config->options.scaled_height = (int)(bottom - top);
    }
    WebPDecBuffer *output = &config->output;
    output->colorspace = MODE_RGBA;
    output->is_external_memory = 1;
    output->u.RGBA.rgba = canvas + (size_t)top * stride + (size_t)left * 4;
    output->u.RGBA.stride = (int)stride;
    output->u.RGBA.size = stride * (bottom - top - 1) + (size_t)(right - left) * 4;
    code = WebPDecode(data, size, config);
    if (code != VP8_STATUS_OK) {
        WebPFree(canvas);
        memset(output, 0, sizeof *output);
        return webp_failure(code, name, err);
    }
    output->width = (int)width;
    output->height = (int)height;
    output->u.RGBA.rgba = canvas;
    output->u.RGBA.size = bytes;
    output->is_external_memory = 0;
    output->private_memory = canvas;
    return CI_OK;
}

// Decodes at width x height (stored orientation; the full size or smaller,
// same aspect) into libwebp's buffer: RGBA when the file has alpha, else RGB.
static ci_status decode_scaled(const webp_header *header,
                               uint32_t width, uint32_t height, const ci_limits *limits,
                               WebPDecoderConfig *config, const char *name, ci_error *err) {
    const uint8_t *data = header->bitstream.bytes;
    size_t size = header->bitstream.size;
    // The limit speaks of the photo: libwebp's lossless decoder holds the
    // whole image (4 bytes a pixel) whatever the output size.
    ci_status status = ci_check_pixels(header->width, header->height, limits, name, err);
    if (status != CI_OK) return status;
    if (!WebPInitDecoderConfig(config)) return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: libwebp version mismatch", name);
    if (header->partial) return decode_partial(header, width, height, config, name, err);
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

// Row `y` of the decoded image, columns first..first+count, into `out`,
// 4 bytes a pixel: RGBA as decoded, or RGB and 255.
static void row_out(const WebPDecoderConfig *config, uint32_t y, uint32_t first, uint32_t count, uint8_t *out) {
    const WebPRGBABuffer *rgba = &config->output.u.RGBA;
    int in_channels = config->output.colorspace == MODE_RGBA ? 4 : 3;
    const uint8_t *in = rgba->rgba + (size_t)y * (size_t)rgba->stride + (size_t)first * in_channels;
    for (uint32_t x = 0; x < count; x++, in += in_channels, out += 4) {
        out[0] = in[0];
        out[1] = in[1];
        out[2] = in[2];
        out[3] = in_channels == 4 ? in[3] : 255;
    }
}

// ---------------------------------------------------------------------------
// The loader: the whole file in memory, decoded at the driver's size by
// libwebp, handed over a row at a time.

typedef struct {
    ci_source *source;
    const ci_draw_request *request;
    webp_header header;
    WebPDecoderConfig config;
    int decoded;
} webp_draw;

static ci_status webp_open(void *state, ci_source *source, const ci_draw_request *request,
                           ci_header *header, ci_error *err) {
    webp_draw *draw = state;
    draw->source = source;
    draw->request = request;
    ci_status status = ci_source_read_all(source, err);
    if (status == CI_OK) status = read_header(source->buffer, source->filled, source->name, &draw->header, err);
    if (status != CI_OK) return status;
    header->width = draw->header.width;
    header->height = draw->header.height;
    header->orientation = draw->header.orientation;
    ci_oriented_size(header->orientation, header->width, header->height, &header->display_width,
                     &header->display_height);
    header->scales = CI_SCALES_ANY;
    header->has_alpha = draw->header.has_alpha;
    header->tag = draw->header.tag;
    memcpy(header->date_taken, draw->header.date_taken, sizeof header->date_taken);
    return CI_OK;
}

static ci_status webp_start(void *state, ci_scale *scale, ci_header *header, uint32_t *width,
                            uint32_t *height, ci_image **whole, ci_error *err) {
    webp_draw *draw = state;
    ci_status status = decode_scaled(&draw->header, scale->width,
                                     scale->height, draw->request->limits, &draw->config,
                                     draw->source->name, err);
    draw->decoded = status == CI_OK;
    *width = scale->width;
    *height = scale->height;
    return status;
}

static ci_status webp_rows(void *state, uint32_t first_row, uint32_t last_row, uint32_t first_column,
                           uint32_t columns, const ci_row_sink *sink,
                           ci_error *err) {
    webp_draw *draw = state;
    for (uint32_t y = first_row; y <= last_row; y++) {
        uint8_t *slot = sink->slot(sink->target);
        row_out(&draw->config, y, first_column, columns, slot);
        sink->push(sink->target, slot);
    }
    return CI_OK;
}

static void webp_close(void *state) {
    webp_draw *draw = state;
    if (draw->decoded) WebPFreeDecBuffer(&draw->config.output);
    header_free(&draw->header);
}

// ---------------------------------------------------------------------------
// Is the file whole?

// WebP: the RIFF header's size (little-endian, after "RIFF") covers the
// rest of the file. (A HEIF needs no walk here: libheif's probe already
// refused any item whose data lies past the end of the file.)
static ci_status webp_walk(ci_walker *w, const char *name, ci_error *err) {
    uint8_t header[12];
    for (int i = 0; i < 12; i++)
        if (!ci_walk_byte(w, &header[i])) return ci_cut_short(name, "no RIFF header", err);
    uint64_t size = (uint64_t)header[4] | (uint64_t)header[5] << 8 | (uint64_t)header[6] << 16 |
                    (uint64_t)header[7] << 24;
    if (size < 4 || !ci_walk_skip(w, size - 4)) return ci_cut_short(name, "shorter than its RIFF header says", err);
    return CI_OK;
}

static ci_status webp_complete(int fd, const char *name, ci_error *err) {
    return ci_walk_file(fd, webp_walk, name, err);
}


// ---------------------------------------------------------------------------
// The table's entry

static int webp_sniff(const uint8_t *data, size_t size) {
    return size >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0;
}

static void webp_library(char *out, size_t size) {
    int version = WebPGetDecoderVersion();
    snprintf(out, size, "libwebp %d.%d.%d", version >> 16, version >> 8 & 0xFF, version & 0xFF);
}

const ci_loader ci_webp_loader = {
    .format = CI_FORMAT_WEBP,
    .name = "WebP",
    .title = "WebP",
    .extensions = "webp",
    .library = webp_library,
    .smallest_scale = 8,
    .sniff = webp_sniff,
    .complete = webp_complete,
    .probe = webp_probe_source,
    .state_size = sizeof(webp_draw),
    .open = webp_open,
    .start = webp_start,
    .rows = webp_rows,
    .close = webp_close,
};
