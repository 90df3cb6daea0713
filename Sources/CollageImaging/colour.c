// colour.c — embedded colour descriptions to sRGB (lcms2 lands here with
// issue #12; until then every photo is taken as sRGB).
#include "internal.h"

ci_status ci_colour_convert_cell(const ci_colour_tag *tag, ci_image *canvas, ci_rect cell,
                                 const char *name, ci_error *err) {
    (void)tag; (void)canvas; (void)cell; (void)name; (void)err;
    return CI_OK;
}

ci_status ci_colour_convert_image(const ci_colour_tag *tag, ci_image *image, const char *name,
                                  ci_error *err) {
    (void)tag; (void)image; (void)name; (void)err;
    return CI_OK;
}
