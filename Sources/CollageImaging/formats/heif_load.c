// heif_load.c — HEIC, HEIF and AVIF through libheif (HEVC via libde265,
// AV1 via dav1d or aom): the loader.
//
// What a phone photo costs is decoding its 12 megapixels of HEVC; everything
// after that is done only for the part the cell shows:
//  - libheif decodes with ignore_transformations and in the codec's own
//    YCbCr planes: its rotation (a strided byte copy of the whole photo) and
//    its colour conversion are skipped;
//  - the planes are converted to RGB only for the rows and columns the
//    cell shows, and the driver halves them to the scale shrink.c's rule
//    chose, as it does every loader's rows (a box average weighted by
//    alpha; the HEVC tiles skip their in-loop filters where it halves at
//    least twice);
//  - the crop and turn the file asks for (clap, irot, imir: heif_box.c) are
//    applied by the streaming resampler on the way into the cell, as EXIF
//    orientation is for JPEG. A HEIF's EXIF orientation is never applied:
//    the file's transformations already say how it is shown (HEIF 6.5.1);
//  - the embedded thumbnail is decoded instead where it covers the cell.
// Colours go to sRGB at cell size (colour.c): the ICC profile (`colr` prof)
// or the nclx primaries and transfer.
#include "../internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heif_api.h"

// ---------------------------------------------------------------------------
// Errors and the file

static ci_status heif_failure(struct heif_error error, const char *name, ci_error *err) {
    ci_status status;
    const char *what;
    switch (error.code) {
    case heif_error_Unsupported_filetype: status = CI_ERR_NOT_IMAGE; what = "not a HEIF image"; break;
    case heif_error_Unsupported_feature: status = CI_ERR_UNSUPPORTED; what = "unsupported HEIF feature"; break;
    case heif_error_Memory_allocation_error: status = CI_ERR_NO_MEMORY; what = "out of memory"; break;
    default: status = CI_ERR_CORRUPT; what = "broken HEIF file"; break;
    }
    // libheif's own limits (image size, tiles, boxes) are the pixel limit's kin.
    if (error.subcode == heif_suberror_Security_limit_exceeded) {
        status = CI_ERR_TOO_LARGE;
        what = "over libheif's security limits";
    }
    // libheif's message, without its "Invalid input: " prefix and trailing blanks.
    const char *detail = error.message ? error.message : "";
    const char *colon = strstr(detail, ": ");
    if (colon && colon - detail < 40) detail = colon + 2;
    size_t length = strlen(detail);
    while (length > 0 && (detail[length - 1] == ' ' || detail[length - 1] == '\n')) length--;
    if (length == 0) return ci_fail(err, status, "%s: %s", name, what);
    return ci_fail(err, status, "%s: %s (%.*s)", name, what, (int)length, detail);
}

// Everything one call holds, freed by job_free whatever happened.
typedef struct {
    struct heif_context *context;
    struct heif_image_handle *handle;     // the primary image
    struct heif_image_handle *thumbnail;  // when it is used instead
    struct heif_image *image;             // decoded planes
    struct heif_color_profile_nclx *nclx;
    uint8_t *icc;
    size_t icc_size;
    ci_hevc_layout *layout;               // the tiles, when read directly
    ci_heif_api api;                      // libheif and libde265 (heif_api.c)
} heif_job;

static void job_free(heif_job *job) {
    const ci_heif_api *api = &job->api;
    if (job->image) api->heif_image_release(job->image);
    if (job->thumbnail) api->heif_image_handle_release(job->thumbnail);
    if (job->handle) api->heif_image_handle_release(job->handle);
    if (job->context) api->heif_context_free(job->context);
    if (job->nclx) api->heif_nclx_color_profile_free(job->nclx);
    free(job->icc);
    free(job->layout);
    ci_heif_api_close(&job->api);
    memset(job, 0, sizeof *job);
}

// The file's primary image. libheif reads from our buffer without copying it
// and keeps its security limits (image size, grid tiles, box counts).
static ci_status open_primary(heif_job *job, const uint8_t *data, size_t size, const char *name,
                              ci_error *err) {
    ci_status loaded = ci_heif_api_open(&job->api, name, err);
    if (loaded != CI_OK) return loaded;
    const ci_heif_api *api = &job->api;
    if (size > INT_MAX) return ci_fail(err, CI_ERR_TOO_LARGE, "%s: file is too large", name);
    job->context = api->heif_context_alloc();
    if (!job->context) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory", name);
    struct heif_error error = api->heif_context_read_from_memory_without_copy(job->context, data, size, NULL);
    if (error.code != heif_error_Ok) return heif_failure(error, name, err);
    error = api->heif_context_get_primary_image_handle(job->context, &job->handle);
    if (error.code != heif_error_Ok) return heif_failure(error, name, err);
    int width = api->heif_image_handle_get_width(job->handle);
    int height = api->heif_image_handle_get_height(job->handle);
    if (width <= 0 || height <= 0)
        return ci_fail(err, CI_ERR_CORRUPT, "%s: the image has no pixels", name);
    return CI_OK;
}

// The coded size of the primary image (before its transformations).
static void stored_size(const ci_heif_api *api, const struct heif_image_handle *handle, uint32_t *width,
                        uint32_t *height) {
    int w = api->heif_image_handle_get_ispe_width(handle), h = api->heif_image_handle_get_ispe_height(handle);
    if (w <= 0 || h <= 0) {
        w = api->heif_image_handle_get_width(handle);
        h = api->heif_image_handle_get_height(handle);
    }
    *width = (uint32_t)w;
    *height = (uint32_t)h;
}

// ---------------------------------------------------------------------------
// Probe

// The date taken from the primary image's first Exif item: 4 bytes (big
// endian) giving the offset of the TIFF header after them, then the EXIF.
static void read_date_taken(const ci_heif_api *api, const struct heif_image_handle *handle, char *date_taken,
                            ci_position *position) {
    heif_item_id id;
    if (api->heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) < 1) return;
    size_t size = api->heif_image_handle_get_metadata_size(handle, id);
    if (size < 4 || size > CI_EXIF_MAX_BYTES) return;
    uint8_t *data = malloc(size);
    if (!data) return;
    struct heif_error error = api->heif_image_handle_get_metadata(handle, id, data);
    uint32_t offset = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3];
    if (error.code == heif_error_Ok && offset < size - 4)
        ci_exif_read_tiff(data + 4 + offset, size - 4 - offset, date_taken, position);
    free(data);
}

