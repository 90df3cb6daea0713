// png.h — what PNG's loader and saver share: libpng's errors and warnings,
// recorded in a per-call context (no globals) and longjmped out of.
#ifndef COLLAGE_IMAGING_PNG_H
#define COLLAGE_IMAGING_PNG_H

#include <png.h>

#include "../internal.h"

typedef struct {
    const char *name;   // for messages
    ci_error *err;      // where the message goes (the callers pass a local one)
    ci_status status;   // the status an error callback reports
    int over_limit;     // a warning said the IHDR exceeds png_set_user_limits
} png_context;

// libpng's error and warning callbacks over a png_context (png_load.c).
void ci_png_on_error(png_structp png, png_const_charp message);
void ci_png_on_warning(png_structp png, png_const_charp message);

#endif
