// fuzz_decode.h — the body shared by the JPEG, PNG and HEIF harnesses.
//
// Every input goes through what `collage` does with a photo file:
//  1. the probe (the format's loader, from memory);
//  2. a full-size decode through ci_decode_memory, RGB over a background,
//     oriented;
//  3. a shrink-on-load decode to a small target, RGBA, not oriented;
//  4. ci_draw_photo on the same bytes as a file (a memfd, by its /proc path),
//     into a cell that overhangs a small canvas, compared with the same cell
//     drawn the long way (probe, decode with shrink-on-load, oriented, then
//     ci_resample_cover): the streaming JPEG path must agree with it on
//     success or failure and on every pixel, within 2 levels (float summation
//     order), unless the photo's colours convert to sRGB (the draw converts
//     them after resampling, the long way before);
// and ci_probe_file on that file must agree with the in-memory probe.
// Besides what ASan/UBSan catch, each step checks the engine's promises and
// traps when one is broken: a status in range, a one-line message naming the
// file, an image whose size agrees with the probe and whose every byte is
// readable, an info struct zeroed on failure.
//
// The pixel limit is lowered to 1 megapixel so that a header claiming a
// large image is refused quickly instead of being decoded at full size (the
// limit itself is what is being tested); the JPEG coefficient-memory cap does
// not go below the default's, so that path is exercised at its real size.
#ifndef FUZZ_DECODE_H
#define FUZZ_DECODE_H

#define _GNU_SOURCE
#include "collage_imaging.h"
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define FUZZ_NAME "fuzz-input"
#define FUZZ_MAX_PIXELS ((uint64_t)1 << 20)

#include "fuzz_check.h"

static void check_error(ci_status status, const ci_error *err, const char *name) {
    CHECK(status >= CI_OK && status <= CI_ERR_ENCODE);
    if (status == CI_OK) return;
    CHECK(err->status == status);
    size_t length = strnlen(err->message, sizeof err->message);
    CHECK(length < sizeof err->message);             // NUL-terminated
    CHECK(length > 0);
    CHECK(strchr(err->message, '\n') == NULL);        // one line
    CHECK(strstr(err->message, name) != NULL);        // names the file
}

// Reads every byte of the image, so ASan proves the buffer is as large as
// the image claims; returns a checksum so the reads are not optimised away.
static unsigned touch_image(const ci_image *image, int channels) {
    CHECK(image->pixels != NULL);
    CHECK(image->width > 0 && image->height > 0);
    CHECK(image->channels == channels);
    CHECK(image->stride >= (size_t)image->width * (size_t)channels);
    CHECK((uint64_t)image->width * image->height <= FUZZ_MAX_PIXELS);
    unsigned sum = 0;
    for (uint32_t y = 0; y < image->height; y++) {
        const uint8_t *row = image->pixels + (size_t)y * image->stride;
        for (size_t x = 0; x < (size_t)image->width * (size_t)channels; x++) sum += row[x];
    }
    return sum;
}

static int memfd = -1;
static char memfd_path[64];

static void write_memfd(const uint8_t *data, size_t size) {
    if (memfd < 0) {
        memfd = memfd_create("fuzz-photo", MFD_CLOEXEC);
        CHECK(memfd >= 0);
        snprintf(memfd_path, sizeof memfd_path, "/proc/self/fd/%d", memfd);
    }
    CHECK(ftruncate(memfd, 0) == 0);
    size_t written = 0;
    while (written < size) {
        ssize_t n = pwrite(memfd, data + written, size - written, (off_t)written);
        CHECK(n > 0);
        written += (size_t)n;
    }
}

