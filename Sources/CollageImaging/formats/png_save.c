// png_save.c — the PNG saver through libpng, into memory.
#include "../internal.h"
#include "../metadata/metadata.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "png.h"

// ---------------------------------------------------------------------------
// Encode

static void write_to_sink(png_structp png, png_bytep bytes, size_t length) {
    if (!ci_growing_append(png_get_io_ptr(png), bytes, length)) png_error(png, "out of memory for the encoded PNG");
}

static void flush_sink(png_structp png) { (void)png; }

typedef struct {
    png_context context;
    ci_growing_buffer sink;
    png_structp png;
    png_infop info;
} png_writer;

static ci_status encode_body(png_writer *writer, const ci_image *image, const ci_output_tags *tags) {
    if (setjmp(png_jmpbuf(writer->png))) return writer->context.err->status;
    png_structp png = writer->png;
    png_set_write_fn(png, &writer->sink, write_to_sink, flush_sink);
    // libpng's write limits default to 1,000,000 per side; the PNG format's
    // own limit is 2^31 - 1.
    png_set_user_limits(png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    // Level 3. A collage is photographic, and after libpng's adaptive row
    // filters zlib finds little to gain by searching harder. Measured on a
    // 1800x1200 collage of four photos (libpng 1.6.39, zlib 1.2.13):
    //   level 1: 3.23 MB, ~0.3 s   level 3: 3.11 MB, ~0.4 s
    //   level 6: 3.09 MB, ~1.1 s   level 9: 3.02 MB, ~3.7 s
    // Level 3 is the knee: 0.6% larger than zlib's default 6 at about a third
    // of the time; below it the size grows faster than the time falls.
    png_set_compression_level(png, 3);
    png_set_IHDR(png, writer->info, image->width, image->height, 8,
                 image->channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (tags && tags->icc)
        png_set_iCCP(png, writer->info, "sRGB", PNG_COMPRESSION_TYPE_BASE, tags->icc, (png_uint_32)tags->icc_size);
    if (tags && tags->dots_per_inch > 0) {  // pHYs counts pixels per metre
        png_uint_32 per_metre = (png_uint_32)(tags->dots_per_inch / 0.0254 + 0.5);
        png_set_pHYs(png, writer->info, per_metre, per_metre, PNG_RESOLUTION_METER);
    }
    // eXIf holds the TIFF structure without JPEG's "Exif\0\0".
    if (tags && tags->exif && tags->exif_size > 6)
        png_set_eXIf_1(png, writer->info, (png_uint_32)(tags->exif_size - 6), tags->exif + 6);
    png_write_info(png, writer->info);
    for (uint32_t y = 0; y < image->height; y++)
        png_write_row(png, image->pixels + (size_t)y * image->stride);
    png_write_end(png, NULL);
    return CI_OK;
}

// The PNG, with `tags` in the file (NULL: none). Lossless, on one thread:
// none of the options applies.
static ci_status png_save(const ci_image *image, const ci_save_options *options, const ci_output_tags *tags,
                          uint8_t **out, size_t *out_size, ci_error *err) {
    (void)options;
    if (!out || !out_size) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_encode_png: missing output");
    *out = NULL;
    *out_size = 0;
    if (!image || !image->pixels || image->width == 0 || image->height == 0 ||
        (image->channels != 3 && image->channels != 4) ||
        image->stride < (size_t)image->width * (size_t)image->channels)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_encode_png: invalid image");
    if (image->width > PNG_UINT_31_MAX || image->height > PNG_UINT_31_MAX)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_encode_png: %ux%u is too large for PNG",
                       image->width, image->height);

    ci_error local;
    png_writer writer;
    memset(&writer, 0, sizeof writer);
    writer.context.name = "PNG encoder";
    writer.context.err = &local;
    writer.context.status = CI_ERR_ENCODE;
    ci_status status = CI_OK;
    writer.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &writer.context, ci_png_on_error,
                                         ci_png_on_warning);
    if (writer.png) writer.info = png_create_info_struct(writer.png);
    if (!writer.png || !writer.info)
        status = ci_fail(&local, CI_ERR_NO_MEMORY, "PNG encoder: cannot create a PNG writer");
    else
        status = encode_body(&writer, image, tags);
    if (writer.png) png_destroy_write_struct(&writer.png, &writer.info);
    if (status != CI_OK) {
        free(writer.sink.data);
        if (err) *err = local;
        return status;
    }
    // Give back the unused part of the last doubling.
    uint8_t *fitted = realloc(writer.sink.data, writer.sink.size);
    *out = fitted ? fitted : writer.sink.data;
    *out_size = writer.sink.size;
    return CI_OK;
}

// Its entry in the writers' table (writers.c).
const ci_writer ci_png_writer = {
    .format = CI_FORMAT_PNG,
    .name = "PNG",
    .extensions = "png",
    .writes = CI_WRITES_PIXELS,
    .options = CI_OPTION_DPI,
    .save = png_save,
};
