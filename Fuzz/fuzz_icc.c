// fuzz_icc.c — libFuzzer harness: the colour path (colour.c) on arbitrary
// embedded profiles and nclx code points, as a JPEG's APP2, a PNG's iCCP or
// a HEIF's colr box hands them over: lcms2 parses the profile, the engine
// builds its tables from it (the matrix-shaper fast path) or an lcms2
// transform, probes it, and converts an RGB and an RGBA image and a CMYK
// row with it. Besides ASan/UBSan: the call never fails on a bad profile
// (it is ignored), and alpha is never touched.
#include "collage_imaging.h"
#include "internal.h"
#include "fuzz_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    enum { W = 13, H = 7 };
    uint8_t rgb[W * H * 3], rgba[W * H * 4], cmyk[W * 4], out[W * 4];
    for (size_t i = 0; i < sizeof rgb; i++) rgb[i] = (uint8_t)(i * 37 + size);
    for (size_t i = 0; i < sizeof rgba; i++) rgba[i] = (uint8_t)(i * 11 + 3);
    for (size_t i = 0; i < sizeof cmyk; i++) cmyk[i] = (uint8_t)(i * 53);
    ci_error err;
    memset(&err, 0, sizeof err);

    // The input as a profile, and its first bytes as nclx code points (used
    // when the profile is unreadable, as a HEIF with both would).
    ci_colour_tag tag;
    memset(&tag, 0, sizeof tag);
    tag.icc = data;
    tag.icc_size = size;
    if (size >= 4) {
        tag.has_nclx = 1;
        tag.primaries = data[0] % 24;
        tag.transfer = data[1] % 20;
        tag.matrix = data[2] % 16;
        tag.full_range = data[3] & 1;
    }
    ci_image image = {rgb, W, H, W * 3, 3};
    CHECK(ci_colour_convert_image(&tag, &image, "fuzz-input", &err) == CI_OK);
    ci_image with_alpha = {rgba, W, H, W * 4, 4};
    uint8_t alpha_before[W * H];
    for (size_t i = 0; i < W * H; i++) alpha_before[i] = rgba[i * 4 + 3];
    CHECK(ci_colour_convert_image(&tag, &with_alpha, "fuzz-input", &err) == CI_OK);
    for (size_t i = 0; i < W * H; i++) CHECK(rgba[i * 4 + 3] == alpha_before[i]);
    ci_rect cell = {-3, 2, 9, 9};  // overhangs the canvas
    CHECK(ci_colour_convert_cell(&tag, &image, cell, "fuzz-input", &err) == CI_OK);

    // The nclx code points alone.
    ci_colour_tag nclx = tag;
    nclx.icc = NULL;
    nclx.icc_size = 0;
    CHECK(ci_colour_convert_image(&nclx, &image, "fuzz-input", &err) == CI_OK);

    // As a CMYK JPEG's profile.
    for (int inverted = 0; inverted < 2; inverted++) {
        ci_row_converter *converter = ci_colour_cmyk_open(&tag, inverted, 4);
        if (converter) {
            ci_colour_row(converter, cmyk, out, W);
            for (int x = 0; x < W; x++) CHECK(out[x * 4 + 3] == 255);
            ci_colour_rows_close(converter);
        }
    }
    return 0;
}
