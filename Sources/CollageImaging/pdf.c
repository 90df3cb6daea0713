// pdf.c — one page of a collage to print, through Cairo's PDF surface (issue #34).
//
// The page is vector where it can be: the background, the gaps and margins
// and the caption bands are rectangles, the title and captions are text
// that Cairo embeds and subsets the fonts of, and each photo is embedded
// once as the JPEG the caller encoded at its cell's print resolution
// (Cairo writes JPEG mime data as a DCTDecode image without decoding or
// re-encoding it). Never a whole-page raster: a reader prints text sharp at
// any resolution, and the file stays about as large as the JPEG collage.
//
// Cairo is the text stack's (text_api.c loads it on the first page).
#include "text_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// How far inside its place a photo is drawn, in canvas pixels (pdf_draw):
// above the precision Cairo writes a clip with (a thousandth of a point,
// 1/240 of a pixel at 300 dpi), far below anything a print shows.
#define PDF_PHOTO_INSET (1.0 / 64)

// The PDF as Cairo writes it, grown as it comes.
typedef struct {
    ci_growing_buffer file;
    int failed;
} pdf_buffer;

static cairo_status_t pdf_write(void *closure, const unsigned char *data, unsigned int length) {
    pdf_buffer *buffer = closure;
    if (buffer->failed || !ci_growing_append(&buffer->file, data, length)) {
        buffer->failed = 1;
        return CAIRO_STATUS_WRITE_ERROR;
    }
    return CAIRO_STATUS_SUCCESS;
}

static ci_status pdf_check(const ci_pdf_page *page, ci_error *err) {
    if (!page) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "pdf: no page given");
    // Acrobat's limits for a page: 3 to 14400 points (200 inches) a side.
    if (!(page->width_points >= 3 && page->width_points <= 14400 && page->height_points >= 3 &&
          page->height_points <= 14400))
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "pdf: a page of %gx%g points is outside 3 to 14400 a side",
                       page->width_points, page->height_points);
    if (page->canvas_width < 1 || page->canvas_height < 1)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "pdf: the canvas has no pixels");
    if ((page->photo_count && !page->photos) || (page->shade_count && !page->shades) ||
        (page->text_count && !page->texts))
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "pdf: a list is counted but not given");
    for (size_t i = 0; i < page->photo_count; i++) {
        const ci_pdf_photo *photo = &page->photos[i];
        const ci_image *pixels = &photo->pixels;
        if (!photo->jpeg || photo->jpeg_size == 0 || photo->jpeg_size > UINT32_MAX)
            return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "pdf: photo %zu has no JPEG", i + 1);
        if (!pixels->pixels || pixels->channels != 3 || pixels->width < 1 || pixels->height < 1 ||
            pixels->width > INT32_MAX / 4 || pixels->height > INT32_MAX / 4 ||
            pixels->stride < (size_t)pixels->width * 3)
            return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "pdf: photo %zu has no RGB pixels", i + 1);
        if (photo->where.width < 1 || photo->where.height < 1)
            return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "pdf: photo %zu has an empty place", i + 1);
    }
    return CI_OK;
}

// The photo as a Cairo image whose JPEG mime data is what the PDF embeds;
// its pixels are the same photo, for any reader of the surface that cannot
// take the JPEG (Cairo falls back to them, never to a blank).
static cairo_surface_t *pdf_photo_surface(const ci_text_api *t, const ci_pdf_photo *photo) {
    const ci_image *image = &photo->pixels;
    cairo_surface_t *surface = t->cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)image->width, (int)image->height);
    if (t->cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) return surface;
    t->cairo_surface_flush(surface);
    uint8_t *data = t->cairo_image_surface_get_data(surface);
    int stride = t->cairo_image_surface_get_stride(surface);
    for (uint32_t y = 0; y < image->height; y++) {
        const uint8_t *from = image->pixels + (size_t)y * image->stride;
        uint32_t *to = (uint32_t *)(data + (size_t)y * (size_t)stride);  // native-endian xRGB words
        for (uint32_t x = 0; x < image->width; x++, from += 3)
            to[x] = 0xFF000000u | (uint32_t)from[0] << 16 | (uint32_t)from[1] << 8 | from[2];
    }
    t->cairo_surface_mark_dirty(surface);
    // The caller's JPEG outlives the surface: the page is finished before returning.
    t->cairo_surface_set_mime_data(surface, CAIRO_MIME_TYPE_JPEG, photo->jpeg, (unsigned long)photo->jpeg_size, NULL,
                                   NULL);
    return surface;
}

