// pdf_save.c — the page writer: collages to print as one PDF document of
// any number of pages, through Cairo's PDF surface (issues #34 and #43).
//
// Each page is vector where it can be: the background, the gaps and margins
// and the caption bands are rectangles, the title and captions are text
// that Cairo embeds and subsets the fonts of, and each photo is embedded
// once as a JPEG of its cell of the canvas, encoded here at the document's
// quality (Cairo writes JPEG mime data as a DCTDecode image without decoding
// or re-encoding it). Never a whole-page raster: a reader prints text sharp
// at any resolution, and the file stays about as large as the JPEG collage.
//
// Streamed: Cairo writes each page's content and images out when the page
// is shown (cairo_show_page), through the document's `write`, and this
// file lets go of the page's JPEGs and surfaces right after, so what a
// document holds does not grow with its pages (only Cairo's font subsets,
// a few glyphs a page, wait for the close).
//
// Cairo is the text stack's (text_api.c loads it when a document opens).
#include "../text/text_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

// How far inside its place a photo is drawn, in canvas pixels (pdf_draw):
// above the precision Cairo writes a clip with (a thousandth of a point,
// 1/240 of a pixel at 300 dpi), far below anything a print shows.
#define PDF_PHOTO_INSET (1.0 / 64)

// A document between ci_document_open and ci_document_close.
typedef struct {
    ci_text_api api;
    cairo_surface_t *surface;  // NULL until the first page, whose size Cairo's surface starts at
    ci_write_fn write;
    void *closure;
    ci_save_options options;
    char *title, *creator, *creation_date;  // copies, for the first page
    size_t pages;
    int failed;        // a page failed: the document takes no more and is not finished
    int write_failed;  // `write` refused bytes
} pdf_document;

static cairo_status_t pdf_write(void *closure, const unsigned char *data, unsigned int length) {
    pdf_document *document = closure;
    if (document->write_failed || !document->write(document->closure, data, length)) {
        document->write_failed = 1;
        return CAIRO_STATUS_WRITE_ERROR;
    }
    return CAIRO_STATUS_SUCCESS;
}

// `cell` clipped to the canvas; 0 when none of it is inside.
static int pdf_clip(ci_rect cell, const ci_image *canvas, ci_rect *clipped) {
    int64_t left = cell.x > 0 ? cell.x : 0, top = cell.y > 0 ? cell.y : 0;
    int64_t right = (int64_t)cell.x + cell.width, bottom = (int64_t)cell.y + cell.height;
    if (right > canvas->width) right = canvas->width;
    if (bottom > canvas->height) bottom = canvas->height;
    if (right <= left || bottom <= top) return 0;
    *clipped = (ci_rect){(int32_t)left, (int32_t)top, (uint32_t)(right - left), (uint32_t)(bottom - top)};
    return 1;
}

static ci_status pdf_check(const ci_page *page, ci_error *err) {
    if (!page) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "pdf: no page given");
    // Acrobat's limits for a page: 3 to 14400 points (200 inches) a side.
    if (!(page->width_points >= 3 && page->width_points <= 14400 && page->height_points >= 3 &&
          page->height_points <= 14400))
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "pdf: a page of %gx%g points is outside 3 to 14400 a side",
                       page->width_points, page->height_points);
    const ci_image *canvas = &page->canvas;
    if (!canvas->pixels || canvas->channels != 3 || canvas->width < 1 || canvas->height < 1 ||
        canvas->width > INT32_MAX / 4 || canvas->height > INT32_MAX / 4 || canvas->stride < (size_t)canvas->width * 3)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "pdf: the canvas has no RGB pixels");
    if ((page->photo_count && !page->photos) || (page->shade_count && !page->shades) ||
        (page->text_count && !page->texts))
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "pdf: a list is counted but not given");
    return CI_OK;
}

