// resample.c — anti-aliased cover scaling. (Placeholder until implemented.)
#include "internal.h"

ci_status ci_resample_cover(const ci_image *source, ci_image *canvas, ci_rect cell,
                            const char *name, ci_error *err) {
    return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: resampling not implemented yet", name);
}
