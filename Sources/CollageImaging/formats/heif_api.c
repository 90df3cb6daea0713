// heif_api.c — libheif and libde265, loaded when the first HEIF is read.
//
// Why not linked: libheif pulls in its codecs (x265, aom, dav1d, libde265)
// and registers them from a constructor at start-up, which cost every
// `collage` command 3 to 8 ms of CPU (status went from 4 to 12 ms) and W6
// 8% of its wall, whether or not a HEIF was in sight. dlopen with
// RTLD_NODELETE loads them once, on first use; each call still opens and
// closes its own reference, so no state of ours outlives the call (the
// loader keeps the libraries). The functions are looked up by the names and
// types their headers declare, so a mismatch fails to compile, not to run.
#include "heif_api.h"

#include <dlfcn.h>
#include <string.h>

// The SONAMEs of Debian's libheif1 and libde265-0.
#define HEIF_LIBRARY "libheif.so.1"
#define DE265_LIBRARY "libde265.so.0"

ci_status ci_heif_api_open(ci_heif_api *api, const char *name, ci_error *err) {
    memset(api, 0, sizeof *api);
    api->heif = dlopen(HEIF_LIBRARY, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    api->de265 = dlopen(DE265_LIBRARY, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!api->heif || !api->de265) {
        ci_heif_api_close(api);
        return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: reading HEIF needs %s and %s (Debian: libheif1)", name,
                       HEIF_LIBRARY, DE265_LIBRARY);
    }
    const char *missing = NULL;
#define LOAD(library, function)                                                          \
    if (!missing && !(api->function = (__typeof__(&function))dlsym(api->library, #function))) \
        missing = #function;
#define LOAD_HEIF(function) LOAD(heif, function)
#define LOAD_DE265(function) LOAD(de265, function)
    CI_HEIF_FUNCTIONS(LOAD_HEIF)
    CI_DE265_FUNCTIONS(LOAD_DE265)
#undef LOAD_DE265
#undef LOAD_HEIF
#undef LOAD
    if (missing) {
        ci_heif_api_close(api);
        return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: the installed libheif or libde265 lacks %s", name, missing);
    }
    return CI_OK;
}

void ci_heif_api_close(ci_heif_api *api) {
    if (api->heif) dlclose(api->heif);
    if (api->de265) dlclose(api->de265);
    memset(api, 0, sizeof *api);
}
