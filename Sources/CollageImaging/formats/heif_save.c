// heif_save.c — the AVIF saver: libheif with its AV1 encoder (libaom in
// Debian's libheif1), loaded as heif_api.c loads the decoder.
//
// The speed: libaom at its defaults took seconds for a 1920x1080 collage on
// this project's 2-core machine; at speed AVIF_SPEED it takes under a
// second (docs/performance.md), the bound issue #22 sets. Its own threads
// use the cores the draw has finished with.
#include "../internal.h"
#include "../metadata/metadata.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "heif_api.h"

// libaom's cpu-used, 0 (slowest, smallest) to 9: measured in
// docs/performance.md ("AVIF out").
#define AVIF_SPEED 8

// The encoded file, grown as libheif writes it.
typedef struct {
    ci_growing_buffer file;
    int failed;
} memory_writer;

static struct heif_error write_to_memory(struct heif_context *context, const void *data, size_t size,
                                         void *userdata) {
    (void)context;
    memory_writer *writer = userdata;
    struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "ok"};
    struct heif_error failed = {heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory"};
    if (!ci_growing_append(&writer->file, data, size)) {
        writer->failed = 1;
        return failed;
    }
    return ok;
}

typedef struct {
    ci_heif_api api;
    struct heif_context *context;
    struct heif_encoder *encoder;
    struct heif_image *image;
    struct heif_encoding_options *options;
    struct heif_image_handle *handle;
    memory_writer writer;
} avif_job;

// A libheif failure in one line.
static ci_status encode_failure(struct heif_error error, ci_error *err) {
    return ci_fail(err, error.code == heif_error_Memory_allocation_error ? CI_ERR_NO_MEMORY : CI_ERR_ENCODE,
                   "AVIF encoder: %s", error.message ? error.message : "failed");
}

static ci_status encode_inner(avif_job *job, const ci_image *image, int quality, int threads,
                              const ci_output_tags *tags, ci_error *err) {
    ci_status status = ci_heif_api_open(&job->api, "the AVIF encoder", err);
    if (status != CI_OK) return status;
    const ci_heif_api *api = &job->api;
    job->context = api->heif_context_alloc();
    if (!job->context) return ci_fail(err, CI_ERR_NO_MEMORY, "out of memory for the AVIF encoder");
    struct heif_error error = api->heif_context_get_encoder_for_format(job->context, heif_compression_AV1, &job->encoder);
    if (error.code != heif_error_Ok)
        return ci_fail(err, CI_ERR_UNSUPPORTED, "the installed libheif has no AV1 encoder (Debian: libheif1 with libaom3)");
    api->heif_encoder_set_lossy_quality(job->encoder, quality);
    // Parameters the AV1 encoders name differently are set where known and
    // otherwise left at their defaults (an unknown name is an error, ignored).
    api->heif_encoder_set_parameter_integer(job->encoder, "speed", AVIF_SPEED);
    api->heif_encoder_set_parameter_integer(job->encoder, "threads", threads < 1 ? 1 : threads);
    api->heif_encoder_set_parameter_string(job->encoder, "chroma", "420");

    error = api->heif_image_create((int)image->width, (int)image->height, heif_colorspace_RGB,
                                   heif_chroma_interleaved_RGB, &job->image);
    if (error.code == heif_error_Ok)
        error = api->heif_image_add_plane(job->image, heif_channel_interleaved, (int)image->width,
                                          (int)image->height, 8);
    if (error.code != heif_error_Ok) return encode_failure(error, err);
    int stride = 0;
    uint8_t *plane = api->heif_image_get_plane(job->image, heif_channel_interleaved, &stride);
    if (!plane || stride < (int)image->width * 3) return ci_fail(err, CI_ERR_NO_MEMORY, "out of memory for the AVIF encoder");
    for (uint32_t y = 0; y < image->height; y++)
        memcpy(plane + (size_t)y * (size_t)stride, image->pixels + (size_t)y * image->stride, (size_t)image->width * 3);
    if (tags && tags->icc) {
        error = api->heif_image_set_raw_color_profile(job->image, "prof", tags->icc, tags->icc_size);
        if (error.code != heif_error_Ok) return encode_failure(error, err);
    }

    // The matrix the pixels are coded with, said beside the profile (two
    // colour boxes), so a reader without ICC support still decodes them right.
    job->options = api->heif_encoding_options_alloc();
    if (!job->options) return ci_fail(err, CI_ERR_NO_MEMORY, "out of memory for the AVIF encoder");
    struct heif_color_profile_nclx nclx;
    memset(&nclx, 0, sizeof nclx);
    nclx.version = 1;
    nclx.color_primaries = heif_color_primaries_ITU_R_BT_709_5;
    nclx.transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1;
    nclx.matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6;
    nclx.full_range_flag = 1;
    job->options->output_nclx_profile = &nclx;
    job->options->save_two_colr_boxes_when_ICC_and_nclx_available = 1;
    error = api->heif_context_encode_image(job->context, job->image, job->encoder, job->options, &job->handle);
    job->options->output_nclx_profile = NULL;  // ours, on the stack: not for libheif to free
    if (error.code != heif_error_Ok) return encode_failure(error, err);
    if (tags && tags->exif && tags->exif_size > 6) {
        // libheif takes the TIFF structure, without JPEG's "Exif\0\0".
        error = api->heif_context_add_exif_metadata(job->context, job->handle, tags->exif + 6, (int)(tags->exif_size - 6));
        if (error.code != heif_error_Ok) return encode_failure(error, err);
    }
    struct heif_writer writer = {1, write_to_memory};
    error = api->heif_context_write(job->context, &writer, &job->writer);
    if (job->writer.failed) return ci_fail(err, CI_ERR_NO_MEMORY, "out of memory for the AVIF file");
    return error.code == heif_error_Ok ? CI_OK : encode_failure(error, err);
}

static ci_status heif_save(const ci_image *image, const ci_save_options *options, const ci_output_tags *tags,
                           uint8_t **out, size_t *out_size, ci_error *err) {
    if (!out || !out_size) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_encode: missing output");
    *out = NULL;
    *out_size = 0;
    if (!image || !image->pixels || image->channels != 3 || image->width == 0 || image->height == 0 ||
        image->width > INT_MAX / 3 || image->height > INT_MAX)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_encode: an RGB image is needed");
    if (tags && tags->exif_size > INT_MAX) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_encode: EXIF too large");
    avif_job job;
    memset(&job, 0, sizeof job);
    ci_status status = encode_inner(&job, image, options->quality, options->threads, tags, err);
    const ci_heif_api *api = &job.api;
    if (job.handle) api->heif_image_handle_release(job.handle);
    if (job.options) api->heif_encoding_options_free(job.options);
    if (job.image) api->heif_image_release(job.image);
    if (job.encoder) api->heif_encoder_release(job.encoder);
    if (job.context) api->heif_context_free(job.context);
    ci_heif_api_close(&job.api);
    if (status == CI_OK) {
        *out = job.writer.file.data;
        *out_size = job.writer.file.size;
    } else {
        free(job.writer.file.data);
    }
    return status;
}

// Its entry in the writers' table (writers.c).
const ci_writer ci_heif_writer = {
    .format = CI_FORMAT_HEIF,
    .name = "AVIF",
    .extensions = "avif",
    .writes = CI_WRITES_PIXELS,
    .options = CI_OPTION_QUALITY | CI_OPTION_DPI,
    .save = heif_save,
};
