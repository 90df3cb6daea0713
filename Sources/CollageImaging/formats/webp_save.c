// webp_save.c — the WebP saver (lossy) through libwebp.
#include "../internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <webp/encode.h>

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

// libwebp encodes on one thread: `threads` is not used.
ci_status ci_webp_save(const ci_image *image, int quality, int threads, uint8_t **out, size_t *out_size,
                       ci_error *err) {
    return ci_encode_webp(image, quality, out, out_size, err);
}
