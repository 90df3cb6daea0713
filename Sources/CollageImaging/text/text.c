// text.c — text runs (titles) through Pango and Cairo.
//
// A run is laid out by Pango (HarfBuzz shaping, fontconfig's font fallback,
// bidi), drawn by Cairo into an ARGB32 surface the size of its box, and that
// surface is composited here over the RGB canvas: glyphs are never
// rasterised by our own code.
//
// Font maps. Pango needs a PangoFontMap (fontconfig's fonts, their metrics
// and glyph caches). The engine keeps no globals, so the choice is between a
// new map per call (pango_cairo_font_map_new) and Pango's per-thread default
// map (pango_cairo_font_map_get_default, one per thread since Pango 1.32.6,
// never shared between threads, owned and freed by Pango). A new map per call
// loads every font again and starts with empty glyph and shaping caches:
// measured for a one-line title in a 1876x95 box (DejaVu Sans Bold, 43 px,
// on a shared two-core machine), the first text of a process costs 10-14 ms
// either way (loading the libraries, fontconfig reading its configuration
// and caches, the first font), later texts 1-12 ms (typically 3) with a new
// map per call, against 0.06 ms to measure and 0.3-0.6 ms to draw with the
// thread's map. So each thread uses its own default map:
// state Pango keeps per thread, not ours, and safe for concurrent calls.
// fontconfig's own configuration is process-wide and thread-safe.
#include "text_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CI_TEXT_MAX_LINES 64
#define CI_TEXT_MAX_PIXEL_SIZE 4096.0
// The size of a font whose description gives none (Pango's own default, 12
// points at 96 dpi).
#define CI_TEXT_DEFAULT_PIXELS 16.0
#define CI_TEXT_MAX_FONT_BYTES 512

static PangoFontMap *text_font_map(const ci_text_api *t) {
    PangoFontMap *map = t->pango_cairo_font_map_get_default();
    return map ? t->g_object_ref(map) : NULL;
}

// Whether fontconfig found any font at all: without one Pango would draw
// boxes (or nothing) and complain on standard error. Asked of fontconfig
// itself, whose current configuration Pango's maps use: Pango lists its
// generic families ("Sans", "Serif", "Monospace") even when there is no font.
static int text_has_fonts(const ci_text_api *t) {
    FcFontSet *fonts = t->FcConfigGetFonts(NULL, FcSetSystem);  // NULL: the current configuration
    FcFontSet *added = t->FcConfigGetFonts(NULL, FcSetApplication);
    return (fonts && fonts->nfont > 0) || (added && added->nfont > 0);
}

void ci_text_library(char *out, size_t size) {
    ci_text_api api;
    if (ci_text_api_open(&api, NULL) != CI_OK) {
        snprintf(out, size, "Pango and Cairo (not installed)");
        return;
    }
    snprintf(out, size, "Pango %s, Cairo %s", api.pango_version_string(), api.cairo_version_string());
    ci_text_api_close(&api);
}

int ci_text_fonts_available(void) {
    ci_text_api api;
    if (ci_text_api_open(&api, NULL) != CI_OK) return 0;
    int available = text_has_fonts(&api);
    ci_text_api_close(&api);
    return available;
}

// The size a font description gives, in pixels (0 when it gives none),
// held to CI_TEXT_MAX_PIXEL_SIZE. `font` is checked as text_check does.
static ci_status text_font_size(const ci_text_api *t, const char *font, double *pixels, ci_error *err) {
    PangoFontDescription *description = t->pango_font_description_from_string(font);
    double size = description ? (double)t->pango_font_description_get_size(description) / PANGO_SCALE : 0;
    // Points are 96/72 pixels (Pango's default resolution for Cairo).
    if (description && !t->pango_font_description_get_size_is_absolute(description)) size *= 96.0 / 72.0;
    if (description) t->pango_font_description_free(description);
    *pixels = 0;
    if (!(size >= 0 && size <= CI_TEXT_MAX_PIXEL_SIZE))  // negative: overflowed in parsing
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "the font's size, %g pixels, is over %g", size,
                       CI_TEXT_MAX_PIXEL_SIZE);
    *pixels = size;
    return CI_OK;
}

