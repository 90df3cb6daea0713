// jxl_api.h — the libjxl functions jxl_load.c calls, looked up at run time
// (jxl_api.c says why). Not part of the public API.
#ifndef COLLAGE_IMAGING_JXL_API_H
#define COLLAGE_IMAGING_JXL_API_H

#include "../internal.h"

#include <jxl/decode.h>

#define CI_JXL_FUNCTIONS(X)                    \
    X(JxlDecoderVersion)                       \
    X(JxlDecoderCreate)                        \
    X(JxlDecoderDestroy)                       \
    X(JxlDecoderSubscribeEvents)               \
    X(JxlDecoderSetKeepOrientation)            \
    X(JxlDecoderSetUnpremultiplyAlpha)         \
    X(JxlDecoderSetInput)                      \
    X(JxlDecoderCloseInput)                    \
    X(JxlDecoderProcessInput)                  \
    X(JxlDecoderGetBasicInfo)                  \
    X(JxlDecoderGetColorAsEncodedProfile)      \
    X(JxlDecoderGetICCProfileSize)             \
    X(JxlDecoderGetColorAsICCProfile)          \
    X(JxlDecoderImageOutBufferSize)            \
    X(JxlDecoderSetImageOutBuffer)             \
    X(JxlDecoderSetImageOutCallback)           \
    X(JxlDecoderSetDecompressBoxes)            \
    X(JxlDecoderGetBoxType)                    \
    X(JxlDecoderSetBoxBuffer)                  \
    X(JxlDecoderReleaseBoxBuffer)

typedef struct {
    void *jxl;  // the dlopen handle, one reference
#define CI_API_MEMBER(function) __typeof__(&function) function;
    CI_JXL_FUNCTIONS(CI_API_MEMBER)
#undef CI_API_MEMBER
} ci_jxl_api;

// Opens libjxl (loaded once per process) and looks the functions up. On
// failure nothing is left open and the message says what is missing.
ci_status ci_jxl_api_open(ci_jxl_api *api, const char *name, ci_error *err);
void ci_jxl_api_close(ci_jxl_api *api);  // safe on a zeroed or failed api

#endif
