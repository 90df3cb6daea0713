// draw.c — one photo into one cell of the collage. (Placeholder until implemented.)
#include "internal.h"

ci_status ci_draw_photo(const char *path, ci_image *canvas, ci_rect cell,
                        ci_color background, const ci_limits *limits, ci_error *err) {
    return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: drawing not implemented yet", path);
}