static ci_status text_check(const ci_text_api *t, const ci_text_run *run, int need_height, ci_error *err) {
    if (!run || !run->text) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: no text given");
    size_t length = strnlen(run->text, (size_t)CI_TEXT_MAX_BYTES + 1);
    if (length > CI_TEXT_MAX_BYTES)
        return ci_fail(err, CI_ERR_TOO_LARGE, "text: longer than %d bytes", CI_TEXT_MAX_BYTES);
    if (!t->g_utf8_validate(run->text, (gssize)length, NULL))
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: not valid UTF-8");
    // One paragraph of drawable characters: Pango would start a paragraph
    // at a line break (and its line limit counts per paragraph, so a run
    // could take more lines than max_lines), and a control character has
    // nothing to draw. The callers clean titles and captions (line breaks
    // and tabs to spaces, other controls dropped: CollageTitle); here they
    // are refused, so the promise of max_lines holds for every run.
    const unsigned char *bytes = (const unsigned char *)run->text;
    for (size_t i = 0; i < length; i++) {
        unsigned c = bytes[i];
        int control = c < 0x20 || c == 0x7F;
        // U+0080-U+009F (C1 controls) and U+2028, U+2029 (line and paragraph separators).
        if (c == 0xC2 && i + 1 < length && bytes[i + 1] <= 0x9F) control = 1;
        if (c == 0xE2 && i + 2 < length && bytes[i + 1] == 0x80 && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9))
            control = 1;
        if (control)
            return ci_fail(err, CI_ERR_INVALID_ARGUMENT,
                           "text: a control character or line break at byte %zu (give one line of text)", i);
    }
    if (run->font && strnlen(run->font, CI_TEXT_MAX_FONT_BYTES + 1) > CI_TEXT_MAX_FONT_BYTES)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: the font description is longer than %d bytes",
                       CI_TEXT_MAX_FONT_BYTES);
    if (run->font && !t->g_utf8_validate(run->font, -1, NULL))
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: the font description is not valid UTF-8");
    if (run->width < 1 || run->width > CI_TEXT_MAX_SIDE || (need_height && (run->height < 1 || run->height > CI_TEXT_MAX_SIDE)))
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: a box of %ux%u is outside 1 to %d pixels a side",
                       run->width, run->height, CI_TEXT_MAX_SIDE);
    if (need_height && (uint64_t)run->width * run->height > CI_TEXT_MAX_PIXELS)
        return ci_fail(err, CI_ERR_TOO_LARGE, "text: a box of %ux%u is over the limit of %u pixels (its surface)",
                       run->width, run->height, (unsigned)CI_TEXT_MAX_PIXELS);
    if (run->max_lines < 1 || run->max_lines > CI_TEXT_MAX_LINES)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: %d lines is outside 1 to %d", run->max_lines,
                       CI_TEXT_MAX_LINES);
    if (!(run->pixel_size >= 0 && run->pixel_size <= CI_TEXT_MAX_PIXEL_SIZE))
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: a font of %g pixels is outside 0 to %g",
                       run->pixel_size, CI_TEXT_MAX_PIXEL_SIZE);
    // Without a pixel size, the description's own size is used: held to the
    // same limit (a description "Sans 9999999" laid out, but Cairo could
    // not draw it, so measuring and drawing disagreed: found by fuzz_text).
    double size;
    if (run->pixel_size == 0 && run->font) return text_font_size(t, run->font, &size, err);
    return CI_OK;
}

// Marks that belong to the word before them when set off by spaces, as the
// separator in a title's "Summer in Kyoto · 2026". Pango breaks a line after
// any space (UAX #14), so a line could begin with one of these; closing
// punctuation it already keeps on the line before (! ? : ; ) / 、 。, "even
// after spaces", UAX #14's rule 13). Quotation marks are left alone: a
// spaced ” or ’ may as well open what follows.
static const char *const text_trailing_marks[] = {
    "\u00B7", "\u2022", "\u2027", "\u2219", "\u30FB",  // middle dots and bullets: · • ‧ ∙ ・
    "\u2013", "\u2014", "|",                          // en and em dashes, a bar: – — |
    "\u2026", "\u00BB", "\u203A",                      // an ellipsis, closing guillemets: … » ›
};