// The cell drawn the long way: what ci_draw_photo did before it streamed.
static ci_status reference_draw(const uint8_t *data, size_t size, const ci_photo_info *info,
                                ci_image *canvas, ci_rect cell, ci_color background,
                                ci_error *err) {
    uint32_t dw = info->display_width, dh = info->display_height;
    if (dw == 0 || dh == 0) return ci_fail(err, CI_ERR_CORRUPT, "%s: the image has no pixels", FUZZ_NAME);
    // The engine's own shrink-on-load rule (shrink.c): the draw asks the DCT
    // for the filter target, falling back to the covering size where that
    // alone would break the pixel limit; the long way does the same.
    ci_shrink_target target = ci_shrink_target_for_box(dw, dh, cell.width, cell.height, 0);
    ci_decode_options options;
    memset(&options, 0, sizeof options);
    options.min_width = target.filter_width;
    options.min_height = target.filter_height;
    options.apply_orientation = 1;
    options.background = background;
    options.limits.max_pixels = FUZZ_MAX_PIXELS;
    ci_image photo;
    ci_status status = ci_decode_memory(data, size, FUZZ_NAME, &options, &photo, err);
    if (status == CI_ERR_TOO_LARGE &&
        (target.filter_width != target.width || target.filter_height != target.height)) {
        options.min_width = target.width;
        options.min_height = target.height;
        status = ci_decode_memory(data, size, FUZZ_NAME, &options, &photo, err);
    }
    if (status != CI_OK) return status;
    status = ci_resample_cover(&photo, 1, canvas, cell, NULL, FUZZ_NAME, err);
    ci_image_free(&photo);
    return status;
}

