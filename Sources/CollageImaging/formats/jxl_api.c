// jxl_api.c — libjxl, loaded when the first JPEG XL is read.
//
// Why not linked: libjxl needs libhwy, whose constructor measures the
// timer's resolution at every start-up, about 2.7 ms of CPU before main
// (15% of `collage --version`'s samples; W6's add and save paid it twice,
// on the main thread, before any work: issue #42), and the loader then
// relocated libjxl, libhwy and brotli's three libraries, JPEG XL or not.
// Opened on first use as heif_api.c opens libheif (ci_libraries_open,
// common.c).
#include "jxl_api.h"

#include <string.h>

#include <jxl/version.h>

// The SONAME of the libjxl the headers are from: libjxl.so.0.MINOR before
// 1.0 (Debian 12's libjxl0.7: libjxl.so.0.7), libjxl.so.MAJOR after.
#define JXL_STRINGIFY_(x) #x
#define JXL_STRINGIFY(x) JXL_STRINGIFY_(x)
#if JPEGXL_MAJOR_VERSION == 0
#define JXL_LIBRARY "libjxl.so.0." JXL_STRINGIFY(JPEGXL_MINOR_VERSION)
#else
#define JXL_LIBRARY "libjxl.so." JXL_STRINGIFY(JPEGXL_MAJOR_VERSION)
#endif

ci_status ci_jxl_api_open(ci_jxl_api *api, const char *name, ci_error *err) {
    memset(api, 0, sizeof *api);
    const ci_library library = {&api->jxl, JXL_LIBRARY};
    if (ci_libraries_open(&library, 1))
        return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: reading JPEG XL needs %s (Debian: libjxl0.7)", name,
                       JXL_LIBRARY);
    const char *missing = NULL;
#define LOAD_JXL(function) CI_LOAD_FUNCTION(missing, api->jxl, api, function)
    CI_JXL_FUNCTIONS(LOAD_JXL)
#undef LOAD_JXL
    if (missing) {
        ci_jxl_api_close(api);
        return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: the installed libjxl lacks %s", name, missing);
    }
    return CI_OK;
}

void ci_jxl_api_close(ci_jxl_api *api) {
    const ci_library library = {&api->jxl, JXL_LIBRARY};
    ci_libraries_close(&library, 1);
    memset(api, 0, sizeof *api);
}
