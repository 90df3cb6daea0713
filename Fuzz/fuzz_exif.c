// fuzz_exif.c — libFuzzer harness: ci_exif_orientation on raw APP1 payloads
// (seeded with the payloads cut out of the sample and conformance JPEGs by
// extract_app1). The result must always be 1-8, whatever the bytes.
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int orientation = ci_exif_orientation(data, size);
    if (orientation < 1 || orientation > 8) {
        fprintf(stderr, "fuzz: orientation %d is outside 1-8\n", orientation);
        abort();
    }
    return 0;
}