static ci_status heif_probe_source(ci_source *source, ci_photo_info *info, ci_error *err) {
    memset(info, 0, sizeof *info);  // and so it stays on failure
    ci_status status = ci_source_read_all(source, err);
    if (status != CI_OK) return status;
    heif_job job;
    memset(&job, 0, sizeof job);
    status = open_primary(&job, source->buffer, source->filled, source->name, err);
    const ci_heif_api *api = &job.api;
    if (status == CI_OK) {
        info->format = CI_FORMAT_HEIF;
        // As displayed: libheif's handle reports the size after the
        // transformations, which are part of the image (not an EXIF tag).
        info->width = info->display_width = (uint32_t)api->heif_image_handle_get_width(job.handle);
        info->height = info->display_height = (uint32_t)api->heif_image_handle_get_height(job.handle);
        info->orientation = 1;
        info->has_alpha = api->heif_image_handle_has_alpha_channel(job.handle) != 0;
        read_date_taken(api, job.handle, info->date_taken, &info->position);
    }
    job_free(&job);
    return status;
}

// ---------------------------------------------------------------------------
// Decoding to planes

// The planes of a decoded image and how to turn them into RGB.
typedef struct {
    enum { PLANES_YCBCR, PLANES_MONO, PLANES_RGB, PLANES_RGBA } kind;
    const uint8_t *plane[3];   // Y Cb Cr, or R G B, or Y; [0] interleaved RGBA
    int stride[3];
    int chroma_shift_x, chroma_shift_y;
    const uint8_t *alpha;      // NULL: opaque
    int alpha_stride;
    int wide;                  // samples are 16-bit (more than 8 bits)
    int bits;
    // YCbCr -> RGB: R = Y + cr_r Cr, G = Y + cb_g Cb + cr_g Cr, B = Y + cb_b Cb,
    // after Y and C are taken to 0-255 by (value - offset) * scale.
    float y_offset, y_scale, c_offset, c_scale;
    float cr_r, cb_g, cr_g, cb_b;
    int identity;              // matrix 0: the planes are G, B, R
    uint32_t origin_x, origin_y;  // the stored pixel at the planes' (0, 0) (a tile's corner)
} planes;

// Kr and Kb of an H.273 matrix_coefficients code point; BT.601 for the
// unspecified ones, as libheif's own conversion assumes.
static void matrix_coefficients(int matrix, float *kr, float *kb) {
    switch (matrix) {
    case 1: *kr = 0.2126f; *kb = 0.0722f; break;   // BT.709
    case 4: *kr = 0.30f; *kb = 0.11f; break;       // FCC
    case 7: *kr = 0.212f; *kb = 0.087f; break;     // SMPTE 240M
    case 9: case 10: *kr = 0.2627f; *kb = 0.0593f; break;  // BT.2020
    default: *kr = 0.299f; *kb = 0.114f; break;    // BT.601 (5, 6) and unspecified
    }
}

// Kr and Kb derived from the primaries (matrix 12 and 13, "chromaticity
// derived"): ITU-T H.273 equations 39 and 40. 0 when they do not make sense.
static int derived_coefficients(const struct heif_color_profile_nclx *n, float *kr, float *kb) {
    double xr = n->color_primary_red_x, yr = n->color_primary_red_y, zr = 1 - xr - yr;
    double xg = n->color_primary_green_x, yg = n->color_primary_green_y, zg = 1 - xg - yg;
    double xb = n->color_primary_blue_x, yb = n->color_primary_blue_y, zb = 1 - xb - yb;
    double xw = n->color_primary_white_x, yw = n->color_primary_white_y, zw = 1 - xw - yw;
    double denominator = yw * (xr * (yg * zb - yb * zg) + xg * (yb * zr - yr * zb) + xb * (yr * zg - yg * zr));
    if (denominator == 0 || !(denominator == denominator)) return 0;
    double r = yr * (xw * (yg * zb - yb * zg) + yw * (xb * zg - xg * zb) + zw * (xg * yb - xb * yg)) / denominator;
    double b = yb * (xw * (yr * zg - yg * zr) + yw * (xg * zr - xr * zg) + zw * (xr * yg - xg * yr)) / denominator;
    if (!(r > 0 && b > 0 && r + b < 1)) return 0;
    *kr = (float)r;
    *kb = (float)b;
    return 1;
}

static void set_matrix(planes *p, const struct heif_color_profile_nclx *nclx) {
    int matrix = nclx ? (int)nclx->matrix_coefficients : 6;
    int full_range = nclx ? nclx->full_range_flag : 1;
    float max = (float)((1 << p->bits) - 1), unit = (float)(1 << (p->bits - 8));
    p->identity = matrix == 0;
    if (full_range) {
        p->y_offset = 0;
        p->y_scale = 255.0f / max;
        p->c_offset = (float)(1 << (p->bits - 1));
        p->c_scale = 255.0f / max;
    } else {
        p->y_offset = 16 * unit;
        p->y_scale = 255.0f / (219 * unit);
        p->c_offset = 128 * unit;
        p->c_scale = 255.0f / (224 * unit);
    }
    float kr, kb;
    // 12 and 13 (constant luminance, rare, taken as 12) derive the matrix
    // from the primaries: for Display P3, Kr 0.229 and Kb 0.079, not BT.601's.
    if (!((matrix == 12 || matrix == 13) && derived_coefficients(nclx, &kr, &kb)))
        matrix_coefficients(matrix, &kr, &kb);
    float kg = 1 - kr - kb;
    p->cr_r = 2 * (1 - kr);
    p->cb_b = 2 * (1 - kb);
    p->cb_g = -2 * kb * (1 - kb) / kg;
    p->cr_g = -2 * kr * (1 - kr) / kg;
}