// The page drawn on `cr`, whose units are the canvas's pixels.
static ci_status pdf_draw(const ci_text_api *t, cairo_t *cr, const ci_pdf_page *page, ci_error *err) {
    const ci_color background = page->background;
    t->cairo_set_source_rgb(cr, background.r / 255.0, background.g / 255.0, background.b / 255.0);
    t->cairo_rectangle(cr, 0, 0, page->canvas_width, page->canvas_height);
    t->cairo_fill(cr);
    for (size_t i = 0; i < page->photo_count; i++) {
        const ci_pdf_photo *photo = &page->photos[i];
        cairo_surface_t *surface = pdf_photo_surface(t, photo);
        cairo_status_t made = t->cairo_surface_status(surface);
        if (made == CAIRO_STATUS_SUCCESS) {
            // Inset by a sliver of a pixel: poppler's Splash (pdftoppm, CUPS's
            // pdftoraster) draws an image over every device pixel from the
            // floor of its left edge to the floor of its right edge plus one,
            // so a photo whose edges land on pixel boundaries (a page printed
            // at its canvas's resolution) was stretched a pixel wider and
            // taller, resampled, softer and shifted. Edges a sliver inside
            // keep it pixel for pixel there; any other reader cannot see it.
            const double inset = PDF_PHOTO_INSET;
            t->cairo_save(cr);
            t->cairo_translate(cr, photo->where.x + inset, photo->where.y + inset);
            t->cairo_scale(cr, (photo->where.width - 2 * inset) / photo->pixels.width,
                           (photo->where.height - 2 * inset) / photo->pixels.height);
            t->cairo_rectangle(cr, 0, 0, photo->pixels.width, photo->pixels.height);
            t->cairo_clip(cr);
            t->cairo_set_source_surface(cr, surface, 0, 0);
            t->cairo_paint(cr);
            t->cairo_restore(cr);
        }
        t->cairo_surface_destroy(surface);
        if (made != CAIRO_STATUS_SUCCESS)
            return ci_fail(err, CI_ERR_NO_MEMORY, "pdf: photo %zu (%ux%u): %s", i + 1, photo->pixels.width,
                           photo->pixels.height, t->cairo_status_to_string(made));
    }
    for (size_t i = 0; i < page->shade_count; i++) {
        const ci_pdf_shade *shade = &page->shades[i];
        t->cairo_set_source_rgba(cr, shade->colour.r / 255.0, shade->colour.g / 255.0, shade->colour.b / 255.0,
                                 shade->alpha / 255.0);
        t->cairo_rectangle(cr, shade->box.x, shade->box.y, shade->box.width, shade->box.height);
        t->cairo_fill(cr);
    }
    for (size_t i = 0; i < page->text_count; i++) {
        ci_status status = ci_text_show_on(t, cr, page->texts[i].box, &page->texts[i].run, err);
        if (status != CI_OK) return status;
    }
    cairo_status_t drawn = t->cairo_status(cr);
    if (drawn != CAIRO_STATUS_SUCCESS)
        return ci_fail(err, CI_ERR_ENCODE, "pdf: drawing the page failed: %s", t->cairo_status_to_string(drawn));
    return CI_OK;
}

ci_status ci_pdf_write(const ci_pdf_page *page, uint8_t **out, size_t *out_size, ci_error *err) {
    if (out) *out = NULL;
    if (out_size) *out_size = 0;
    if (!out || !out_size) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "pdf: nowhere to write");
    ci_status status = pdf_check(page, err);
    if (status != CI_OK) return status;
    ci_text_api api;
    status = ci_text_api_open(&api, err);
    if (status != CI_OK) return status;
    pdf_buffer buffer = {0};
    cairo_surface_t *surface =
        api.cairo_pdf_surface_create_for_stream(pdf_write, &buffer, page->width_points, page->height_points);
    if (page->title && *page->title) api.cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, page->title);
    if (page->creator && *page->creator)
        api.cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, page->creator);
    if (page->creation_date && *page->creation_date)
        api.cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, page->creation_date);
    cairo_t *cr = api.cairo_create(surface);  // never NULL: an object in an error state on failure
    if (api.cairo_status(cr) == CAIRO_STATUS_SUCCESS) {
        api.cairo_scale(cr, page->width_points / page->canvas_width, page->height_points / page->canvas_height);
        status = pdf_draw(&api, cr, page, err);
        api.cairo_show_page(cr);
    }
    cairo_status_t drawn = api.cairo_status(cr);
    api.cairo_destroy(cr);
    api.cairo_surface_finish(surface);  // writes the file's end through pdf_write
    cairo_status_t finished = api.cairo_surface_status(surface);
    api.cairo_surface_destroy(surface);
    if (status == CI_OK && (buffer.failed || drawn != CAIRO_STATUS_SUCCESS || finished != CAIRO_STATUS_SUCCESS))
        status = buffer.failed ? ci_fail(err, CI_ERR_NO_MEMORY, "pdf: out of memory writing the page")
                               : ci_fail(err, CI_ERR_ENCODE, "pdf: Cairo failed: %s",
                                         api.cairo_status_to_string(drawn != CAIRO_STATUS_SUCCESS ? drawn : finished));
    ci_text_api_close(&api);
    if (status != CI_OK) {
        free(buffer.file.data);
        return status;
    }
    *out = buffer.file.data;  // freed with ci_buffer_free, like ci_encode's
    *out_size = buffer.file.size;
    return CI_OK;
}
