// fuzz_png.c — libFuzzer harness: PNG probe, decode (every colour type, bit
// depth, interlacing, tRNS), compositing and drawing (see fuzz_decode.h).
// Inputs that are not PNG are rejected so the corpus stays on topic.
#include "fuzz_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (ci_sniff_format(data, size) != CI_FORMAT_PNG) return -1;
    fuzz_decode_one(data, size, CI_FORMAT_PNG);
    return 0;
}