// The planes of a decoded image in its own colour space (YCbCr, grey or
// RGB), their depth, alpha and the matrix that turns them into RGB: the
// file's nclx, else the coded stream's (the decoder attaches it: AV1's
// sequence header; HEVC's VUI from libheif versions whose libde265 plugin
// passes it on, 1.15 does not), else full-range BT.601, libheif's default.
// CI_ERR_UNSUPPORTED for any other layout of planes.
static ci_status image_planes(const heif_job *job, const struct heif_image *image, planes *p, const char *name,
                              ci_error *err) {
    const ci_heif_api *api = &job->api;
    memset(p, 0, sizeof *p);
    enum heif_colorspace space = api->heif_image_get_colorspace(image);
    enum heif_chroma chroma = api->heif_image_get_chroma_format(image);
    if (space == heif_colorspace_YCbCr &&
        (chroma == heif_chroma_420 || chroma == heif_chroma_422 || chroma == heif_chroma_444)) {
        p->kind = PLANES_YCBCR;
        static const enum heif_channel channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
        for (int i = 0; i < 3; i++) p->plane[i] = api->heif_image_get_plane_readonly(image, channels[i], &p->stride[i]);
        p->chroma_shift_x = chroma != heif_chroma_444;
        p->chroma_shift_y = chroma == heif_chroma_420;
    } else if (space == heif_colorspace_monochrome) {
        p->kind = PLANES_MONO;
        p->plane[0] = api->heif_image_get_plane_readonly(image, heif_channel_Y, &p->stride[0]);
    } else if (space == heif_colorspace_RGB && chroma == heif_chroma_444) {
        p->kind = PLANES_RGB;
        static const enum heif_channel channels[3] = {heif_channel_R, heif_channel_G, heif_channel_B};
        for (int i = 0; i < 3; i++) p->plane[i] = api->heif_image_get_plane_readonly(image, channels[i], &p->stride[i]);
    } else if (space == heif_colorspace_RGB && chroma == heif_chroma_interleaved_RGBA) {
        p->kind = PLANES_RGBA;
        p->plane[0] = api->heif_image_get_plane_readonly(image, heif_channel_interleaved, &p->stride[0]);
    } else {
        return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: unsupported HEIF colour layout", name);
    }
    for (int i = 0; i < (p->kind == PLANES_YCBCR || p->kind == PLANES_RGB ? 3 : 1); i++)
        if (!p->plane[i] || p->stride[i] <= 0)
            return ci_fail(err, CI_ERR_CORRUPT, "%s: the decoder returned no pixels", name);

    enum heif_channel first = p->kind == PLANES_RGB ? heif_channel_R
                              : p->kind == PLANES_RGBA ? heif_channel_interleaved
                                                       : heif_channel_Y;
    p->bits = p->kind == PLANES_RGBA ? 8 : api->heif_image_get_bits_per_pixel_range(image, first);
    if (p->bits < 8 || p->bits > 16)
        return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: %d-bit samples are not supported", name, p->bits);
    p->wide = p->bits > 8;
    if (p->kind != PLANES_RGBA && api->heif_image_has_channel(image, heif_channel_Alpha)) {
        p->alpha = api->heif_image_get_plane_readonly(image, heif_channel_Alpha, &p->alpha_stride);
        if (p->alpha && api->heif_image_get_bits_per_pixel_range(image, heif_channel_Alpha) != p->bits)
            p->alpha = NULL;  // a mismatched alpha depth: shown opaque rather than wrong
    }
    struct heif_color_profile_nclx *image_nclx = NULL;
    if (api->heif_image_get_nclx_color_profile(image, &image_nclx).code != heif_error_Ok) image_nclx = NULL;
    set_matrix(p, job->nclx ? job->nclx : image_nclx);
    if (image_nclx) api->heif_nclx_color_profile_free(image_nclx);
    if (p->kind != PLANES_YCBCR) {
        p->y_offset = 0;
        p->y_scale = 255.0f / (float)((1 << p->bits) - 1);
    }
    return CI_OK;
}

// Decodes `handle` (the primary or its thumbnail) in its own colour space,
// or where that is none image_planes takes, as 8-bit RGBA (rare; libheif's
// own conversion, whose cost does not matter here).
static ci_status decode_planes(heif_job *job, const struct heif_image_handle *handle,
                               int ignore_transformations, planes *p, const char *name,
                               ci_error *err) {
    const ci_heif_api *api = &job->api;
    for (int rgba = 0; rgba < 2; rgba++) {
        struct heif_decoding_options *options = api->heif_decoding_options_alloc();
        if (!options) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory", name);
        options->ignore_transformations = (uint8_t)ignore_transformations;
        options->convert_hdr_to_8bit = (uint8_t)rgba;  // else reduced from all 10 or 12 bits, rounded once
        if (job->image) api->heif_image_release(job->image);
        job->image = NULL;
        struct heif_error error = api->heif_decode_image(handle, &job->image, rgba ? heif_colorspace_RGB : heif_colorspace_undefined,
                                                         rgba ? heif_chroma_interleaved_RGBA : heif_chroma_undefined, options);
        api->heif_decoding_options_free(options);
        if (error.code != heif_error_Ok) return heif_failure(error, name, err);
        ci_error local;
        ci_status status = image_planes(job, job->image, p, name, &local);
        if (status != CI_ERR_UNSUPPORTED || rgba) {
            if (status != CI_OK && err) *err = local;
            return status;
        }
    }
    return CI_OK;  // not reached: the RGBA pass returns
}

// The sample at column x, row y of a plane.
static inline uint32_t sample(const uint8_t *plane, int stride, int wide, uint32_t x, uint32_t y) {
    const uint8_t *row = plane + (size_t)y * (size_t)stride;
    return wide ? ((const uint16_t *)(const void *)row)[x] : row[x];
}

static inline uint8_t to_byte(float value) {
    if (value <= 0) return 0;
    if (value >= 255) return 255;
    return (uint8_t)(value + 0.5f);
}

// The part of the stored image shown: the file's crop (clap).
typedef struct {
    uint32_t crop_x, crop_y, crop_width, crop_height;
} crop_area;

