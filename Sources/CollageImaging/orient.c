// orient.c — EXIF orientation transforms. (Placeholder until implemented.)
#include "internal.h"

ci_status ci_apply_orientation(ci_image *image, int orientation, const char *name, ci_error *err) {
    if (orientation <= 1) return CI_OK;
    return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: orientation not implemented yet", name);
}
