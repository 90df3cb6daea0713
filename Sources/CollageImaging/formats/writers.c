// writers.c — the formats the engine writes, apart from those it reads
// (table.c), as libvips keeps its save classes apart from its load classes:
// each writer declares, in its own file (formats/NAME_save.c), its name,
// extensions, whether it writes pixels or pages, the options it reads and
// its functions. A new output format is its writer file and one line here.
#include "../internal.h"
#include "../metadata/metadata.h"

#include <stdlib.h>

extern const ci_writer ci_jpeg_writer, ci_png_writer, ci_heif_writer, ci_webp_writer, ci_pdf_writer;

// The usual first: what a batch writes unless told (JPEG). The order is the
// help texts' and the extensions' lists.
static const ci_writer *const writers[] = {
    &ci_jpeg_writer,
    &ci_png_writer,
    &ci_heif_writer,
    &ci_webp_writer,
    &ci_pdf_writer,
};

#define WRITER_COUNT (sizeof writers / sizeof writers[0])

const ci_writer *ci_writer_for(ci_format format) {
    for (size_t i = 0; i < WRITER_COUNT; i++)
        if (writers[i]->format == format) return writers[i];
    return NULL;
}

size_t ci_writers(size_t index, ci_writer_info *info) {
    if (info && index < WRITER_COUNT) {
        const ci_writer *writer = writers[index];
        info->format = writer->format;
        info->name = writer->name;
        info->extensions = writer->extensions;
        info->writes = writer->writes;
        info->options = writer->options;
    }
    return WRITER_COUNT;
}

ci_save_options ci_save_options_default(void) {
    return (ci_save_options){.quality = 90, .threads = 1, .date_taken = NULL, .dots_per_inch = 0};
}

// The options as every writer reads them: the defaults for none, the quality
// clamped to 1-100.
static ci_save_options checked_options(const ci_save_options *options) {
    ci_save_options checked = options ? *options : ci_save_options_default();
    if (checked.quality < 1) checked.quality = 1;
    if (checked.quality > 100) checked.quality = 100;
    return checked;
}

ci_status ci_encode(ci_format format, const ci_image *image, const ci_save_options *options,
                    uint8_t **out, size_t *out_size, ci_error *err) {
    const ci_writer *writer = ci_writer_for(format);
    if (!writer || writer->writes != CI_WRITES_PIXELS)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_encode: format %d cannot be saved as pixels", (int)format);
    ci_save_options checked = checked_options(options);
    ci_output_tags tags;
    ci_status status = ci_output_tags_make(&checked, &tags, err);
    if (status == CI_OK) status = writer->save(image, &checked, &tags, out, out_size, err);
    ci_output_tags_free(&tags);
    return status;
}

// --- Documents: a page writer's, through its functions ---

ci_status ci_document_open(ci_document *document, ci_error *err) {
    if (!document) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_document_open: no document");
    document->state = NULL;
    const ci_writer *writer = ci_writer_for(document->format);
    if (!writer || writer->writes != CI_WRITES_PAGES)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_document_open: format %d does not write pages",
                       (int)document->format);
    if (!document->write) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_document_open: nowhere to write");
    document->options = checked_options(&document->options);
    return writer->open(document, err);
}

ci_status ci_document_add(ci_document *document, const ci_page *page, ci_error *err) {
    const ci_writer *writer = document ? ci_writer_for(document->format) : NULL;
    if (!writer || writer->writes != CI_WRITES_PAGES || !document->state)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_document_add: the document is not open");
    return writer->add(document, page, err);
}

ci_status ci_document_close(ci_document *document, ci_error *err) {
    const ci_writer *writer = document ? ci_writer_for(document->format) : NULL;
    if (!writer || writer->writes != CI_WRITES_PAGES || !document->state)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_document_close: the document is not open");
    ci_status status = writer->close(document, err);
    document->state = NULL;
    return status;
}