// Row `row` of the crop, columns first..first+count-1, into `out` as RGBA
// (straight alpha; 255 where there is none), at full size: the driver
// halves it to the scale shrink.c's rule chose (CI_SCALES_HALVINGS), its
// box weighted by alpha, as every loader's rows are.
static void convert_row(const planes *p, const crop_area *r, uint32_t row, uint32_t first, uint32_t count,
                        uint8_t *out) {
    // In the planes' own coordinates.
    const uint32_t y = r->crop_y + row - p->origin_y, cy = y >> p->chroma_shift_y;
    if (p->kind == PLANES_YCBCR && !p->identity && !p->alpha) {
        // A camera's photo: each chroma sample's terms once for the pixels
        // that share it (two across in 4:2:0), the same sums as below in
        // the same order, so the same bytes. Every pixel of the rows shown
        // is converted (the driver halves after), so this loop is most of
        // a HEIF's time after the HEVC decode.
        uint32_t last = UINT32_MAX;
        float red_cr = 0, green_cb = 0, green_cr = 0, blue_cb = 0;
        for (uint32_t i = 0; i < count; i++, out += 4) {
            const uint32_t x = r->crop_x + first + i - p->origin_x, cx = x >> p->chroma_shift_x;
            if (cx != last) {
                last = cx;
                const float cb = ((float)sample(p->plane[1], p->stride[1], p->wide, cx, cy) - p->c_offset) * p->c_scale;
                const float cr = ((float)sample(p->plane[2], p->stride[2], p->wide, cx, cy) - p->c_offset) * p->c_scale;
                red_cr = p->cr_r * cr;
                green_cb = p->cb_g * cb;
                green_cr = p->cr_g * cr;
                blue_cb = p->cb_b * cb;
            }
            const float luma = ((float)sample(p->plane[0], p->stride[0], p->wide, x, y) - p->y_offset) * p->y_scale;
            out[0] = to_byte(luma + red_cr);
            out[1] = to_byte(luma + green_cb + green_cr);
            out[2] = to_byte(luma + blue_cb);
            out[3] = 255;
        }
        return;
    }
    for (uint32_t i = 0; i < count; i++, out += 4) {
        const uint32_t x = r->crop_x + first + i - p->origin_x;
        float red, green, blue, alpha = 255;
        if (p->kind == PLANES_RGBA) {
            const uint8_t *px = p->plane[0] + (size_t)y * (size_t)p->stride[0] + (size_t)x * 4;
            red = px[0];
            green = px[1];
            blue = px[2];
            alpha = px[3];
        } else {
            float luma = ((float)sample(p->plane[0], p->stride[0], p->wide, x, y) - p->y_offset) * p->y_scale;
            if (p->kind == PLANES_MONO) {
                red = green = blue = luma;
            } else if (p->kind == PLANES_RGB) {
                red = luma;
                green = (float)sample(p->plane[1], p->stride[1], p->wide, x, y) * p->y_scale;
                blue = (float)sample(p->plane[2], p->stride[2], p->wide, x, y) * p->y_scale;
            } else {
                // The nearest chroma sample, as libheif 1.15's own
                // conversion does, so a full decode equals heif-convert's.
                const uint32_t cx = x >> p->chroma_shift_x;
                float cb = (float)sample(p->plane[1], p->stride[1], p->wide, cx, cy);
                float cr = (float)sample(p->plane[2], p->stride[2], p->wide, cx, cy);
                if (p->identity) {
                    // GBR: Y holds green, Cb blue, Cr red, all on Y's scale.
                    green = luma;
                    blue = (cb - p->y_offset) * p->y_scale;
                    red = (cr - p->y_offset) * p->y_scale;
                } else {
                    cb = (cb - p->c_offset) * p->c_scale;
                    cr = (cr - p->c_offset) * p->c_scale;
                    red = luma + p->cr_r * cr;
                    green = luma + p->cb_g * cb + p->cr_g * cr;
                    blue = luma + p->cb_b * cb;
                }
            }
            if (p->alpha)
                alpha = (float)sample(p->alpha, p->alpha_stride, p->wide, x, y) *
                        (255.0f / (float)((1 << p->bits) - 1));
        }
        out[0] = to_byte(red);
        out[1] = to_byte(green);
        out[2] = to_byte(blue);
        out[3] = to_byte(alpha);
    }
}

// The colour tag of the primary image: its ICC profile and/or nclx. The
// profile is copied into the job; the tag points into it.
static void read_colour(heif_job *job, ci_colour_tag *tag) {
    const ci_heif_api *api = &job->api;
    memset(tag, 0, sizeof *tag);
    size_t size = api->heif_image_handle_get_raw_color_profile_size(job->handle);
    if (size > 0 && size < ((size_t)64 << 20)) {
        job->icc = malloc(size);
        if (job->icc &&
            api->heif_image_handle_get_raw_color_profile(job->handle, job->icc).code == heif_error_Ok) {
            job->icc_size = size;
            tag->icc = job->icc;
            tag->icc_size = size;
        }
    }
    if (api->heif_image_handle_get_nclx_color_profile(job->handle, &job->nclx).code != heif_error_Ok)
        job->nclx = NULL;
    if (job->nclx) {
        tag->has_nclx = 1;
        tag->primaries = (int)job->nclx->color_primaries;
        tag->transfer = (int)job->nclx->transfer_characteristics;
        tag->matrix = (int)job->nclx->matrix_coefficients;
        tag->full_range = job->nclx->full_range_flag;
    }
}

// Sets job->thumbnail to a thumbnail that covers an upright need_width x
// need_height, if there is one. Returns whether there is.
static int find_thumbnail(heif_job *job, uint32_t need_width, uint32_t need_height) {
    const ci_heif_api *api = &job->api;
    if (job->thumbnail) return 1;
    uint32_t shown_w = (uint32_t)api->heif_image_handle_get_width(job->handle);
    uint32_t shown_h = (uint32_t)api->heif_image_handle_get_height(job->handle);
    heif_item_id ids[4];
    int count = api->heif_image_handle_get_list_of_thumbnail_IDs(job->handle, ids, 4);
    for (int i = 0; i < count && need_width > 0; i++) {
        struct heif_image_handle *thumb = NULL;
        if (api->heif_image_handle_get_thumbnail(job->handle, ids[i], &thumb).code != heif_error_Ok) continue;
        int tw = api->heif_image_handle_get_width(thumb), th = api->heif_image_handle_get_height(thumb);
        // The same picture: its aspect within a pixel of the photo's.
        int same_shape = tw > 0 && th > 0 &&
                         llabs((long long)tw * shown_h - (long long)th * shown_w) <=
                             (long long)(shown_w > shown_h ? shown_w : shown_h);
        if (same_shape && (uint32_t)tw >= need_width && (uint32_t)th >= need_height) {
            job->thumbnail = thumb;
            break;
        }
        api->heif_image_handle_release(thumb);
    }
    return job->thumbnail != NULL;
}

// What a draw or decode reads, chosen in two steps: `choose` decides which
// image and where the picture lies in its coded pixels (the geometry), then
// the caller picks the scale from it (the shrink rule), then `load`
// gets the pixels: the HEVC tiles when they can be read directly, else
// libheif's decode in the codec's planes.
typedef struct {
    ci_heif_geometry g;
    int thumbnail;            // the thumbnail stands in (libheif applies its transformations)
    int ours;                 // the transformations are applied here (ignore_transformations)
    ci_hevc_layout *layout;   // set by load: the tiles path
    planes p;                 // set by load otherwise
} heif_read;

