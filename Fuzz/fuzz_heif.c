// fuzz_heif.c — libFuzzer harness: HEIF, HEIC and AVIF probe, decode and
// draw (see fuzz_decode.h), through libheif, the engine's own box reader
// (heif_box.c: transformations, the grid's tiles) and its libde265 tile path.
// Inputs that are not HEIF by their ftyp brands are rejected.
//
// libheif and libde265 are Debian's (not instrumented): coverage guides the
// fuzzer through the engine's code, and ASan watches every byte the engine
// reads from their buffers.
#include "fuzz_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (ci_sniff_format(data, size) != CI_FORMAT_HEIF) return -1;
    fuzz_decode_one(data, size, CI_FORMAT_HEIF);
    return 0;
}
