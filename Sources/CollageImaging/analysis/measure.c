// measure.c — what `collage suggest` measures of a photo (issue #33), from
// the cheapest picture of it there is: the camera's EXIF thumbnail when a
// JPEG carries one of the photo's shape, a HEIF's own thumbnail when it
// covers what is measured, else the decoder's smallest scale that still
// gives MEASURE_SIDE pixels (a JPEG's 1/8 for a camera photo). Never a
// full-size decode of a large photo.
//
// From that picture, reduced to grey and upright (ci_reduce_upright, as
// the face search's is):
//  - a perceptual hash (the DCT hash: the signs of the 8 x 8 lowest
//    frequencies of a 32 x 32 grey copy against their median), which a burst
//    or the same scene shot again shares up to a few bits;
//  - a gradient hash (whether each cell of a 9 x 8 copy is brighter than
//    its left neighbour): a tone curve, a darker or brighter exposure of
//    the same scene (an HDR bracket) changes levels, hardly their order, so
//    it keeps this hash where the DCT hash, which weighs the levels, can
//    lose a dozen bits;
//  - sharpness, the variance of the Laplacian at MEASURE_SIDE pixels: blur
//    and shake remove the fine detail it responds to. Its scale depends on
//    the scene, so it is only compared between shots of one scene;
//  - exposure: the shares of clipped shadows and highlights, and the mean.
// Faces are counted by the smart crop's own search (faces.c), separately:
// it needs a larger picture and is asked only for the photos still in the
// running.
#include "../internal.h"
#include "faces.h"

#include <libexif/exif-data.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The long side of the grey picture measured: a camera thumbnail's (160 x
// 120), so a thumbnail is measured as it is and a decode is reduced to it.
#define MEASURE_SIDE 160
// A thumbnail smaller than this, or of another shape than the photo (some
// cameras letterbox a 16:9 photo into a 4:3 thumbnail), is not used.
#define THUMBNAIL_MIN_SIDE 96
#define THUMBNAIL_SHAPE_TOLERANCE 0.04
// Grey levels counted as clipped: the darkest and brightest few.
#define CLIPPED_DARK 10
#define CLIPPED_BRIGHT 245
#define HASH_SIDE 32

// The DCT hash of the grey w x h picture (see the top of the file).
static uint64_t dct_hash(const uint8_t *grey, uint32_t w, uint32_t h) {
    double small[HASH_SIDE][HASH_SIDE];
    for (uint32_t y = 0; y < HASH_SIDE; y++) {
        uint32_t y0 = y * h / HASH_SIDE, y1 = (y + 1) * h / HASH_SIDE;
        if (y1 <= y0) y1 = y0 + 1;
        for (uint32_t x = 0; x < HASH_SIDE; x++) {
            uint32_t x0 = x * w / HASH_SIDE, x1 = (x + 1) * w / HASH_SIDE;
            if (x1 <= x0) x1 = x0 + 1;
            double sum = 0;
            for (uint32_t v = y0; v < y1 && v < h; v++)
                for (uint32_t u = x0; u < x1 && u < w; u++) sum += grey[(size_t)v * w + u];
            small[y][x] = sum / ((double)(y1 - y0) * (x1 - x0));
        }
    }
    // The 8 x 8 lowest frequencies of its 2-D DCT-II (rows, then columns).
    double basis[8][HASH_SIDE];
    for (int k = 0; k < 8; k++)
        for (int n = 0; n < HASH_SIDE; n++) basis[k][n] = cos(M_PI / HASH_SIDE * (n + 0.5) * k);
    double rows[HASH_SIDE][8], coefficients[64];
    for (int y = 0; y < HASH_SIDE; y++)
        for (int k = 0; k < 8; k++) {
            double sum = 0;
            for (int n = 0; n < HASH_SIDE; n++) sum += small[y][n] * basis[k][n];
            rows[y][k] = sum;
        }
    for (int j = 0; j < 8; j++)
        for (int k = 0; k < 8; k++) {
            double sum = 0;
            for (int n = 0; n < HASH_SIDE; n++) sum += rows[n][k] * basis[j][n];
            coefficients[j * 8 + k] = sum;
        }
    // The median of all but the mean (the first), which only says how bright.
    double sorted[63];
    memcpy(sorted, coefficients + 1, sizeof sorted);
    for (int i = 1; i < 63; i++)
        for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            double t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    const double median = sorted[31];
    uint64_t hash = 0;
    for (int i = 0; i < 64; i++)
        if (coefficients[i] > median) hash |= (uint64_t)1 << i;
    return hash;
}