// The primary image's transformations (clap, irot, imir) as one crop of the
// stored image and a turn, or 0 when they cannot be followed here (the
// caller then lets libheif apply them). libheif 1.16 lists them itself;
// with an older one (Debian 12 has 1.15) heif_box.c reads them from the
// boxes: when the oldest libheif supported is 1.16, ci_heif_transform and
// its box walk can go.
static int transformations(heif_job *job, const uint8_t *data, size_t size, uint32_t stored_w,
                           uint32_t stored_h, ci_heif_geometry *g) {
#if LIBHEIF_HAVE_VERSION(1, 16, 0)
    (void)data;
    (void)size;
    const ci_heif_api *api = &job->api;
    heif_item_id item = api->heif_image_handle_get_item_id(job->handle);
    heif_property_id ids[16];
    int count = api->heif_item_get_transformation_properties(job->context, item, ids, 16);
    if (count < 0 || count > 16) return 0;
    ci_heif_mapping m;
    ci_heif_mapping_start(&m, stored_w, stored_h);
    for (int i = 0; i < count; i++) {
        switch (api->heif_item_get_property_type(job->context, item, ids[i])) {
        case heif_item_property_type_transform_rotation: {
            int degrees = api->heif_item_get_property_transform_rotation_ccw(job->context, item, ids[i]);
            if (degrees < 0 || degrees % 90 != 0) return 0;
            ci_heif_mapping_rotate(&m, degrees / 90);
            break;
        }
        case heif_item_property_type_transform_mirror: {
            enum heif_transform_mirror_direction axis =
                api->heif_item_get_property_transform_mirror(job->context, item, ids[i]);
            if (axis == heif_transform_mirror_direction_invalid) return 0;
            ci_heif_mapping_mirror(&m, axis == heif_transform_mirror_direction_horizontal);
            break;
        }
        case heif_item_property_type_transform_crop: {
            int left = 0, top = 0, right = 0, bottom = 0;  // what is cut from each side
            api->heif_item_get_property_transform_crop_borders(job->context, item, ids[i], (int)m.width,
                                                               (int)m.height, &left, &top, &right, &bottom);
            if (!ci_heif_mapping_crop(&m, left, top, m.width - 1 - right, m.height - 1 - bottom)) return 0;
            break;
        }
        default: return 0;
        }
    }
    memset(g, 0, sizeof *g);
    return ci_heif_mapping_finish(&m, stored_w, stored_h, g);
#else
    (void)job;
    return ci_heif_transform(data, size, stored_w, stored_h, g);
#endif
}

// Chooses for an upright need_width x need_height (0 x 0: full size): the
// thumbnail when it covers it, else the primary image.
static void choose(heif_job *job, const uint8_t *data, size_t size, uint32_t need_width,
                   uint32_t need_height, heif_read *read) {
    const ci_heif_api *api = &job->api;
    memset(read, 0, sizeof *read);
    uint32_t shown_w = (uint32_t)api->heif_image_handle_get_width(job->handle);
    uint32_t shown_h = (uint32_t)api->heif_image_handle_get_height(job->handle);
    if (find_thumbnail(job, need_width, need_height)) {
        uint32_t tw = (uint32_t)api->heif_image_handle_get_width(job->thumbnail);
        uint32_t th = (uint32_t)api->heif_image_handle_get_height(job->thumbnail);
        read->g = (ci_heif_geometry){0, 0, tw, th, 1, tw, th};
        read->thumbnail = 1;
        return;
    }
    uint32_t stored_w, stored_h;
    stored_size(&job->api, job->handle, &stored_w, &stored_h);
    read->ours = transformations(job, data, size, stored_w, stored_h, &read->g) &&
                 read->g.width == shown_w && read->g.height == shown_h;
    // An alpha image carries transformations of its own, which libheif
    // applies to it (abc_color_irot_alpha_irot.avif); with alpha, a turned
    // or cropped image is left to libheif (no phone photo has alpha).
    int identity = read->g.orientation == 1 && read->g.crop_width == stored_w &&
                   read->g.crop_height == stored_h;
    if (api->heif_image_handle_has_alpha_channel(job->handle) && !identity) read->ours = 0;
    if (!read->ours) read->g = (ci_heif_geometry){0, 0, shown_w, shown_h, 1, shown_w, shown_h};
}

// Whether the tiles can be read directly: a row of them at a time, at most
// 64 across.
static int tiles_fit(const ci_hevc_layout *layout) {
    return layout->columns <= 64;
}

// Whether every plane the conversion reads holds the crop: a file may claim
// one size in its header and code another (fuzzing found a header of
// 57373 x 100 over a 29 x 100 image).
static int planes_cover(const ci_heif_api *api, const struct heif_image *image, const planes *p,
                        const ci_heif_geometry *g) {
    uint32_t right = g->crop_x + g->crop_width, bottom = g->crop_y + g->crop_height;
    enum heif_channel channels[4];
    int count = 0;
    switch (p->kind) {
    case PLANES_YCBCR:
        channels[count++] = heif_channel_Y;
        channels[count++] = heif_channel_Cb;
        channels[count++] = heif_channel_Cr;
        break;
    case PLANES_MONO: channels[count++] = heif_channel_Y; break;
    case PLANES_RGB:
        channels[count++] = heif_channel_R;
        channels[count++] = heif_channel_G;
        channels[count++] = heif_channel_B;
        break;
    case PLANES_RGBA: channels[count++] = heif_channel_interleaved; break;
    }
    if (p->alpha) channels[count++] = heif_channel_Alpha;
    for (int i = 0; i < count; i++) {
        int chroma = channels[i] == heif_channel_Cb || channels[i] == heif_channel_Cr;
        uint32_t shift_x = chroma ? (uint32_t)p->chroma_shift_x : 0, shift_y = chroma ? (uint32_t)p->chroma_shift_y : 0;
        int width = api->heif_image_get_width(image, channels[i]), height = api->heif_image_get_height(image, channels[i]);
        if (width <= 0 || height <= 0 || (uint32_t)width < ((right + shift_x) >> shift_x) ||
            (uint32_t)height < ((bottom + shift_y) >> shift_y))
            return 0;
    }
    return 1;
}

// The primary image's grid of tiles, for decoding only those a cell shows.
// libheif 1.19 decodes one tile of a grid itself
// (heif_image_handle_decode_image_tile); before that (Debian 12 has 1.15)
// heif_box.c finds the tiles' HEVC data and libde265 decodes them here. When
// the oldest libheif supported is 1.19, the libde265 path and
// ci_heif_hevc_layout can go.
#if LIBHEIF_HAVE_VERSION(1, 19, 0)
#define CI_TILES_BY_LIBHEIF 1
#else
#define CI_TILES_BY_LIBHEIF 0
#endif

static int tile_layout(const heif_job *job, const uint8_t *data, size_t size, ci_hevc_layout *layout) {
#if CI_TILES_BY_LIBHEIF
    (void)data;
    (void)size;
    struct heif_image_tiling tiling;
    memset(&tiling, 0, sizeof tiling);
    if (job->api.heif_image_handle_get_image_tiling(job->handle, 0, &tiling).code != heif_error_Ok) return 0;
    if (tiling.num_columns == 0 || tiling.num_rows == 0 || tiling.tile_width == 0 || tiling.tile_height == 0) return 0;
    memset(layout, 0, sizeof *layout);
    layout->columns = tiling.num_columns;
    layout->rows = tiling.num_rows;
    layout->tile_width = tiling.tile_width;
    layout->tile_height = tiling.tile_height;
    layout->width = tiling.image_width;
    layout->height = tiling.image_height;
    return 1;
#else
    (void)job;
    return ci_heif_hevc_layout(data, size, layout) == CI_OK;
#endif
}

