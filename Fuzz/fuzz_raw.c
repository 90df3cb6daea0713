// fuzz_raw.c — libFuzzer harness: camera RAW probe, decode and draw (see
// fuzz_decode.h) through libraw: the embedded preview through the JPEG
// loader, the half-size and full demosaic, the file's flip. Inputs the
// table does not give to the RAW loader are rejected. Seeds:
// Tests/Fixtures/formats/dng (scripts/fuzz.sh).
//
// libraw is Debian's (not instrumented, C++): coverage guides the fuzzer
// through the engine's code, and ASan watches every byte the engine reads
// from libraw's buffers.
#include "fuzz_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (ci_sniff_format(data, size) != CI_FORMAT_RAW) return -1;
    fuzz_decode_one(data, size, CI_FORMAT_RAW);
    return 0;
}
