// fuzz_webp.c — libFuzzer harness: WebP probe, scaled decode, alpha,
// EXIF orientation and the ICCP path, and drawing (see fuzz_decode.h),
// compared with decode-then-resample like JPEG's. Inputs that are not
// RIFF....WEBP are rejected. Seeds are made at fuzz time by cwebp from
// SampleImages/ (scripts/fuzz.sh).
#include "fuzz_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (ci_sniff_format(data, size) != CI_FORMAT_WEBP) return -1;
    fuzz_decode_one(data, size, CI_FORMAT_WEBP);
    return 0;
}