static size_t text_trailing_mark(const char *at) {
    for (size_t i = 0; i < sizeof text_trailing_marks / sizeof text_trailing_marks[0]; i++) {
        size_t length = strlen(text_trailing_marks[i]);
        if (strncmp(at, text_trailing_marks[i], length) == 0) return length;
    }
    return 0;
}

// `text` with the spaces before each trailing mark made no-break spaces
// (U+00A0), which bind the mark to the word before; NULL when out of memory.
// The caller frees it.
static char *text_bind_marks(const char *text) {
    size_t length = strlen(text);
    char *bound = malloc(2 * length + 1);  // each space may become two bytes
    if (!bound) return NULL;
    size_t out = 0;
    for (size_t i = 0; i < length;) {
        size_t spaces = 0;
        while (text[i + spaces] == ' ') spaces++;
        if (spaces == 0) {
            bound[out++] = text[i++];
            continue;
        }
        int bind = text_trailing_mark(text + i + spaces) > 0;
        for (size_t k = 0; k < spaces; k++) {
            if (bind) {
                bound[out++] = (char)0xC2;
                bound[out++] = (char)0xA0;
            } else {
                bound[out++] = ' ';
            }
        }
        i += spaces;
    }
    bound[out] = '\0';
    return bound;
}

// The run laid out on a new context of `map`; NULL only when out of memory.
static PangoLayout *text_layout(const ci_text_api *t, PangoFontMap *map, const ci_text_run *run) {
    PangoContext *context = t->pango_font_map_create_context(map);
    if (!context) return NULL;
    // Greyscale anti-aliasing (no colour fringes on an RGB canvas) and
    // unhinted metrics, so the layout scales with the size and does not
    // depend on the screen settings of the machine.
    cairo_font_options_t *options = t->cairo_font_options_create();
    t->cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY);
    t->cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF);
    t->pango_cairo_context_set_font_options(context, options);
    t->cairo_font_options_destroy(options);

    PangoLayout *layout = t->pango_layout_new(context);
    t->g_object_unref(context);  // the layout holds its own reference
    if (!layout) return NULL;
    PangoFontDescription *description = t->pango_font_description_from_string(run->font ? run->font : "Sans");
    if (run->pixel_size > 0)
        t->pango_font_description_set_absolute_size(description, run->pixel_size * PANGO_SCALE);
    else if (t->pango_font_description_get_size(description) <= 0)
        // No size, or a size of 0 ("Sans 0", forty zeros): a font of no
        // size lays out as nothing and Cairo cannot draw it (found by
        // fuzz_text: measured fine, failed to draw). Pango's own default.
        t->pango_font_description_set_absolute_size(description, CI_TEXT_DEFAULT_PIXELS * PANGO_SCALE);
    t->pango_layout_set_font_description(layout, description);
    t->pango_font_description_free(description);
    t->pango_layout_set_width(layout, (int)run->width * PANGO_SCALE);
    t->pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR);
    t->pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
    t->pango_layout_set_height(layout, -run->max_lines);  // negative: at most this many lines
    t->pango_layout_set_alignment(layout, run->align == CI_TEXT_LEFT    ? PANGO_ALIGN_LEFT
                                       : run->align == CI_TEXT_RIGHT ? PANGO_ALIGN_RIGHT
                                                                     : PANGO_ALIGN_CENTER);
    char *bound = text_bind_marks(run->text);
    if (!bound) {
        t->g_object_unref(layout);
        return NULL;
    }
    t->pango_layout_set_text(layout, bound, -1);
    free(bound);
    return layout;
}

