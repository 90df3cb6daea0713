// engine_profile.c — the engine's half of `collage save`, without Swift, for
// profilers (valgrind --tool=callgrind counts instructions repeatably).
//
// Draws photos into the cells of a 3x2 (or the layout's) grid on a 1920x1080
// canvas one after another on one thread, as ImageEngine.render does on
// several, then encodes the canvas as JPEG quality 90 and writes it.
//
// usage: engine_profile OUTPUT.jpg PHOTO...   (2, 4 or 6 photos)
#include "collage_imaging.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUTPUT.jpg PHOTO...\n", argv[0]);
        return 2;
    }
    int count = argc - 2;
    int rows = count < 3 ? 1 : 2;
    int columns = (int)lround((double)count / rows);
    const uint32_t width = 1920, height = 1080;
    uint32_t cell_w = (uint32_t)lround((double)width / columns);
    uint32_t cell_h = (uint32_t)lround((double)height / rows);

    ci_image canvas = {malloc((size_t)width * height * 3), width, height, (size_t)width * 3, 3};
    if (!canvas.pixels) return 1;
    memset(canvas.pixels, 255, (size_t)width * height * 3);
    ci_color white = {255, 255, 255};
    for (int i = 0; i < count; i++) {
        ci_rect cell = {(int32_t)((i % columns) * cell_w), (int32_t)((i / columns) * cell_h), cell_w, cell_h};
        ci_error err;
        if (ci_draw_photo(argv[2 + i], &canvas, cell, white, NULL, &err) != CI_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
    }
    uint8_t *jpeg;
    size_t size;
    ci_error err;
    if (ci_encode(CI_FORMAT_JPEG, &canvas, NULL, &jpeg, &size, &err) != CI_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    FILE *out = fopen(argv[1], "wb");
    if (!out || fwrite(jpeg, 1, size, out) != size || fclose(out) != 0) {
        fprintf(stderr, "cannot write %s\n", argv[1]);
        return 1;
    }
    ci_buffer_free(jpeg);
    free(canvas.pixels);
    return 0;
}
