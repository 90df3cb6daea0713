// fuzz_jpeg.c — libFuzzer harness: JPEG probe, decode, shrink-on-load and
// drawing (see fuzz_decode.h). Inputs that are not JPEG are rejected so the
// corpus stays on topic.
#include "fuzz_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (ci_sniff_format(data, size) != CI_FORMAT_JPEG) return -1;
    fuzz_decode_one(data, size, CI_FORMAT_JPEG);
    return 0;
}
