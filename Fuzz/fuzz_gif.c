// fuzz_gif.c — libFuzzer harness: GIF probe, the walk to the trailer, the
// first frame's decode (transparency, interlacing, colour tables, a frame
// reaching past its screen), and drawing with every placement (see
// fuzz_decode.h), compared with decode-then-resample. Inputs that are not
// GIF87a/GIF89a are rejected. Seeds: Tests/Fixtures/formats/gif.
#include "fuzz_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (ci_sniff_format(data, size) != CI_FORMAT_GIF) return -1;
    fuzz_decode_one(data, size, CI_FORMAT_GIF);
    return 0;
}
