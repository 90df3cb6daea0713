// png.c — PNG through libpng. (Placeholder until implemented.)
#include "internal.h"

ci_status ci_png_probe(const uint8_t *data, size_t size, const char *name,
                       ci_photo_info *info, ci_error *err) {
    return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: PNG not implemented yet", name);
}
ci_status ci_png_decode(const uint8_t *data, size_t size, const char *name,
                        const ci_decode_options *options, ci_image *out, ci_error *err) {
    return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: PNG not implemented yet", name);
}
ci_status ci_encode_png(const ci_image *image, uint8_t **out, size_t *out_size, ci_error *err) {
    return ci_fail(err, CI_ERR_UNSUPPORTED, "PNG encoding not implemented yet");
}
