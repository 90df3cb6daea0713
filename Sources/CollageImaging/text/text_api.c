// text_api.c — Pango, Cairo and fontconfig, loaded when the first text is drawn.
//
// Why not linked: pangocairo brings some thirty libraries with it (HarfBuzz,
// FreeType, fribidi, libthai, pixman, Xrender, xcb...), and linking them cost
// every `collage` command about 7 ms of start-up (status in a debug build:
// 41 -> 49 ms, median of 60), title or not. Opened on first use as
// heif_api.c opens libheif (ci_libraries_open, common.c). The functions are
// looked up by the names and types text_api.h declares (from the libraries'
// headers, checked against them by TextAPITests).
#include "text_api.h"

#include <string.h>

// The SONAMEs of Debian's libpangocairo-1.0-0, libpango-1.0-0, libcairo2,
// libglib2.0-0 and libfontconfig1.
#define PANGOCAIRO_LIBRARY "libpangocairo-1.0.so.0"
#define PANGO_LIBRARY "libpango-1.0.so.0"
#define CAIRO_LIBRARY "libcairo.so.2"
#define GOBJECT_LIBRARY "libgobject-2.0.so.0"
#define GLIB_LIBRARY "libglib-2.0.so.0"
#define FONTCONFIG_LIBRARY "libfontconfig.so.1"

// The libraries of `api`, in the order they open (each after those it needs).
#define TEXT_LIBRARIES(api)                                                                          \
    {{&(api)->glib, GLIB_LIBRARY},       {&(api)->gobject, GOBJECT_LIBRARY}, {&(api)->fontconfig, FONTCONFIG_LIBRARY}, \
     {&(api)->cairo, CAIRO_LIBRARY},     {&(api)->pango, PANGO_LIBRARY},     {&(api)->pangocairo, PANGOCAIRO_LIBRARY}}

ci_status ci_text_api_open(ci_text_api *api, ci_error *err) {
    memset(api, 0, sizeof *api);
    const ci_library libraries[] = TEXT_LIBRARIES(api);
    const char *absent = ci_libraries_open(libraries, sizeof libraries / sizeof libraries[0]);
    if (absent) return ci_fail(err, CI_ERR_UNSUPPORTED, "drawing text needs %s (Debian: libpangocairo-1.0-0)", absent);
    const char *missing = NULL;
#define LOAD_PANGOCAIRO(function) CI_LOAD_FUNCTION(missing, api->pangocairo, api, function)
#define LOAD_PANGO(function) CI_LOAD_FUNCTION(missing, api->pango, api, function)
#define LOAD_CAIRO(function) CI_LOAD_FUNCTION(missing, api->cairo, api, function)
#define LOAD_GOBJECT(function) CI_LOAD_FUNCTION(missing, api->gobject, api, function)
#define LOAD_GLIB(function) CI_LOAD_FUNCTION(missing, api->glib, api, function)
#define LOAD_FONTCONFIG(function) CI_LOAD_FUNCTION(missing, api->fontconfig, api, function)
    CI_PANGOCAIRO_FUNCTIONS(LOAD_PANGOCAIRO)
    CI_PANGO_FUNCTIONS(LOAD_PANGO)
    CI_CAIRO_FUNCTIONS(LOAD_CAIRO)
    CI_GOBJECT_FUNCTIONS(LOAD_GOBJECT)
    CI_GLIB_FUNCTIONS(LOAD_GLIB)
    CI_FONTCONFIG_FUNCTIONS(LOAD_FONTCONFIG)
#undef LOAD_FONTCONFIG
#undef LOAD_GLIB
#undef LOAD_GOBJECT
#undef LOAD_CAIRO
#undef LOAD_PANGO
#undef LOAD_PANGOCAIRO
    if (missing) {
        ci_text_api_close(api);
        return ci_fail(err, CI_ERR_UNSUPPORTED, "the installed Pango, Cairo or fontconfig lacks %s", missing);
    }
    return CI_OK;
}

void ci_text_api_close(ci_text_api *api) {
    const ci_library libraries[] = TEXT_LIBRARIES(api);
    ci_libraries_close(libraries, sizeof libraries / sizeof libraries[0]);
    memset(api, 0, sizeof *api);
}
