// fuzz_jxl.c — libFuzzer harness: JPEG XL probe (bare codestream and
// container), libjxl's decode of the first frame and the driver's halving
// of it, the colour tag (encoded spaces and ICC profiles), orientation,
// alpha, and drawing with every placement (see fuzz_decode.h), compared
// with decode-then-resample. Inputs that are not JPEG XL are rejected.
// Seeds: Tests/Fixtures/formats/jxl.
#include "fuzz_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (ci_sniff_format(data, size) != CI_FORMAT_JXL) return -1;
    fuzz_decode_one(data, size, CI_FORMAT_JXL);
    return 0;
}
