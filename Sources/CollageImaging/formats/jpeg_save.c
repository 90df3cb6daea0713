// jpeg_save.c — the JPEG saver through libjpeg-turbo: one piece, or two
// halves made at once and joined by a restart marker.
//
// As in jpeg_load.c, libjpeg's errors longjmp back to the inner half of the
// call (encode_inner), whose owner (encode_rows) frees what it took.
#include "../internal.h"
#include "../metadata/metadata.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

#include "jpeg.h"

// ---------------------------------------------------------------------------
// Encode

typedef struct {
    struct jpeg_compress_struct cinfo;
    jpeg_failure failure;
    unsigned char *buffer;    // jpeg_mem_dest's buffer, valid once dest_ready
    unsigned long buffer_size;
    int dest_ready;
} encode_job;

// Encodes rows [first, first + rows) of `image` as a JPEG of their own, with
// the given restart interval (0: none) and what `options` says; the top rows
// carry `tags` (NULL: none).
static ci_status encode_inner(encode_job *job, const ci_image *image, uint32_t first, uint32_t rows,
                              const ci_save_options *options, unsigned restart_interval,
                              const ci_output_tags *tags, ci_error *err) {
    j_compress_ptr cinfo = &job->cinfo;
    cinfo->err = ci_jpeg_failure_init(&job->failure);
    if (setjmp(job->failure.jump)) {
        if (job->failure.pub.msg_code == JERR_OUT_OF_MEMORY)
            return ci_fail(err, CI_ERR_NO_MEMORY, "JPEG encoding: out of memory");
        return ci_fail(err, CI_ERR_ENCODE, "JPEG encoding: %s", job->failure.reason);
    }

    jpeg_create_compress(cinfo);
    jpeg_mem_dest(cinfo, &job->buffer, &job->buffer_size);
    job->dest_ready = 1;

    cinfo->image_width = image->width;
    cinfo->image_height = rows;
    cinfo->input_components = image->channels;
    // RGBX: libjpeg-turbo skips the fourth byte, so RGBA images need no copy.
    cinfo->in_color_space = image->channels == 4 ? JCS_EXT_RGBX : JCS_EXT_RGB;
    jpeg_set_defaults(cinfo);  // YCbCr with 2x2 (4:2:0) chroma subsampling
    jpeg_set_quality(cinfo, options->quality, TRUE);
    // The standard Huffman tables, in one pass. Image-specific tables
    // (optimize_coding) make a 1920x1080 collage about 1.5% smaller but take
    // a second pass that costs 40% of the encoding time, which is the part
    // of a save that cannot run in parallel (docs/performance.md). The
    // pixels are the same either way.
    cinfo->optimize_coding = FALSE;
    cinfo->restart_interval = restart_interval;
    if (tags && tags->dots_per_inch > 0) {  // JFIF's density: what a print dialog reads first
        cinfo->density_unit = 1;            // dots per inch
        cinfo->X_density = cinfo->Y_density = (UINT16)tags->dots_per_inch;
    }

    jpeg_start_compress(cinfo, TRUE);
    // EXIF first (APP1, as cameras write it), then the profile (APP2,
    // libjpeg-turbo's own writer); join_halves keeps the top half's header.
    if (tags && first == 0) {
        if (tags->exif) jpeg_write_marker(cinfo, JPEG_APP0 + 1, tags->exif, (unsigned)tags->exif_size);
        if (tags->icc) jpeg_write_icc_profile(cinfo, tags->icc, (unsigned)tags->icc_size);
    }
    while (cinfo->next_scanline < cinfo->image_height) {
        // libjpeg does not write to its input; its API just is not const.
        JSAMPROW row[1] = {(JSAMPROW)(image->pixels +
                                      (size_t)(first + cinfo->next_scanline) * image->stride)};
        jpeg_write_scanlines(cinfo, row, 1);
    }
    jpeg_finish_compress(cinfo);
    return CI_OK;
}