// The layout's metrics, as drawn in a box `box_height` tall; *top is where
// its first line starts.
static void text_metrics(const ci_text_api *t, PangoLayout *layout, uint32_t box_height, ci_text_metrics *metrics, int *top) {
    PangoRectangle ink, logical;
    t->pango_layout_get_pixel_extents(layout, &ink, &logical);
    int y = ((int)box_height - logical.height) / 2;
    *top = y;
    metrics->has_fonts = 1;
    metrics->lines = t->pango_layout_get_line_count(layout);
    metrics->ellipsized = t->pango_layout_is_ellipsized(layout);
    metrics->missing_glyphs = t->pango_layout_get_unknown_glyphs_count(layout);
    metrics->width = (uint32_t)(logical.width > 0 ? logical.width : 0);
    metrics->height = (uint32_t)(logical.height > 0 ? logical.height : 0);
    metrics->ink_x = ink.x;
    metrics->ink_y = y + ink.y;
    metrics->ink_width = (uint32_t)(ink.width > 0 ? ink.width : 0);
    metrics->ink_height = (uint32_t)(ink.height > 0 ? ink.height : 0);
}

ci_status ci_text_measure(const ci_text_run *run, ci_text_metrics *metrics, ci_error *err) {
    ci_text_metrics local;
    if (!metrics) metrics = &local;
    memset(metrics, 0, sizeof *metrics);
    ci_text_api api;
    ci_status status = ci_text_api_open(&api, err);
    if (status == CI_OK) status = text_check(&api, run, 0, err);
    if (status != CI_OK || !text_has_fonts(&api)) {  // no font: CI_OK with has_fonts = 0
        ci_text_api_close(&api);
        return status;
    }
    PangoFontMap *map = text_font_map(&api);
    PangoLayout *layout = map ? text_layout(&api, map, run) : NULL;
    if (layout) {
        int top;
        text_metrics(&api, layout, run->height, metrics, &top);
        api.g_object_unref(layout);
    } else {
        status = ci_fail(err, CI_ERR_NO_MEMORY, "text: out of memory laying out");
    }
    if (map) api.g_object_unref(map);
    ci_text_api_close(&api);
    return status;
}

// The part of `box` inside the canvas: columns x0..x1, rows y0..y1 (empty when x0 >= x1 or y0 >= y1).
typedef struct {
    int64_t x0, y0, x1, y1;
} text_span;

static text_span text_clip(const ci_image *canvas, ci_rect box) {
    text_span span = {box.x > 0 ? box.x : 0, box.y > 0 ? box.y : 0, (int64_t)box.x + box.width,
                      (int64_t)box.y + box.height};
    if (span.x1 > canvas->width) span.x1 = canvas->width;
    if (span.y1 > canvas->height) span.y1 = canvas->height;
    return span;
}

// `ask` of a font description, once it has had the checks a run's gets (on
// a run of one space).
static ci_status text_ask_font(const char *font, ci_status (*ask)(const ci_text_api *t, const char *font, void *answer,
                                                                  ci_error *err),
                               void *answer, ci_error *err) {
    ci_text_api api;
    ci_status status = ci_text_api_open(&api, err);
    if (status != CI_OK) return status;
    ci_text_run run = {.text = " ", .font = font, .pixel_size = 0, .width = 1, .height = 1, .max_lines = 1};
    status = text_check(&api, &run, 0, err);
    if (status == CI_OK) status = ask(&api, font, answer, err);
    ci_text_api_close(&api);
    return status;
}

static ci_status text_ask_size(const ci_text_api *t, const char *font, void *pixels, ci_error *err) {
    return text_font_size(t, font, pixels, err);
}

ci_status ci_text_font_pixels(const char *font, double *pixels, ci_error *err) {
    if (pixels) *pixels = 0;
    if (!font || !pixels) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: no font description given");
    return text_ask_font(font, text_ask_size, pixels, err);
}

typedef struct {
    char *asked, *used;
    size_t size;
} font_families;