// Sharpness and exposure of the grey w x h picture into *out.
static void detail_and_exposure(const uint8_t *grey, uint32_t w, uint32_t h, ci_measures *out) {
    uint64_t dark = 0, bright = 0, sum = 0;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        dark += grey[i] <= CLIPPED_DARK;
        bright += grey[i] >= CLIPPED_BRIGHT;
        sum += grey[i];
    }
    const double pixels = (double)w * h;
    out->dark_share = dark / pixels;
    out->bright_share = bright / pixels;
    out->mean_level = sum / pixels / 255.0;
    // The variance of the 4-neighbour Laplacian over the inner pixels.
    double total = 0, squares = 0;
    uint64_t count = 0;
    for (uint32_t y = 1; y + 1 < h; y++)
        for (uint32_t x = 1; x + 1 < w; x++) {
            const uint8_t *p = grey + (size_t)y * w + x;
            double l = 4.0 * p[0] - p[-1] - p[1] - p[-(ptrdiff_t)w] - p[w];
            total += l;
            squares += l * l;
            count++;
        }
    out->sharpness = count ? squares / count - (total / count) * (total / count) : 0;
}

// The gradient hash of the grey w x h picture (see the top of the file): on
// a 9 x 8 copy, each cell the mean of the pixels it covers, a bit for each
// cell brighter than its left neighbour.
static uint64_t gradient_hash(const uint8_t *grey, uint32_t w, uint32_t h) {
    double cells[8][9];
    for (uint32_t y = 0; y < 8; y++) {
        uint32_t y0 = y * h / 8, y1 = (y + 1) * h / 8;
        if (y1 <= y0) y1 = y0 + 1;
        for (uint32_t x = 0; x < 9; x++) {
            uint32_t x0 = x * w / 9, x1 = (x + 1) * w / 9;
            if (x1 <= x0) x1 = x0 + 1;
            double sum = 0;
            for (uint32_t v = y0; v < y1 && v < h; v++)
                for (uint32_t u = x0; u < x1 && u < w; u++) sum += grey[(size_t)v * w + u];
            cells[y][x] = sum / ((double)(y1 - y0) * (x1 - x0));
        }
    }
    uint64_t hash = 0;
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 8; x++)
            if (cells[y][x + 1] > cells[y][x]) hash |= (uint64_t)1 << (y * 8 + x);
    return hash;
}

