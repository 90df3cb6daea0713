// webp_save.c — the WebP saver (lossy) through libwebp.
#include "../internal.h"
#include "../metadata/metadata.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <webp/encode.h>
#include <webp/mux.h>

// ---------------------------------------------------------------------------
// Encode

static ci_status encode_plain(const ci_image *image, int quality, uint8_t **out, size_t *out_size,
                              ci_error *err) {
    if (out) *out = NULL;
    if (out_size) *out_size = 0;
    if (!image || !image->pixels || image->channels != 3 || !out || !out_size)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_encode: an RGB image is needed");
    if (image->width > WEBP_MAX_DIMENSION || image->height > WEBP_MAX_DIMENSION)
        return ci_fail(err, CI_ERR_ENCODE, "WebP images are at most %dx%d pixels; this one is %ux%u",
                       WEBP_MAX_DIMENSION, WEBP_MAX_DIMENSION, image->width, image->height);
    if (image->stride > INT_MAX) return ci_fail(err, CI_ERR_ENCODE, "the image is too large for WebP");
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

// `encoded` (a simple WebP) with an ICCP and an EXIF chunk, assembled by
// libwebpmux (which writes the VP8X header they need) into a buffer of ours.
static ci_status add_tags(const uint8_t *encoded, size_t size, const ci_output_tags *tags, uint8_t **out,
                          size_t *out_size, ci_error *err) {
    WebPData bitstream = {encoded, size}, assembled = {NULL, 0};
    WebPMux *mux = WebPMuxCreate(&bitstream, 0);
    int ok = mux != NULL;
    if (ok && tags->icc) {
        WebPData icc = {tags->icc, tags->icc_size};
        ok = WebPMuxSetChunk(mux, "ICCP", &icc, 0) == WEBP_MUX_OK;
    }
    // The EXIF chunk holds the TIFF structure without JPEG's "Exif\0\0".
    if (ok && tags->exif && tags->exif_size > 6) {
        WebPData exif = {tags->exif + 6, tags->exif_size - 6};
        ok = WebPMuxSetChunk(mux, "EXIF", &exif, 0) == WEBP_MUX_OK;
    }
    ok = ok && WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK;
    WebPMuxDelete(mux);
    if (ok) *out = malloc(assembled.size);
    if (!ok || !*out) {
        WebPDataClear(&assembled);
        return ci_fail(err, CI_ERR_NO_MEMORY, "out of memory for the WebP's colour profile and date");
    }
    memcpy(*out, assembled.bytes, assembled.size);
    *out_size = assembled.size;
    WebPDataClear(&assembled);
    return CI_OK;
}

// libwebp encodes on one thread: the options' `threads` is not used.
static ci_status webp_save(const ci_image *image, const ci_save_options *options, const ci_output_tags *tags,
                           uint8_t **out, size_t *out_size, ci_error *err) {
    uint8_t *plain = NULL;
    size_t size = 0;
    ci_status status = encode_plain(image, options->quality, &plain, &size, err);
    if (status != CI_OK || !tags || (!tags->icc && !tags->exif)) {
        if (status == CI_OK) {
            *out = plain;
            *out_size = size;
        }
        return status;
    }
    status = add_tags(plain, size, tags, out, out_size, err);
    free(plain);
    return status;
}

// Its entry in the writers' table (writers.c).
const ci_writer ci_webp_writer = {
    .format = CI_FORMAT_WEBP,
    .name = "WebP",
    .extensions = "webp",
    .writes = CI_WRITES_PIXELS,
    .options = CI_OPTION_QUALITY | CI_OPTION_DPI,
    .save = webp_save,
};
