// fuzz_text.c — libFuzzer harness: the text path (text.c, through Pango and
// Cairo loaded by text_api.c) on arbitrary bytes as a title or caption, with
// an arbitrary font description, size, box, line count and alignment, drawn
// into a box that may overhang a small canvas. Besides ASan/UBSan, the
// promises: a run is measured and drawn alike (both succeed or both fail
// with the same status); a failure is a status with a message, and leaves
// the canvas untouched; nothing outside the box (and the canvas) is
// written; no more lines than asked are laid out. The font description's
// size (ci_text_font_pixels, for --font) and a caption's band
// (ci_shade_box) ride along.
//
// Input: 4 bytes of parameters, a byte n and n bytes of font description,
// then the text (any bytes: invalid UTF-8 must be refused, not drawn).
#include "collage_imaging.h"
#include "fuzz_check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { W = 96, H = 48 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 5) return 0;
    const uint8_t *params = data;
    size_t font_length = data[4];
    if (size < 5 + font_length) return 0;
    // NUL-terminated copies: the API takes C strings (a NUL inside the
    // input ends the text early, as it would for any caller).
    char *font = font_length ? malloc(font_length + 1) : NULL;
    size_t text_length = size - 5 - font_length;
    char *text = malloc(text_length + 1);
    if ((font_length && !font) || !text) {
        free(font);
        free(text);
        return 0;
    }
    if (font) {
        memcpy(font, data + 5, font_length);
        font[font_length] = 0;
    }
    memcpy(text, data + 5 + font_length, text_length);
    text[text_length] = 0;

    ci_text_run run;
    memset(&run, 0, sizeof run);
    run.text = text;
    run.font = font;
    run.pixel_size = params[0] % 8 == 0 ? 0 : 4 + params[0] % 40;   // 0: the font's own size
    run.colour = (ci_color){params[1], (uint8_t)(params[1] * 7), (uint8_t)(params[1] * 13)};
    run.width = 1 + params[2] % 160;                                  // wider than the canvas too
    run.height = 1 + params[3] % 64;
    run.max_lines = 1 + (params[3] >> 6);                             // 1 to 4
    run.align = (ci_text_align)(params[1] % 3);

    ci_error err;
    memset(&err, 0, sizeof err);
    ci_text_metrics measured;
    memset(&measured, 0, sizeof measured);
    ci_status measure = ci_text_measure(&run, &measured, &err);
    if (measure != CI_OK) {
        CHECK(err.message[0] != 0);
    } else if (measured.has_fonts) {
        CHECK(measured.lines >= 0 && measured.lines <= run.max_lines);
    }

    uint8_t pixels[W * H * 3], before[W * H * 3];
    for (size_t i = 0; i < sizeof pixels; i++) pixels[i] = (uint8_t)(i * 31 + 7);
    memcpy(before, pixels, sizeof pixels);
    ci_image canvas = {pixels, W, H, W * 3, 3};
    // The box overhangs the canvas on the left or the top for some inputs.
    ci_rect box = {(int32_t)(params[2] % 48) - 16, (int32_t)(params[0] % 32) - 8, run.width, run.height};
    memset(&err, 0, sizeof err);
    ci_text_metrics drawn;
    ci_status draw = ci_draw_text(&canvas, box, &run, &drawn, &err);
    CHECK(draw == measure);
    if (draw != CI_OK) {
        CHECK(err.message[0] != 0);
        CHECK(memcmp(pixels, before, sizeof pixels) == 0);
    } else {
        for (int y = 0; y < H; y++) {
            for (int x = 0; x < W; x++) {
                int inside = x >= box.x && x < (int64_t)box.x + box.width && y >= box.y &&
                             y < (int64_t)box.y + box.height;
                if (!inside) CHECK(memcmp(pixels + (y * W + x) * 3, before + (y * W + x) * 3, 3) == 0);
            }
        }
    }
    // The font description alone (--font): a size that is a number, from 0
    // to the limit, or a refusal with a message; and a band shaded over the
    // same box changes nothing outside it.
    if (font) {
        double pixels = -1;
        memset(&err, 0, sizeof err);
        ci_status sized = ci_text_font_pixels(font, &pixels, &err);
        if (sized == CI_OK) CHECK(pixels >= 0 && pixels <= 4096);
        else CHECK(err.message[0] != 0 && pixels == 0);
    }
    memcpy(before, pixels, sizeof pixels);
    ci_shade_box(&canvas, box, run.colour, params[3]);
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            int inside = x >= box.x && x < (int64_t)box.x + box.width && y >= box.y && y < (int64_t)box.y + box.height;
            if (!inside || params[3] == 0) CHECK(memcmp(pixels + (y * W + x) * 3, before + (y * W + x) * 3, 3) == 0);
        }
    }
    free(font);
    free(text);
    return 0;
}