// The camera's thumbnail in the EXIF block at the start of a JPEG (the
// first `filled` bytes of the file in *buffer, grown and read on from fd
// when the block goes past them): a new copy of its JPEG bytes, or NULL.
static uint8_t *exif_thumbnail(int fd, uint8_t **buffer, size_t *capacity, size_t *filled, size_t *thumbnail_size) {
    uint8_t *data = *buffer;
    if (*filled < 4 || data[0] != 0xFF || data[1] != 0xD8) return NULL;
    size_t at = 2;
    // The EXIF block is APP1, among the first segments (after JFIF's APP0).
    for (int segment = 0; segment < 8 && at + 4 <= *filled; segment++) {
        if (data[at] != 0xFF) return NULL;
        const uint8_t marker = data[at + 1];
        const size_t length = ((size_t)data[at + 2] << 8) | data[at + 3];
        if (length < 2 || marker == 0xDA || marker == 0xD9) return NULL;
        if (marker == 0xE1 && length >= 8) {
            const size_t end = at + 2 + length;
            if (end > *filled) {
                if (end > *capacity) {
                    uint8_t *grown = realloc(*buffer, end);
                    if (!grown) return NULL;
                    *buffer = data = grown;
                    *capacity = end;
                }
                int error = 0;
                *filled += ci_read_up_to(fd, data + *filled, end - *filled, &error);
                if (end > *filled) return NULL;
            }
            if (memcmp(data + at + 4, "Exif\0\0", 6) != 0) {
                at = end;
                continue;
            }
            ExifData *exif = exif_data_new();
            if (!exif) return NULL;
            exif_data_unset_option(exif, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
            exif_data_load_data(exif, data + at + 4, (unsigned int)(length - 2));
            uint8_t *copy = NULL;
            if (exif->data && exif->size > 4) {
                copy = malloc(exif->size);
                if (copy) {
                    memcpy(copy, exif->data, exif->size);
                    *thumbnail_size = exif->size;
                }
            }
            exif_data_unref(exif);
            return copy;
        }
        at += 2 + length;
    }
    return NULL;
}

// Whether the file at fd (file_size bytes) ends with a JPEG's end marker.
// One that does not may be cut short, which only a decode of its data
// notices: its thumbnail, written first, would measure it as whole.
static int ends_with_end_marker(int fd, size_t file_size) {
    uint8_t tail[2];
    return file_size >= 2 && pread(fd, tail, 2, (off_t)(file_size - 2)) == 2 && tail[0] == 0xFF && tail[1] == 0xD9;
}

// The thumbnail decoded, when it is there and usable for a photo stored
// width x height, and the file ends as a whole JPEG does: CI_OK with
// *picture filled (free it), anything else when not.
static ci_status thumbnail_picture(const char *path, uint32_t width, uint32_t height, const ci_limits *limits,
                                   ci_image *picture) {
    int fd = -1;
    size_t file_size = 0, capacity = 0, filled = 0, thumbnail_size = 0;
    uint8_t *buffer = NULL;
    ci_error ignored;
    ci_status status = ci_open_prefix(path, &fd, &file_size, &buffer, &capacity, &filled, &ignored);
    if (status != CI_OK) return status;
    uint8_t *thumbnail = ends_with_end_marker(fd, file_size)
                             ? exif_thumbnail(fd, &buffer, &capacity, &filled, &thumbnail_size)
                             : NULL;
    close(fd);
    free(buffer);
    if (!thumbnail) return CI_ERR_NOT_IMAGE;
    ci_decode_options options;
    memset(&options, 0, sizeof options);
    options.background = (ci_color){255, 255, 255};
    options.limits = *limits;
    status = ci_decode_memory(thumbnail, thumbnail_size, path, &options, picture, &ignored);
    free(thumbnail);
    if (status != CI_OK) return status;
    // Of the photo's shape, and large enough to measure.
    const double shape = (double)width / height, thumbnail_shape = (double)picture->width / picture->height;
    const uint32_t longest = picture->width > picture->height ? picture->width : picture->height;
    if (longest < THUMBNAIL_MIN_SIDE || fabs(thumbnail_shape / shape - 1) > THUMBNAIL_SHAPE_TOLERANCE) {
        ci_image_free(picture);
        return CI_ERR_UNSUPPORTED;
    }
    return CI_OK;
}

ci_status ci_measure_photo(const char *path, const ci_measure_options *options, ci_measures *out, ci_error *err) {
    if (!path || !options || !out) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_measure_photo: missing argument");
    memset(out, 0, sizeof *out);
    ci_status status = ci_probe_file(path, &out->info, err);
    if (status != CI_OK) return status;
    ci_image picture;
    memset(&picture, 0, sizeof picture);
    int orientation = 1;
    if (options->use_thumbnail && out->info.format == CI_FORMAT_JPEG &&
        thumbnail_picture(path, out->info.width, out->info.height, &options->limits, &picture) == CI_OK) {
        out->from_thumbnail = 1;
        orientation = out->info.orientation;
    } else {
        ci_decode_options decode;
        memset(&decode, 0, sizeof decode);
        decode.min_width = decode.min_height = MEASURE_SIDE;
        decode.apply_orientation = 1;
        decode.background = (ci_color){255, 255, 255};
        decode.limits = options->limits;
        // A HEIF's thumbnail (libheif's, of the photo's shape) stands in
        // for a decode that it covers: ask for no more than is measured,
        // MEASURE_SIDE on the long side, so that a phone's (320 x 240)
        // does, as the EXIF thumbnail does for a JPEG.
        const uint32_t dw = out->info.display_width, dh = out->info.display_height, longest = dw > dh ? dw : dh;
        if (options->use_thumbnail && out->info.format == CI_FORMAT_HEIF && longest > MEASURE_SIDE) {
            decode.min_width = (uint32_t)(((uint64_t)dw * MEASURE_SIDE + longest - 1) / longest);
            decode.min_height = (uint32_t)(((uint64_t)dh * MEASURE_SIDE + longest - 1) / longest);
        }
        int stand_in = 0;
        status = ci_decode_file_noting_stand_in(path, &decode, &picture, &stand_in, &out->corrupt_data, err);
        if (status != CI_OK) return status;
        out->from_thumbnail = stand_in;
    }
    // Upright grey of at most MEASURE_SIDE pixels on its long side, as the
    // face search's picture is made (ci_reduce_upright).
    uint32_t dw, dh, w, h;
    ci_oriented_size(orientation, picture.width, picture.height, &dw, &dh);
    ci_reduced_size(dw, dh, MEASURE_SIDE, 1, &w, &h);
    ci_image grey;
    status = ci_reduce_upright(&picture, orientation, w, h, 1, &grey, path, err);
    ci_image_free(&picture);
    if (status != CI_OK) return status;
    out->measured_width = grey.width;
    out->measured_height = grey.height;
    out->hash = dct_hash(grey.pixels, grey.width, grey.height);
    detail_and_exposure(grey.pixels, grey.width, grey.height, out);
    out->gradient_hash = gradient_hash(grey.pixels, grey.width, grey.height);
    ci_image_free(&grey);
    return CI_OK;
}

// Faces are looked for as the smart crop looks (faces.c), in a picture whose
// short side is its search's.
#define FACE_PICTURE_SIDE 480

ci_status ci_count_faces(const char *path, const ci_limits *limits, int *faces, ci_error *err) {
    if (!path || !faces) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_count_faces: missing argument");
    *faces = 0;
    ci_decode_options decode;
    memset(&decode, 0, sizeof decode);
    decode.min_width = decode.min_height = FACE_PICTURE_SIDE;
    decode.apply_orientation = 1;
    decode.background = (ci_color){255, 255, 255};
    if (limits) decode.limits = *limits;
    ci_image picture;
    memset(&picture, 0, sizeof picture);
    ci_status status = ci_decode_file(path, &decode, &picture, err);
    if (status != CI_OK) return status;
    ci_box found[CI_MAX_FACES];
    status = ci_find_faces(&picture, 1, found, faces, path, err);
    ci_image_free(&picture);
    return status;
}