static void fuzz_decode_one(const uint8_t *data, size_t size, ci_format expected) {
    volatile unsigned sink = 0;
    ci_error err;
    memset(&err, 0, sizeof err);
    write_memfd(data, size);

    // 1. Probe.
    ci_photo_info info;
    ci_source source = ci_source_memory(data, size, FUZZ_NAME);
    const ci_loader *loader = ci_loader_for(expected);
    ci_status probed = loader->probe(&source, &info, &err);
    check_error(probed, &err, FUZZ_NAME);
    if (probed == CI_OK) {
        CHECK(info.format == expected);
        CHECK(info.orientation >= 1 && info.orientation <= 8);
        uint32_t dw, dh;
        ci_oriented_size(info.orientation, info.width, info.height, &dw, &dh);
        CHECK(info.display_width == dw && info.display_height == dh);
    } else {
        static const ci_photo_info zero;
        CHECK(memcmp(&info, &zero, sizeof info) == 0);
    }

    // 1b. The file probe says the same (it reads the header only), and the
    // check `add` makes after it walks the file to its end as the loader's
    // walk does (a file cut short is refused when it is added). Seeds longer
    // than -max_len arrive cut.
    ci_photo_info file_info;
    ci_status file_probed = ci_probe_file(memfd_path, &file_info, &err);
    check_error(file_probed, &err, memfd_path);
    CHECK((file_probed == CI_OK) == (probed == CI_OK));
    if (file_probed == CI_OK) {
        CHECK(memcmp(&file_info, &info, sizeof info) == 0);
        ci_status file_complete = ci_check_complete(memfd_path, NULL, NULL, &err);  // the walk alone
        check_error(file_complete, &err, memfd_path);
        ci_error complete_err;
        ci_status complete = CI_OK;
        if (loader->complete) {
            CHECK(lseek(memfd, 0, SEEK_SET) == 0);
            complete = loader->complete(memfd, FUZZ_NAME, &complete_err);
        }
        CHECK((file_complete == CI_OK) == (complete == CI_OK));
    }

    // 2. Full size, RGB over a background taken from the data, oriented.
    ci_decode_options options;
    memset(&options, 0, sizeof options);
    options.apply_orientation = 1;
    options.background = (ci_color){size ? data[size / 2] : 0, (uint8_t)size, 0x80};
    options.limits.max_pixels = FUZZ_MAX_PIXELS;
    ci_image image;
    ci_status decoded = ci_decode_memory(data, size, FUZZ_NAME, &options, &image, &err);
    check_error(decoded, &err, FUZZ_NAME);
    // Whether the photo's colours change on their way to sRGB: then the
    // draw (converting at cell size, after resampling) and the long way
    // (converting the decode, before) differ at edges by design, and step 4
    // compares their verdicts but not their pixels.
    int colours_convert = 0;
    if (decoded == CI_OK) {
        CHECK(probed == CI_OK);  // what decodes must also probe
        sink += touch_image(&image, 3);
        CHECK(image.width == info.display_width && image.height == info.display_height);
        ci_decode_options as_coded = options;
        as_coded.keep_colours = 1;
        ci_image coded;
        if (ci_decode_memory(data, size, FUZZ_NAME, &as_coded, &coded, &err) == CI_OK) {
            colours_convert = coded.width != image.width || coded.height != image.height;
            for (uint32_t y = 0; y < image.height && !colours_convert; y++)
                colours_convert = memcmp(image.pixels + (size_t)y * image.stride, coded.pixels + (size_t)y * coded.stride,
                                         (size_t)image.width * 3) != 0;
            ci_image_free(&coded);
        }
        ci_image_free(&image);
        CHECK(image.pixels == NULL);
    } else {
        CHECK(image.pixels == NULL);
    }

    // 3. Shrink-on-load to a small target, RGBA, as stored.
    options.apply_orientation = 0;
    options.keep_alpha = 1;
    options.min_width = 1 + size % 61;
    options.min_height = 1 + size % 37;
    decoded = ci_decode_memory(data, size, FUZZ_NAME, &options, &image, &err);
    check_error(decoded, &err, FUZZ_NAME);
    if (decoded == CI_OK) {
        CHECK(probed == CI_OK);
        sink += touch_image(&image, 4);
        CHECK(image.width <= info.width && image.height <= info.height);
        if (expected == CI_FORMAT_PNG || (expected == CI_FORMAT_HEIF && image.width == info.width &&
                                           image.height == info.height)) {
            CHECK(image.width == info.width && image.height == info.height);
        } else {
            // The decoded size still covers the target (in stored axes).
            uint32_t need_w = options.min_width, need_h = options.min_height;
            if (info.orientation >= 5) { need_w = options.min_height; need_h = options.min_width; }
            CHECK(image.width >= (need_w < info.width ? need_w : info.width));
            CHECK(image.height >= (need_h < info.height ? need_h : info.height));
        }
        ci_image_free(&image);
    }

    // 4. ci_draw_photo on the bytes as a file, into a cell that overhangs the
    // canvas, and the same cell drawn the long way.
    enum { CANVAS_W = 48, CANVAS_H = 40 };
    uint8_t pixels[CANVAS_W * CANVAS_H * 3], long_pixels[CANVAS_W * CANVAS_H * 3];
    memset(pixels, 0x11, sizeof pixels);
    memset(long_pixels, 0x11, sizeof long_pixels);
    ci_image canvas = {pixels, CANVAS_W, CANVAS_H, CANVAS_W * 3, 3};
    ci_image reference = {long_pixels, CANVAS_W, CANVAS_H, CANVAS_W * 3, 3};
    ci_rect cell = {(int32_t)(size % 7) - 3, 5, 17 + (uint32_t)(size % 40), 13 + (uint32_t)(size % 31)};
    ci_limits limits = {FUZZ_MAX_PIXELS};
    ci_status drawn = ci_draw_photo(memfd_path, &canvas, cell, options.background, &limits, &err);
    check_error(drawn, &err, memfd_path);
    if (drawn == CI_OK) CHECK(probed == CI_OK);
    // A loader with a stand-in picture (HEIF's thumbnail, a TIFF's pyramid
    // level, a RAW's preview) draws from it when it covers the cell, and its
    // decode chooses for the decode's size; and HEIF draws by other roads
    // than its decode (libde265's tiles): pixels and verdicts on broken data
    // may differ, so such draws are held to the promises above and ASan, not
    // compared.
    if (probed == CI_OK && !loader->choose) {
        ci_error reference_err;
        ci_status long_way = reference_draw(data, size, &info, &reference, cell, options.background,
                                            &reference_err);
        if ((drawn == CI_OK) != (long_way == CI_OK)) {
            fprintf(stderr, "fuzz: draw says %d (%s), the long way %d (%s)\n", drawn,
                    drawn ? err.message : "ok", long_way, long_way ? reference_err.message : "ok");
            CHECK((drawn == CI_OK) == (long_way == CI_OK));
        }
        if (drawn == CI_OK && !colours_convert) {
            int worst = 0;
            for (size_t i = 0; i < sizeof pixels; i++) {
                int d = abs((int)pixels[i] - (int)long_pixels[i]);
                if (d > worst) worst = d;
            }
            if (worst > 2) fprintf(stderr, "fuzz: drawn pixels differ by up to %d levels\n", worst);
            CHECK(worst <= 2);
        }
    }

    // 5. The placed draws (issue #13): smart (faces in a frame of fuzzed
    // pixels), attention and contain, into a bigger cell so that the face
    // search has room. Held to the same promises: a status and message that
    // agree, agreement with the centred draw on whether the file is good,
    // and ASan over every pixel read; smart with nothing found is the
    // centred draw to the byte.
    enum { PLACED_W = 96, PLACED_H = 64 };
    static const ci_crop crops[] = {CI_CROP_SMART, CI_CROP_ATTENTION, CI_CROP_CENTRE};
    uint8_t placed_pixels[3][PLACED_W * PLACED_H * 3];
    ci_status placed_status[3];
    ci_placement placement[3];
    ci_rect placed_cell = {0, 0, PLACED_W, PLACED_H - (uint32_t)(size % 48)};
    for (int i = 0; i < 3; i++) {
        memset(placed_pixels[i], 0x22, sizeof placed_pixels[i]);
        ci_image placed_canvas = {placed_pixels[i], PLACED_W, PLACED_H, PLACED_W * 3, 3};
        ci_draw_options draw = {.background = options.background, .limits = limits, .crop = crops[i],
                                .fit = (size & 1) && i == 1 ? CI_FIT_CONTAIN : CI_FIT_COVER};
        placed_status[i] = ci_draw_photo_placed(memfd_path, &placed_canvas, placed_cell, &draw, &placement[i], &err);
        check_error(placed_status[i], &err, memfd_path);
        if (placed_status[i] == CI_OK) {
            CHECK(placement[i].face_count >= 0);
            CHECK(placement[i].shown.width > 0 && placement[i].shown.width <= 1 + 1e-9);
            CHECK(placement[i].shown.x >= -1e-9 && placement[i].shown.x + placement[i].shown.width <= 1 + 1e-9);
        }
    }
    if (expected != CI_FORMAT_HEIF && expected != CI_FORMAT_TIFF)
        CHECK((placed_status[0] == CI_OK) == (placed_status[2] == CI_OK));
    // (Not for TIFF: a centred draw reads only the strips and tiles its crop
    // shows, and smart all of them, so a broken one only smart reads fails
    // smart alone; a file cut short is refused by both, from its strip
    // table.) (Not for HEIF: libde265 leaves parts of a damaged picture
    // uninitialised, so two decodes of one broken tile can differ; valgrind
    // traced such pixels to its own allocations. docs/reliability.md.)
    if (expected != CI_FORMAT_HEIF && placed_status[0] == CI_OK && placed_status[2] == CI_OK &&
        placement[0].placed_by == CI_PLACED_CENTRE)
        CHECK(memcmp(placed_pixels[0], placed_pixels[2], sizeof placed_pixels[0]) == 0);
    sink += pixels[0] + placed_pixels[0][0];
    (void)sink;
}

#endif
