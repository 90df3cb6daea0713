// draw.c — the engine's entry points for a photo file, dispatched by content
// to one file per format (jpeg.c, png.c, heif.c, webp.c), each with the same entry points
// (ci_codec: probe, draw into a cell, decode).
//
// How each format draws into a cell:
//  - JPEG: decoded straight into the cell, streaming: shrink-on-load to the
//    smallest DCT scale that still covers the cell, only the visible part
//    transformed, each row resampled as it arrives, oriented on the way out;
//    the photo is never held whole.
//  - PNG: the file in memory -> decode (alpha over the background) ->
//    resample to cover the cell (resample.c).
//  - HEIF: only the HEVC tiles the cell shows; WebP: libwebp's scaled decode.
// Each converts its colours to sRGB at cell size (colour.c), and asks crop.c
// where the crop goes (smart and attention: after decoding the whole frame
// at the draw's scale) and, for --fit contain, which part of the cell the
// photo takes.
//
// Every buffer is local to the call: calls on disjoint cells of one canvas
// may run concurrently.
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const ci_codec *ci_codec_for(ci_format format) {
    switch (format) {
    case CI_FORMAT_JPEG: return &ci_jpeg_codec;
    case CI_FORMAT_PNG: return &ci_png_codec;
    case CI_FORMAT_HEIF: return &ci_heif_codec;
    case CI_FORMAT_WEBP: return &ci_webp_codec;
    default: return NULL;
    }
}

// Opens `path` and reads its first bytes into a new source (close it with
// source_close), and finds its codec.
static ci_status source_open(const char *path, ci_source *source, const ci_codec **codec,
                             ci_error *err) {
    memset(source, 0, sizeof *source);
    source->name = path;
    source->fd = -1;
    ci_status status = ci_open_prefix(path, &source->fd, &source->file_size, &source->buffer,
                                      &source->capacity, &source->filled, err);
    if (status != CI_OK) return status;
    *codec = ci_codec_for(ci_sniff_format(source->buffer, source->filled));
    return *codec ? CI_OK : ci_fail_not_image(path, err);
}

static void source_close(ci_source *source) {
    free(source->buffer);
    if (source->fd >= 0) close(source->fd);
    memset(source, 0, sizeof *source);
    source->fd = -1;
}

ci_status ci_probe_file(const char *path, ci_photo_info *info, ci_error *err) {
    if (!path || !info) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_probe_file: missing argument");
    memset(info, 0, sizeof *info);
    // The header only, not the whole file (each codec reads what it needs).
    ci_source source;
    const ci_codec *codec = NULL;
    ci_status status = source_open(path, &source, &codec, err);
    if (status == CI_OK) status = codec->probe(&source, info, err);
    // A file cut short probes fine (its header is whole) and would fail only
    // at save: tell now, while it is cheap.
    if (status == CI_OK) status = ci_check_complete(source.fd, info->format, path, err);
    source_close(&source);
    if (status != CI_OK) memset(info, 0, sizeof *info);
    return status;
}

ci_status ci_decode_memory(const uint8_t *data, size_t size, const char *name,
                           const ci_decode_options *options, ci_image *out, ci_error *err) {
    if (!data || !options || !out)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_decode_memory: missing argument");
    if (!name) name = "(memory)";
    memset(out, 0, sizeof *out);
    const ci_codec *codec = ci_codec_for(ci_sniff_format(data, size));
    if (!codec) return ci_fail_not_image(name, err);
    return codec->decode(data, size, name, options, out, err);
}

ci_status ci_decode_file(const char *path, const ci_decode_options *options,
                         ci_image *out, ci_error *err) {
    if (!path) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_decode_file: missing path");
    uint8_t *data;
    size_t size;
    ci_status status = ci_read_file(path, &data, &size, err);
    if (status != CI_OK) return status;
    status = ci_decode_memory(data, size, path, options, out, err);
    free(data);
    return status;
}

ci_status ci_draw_photo_placed(const char *path, ci_image *canvas, ci_rect cell,
                               const ci_draw_options *options, ci_placement *placement,
                               ci_error *err) {
    if (placement) memset(placement, 0, sizeof *placement);
    if (!path || !options) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_draw_photo: missing argument");
    if (!canvas || !canvas->pixels || canvas->channels != 3 || canvas->width == 0 ||
        canvas->height == 0 || canvas->stride < (size_t)canvas->width * 3)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: the canvas must be a non-empty RGB image",
                       path);
    if (cell.width == 0 || cell.height == 0)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: empty cell %ux%u", path, cell.width,
                       cell.height);
    if (options->has_focus && !(options->focus_x >= 0 && options->focus_x <= 1 && options->focus_y >= 0 &&
                                options->focus_y <= 1))
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: the focus must be fractions from 0 to 1", path);

    ci_source source;
    const ci_codec *codec = NULL;
    ci_status status = source_open(path, &source, &codec, err);
    ci_draw_request request = {
        .background = options->background,
        .limits = &options->limits,
        .crop = options->crop,
        .fit = options->fit,
        .has_focus = options->has_focus,
        .focus = {options->focus_x, options->focus_y},
        .placement = placement,
    };
    if (status == CI_OK) status = codec->draw(&source, canvas, cell, &request, err);
    source_close(&source);
    return status;
}

ci_status ci_draw_photo(const char *path, ci_image *canvas, ci_rect cell,
                        ci_color background, const ci_limits *limits, ci_error *err) {
    ci_draw_options options;
    memset(&options, 0, sizeof options);
    options.background = background;
    if (limits) options.limits = *limits;
    return ci_draw_photo_placed(path, canvas, cell, &options, NULL, err);
}