// encode_inner's owner: on success *out (free it) and *out_size.
static ci_status encode_rows(const ci_image *image, uint32_t first, uint32_t rows,
                             const ci_save_options *options, unsigned restart_interval, const ci_output_tags *tags, uint8_t **out,
                             size_t *out_size, ci_error *err) {
    encode_job job;
    memset(&job.cinfo, 0, sizeof job.cinfo);
    job.buffer = NULL;
    job.buffer_size = 0;
    job.dest_ready = 0;
    ci_status status = encode_inner(&job, image, first, rows, options, restart_interval, tags, err);
    if (status != CI_OK && job.dest_ready) {
        // jpeg_mem_dest grows its buffer by allocating a new one and freeing
        // the old, but publishes the current one to job.buffer only in
        // term_destination. After a failure job.buffer may thus point to
        // freed memory; term_destination (which only publishes) tells us
        // which buffer is live so that we free that one.
        (*job.cinfo.dest->term_destination)(&job.cinfo);
        free(job.buffer);
        job.buffer = NULL;
    }
    jpeg_destroy_compress(&job.cinfo);
    if (status == CI_OK) {
        *out = job.buffer;
        *out_size = job.buffer_size;
    }
    return status;
}

// ---------------------------------------------------------------------------
// Encoding in two halves
//
// Encoding cannot run in parallel with itself, and it is the last thing a
// save does. So a tall image is encoded as two halves, top and bottom, that
// can be made at the same time and are joined by a restart marker: the top
// half is encoded as a JPEG of its own with a restart interval of exactly its
// number of MCUs, its header is given the whole image's height, and the
// bottom half's entropy-coded data follows after an RST0 marker. After a
// restart marker a decoder starts afresh (DC predictions at zero, at a byte
// boundary), which is exactly how the bottom half was encoded. The split lies
// on an MCU row, so no block and no chroma sample straddles it: the file
// decodes to the same pixels as a one-piece encoding. The bytes do not depend
// on whether the halves were made on one thread or two.

#define MCU_ROWS 16                      // 4:2:0: an MCU is 16 x 16 pixels
#define SPLIT_MIN_HEIGHT 256             // smaller images: not worth a thread

typedef struct {
    const ci_image *image;
    uint32_t first, rows;
    const ci_save_options *options;
    unsigned restart_interval;
    const ci_output_tags *tags;
    uint8_t *out;
    size_t size;
    ci_status status;
    ci_error err;
} encode_half;

static void *encode_half_run(void *argument) {
    encode_half *half = argument;
    half->status = encode_rows(half->image, half->first, half->rows, half->options,
                               half->restart_interval, half->tags, &half->out, &half->size, &half->err);
    return NULL;
}

// The offset of the first marker `code` among the header segments (from SOI
// up to and including SOS) of a JPEG our encoder made, or 0.
static size_t find_segment(const uint8_t *jpeg, size_t size, uint8_t code) {
    size_t at = 2;  // past SOI
    while (at + 4 <= size && jpeg[at] == 0xFF) {
        uint8_t marker = jpeg[at + 1];
        if (marker == code) return at;
        if (marker == 0xDA) return 0;  // SOS: the header is over
        at += 2 + (((size_t)jpeg[at + 2] << 8) | jpeg[at + 3]);
    }
    return 0;
}