// Gets the pixels `read` chose. The pixel limit is checked first, on what
// would be decoded whole (the tiles path decodes a row of tiles at a time,
// but the limit speaks of the photo, as elsewhere).
static ci_status load(heif_job *job, const uint8_t *data, size_t size, const ci_limits *limits, heif_read *read,
                      const char *name, ci_error *err) {
    const ci_heif_api *api = &job->api;
    ci_status status;
    if (read->thumbnail) {
        status = ci_check_pixels(read->g.width, read->g.height, limits, name, err);
        if (status == CI_OK) status = decode_planes(job, job->thumbnail, 0, &read->p, name, err);
    } else {
        uint32_t stored_w, stored_h;
        stored_size(&job->api, job->handle, &stored_w, &stored_h);
        status = ci_check_pixels(stored_w, stored_h, limits, name, err);
        if (status != CI_OK) return status;
        if (read->ours && !api->heif_image_handle_has_alpha_channel(job->handle)) {
            job->layout = malloc(sizeof *job->layout);
            if (!job->layout) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory", name);
            if (tile_layout(job, data, size, job->layout) && job->layout->width == stored_w &&
                job->layout->height == stored_h && tiles_fit(job->layout)) {
                read->layout = job->layout;
                return CI_OK;  // each tile is checked as it is decoded (tile_planes)
            }
        }
        status = decode_planes(job, job->handle, read->ours, &read->p, name, err);
    }
    if (status == CI_OK && !planes_cover(api, job->image, &read->p, &read->g))
        status = ci_fail(err, CI_ERR_CORRUPT, "%s: the decoded image is smaller than its header says", name);
    return status;
}

// Where converted rows go, in order: rows first_row..last_row, columns
// first..first+columns.
typedef struct {
    const ci_row_sink *rows;
    uint32_t first_row, last_row, first_column, columns;
} row_sink;

static uint8_t *sink_row(const row_sink *sink, uint32_t y) {
    (void)y;
    return sink->rows->slot(sink->rows->target);
}

static void sink_done(const row_sink *sink, uint8_t *row) {
    sink->rows->push(sink->rows->target, row);
}

// ---------------------------------------------------------------------------
// HEVC tiles straight through libde265
//
// A phone's HEIC is a grid of 512x512 HEVC tiles. libheif 1.15 decodes all
// of them and pastes them into one full-size image (a copy, and 18 MB of
// fresh pages per photo); a cell cropped from the photo needs only some of
// them. Here the tiles the cell shows are decoded one row of tiles at a
// time, each converted from libde265's own planes into the cell's rows.

typedef struct {
    de265_decoder_context *decoder;      // libde265's path
    const struct de265_image *image;
    struct heif_image *picture;          // libheif's (1.19)
} tile_decode;

static void tile_free(const ci_heif_api *api, tile_decode *tile) {
    if (tile->decoder) api->de265_free_decoder(tile->decoder);
    if (tile->picture) api->heif_image_release(tile->picture);
    memset(tile, 0, sizeof *tile);
}

static uint32_t read_length(const uint8_t *p, unsigned bytes) {
    uint32_t value = 0;
    for (unsigned i = 0; i < bytes; i++) value = value << 8 | p[i];
    return value;
}

// Pushes the NAL units of `data`: each preceded by its length in
// `length_bytes` bytes (the hvcC's lengthSizeMinusOne + 1).
static int push_units(const ci_heif_api *api, de265_decoder_context *decoder, const uint8_t *data, size_t size,
                      unsigned length_bytes) {
    size_t at = 0;
    while (at < size) {
        if (size - at < length_bytes) return 0;
        uint32_t length = read_length(data + at, length_bytes);
        at += length_bytes;
        if (length == 0 || length > size - at || length > INT_MAX) return 0;
        if (!api->de265_isOK(api->de265_push_NAL(decoder, data + at, (int)length, 0, NULL))) return 0;
        at += length;
    }
    return 1;
}

// Decodes tile `index`: the hvcC's parameter sets, then its data, for the
// driver to halve `halving` times (1, 2, 4 or 8).
static ci_status decode_tile(const heif_job *job, const ci_hevc_layout *layout, uint32_t index,
                             uint32_t halving, tile_decode *tile, const char *name, ci_error *err) {
    const ci_heif_api *api = &job->api;
#if CI_TILES_BY_LIBHEIF
    (void)halving;
    struct heif_decoding_options *options = api->heif_decoding_options_alloc();
    if (!options) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory", name);
    options->ignore_transformations = 1;
    options->convert_hdr_to_8bit = 0;
    struct heif_error error = api->heif_image_handle_decode_image_tile(
        job->handle, &tile->picture, heif_colorspace_undefined, heif_chroma_undefined, options,
        index % layout->columns, index / layout->columns);
    api->heif_decoding_options_free(options);
    return error.code == heif_error_Ok ? CI_OK : heif_failure(error, name, err);
#endif
    tile->decoder = api->de265_new_decoder();
    if (!tile->decoder) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory", name);
    if (halving >= 4) {
        // HEVC's in-loop filters (deblocking, SAO) smooth 8x8 block edges
        // and ringing at full size; a 4x4 box average or more over them
        // leaves no trace of their work: measured on arrow.heic and pug.heic
        // in a 640x540 cell, 59.6 and 64.5 dB PSNR against the filtered
        // decode (3 levels at most), 13% and 8% less CPU. (Nothing later
        // predicts from a tile: each is its own picture.)
        api->de265_set_parameter_bool(tile->decoder, DE265_DECODER_PARAM_DISABLE_DEBLOCKING, 1);
        api->de265_set_parameter_bool(tile->decoder, DE265_DECODER_PARAM_DISABLE_SAO, 1);
    }
    const uint8_t *config = layout->config;
    size_t size = layout->config_size;  // at least 23 (heif_box.c)
    unsigned length_bytes = (config[21] & 3) + 1;
    unsigned arrays = config[22];
    size_t at = 23;
    for (unsigned a = 0; a < arrays; a++) {
        if (size - at < 3) return ci_fail(err, CI_ERR_CORRUPT, "%s: broken HEVC configuration", name);
        unsigned units = (unsigned)config[at + 1] << 8 | config[at + 2];
        at += 3;
        for (unsigned u = 0; u < units; u++) {
            // Each parameter set: a 16-bit length, then the unit.
            if (size - at < 2) return ci_fail(err, CI_ERR_CORRUPT, "%s: broken HEVC configuration", name);
            size_t length = read_length(config + at, 2);
            if (length > size - at - 2 || !push_units(api, tile->decoder, config + at, 2 + length, 2))
                return ci_fail(err, CI_ERR_CORRUPT, "%s: broken HEVC configuration", name);
            at += 2 + length;
        }
    }
    if (!push_units(api, tile->decoder, layout->tile[index].data, layout->tile[index].size, length_bytes))
        return ci_fail(err, CI_ERR_CORRUPT, "%s: broken HEVC data in tile %u", name, index + 1);
    api->de265_flush_data(tile->decoder);
    int more = 1;
    while (more) {
        de265_error error = api->de265_decode(tile->decoder, &more);
        if (!api->de265_isOK(error) && error != DE265_ERROR_WAITING_FOR_INPUT_DATA)
            return ci_fail(err, CI_ERR_CORRUPT, "%s: broken HEVC data in tile %u (%s)", name, index + 1,
                           api->de265_get_error_text(error));
        if (api->de265_peek_next_picture(tile->decoder)) break;
    }
    tile->image = api->de265_get_next_picture(tile->decoder);
    if (!tile->image) return ci_fail(err, CI_ERR_CORRUPT, "%s: tile %u decoded to nothing", name, index + 1);
    return CI_OK;
}

