// heif_api.c — libheif and libde265, loaded when the first HEIF is read.
//
// Why not linked: libheif pulls in its codecs (x265, aom, dav1d, libde265)
// and registers them from a constructor at start-up, which cost every
// `collage` command 3 to 8 ms of CPU (status went from 4 to 12 ms) and W6
// 8% of its wall, whether or not a HEIF was in sight. Opened on first use
// as text_api.c opens Pango (ci_libraries_open, common.c).
#include "heif_api.h"

#include <string.h>

// The SONAMEs of Debian's libheif1 and libde265-0.
#define HEIF_LIBRARY "libheif.so.1"
#define DE265_LIBRARY "libde265.so.0"

// The libraries of `api`, in the order they open.
#define HEIF_LIBRARIES(api) {{&(api)->heif, HEIF_LIBRARY}, {&(api)->de265, DE265_LIBRARY}}

ci_status ci_heif_api_open(ci_heif_api *api, const char *name, ci_error *err) {
    memset(api, 0, sizeof *api);
    const ci_library libraries[] = HEIF_LIBRARIES(api);
    if (ci_libraries_open(libraries, sizeof libraries / sizeof libraries[0]))
        return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: reading HEIF needs %s and %s (Debian: libheif1)", name,
                       HEIF_LIBRARY, DE265_LIBRARY);
    const char *missing = NULL;
#define LOAD_HEIF(function) CI_LOAD_FUNCTION(missing, api->heif, api, function)
#define LOAD_DE265(function) CI_LOAD_FUNCTION(missing, api->de265, api, function)
    CI_HEIF_FUNCTIONS(LOAD_HEIF)
    CI_DE265_FUNCTIONS(LOAD_DE265)
#undef LOAD_DE265
#undef LOAD_HEIF
    if (missing) {
        ci_heif_api_close(api);
        return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: the installed libheif or libde265 lacks %s", name, missing);
    }
    return CI_OK;
}

void ci_heif_api_close(ci_heif_api *api) {
    const ci_library libraries[] = HEIF_LIBRARIES(api);
    ci_libraries_close(libraries, sizeof libraries / sizeof libraries[0]);
    memset(api, 0, sizeof *api);
}