// Joins the halves into one buffer; see above.
static ci_status join_halves(const encode_half *top, const encode_half *bottom, uint32_t height,
                             uint8_t **out, size_t *out_size, ci_error *err) {
    size_t sof = find_segment(top->out, top->size, 0xC0);     // SOF0
    size_t dri = find_segment(top->out, top->size, 0xDD);     // DRI
    size_t sos = find_segment(bottom->out, bottom->size, 0xDA);
    if (!sof || !dri || !sos || sof + 9 > top->size || top->size < 4 || bottom->size < 4 ||
        top->out[top->size - 2] != 0xFF || top->out[top->size - 1] != 0xD9 ||
        bottom->out[bottom->size - 2] != 0xFF || bottom->out[bottom->size - 1] != 0xD9)
        return ci_fail(err, CI_ERR_ENCODE, "JPEG encoding: unexpected encoder output");
    size_t scan = sos + 2 + (((size_t)bottom->out[sos + 2] << 8) | bottom->out[sos + 3]);
    if (scan > bottom->size - 2)
        return ci_fail(err, CI_ERR_ENCODE, "JPEG encoding: unexpected encoder output");
    size_t top_bytes = top->size - 2, bottom_bytes = bottom->size - 2 - scan;
    size_t total = top_bytes + 2 + bottom_bytes + 2;
    uint8_t *joined = malloc(total);
    if (!joined) return ci_fail(err, CI_ERR_NO_MEMORY, "JPEG encoding: out of memory");
    memcpy(joined, top->out, top_bytes);
    joined[sof + 5] = (uint8_t)(height >> 8);  // SOF0: marker, length, precision, height
    joined[sof + 6] = (uint8_t)height;
    joined[top_bytes] = 0xFF;
    joined[top_bytes + 1] = 0xD0;  // RST0
    memcpy(joined + top_bytes + 2, bottom->out + scan, bottom_bytes);
    joined[total - 2] = 0xFF;
    joined[total - 1] = 0xD9;  // EOI
    *out = joined;
    *out_size = total;
    return CI_OK;
}

// The JPEG as `options` says, on up to its `threads` (see below), with
// `tags` in the file (NULL: none).
static ci_status jpeg_save(const ci_image *image, const ci_save_options *options, const ci_output_tags *tags,
                           uint8_t **out, size_t *out_size, ci_error *err) {
    if (!out || !out_size) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_encode_jpeg: missing argument");
    *out = NULL;
    *out_size = 0;
    if (!image || !image->pixels || image->width == 0 || image->height == 0 ||
        (image->channels != 3 && image->channels != 4) ||
        image->stride < (size_t)image->width * (size_t)image->channels)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_encode_jpeg: invalid image");

    // Split on an MCU row, the top half taking the larger share, so that
    // the bottom half has at most one restart interval of MCUs; the interval
    // must fit the 16-bit DRI field.
    uint64_t mcu_rows = ((uint64_t)image->height + MCU_ROWS - 1) / MCU_ROWS;
    uint64_t top_mcu_rows = (mcu_rows + 1) / 2;
    uint64_t interval = (((uint64_t)image->width + 15) / 16) * top_mcu_rows;
    if (image->height < SPLIT_MIN_HEIGHT || mcu_rows < 2 || interval > 65535)
        return encode_rows(image, 0, image->height, options, 0, tags, out, out_size, err);

    uint32_t top_rows = (uint32_t)(top_mcu_rows * MCU_ROWS);
    encode_half top = {image, 0, top_rows, options, (unsigned)interval, tags, NULL, 0, CI_OK, {0}};
    encode_half bottom = {image, top_rows, image->height - top_rows, options, 0, NULL, NULL, 0, CI_OK, {0}};
    pthread_t thread;
    int threaded = options->threads >= 2 && pthread_create(&thread, NULL, encode_half_run, &bottom) == 0;
    encode_half_run(&top);
    if (threaded)
        pthread_join(thread, NULL);
    else
        encode_half_run(&bottom);

    ci_status status;
    if (top.status != CI_OK) {
        status = top.status;
        if (err) *err = top.err;
    } else if (bottom.status != CI_OK) {
        status = bottom.status;
        if (err) *err = bottom.err;
    } else {
        status = join_halves(&top, &bottom, image->height, out, out_size, err);
    }
    free(top.out);
    free(bottom.out);
    return status;
}

// Its entry in the writers' table (writers.c).
const ci_writer ci_jpeg_writer = {
    .format = CI_FORMAT_JPEG,
    .name = "JPEG",
    .extensions = "jpg jpeg",
    .writes = CI_WRITES_PIXELS,
    .options = CI_OPTION_QUALITY | CI_OPTION_DPI,
    .save = jpeg_save,
};