// The family fontconfig gives a description's, through Pango's own load
// (what a run draws with): as asked, and as loaded.
static ci_status text_ask_families(const ci_text_api *t, const char *font, void *answer, ci_error *err) {
    font_families *families = answer;
    PangoFontMap *map = text_font_map(t);
    PangoContext *context = map ? t->pango_font_map_create_context(map) : NULL;
    PangoFontDescription *description = context ? t->pango_font_description_from_string(font) : NULL;
    PangoFont *loaded = description ? t->pango_font_map_load_font(map, context, description) : NULL;
    PangoFontDescription *found = loaded ? t->pango_font_describe(loaded) : NULL;
    const char *asked = description ? t->pango_font_description_get_family(description) : NULL;
    const char *used = found ? t->pango_font_description_get_family(found) : NULL;
    snprintf(families->asked, families->size, "%s", asked ? asked : "");
    snprintf(families->used, families->size, "%s", used ? used : "");
    if (found) t->pango_font_description_free(found);
    if (loaded) t->g_object_unref(loaded);
    if (description) t->pango_font_description_free(description);
    if (context) t->g_object_unref(context);
    if (map) t->g_object_unref(map);
    if (!found) return ci_fail(err, CI_ERR_UNSUPPORTED, "no installed font can draw '%s'", font);
    return CI_OK;
}

ci_status ci_text_font_family(const char *font, char *asked, char *used, size_t size, ci_error *err) {
    if (asked && size) *asked = 0;
    if (used && size) *used = 0;
    if (!font || !asked || !used || size == 0)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: no font description given");
    font_families families = {asked, used, size};
    return text_ask_font(font, text_ask_families, &families, err);
}

// A flat colour needs no Cairo surface: straight alpha over opaque RGB.
void ci_shade_box(ci_image *canvas, ci_rect box, ci_color colour, uint8_t alpha) {
    if (!canvas || !canvas->pixels || canvas->channels < 3 || canvas->stride < (size_t)canvas->width * canvas->channels ||
        alpha == 0)
        return;
    text_span span = text_clip(canvas, box);
    const uint32_t keep = 255u - alpha, rgb[3] = {colour.r, colour.g, colour.b};
    for (int64_t y = span.y0; y < span.y1; y++) {
        uint8_t *target = canvas->pixels + (size_t)y * canvas->stride + (size_t)span.x0 * (size_t)canvas->channels;
        for (int64_t x = span.x0; x < span.x1; x++, target += canvas->channels)
            for (int c = 0; c < 3; c++) target[c] = (uint8_t)((rgb[c] * alpha + target[c] * keep + 127) / 255);
    }
}

// Premultiplied ARGB32 (Cairo's native-endian words) over RGB: dst = src + dst (1 - a).
static void text_composite(ci_image *canvas, ci_rect box, const uint8_t *data, int stride) {
    text_span span = text_clip(canvas, box);
    int64_t x0 = span.x0, y0 = span.y0, x1 = span.x1, y1 = span.y1;
    for (int64_t y = y0; y < y1; y++) {
        const uint32_t *source = (const uint32_t *)(data + (size_t)(y - box.y) * (size_t)stride);
        uint8_t *target = canvas->pixels + (size_t)y * canvas->stride + (size_t)x0 * (size_t)canvas->channels;
        for (int64_t x = x0; x < x1; x++, target += canvas->channels) {
            uint32_t pixel = source[x - box.x];
            uint32_t alpha = pixel >> 24;
            if (alpha == 0) continue;
            uint32_t keep = 255 - alpha;
            uint32_t colour[3] = {(pixel >> 16) & 0xFF, (pixel >> 8) & 0xFF, pixel & 0xFF};
            for (int c = 0; c < 3; c++) {
                uint32_t value = colour[c] + (target[c] * keep + 127) / 255;
                target[c] = (uint8_t)(value > 255 ? 255 : value);
            }
        }
    }
}

// The laid-out run shown on `cr`, whose origin is its box's top left, in the
// run's colour, its first line `top` pixels down.
static void text_show(const ci_text_api *t, cairo_t *cr, PangoLayout *layout, const ci_text_run *run, int top) {
    t->cairo_set_source_rgb(cr, run->colour.r / 255.0, run->colour.g / 255.0, run->colour.b / 255.0);
    t->cairo_move_to(cr, 0, top);
    t->pango_cairo_show_layout(cr, layout);
}

