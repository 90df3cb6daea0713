// text_api.c — Pango, Cairo and fontconfig, loaded when the first text is drawn.
//
// Why not linked: pangocairo brings some thirty libraries with it (HarfBuzz,
// FreeType, fribidi, libthai, pixman, Xrender, xcb...), and linking them cost
// every `collage` command about 7 ms of start-up (status in a debug build:
// 41 -> 49 ms, median of 60), title or not. dlopen with RTLD_NODELETE loads
// them once, on the first text; each call still opens and closes its own
// reference, so no state of ours outlives the call (the loader keeps the
// libraries), as heif_api.c does for libheif. The functions are looked up by
// the names and types text_api.h declares (from the libraries' headers,
// checked against them by TextAPITests).
#include "text_api.h"

#include <dlfcn.h>
#include <string.h>

// The SONAMEs of Debian's libpangocairo-1.0-0, libpango-1.0-0, libcairo2,
// libglib2.0-0 and libfontconfig1.
#define PANGOCAIRO_LIBRARY "libpangocairo-1.0.so.0"
#define PANGO_LIBRARY "libpango-1.0.so.0"
#define CAIRO_LIBRARY "libcairo.so.2"
#define GOBJECT_LIBRARY "libgobject-2.0.so.0"
#define GLIB_LIBRARY "libglib-2.0.so.0"
#define FONTCONFIG_LIBRARY "libfontconfig.so.1"

ci_status ci_text_api_open(ci_text_api *api, ci_error *err) {
    memset(api, 0, sizeof *api);
    const int flags = RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE;
    const char *absent = NULL;
#define OPEN(handle, library) \
    if (!absent && !(api->handle = dlopen(library, flags))) absent = library;
    OPEN(glib, GLIB_LIBRARY)
    OPEN(gobject, GOBJECT_LIBRARY)
    OPEN(fontconfig, FONTCONFIG_LIBRARY)
    OPEN(cairo, CAIRO_LIBRARY)
    OPEN(pango, PANGO_LIBRARY)
    OPEN(pangocairo, PANGOCAIRO_LIBRARY)
#undef OPEN
    if (absent) {
        ci_text_api_close(api);
        return ci_fail(err, CI_ERR_UNSUPPORTED, "drawing text needs %s (Debian: libpangocairo-1.0-0)", absent);
    }
    const char *missing = NULL;
#define LOAD(library, function)                                                                  \
    if (!missing && !(api->function = (__typeof__(&function))dlsym(api->library, #function))) \
        missing = #function;
#define LOAD_PANGOCAIRO(function) LOAD(pangocairo, function)
#define LOAD_PANGO(function) LOAD(pango, function)
#define LOAD_CAIRO(function) LOAD(cairo, function)
#define LOAD_GOBJECT(function) LOAD(gobject, function)
#define LOAD_GLIB(function) LOAD(glib, function)
#define LOAD_FONTCONFIG(function) LOAD(fontconfig, function)
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
#undef LOAD
    if (missing) {
        ci_text_api_close(api);
        return ci_fail(err, CI_ERR_UNSUPPORTED, "the installed Pango, Cairo or fontconfig lacks %s", missing);
    }
    return CI_OK;
}

void ci_text_api_close(ci_text_api *api) {
    void *handles[] = {api->pangocairo, api->pango, api->cairo, api->fontconfig, api->gobject, api->glib};
    for (size_t i = 0; i < sizeof handles / sizeof handles[0]; i++)
        if (handles[i]) dlclose(handles[i]);
    memset(api, 0, sizeof *api);
}