// What a tile's stream says of its colours (its SPS's VUI), for a file
// without an nclx of its own. A VUI that says nothing means limited range
// (HEVC's default) and an unspecified matrix (BT.601 here): a phone photo
// whose stream signals limited range was drawn washed out (blacks at 16,
// whites at 235) when full range was assumed.
static struct heif_color_profile_nclx stream_colours(const ci_heif_api *api, const struct de265_image *image) {
    struct heif_color_profile_nclx nclx;
    memset(&nclx, 0, sizeof nclx);  // no chromaticities: matrices 12 and 13 fall back to BT.601
    nclx.version = 1;
    nclx.color_primaries = (enum heif_color_primaries)api->de265_get_image_colour_primaries(image);
    nclx.transfer_characteristics =
        (enum heif_transfer_characteristics)api->de265_get_image_transfer_characteristics(image);
    nclx.matrix_coefficients = (enum heif_matrix_coefficients)api->de265_get_image_matrix_coefficients(image);
    nclx.full_range_flag = (uint8_t)(api->de265_get_image_full_range_flag(image) != 0);
    return nclx;
}

// The planes of a decoded tile at column, row of the grid.
static ci_status tile_planes(const heif_job *job, const ci_hevc_layout *layout, const tile_decode *tile, uint32_t column,
                             uint32_t row, planes *p, const char *name, ci_error *err) {
    const ci_heif_api *api = &job->api;
    memset(p, 0, sizeof *p);
    p->origin_x = column * layout->tile_width;
    p->origin_y = row * layout->tile_height;
#if CI_TILES_BY_LIBHEIF
    ci_status status = image_planes(job, tile->picture, p, name, err);
    if (status != CI_OK) return status;
    p->origin_x = column * layout->tile_width;
    p->origin_y = row * layout->tile_height;
    if (api->heif_image_get_width(tile->picture, heif_channel_Y) < (int)layout->tile_width ||
        api->heif_image_get_height(tile->picture, heif_channel_Y) < (int)layout->tile_height)
        return ci_fail(err, CI_ERR_CORRUPT, "%s: a tile is smaller than the grid says", name);
    return CI_OK;
#endif
    const struct de265_image *image = tile->image;
    enum de265_chroma chroma = api->de265_get_chroma_format(image);
    int channels = chroma == de265_chroma_mono ? 1 : 3;
    p->kind = chroma == de265_chroma_mono ? PLANES_MONO : PLANES_YCBCR;
    p->chroma_shift_x = chroma == de265_chroma_420 || chroma == de265_chroma_422;
    p->chroma_shift_y = chroma == de265_chroma_420;
    p->bits = api->de265_get_bits_per_pixel(image, 0);
    if (p->bits < 8 || p->bits > 16 || (channels == 3 && api->de265_get_bits_per_pixel(image, 1) != p->bits))
        return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: %d-bit HEVC samples are not supported", name, p->bits);
    p->wide = p->bits > 8;
    for (int c = 0; c < channels; c++) {
        p->plane[c] = api->de265_get_image_plane(image, c, &p->stride[c]);
        uint32_t shift_x = c ? (uint32_t)p->chroma_shift_x : 0, shift_y = c ? (uint32_t)p->chroma_shift_y : 0;
        uint32_t need_w = (layout->tile_width + shift_x) >> shift_x;
        uint32_t need_h = (layout->tile_height + shift_y) >> shift_y;
        if (!p->plane[c] || p->stride[c] <= 0 || api->de265_get_image_width(image, c) < (int)need_w ||
            api->de265_get_image_height(image, c) < (int)need_h)
            return ci_fail(err, CI_ERR_CORRUPT, "%s: a tile is smaller than the grid says", name);
    }
    struct heif_color_profile_nclx stream = stream_colours(api, image);
    set_matrix(p, job->nclx ? job->nclx : &stream);
    if (p->kind == PLANES_MONO) {
        p->y_offset = 0;
        p->y_scale = 255.0f / (float)((1 << p->bits) - 1);
    }
    return CI_OK;
}

// Converts the sink's rows from the tiles they lie in, one row of tiles at
// a time.
static ci_status convert_tiles(const heif_job *job, const ci_hevc_layout *layout, const crop_area *r,
                               uint32_t halving, const row_sink *sink, const char *name, ci_error *err) {
    const ci_heif_api *api = &job->api;
    uint32_t first_x = r->crop_x + sink->first_column;
    uint32_t last_x = r->crop_x + sink->first_column + sink->columns - 1;
    if (last_x >= layout->width) last_x = layout->width - 1;
    uint32_t first_tile_column = first_x / layout->tile_width, last_tile_column = last_x / layout->tile_width;
    uint32_t tiles_across = last_tile_column - first_tile_column + 1;
    tile_decode band[64];  // a row of tiles (at most 64 across: tiles_fit)
    memset(band, 0, sizeof band);
    planes band_planes[64];
    uint32_t band_row = UINT32_MAX;
    ci_status status = CI_OK;
    for (uint32_t y = sink->first_row; y <= sink->last_row && status == CI_OK; y++) {
        uint32_t tile_row = (r->crop_y + y) / layout->tile_height;
        if (tile_row != band_row) {
            for (uint32_t t = 0; t < tiles_across; t++) tile_free(api, &band[t]);
            band_row = tile_row;
            for (uint32_t t = 0; t < tiles_across && status == CI_OK; t++) {
                uint32_t column = first_tile_column + t;
                status = decode_tile(job, layout, tile_row * layout->columns + column, halving, &band[t], name, err);
                if (status == CI_OK)
                    status = tile_planes(job, layout, &band[t], column, tile_row, &band_planes[t], name, err);
            }
            if (status != CI_OK) break;
        }
        uint8_t *row = sink_row(sink, y);
        // Each tile's share of the row's columns.
        uint32_t i = sink->first_column, end = sink->first_column + sink->columns;
        while (i < end) {
            uint32_t x = r->crop_x + i;
            uint32_t t = x / layout->tile_width - first_tile_column;
            uint32_t tile_end_x = (t + first_tile_column + 1) * layout->tile_width;
            uint32_t stop = tile_end_x - r->crop_x;  // the first column of the next tile
            if (stop > end) stop = end;
            convert_row(&band_planes[t], r, y, i, stop - i, row + (size_t)(i - sink->first_column) * 4);
            i = stop;
        }
        sink_done(sink, row);
    }
    for (uint32_t t = 0; t < tiles_across; t++) tile_free(api, &band[t]);
    return status;
}

