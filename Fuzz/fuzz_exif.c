// fuzz_exif.c — libFuzzer harness: ci_exif_orientation and the date taken on raw APP1 payloads
// (seeded with the payloads cut out of the sample and conformance JPEGs by
// extract_app1). The result must always be 1-8, whatever the bytes.
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int orientation = ci_exif_orientation(data, size);
    if (orientation < 1 || orientation > 8) {
        fprintf(stderr, "fuzz: orientation %d is outside 1-8\n", orientation);
        abort();
    }
    // The date taken, from the payload as an APP1 and as a container's
    // block (no "Exif\0\0"): empty, or a checked "YYYY:MM:DD HH:MM:SS".
    char date[CI_DATE_TAKEN_BYTES];
    ci_position position;
    for (int pass = 0; pass < 2; pass++) {
        memset(date, 'x', sizeof date);
        memset(&position, 0x55, sizeof position);
        int again = pass == 0 ? ci_exif_read(data, size, 0, 0, NULL, NULL, date, &position)
                              : ci_exif_read_tiff(data, size, date, &position);
        // The GPS position: unknown, or a point on the Earth.
        if (position.known != 0 && !(position.latitude >= -90 && position.latitude <= 90 &&
                                     position.longitude >= -180 && position.longitude <= 180)) {
            fprintf(stderr, "fuzz: a position off the Earth (%g, %g)\n", position.latitude, position.longitude);
            abort();
        }
        if (position.known == 0 && (position.latitude != 0 || position.longitude != 0)) {
            fprintf(stderr, "fuzz: an unknown position left unset\n");
            abort();
        }
        if (again < 1 || again > 8 || (pass == 0 && again != orientation)) {
            fprintf(stderr, "fuzz: orientation %d read again as %d\n", orientation, again);
            abort();
        }
        size_t length = strnlen(date, sizeof date);
        if (length != 0 && (length != 19 || date[4] != ':' || date[7] != ':' || date[10] != ' ')) {
            fprintf(stderr, "fuzz: a date taken of %zu bytes that is not one\n", length);
            abort();
        }
    }
    return 0;
}