// What the page embeds of one photo, kept until the page is written out:
// its JPEG and the Cairo image that carries it.
typedef struct {
    ci_rect where;
    uint8_t *jpeg;
    size_t jpeg_size;
    cairo_surface_t *surface;
    void *pixels;  // the surface's, never written nor read (see pdf_photo_surface)
    size_t pixels_size;
} pdf_photo;

// The photo as a Cairo image whose JPEG mime data is what the PDF embeds.
// Cairo's PDF surface takes the JPEG and never reads the image's pixels
// (its analysis sees an opaque RGB24 image without looking), but the image
// must have the photo's size. Its pixels are therefore pages of memory
// mapped and never touched, which take no memory: a copy of the photo
// here cost about 40 MiB at an A4 page's peak, read by nobody.
static ci_status pdf_photo_surface(const ci_text_api *t, pdf_photo *photo, ci_error *err) {
    size_t stride = (size_t)photo->where.width * 4;  // RGB24: 4 bytes a pixel, a multiple of 4
    photo->pixels_size = stride * photo->where.height;
    photo->pixels = mmap(NULL, photo->pixels_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (photo->pixels == MAP_FAILED) {
        photo->pixels = NULL;
        return ci_fail(err, CI_ERR_NO_MEMORY, "pdf: no room for a photo of %ux%u", photo->where.width,
                       photo->where.height);
    }
    photo->surface = t->cairo_image_surface_create_for_data(photo->pixels, CAIRO_FORMAT_RGB24, (int)photo->where.width,
                                                            (int)photo->where.height, (int)stride);
    cairo_status_t made = t->cairo_surface_status(photo->surface);
    // The JPEG outlives the surface: both are let go after the page is shown.
    if (made == CAIRO_STATUS_SUCCESS)
        made = t->cairo_surface_set_mime_data(photo->surface, CAIRO_MIME_TYPE_JPEG, photo->jpeg,
                                              (unsigned long)photo->jpeg_size, NULL, NULL);
    if (made != CAIRO_STATUS_SUCCESS)
        return ci_fail(err, CI_ERR_NO_MEMORY, "pdf: a photo of %ux%u: %s", photo->where.width, photo->where.height,
                       t->cairo_status_to_string(made));
    return CI_OK;
}

static void pdf_photos_free(const ci_text_api *t, pdf_photo *photos, size_t count) {
    for (size_t i = 0; i < count; i++) {
        // The surface first: it points at the pixels and the JPEG.
        if (photos[i].surface) t->cairo_surface_destroy(photos[i].surface);
        if (photos[i].pixels) munmap(photos[i].pixels, photos[i].pixels_size);
        ci_buffer_free(photos[i].jpeg);
    }
    free(photos);
}

// Each photo's cell of the canvas as a JPEG at the document's quality, and
// its surface; *count of them (cells wholly outside the canvas have none).
static ci_status pdf_photos_make(const pdf_document *document, const ci_page *page, pdf_photo **made, size_t *count,
                                 ci_error *err) {
    *made = NULL;
    *count = 0;
    if (page->photo_count == 0) return CI_OK;
    if (page->photo_count > SIZE_MAX / sizeof(pdf_photo)) return ci_fail(err, CI_ERR_NO_MEMORY, "pdf: too many photos");
    pdf_photo *photos = calloc(page->photo_count, sizeof *photos);
    if (!photos) return ci_fail(err, CI_ERR_NO_MEMORY, "pdf: out of memory for %zu photos", page->photo_count);
    // The page says its size; the photos inside it need not, nor a date.
    ci_save_options options = document->options;
    options.dots_per_inch = 0;
    options.date_taken = NULL;
    const ci_image *canvas = &page->canvas;
    size_t kept = 0;
    ci_status status = CI_OK;
    for (size_t i = 0; i < page->photo_count && status == CI_OK; i++) {
        pdf_photo *photo = &photos[kept];
        if (!pdf_clip(page->photos[i], canvas, &photo->where)) continue;
        kept++;
        // The cell's pixels, borrowed in place: the encoder only reads them.
        ci_image cell = {
            .pixels = canvas->pixels + (size_t)photo->where.y * canvas->stride + (size_t)photo->where.x * 3,
            .width = photo->where.width,
            .height = photo->where.height,
            .stride = canvas->stride,
            .channels = 3,
        };
        status = ci_encode(CI_FORMAT_JPEG, &cell, &options, &photo->jpeg, &photo->jpeg_size, err);
        if (status == CI_OK) status = pdf_photo_surface(&document->api, photo, err);
    }
    if (status != CI_OK) {
        pdf_photos_free(&document->api, photos, kept);
        return status;
    }
    *made = photos;
    *count = kept;
    return CI_OK;
}

// The page drawn on `cr`, whose units are the canvas's pixels.
static ci_status pdf_draw(const ci_text_api *t, cairo_t *cr, const ci_page *page, const pdf_photo *photos,
                          size_t photo_count, ci_error *err) {
    const ci_color background = page->background;
    t->cairo_set_source_rgb(cr, background.r / 255.0, background.g / 255.0, background.b / 255.0);
    t->cairo_rectangle(cr, 0, 0, page->canvas.width, page->canvas.height);
    t->cairo_fill(cr);
    for (size_t i = 0; i < photo_count; i++) {
        const pdf_photo *photo = &photos[i];
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
        t->cairo_scale(cr, (photo->where.width - 2 * inset) / photo->where.width,
                       (photo->where.height - 2 * inset) / photo->where.height);
        t->cairo_rectangle(cr, 0, 0, photo->where.width, photo->where.height);
        t->cairo_clip(cr);
        t->cairo_set_source_surface(cr, photo->surface, 0, 0);
        t->cairo_paint(cr);
        t->cairo_restore(cr);
    }
    for (size_t i = 0; i < page->shade_count; i++) {
        const ci_page_shade *shade = &page->shades[i];
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

// A copy of `text` (NULL stays NULL) into *copy; 0 when out of memory.
static int pdf_copy(const char *text, char **copy) {
    *copy = text ? strdup(text) : NULL;
    return !text || *copy;
}

static void pdf_document_free(pdf_document *document) {
    if (document->surface) document->api.cairo_surface_destroy(document->surface);
    ci_text_api_close(&document->api);
    free(document->title);
    free(document->creator);
    free(document->creation_date);
    free(document);
}

static ci_status pdf_open(ci_document *document, ci_error *err) {
    pdf_document *pdf = calloc(1, sizeof *pdf);
    if (!pdf) return ci_fail(err, CI_ERR_NO_MEMORY, "pdf: out of memory");
    ci_status status = ci_text_api_open(&pdf->api, err);
    if (status != CI_OK) {
        free(pdf);
        return status;
    }
    pdf->write = document->write;
    pdf->closure = document->closure;
    pdf->options = document->options;
    if (!pdf_copy(document->title, &pdf->title) || !pdf_copy(document->creator, &pdf->creator) ||
        !pdf_copy(document->creation_date, &pdf->creation_date)) {
        pdf_document_free(pdf);
        return ci_fail(err, CI_ERR_NO_MEMORY, "pdf: out of memory");
    }
    document->state = pdf;
    return CI_OK;
}

// Cairo's surface for the first page (a PDF surface starts at its first
// page's size and carries the document's metadata), or the next page's size.
static void pdf_start_page(pdf_document *pdf, const ci_page *page) {
    const ci_text_api *t = &pdf->api;
    if (pdf->surface) {
        t->cairo_pdf_surface_set_size(pdf->surface, page->width_points, page->height_points);
        return;
    }
    pdf->surface = t->cairo_pdf_surface_create_for_stream(pdf_write, pdf, page->width_points, page->height_points);
    if (pdf->title && *pdf->title) t->cairo_pdf_surface_set_metadata(pdf->surface, CAIRO_PDF_METADATA_TITLE, pdf->title);
    if (pdf->creator && *pdf->creator)
        t->cairo_pdf_surface_set_metadata(pdf->surface, CAIRO_PDF_METADATA_CREATOR, pdf->creator);
    if (pdf->creation_date && *pdf->creation_date)
        t->cairo_pdf_surface_set_metadata(pdf->surface, CAIRO_PDF_METADATA_CREATE_DATE, pdf->creation_date);
}

// What went wrong writing through Cairo, or CI_OK.
static ci_status pdf_cairo_status(const pdf_document *pdf, cairo_status_t status, ci_error *err) {
    if (pdf->write_failed) return ci_fail(err, CI_ERR_ENCODE, "pdf: the document could not be written out");
    if (status != CAIRO_STATUS_SUCCESS)
        return ci_fail(err, CI_ERR_ENCODE, "pdf: Cairo failed: %s", pdf->api.cairo_status_to_string(status));
    return CI_OK;
}

static ci_status pdf_add(ci_document *document, const ci_page *page, ci_error *err) {
    pdf_document *pdf = document->state;
    if (pdf->failed) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "pdf: a page failed before: close the document");
    pdf_photo *photos = NULL;
    size_t photo_count = 0;
    ci_status status = pdf_check(page, err);
    if (status == CI_OK) status = pdf_photos_make(pdf, page, &photos, &photo_count, err);
    if (status != CI_OK) {
        pdf->failed = 1;
        return status;
    }
    const ci_text_api *t = &pdf->api;
    pdf_start_page(pdf, page);
    cairo_t *cr = t->cairo_create(pdf->surface);  // never NULL: an object in an error state on failure
    if (t->cairo_status(cr) == CAIRO_STATUS_SUCCESS) {
        t->cairo_scale(cr, page->width_points / page->canvas.width, page->height_points / page->canvas.height);
        status = pdf_draw(t, cr, page, photos, photo_count, err);
        t->cairo_show_page(cr);  // writes the page and its images out through pdf_write
    }
    cairo_status_t drawn = t->cairo_status(cr);
    t->cairo_destroy(cr);
    // Only now: until the page is shown, Cairo's recording of it refers to
    // the photos' surfaces (a surface let go earlier would be copied).
    pdf_photos_free(t, photos, photo_count);
    if (status == CI_OK) status = pdf_cairo_status(pdf, drawn, err);
    if (status == CI_OK) status = pdf_cairo_status(pdf, t->cairo_surface_status(pdf->surface), err);
    if (status != CI_OK) {
        pdf->failed = 1;
        return status;
    }
    pdf->pages++;
    return CI_OK;
}

static ci_status pdf_close(ci_document *document, ci_error *err) {
    pdf_document *pdf = document->state;
    ci_status status = CI_OK;
    if (pdf->failed) status = ci_fail(err, CI_ERR_INVALID_ARGUMENT, "pdf: a page failed: the document is not finished");
    else if (pdf->pages == 0) status = ci_fail(err, CI_ERR_INVALID_ARGUMENT, "pdf: a document needs a page");
    if (pdf->surface) {
        pdf->api.cairo_surface_finish(pdf->surface);  // writes the file's end (and the fonts) through pdf_write
        if (status == CI_OK) status = pdf_cairo_status(pdf, pdf->api.cairo_surface_status(pdf->surface), err);
    }
    pdf_document_free(pdf);
    return status;
}

// Its entry in the writers' table (writers.c): the quality is its photos',
// the print resolution its page's size when no paper is given.
const ci_writer ci_pdf_writer = {
    .format = CI_FORMAT_PDF,
    .name = "PDF",
    .extensions = "pdf",
    .writes = CI_WRITES_PAGES,
    .options = CI_OPTION_QUALITY | CI_OPTION_DPI,
    .open = pdf_open,
    .add = pdf_add,
    .close = pdf_close,
};