ci_status ci_text_show_on(const ci_text_api *t, cairo_t *cr, ci_rect box, const ci_text_run *run, ci_error *err) {
    ci_status status = text_check(t, run, 1, err);
    if (status == CI_OK && (box.width != run->width || box.height != run->height))
        status = ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: the box is %ux%u but the run is laid out for %ux%u",
                         box.width, box.height, run->width, run->height);
    if (status != CI_OK || !text_has_fonts(t)) return status;  // no font: nothing shown, as ci_draw_text
    PangoFontMap *map = text_font_map(t);
    PangoLayout *layout = map ? text_layout(t, map, run) : NULL;
    if (!layout) {
        if (map) t->g_object_unref(map);
        return ci_fail(err, CI_ERR_NO_MEMORY, "text: out of memory laying out");
    }
    ci_text_metrics metrics;
    int top;
    text_metrics(t, layout, box.height, &metrics, &top);
    // Clipped to the box, as the raster's box-sized surface clips it.
    t->cairo_save(cr);
    t->cairo_translate(cr, box.x, box.y);
    t->cairo_rectangle(cr, 0, 0, box.width, box.height);
    t->cairo_clip(cr);
    text_show(t, cr, layout, run, top);
    t->cairo_restore(cr);
    t->g_object_unref(layout);
    t->g_object_unref(map);
    cairo_status_t shown = t->cairo_status(cr);
    if (shown != CAIRO_STATUS_SUCCESS)
        return ci_fail(err, CI_ERR_NO_MEMORY, "text: showing a %ux%u box failed: %s", box.width, box.height,
                       t->cairo_status_to_string(shown));
    return CI_OK;
}

// The run drawn into a box-sized ARGB surface and composited over the canvas.
static ci_status text_draw(const ci_text_api *t, PangoFontMap *map, ci_image *canvas, ci_rect box,
                           const ci_text_run *run, ci_text_metrics *metrics, ci_error *err) {
    PangoLayout *layout = text_layout(t, map, run);
    if (!layout) return ci_fail(err, CI_ERR_NO_MEMORY, "text: out of memory laying out");
    int top;
    text_metrics(t, layout, box.height, metrics, &top);
    cairo_surface_t *surface = t->cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)box.width, (int)box.height);
    cairo_t *cr = t->cairo_create(surface);  // never NULL: an object in an error state on failure
    cairo_status_t drawn = t->cairo_status(cr);
    if (drawn == CAIRO_STATUS_SUCCESS) {
        text_show(t, cr, layout, run, top);
        t->cairo_surface_flush(surface);
        drawn = t->cairo_status(cr);
    }
    if (drawn == CAIRO_STATUS_SUCCESS)
        text_composite(canvas, box, t->cairo_image_surface_get_data(surface), t->cairo_image_surface_get_stride(surface));
    t->cairo_destroy(cr);
    t->cairo_surface_destroy(surface);
    t->g_object_unref(layout);
    if (drawn != CAIRO_STATUS_SUCCESS)
        return ci_fail(err, CI_ERR_NO_MEMORY, "text: drawing a %ux%u box failed: %s", box.width, box.height,
                       t->cairo_status_to_string(drawn));
    return CI_OK;
}

ci_status ci_draw_text(ci_image *canvas, ci_rect box, const ci_text_run *run, ci_text_metrics *metrics,
                       ci_error *err) {
    ci_text_metrics local;
    if (!metrics) metrics = &local;
    memset(metrics, 0, sizeof *metrics);
    if (!canvas || !canvas->pixels || canvas->channels < 3 || canvas->stride < (size_t)canvas->width * canvas->channels)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: no canvas to draw on");
    ci_text_api api;
    ci_status status = ci_text_api_open(&api, err);
    if (status == CI_OK) status = text_check(&api, run, 1, err);
    if (status == CI_OK && (box.width != run->width || box.height != run->height))
        status = ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: the box is %ux%u but the run is laid out for %ux%u",
                         box.width, box.height, run->width, run->height);
    if (status != CI_OK || !text_has_fonts(&api)) {  // no font: CI_OK with has_fonts = 0, nothing drawn
        ci_text_api_close(&api);
        return status;
    }
    PangoFontMap *map = text_font_map(&api);
    if (map) {
        status = text_draw(&api, map, canvas, box, run, metrics, err);
        api.g_object_unref(map);
    } else {
        status = ci_fail(err, CI_ERR_NO_MEMORY, "text: no font map");
    }
    ci_text_api_close(&api);
    return status;
}
