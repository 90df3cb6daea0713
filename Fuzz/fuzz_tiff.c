// fuzz_tiff.c — libFuzzer harness: TIFF probe, decode and draw (see
// fuzz_decode.h) through libtiff over the engine's source: strips, tiles,
// every photometric its RGBA reader knows, CMYK through a profile, the
// Orientation tag, pyramid levels. Inputs that do not sniff as TIFF
// (including the TIFF-shaped camera RAWs libraw claims) are rejected.
// Seeds: Tests/Fixtures/formats/tiff (scripts/fuzz.sh).
//
// libtiff is Debian's (not instrumented): coverage guides the fuzzer
// through the engine's code, and ASan watches every byte the engine reads
// from libtiff's buffers.
#include "fuzz_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (ci_sniff_format(data, size) != CI_FORMAT_TIFF) return -1;
    fuzz_decode_one(data, size, CI_FORMAT_TIFF);
    return 0;
}