// The sink's rows from what `load` got.
static ci_status convert_into(const heif_job *job, const heif_read *read, const crop_area *r, uint32_t halving,
                              const row_sink *sink, const char *name, ci_error *err) {
    if (read->layout) return convert_tiles(job, read->layout, r, halving, sink, name, err);
    for (uint32_t y = sink->first_row; y <= sink->last_row; y++) {
        uint8_t *row = sink_row(sink, y);
        convert_row(&read->p, r, y, sink->first_column, sink->columns, row);
        sink_done(sink, row);
    }
    return CI_OK;
}

// ---------------------------------------------------------------------------
// The loader

typedef struct {
    heif_job job;
    ci_source *source;
    const ci_draw_request *request;
    heif_read read;
    crop_area r;
    uint32_t halving;  // what the driver halves the rows by (1, 2, 4, 8)
} heif_draw;

static ci_status heif_open(void *state, ci_source *source, const ci_draw_request *request,
                           ci_header *header, ci_error *err) {
    heif_draw *draw = state;
    draw->source = source;
    draw->request = request;
    ci_status status = ci_source_read_all(source, err);
    if (status == CI_OK) status = open_primary(&draw->job, source->buffer, source->filled, source->name, err);
    if (status != CI_OK) return status;
    const ci_heif_api *api = &draw->job.api;
    read_colour(&draw->job, &header->tag);
    // As shown; choose() says where that lies in the coded pixels. (A HEIF's
    // EXIF subject is not read: its EXIF orientation is not used either, and
    // phones that write SubjectArea also write JPEGs.)
    header->width = header->display_width = (uint32_t)api->heif_image_handle_get_width(draw->job.handle);
    header->height = header->display_height = (uint32_t)api->heif_image_handle_get_height(draw->job.handle);
    header->orientation = 1;
    header->scales = CI_SCALES_HALVINGS;
    header->has_alpha = api->heif_image_handle_has_alpha_channel(draw->job.handle) != 0;
    read_date_taken(api, draw->job.handle, header->date_taken, NULL);
    return CI_OK;
}

static void heif_choose(void *state, uint32_t need_width, uint32_t need_height, ci_header *header) {
    heif_draw *draw = state;
    choose(&draw->job, draw->source->buffer, draw->source->filled, need_width, need_height, &draw->read);
    header->width = draw->read.g.crop_width;
    header->height = draw->read.g.crop_height;
    header->orientation = draw->read.g.orientation;
    header->stand_in = draw->read.thumbnail;
}

static ci_status heif_start(void *state, ci_scale *scale, ci_header *header, uint32_t *width,
                            uint32_t *height, ci_image **whole, ci_error *err) {
    (void)header, (void)whole;
    heif_draw *draw = state;
    const ci_heif_geometry *g = &draw->read.g;
    draw->r = (crop_area){g->crop_x, g->crop_y, g->crop_width, g->crop_height};
    // Full size: the driver halves to the scale asked (its box weighted by
    // alpha, which a halving here was not).
    draw->halving = 8 / scale->eighths;
    scale->eighths = 8;
    *width = g->crop_width;
    *height = g->crop_height;
    return load(&draw->job, draw->source->buffer, draw->source->filled, draw->request->limits, &draw->read,
                draw->source->name, err);
}

static ci_status heif_rows(void *state, uint32_t first_row, uint32_t last_row, uint32_t first_column,
                           uint32_t columns, const ci_row_sink *rows,
                           ci_error *err) {
    heif_draw *draw = state;
    row_sink sink = {rows, first_row, last_row, first_column, columns};
    return convert_into(&draw->job, &draw->read, &draw->r, draw->halving, &sink, draw->source->name, err);
}

static void heif_close(void *state) {
    job_free(&((heif_draw *)state)->job);
}

// The ISO BMFF brands of still images libheif decodes: HEIF (mif1, msf1 for
// sequences, whose primary image is still shown), HEVC-coded (heic, heix,
// heim, heis, hevc, hevx) and AV1-coded (avif, avis). An MP4 video's brands
// (isom, mp41...) are not among them.
static int is_heif_brand(const uint8_t *brand) {
    static const char brands[][4] = {{'m', 'i', 'f', '1'}, {'m', 's', 'f', '1'}, {'h', 'e', 'i', 'c'},
                                     {'h', 'e', 'i', 'x'}, {'h', 'e', 'i', 'm'}, {'h', 'e', 'i', 's'},
                                     {'h', 'e', 'v', 'c'}, {'h', 'e', 'v', 'x'}, {'a', 'v', 'i', 'f'},
                                     {'a', 'v', 'i', 's'}};
    for (size_t i = 0; i < sizeof brands / sizeof brands[0]; i++)
        if (memcmp(brand, brands[i], 4) == 0) return 1;
    return 0;
}

// An `ftyp` box first whose major brand, or a compatible brand within the
// bytes given, is a HEIF one.
static int heif_sniff(const uint8_t *data, size_t size) {
    if (size < 12 || memcmp(data + 4, "ftyp", 4) != 0) return 0;
    if (is_heif_brand(data + 8)) return 1;
    uint32_t box = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3];
    size_t end = box < size ? box : size;
    for (size_t at = 16; at + 4 <= end; at += 4)  // after the major brand and its version
        if (is_heif_brand(data + at)) return 1;
    return 0;
}

// The libraries as loaded (they are loaded here for this only when no HEIF
// has been read yet).
static void heif_library(char *out, size_t size) {
    ci_heif_api api;
    ci_error err;
    if (ci_heif_api_open(&api, "--version", &err) != CI_OK) {
        snprintf(out, size, "libheif (not installed)");
        return;
    }
    snprintf(out, size, "libheif %s with libde265 %s", api.heif_get_version(), api.de265_get_version());
    ci_heif_api_close(&api);
}

const ci_loader ci_heif_loader = {
    .format = CI_FORMAT_HEIF,
    .name = "HEIF",
    .title = "HEIC/HEIF/AVIF",
    .extensions = "heic heif hif avif",
    .library = heif_library,
    .smallest_scale = 8,
    .sniff = heif_sniff,
    .probe = heif_probe_source,
    .state_size = sizeof(heif_draw),
    .open = heif_open,
    .choose = heif_choose,
    .start = heif_start,
    .rows = heif_rows,
    .close = heif_close,
};
