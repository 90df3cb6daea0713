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
// measured for a one-line title in a 1920x150 box (DejaVu Sans Bold, 43 px,
// on a shared two-core machine), the first text of a process cost 12-23 ms
// either way (fontconfig reading its configuration and caches, once per
// process), later texts 1-12 ms (typically 3) with a new map per call and
// 0.25 ms with the thread's map. So each thread uses its own default map:
// state Pango keeps per thread, not ours, and safe for concurrent calls.
// fontconfig's own configuration is process-wide and thread-safe.
#include "internal.h"

#include <fontconfig/fontconfig.h>
#include <pango/pangocairo.h>
#include <string.h>

#define CI_TEXT_MAX_LINES 64
#define CI_TEXT_MAX_PIXEL_SIZE 4096.0
#define CI_TEXT_MAX_FONT_BYTES 512

static PangoFontMap *text_font_map(void) {
#ifdef CI_TEXT_FONT_MAP_PER_CALL
    return pango_cairo_font_map_new();
#else
    PangoFontMap *map = pango_cairo_font_map_get_default();
    return map ? g_object_ref(map) : NULL;
#endif
}

// Whether fontconfig found any font at all: without one Pango would draw
// boxes (or nothing) and complain on standard error. Asked of fontconfig
// itself, whose current configuration Pango's maps use: Pango lists its
// generic families ("Sans", "Serif", "Monospace") even when there is no font.
static int text_has_fonts(PangoFontMap *map) {
    (void)map;
    FcFontSet *fonts = FcConfigGetFonts(NULL, FcSetSystem);  // NULL: the current configuration
    FcFontSet *added = FcConfigGetFonts(NULL, FcSetApplication);
    return (fonts && fonts->nfont > 0) || (added && added->nfont > 0);
}

int ci_text_fonts_available(void) {
    PangoFontMap *map = text_font_map();
    if (!map) return 0;
    int available = text_has_fonts(map);
    g_object_unref(map);
    return available;
}

static ci_status text_check(const ci_text_run *run, int need_height, ci_error *err) {
    if (!run || !run->text) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: no text given");
    size_t length = strnlen(run->text, (size_t)CI_TEXT_MAX_BYTES + 1);
    if (length > CI_TEXT_MAX_BYTES)
        return ci_fail(err, CI_ERR_TOO_LARGE, "text: longer than %d bytes", CI_TEXT_MAX_BYTES);
    if (!g_utf8_validate(run->text, (gssize)length, NULL))
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: not valid UTF-8");
    if (run->font && strnlen(run->font, CI_TEXT_MAX_FONT_BYTES + 1) > CI_TEXT_MAX_FONT_BYTES)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: the font description is longer than %d bytes",
                       CI_TEXT_MAX_FONT_BYTES);
    if (run->font && !g_utf8_validate(run->font, -1, NULL))
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: the font description is not valid UTF-8");
    if (run->width < 1 || run->width > CI_TEXT_MAX_SIDE || (need_height && (run->height < 1 || run->height > CI_TEXT_MAX_SIDE)))
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: a box of %ux%u is outside 1 to %d pixels a side",
                       run->width, run->height, CI_TEXT_MAX_SIDE);
    if (run->max_lines < 1 || run->max_lines > CI_TEXT_MAX_LINES)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: %d lines is outside 1 to %d", run->max_lines,
                       CI_TEXT_MAX_LINES);
    if (!(run->pixel_size >= 0 && run->pixel_size <= CI_TEXT_MAX_PIXEL_SIZE))
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: a font of %g pixels is outside 0 to %g",
                       run->pixel_size, CI_TEXT_MAX_PIXEL_SIZE);
    return CI_OK;
}

// The run laid out on a new context of `map`; NULL only when out of memory.
static PangoLayout *text_layout(PangoFontMap *map, const ci_text_run *run) {
    PangoContext *context = pango_font_map_create_context(map);
    if (!context) return NULL;
    // Greyscale anti-aliasing (no colour fringes on an RGB canvas) and
    // unhinted metrics, so the layout scales with the size and does not
    // depend on the screen settings of the machine.
    cairo_font_options_t *options = cairo_font_options_create();
    cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY);
    cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF);
    pango_cairo_context_set_font_options(context, options);
    cairo_font_options_destroy(options);

    PangoLayout *layout = pango_layout_new(context);
    g_object_unref(context);  // the layout holds its own reference
    if (!layout) return NULL;
    PangoFontDescription *description = pango_font_description_from_string(run->font ? run->font : "Sans");
    if (run->pixel_size > 0)
        pango_font_description_set_absolute_size(description, run->pixel_size * PANGO_SCALE);
    pango_layout_set_font_description(layout, description);
    pango_font_description_free(description);
    pango_layout_set_width(layout, (int)run->width * PANGO_SCALE);
    pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR);
    pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
    pango_layout_set_height(layout, -run->max_lines);  // negative: at most this many lines
    pango_layout_set_alignment(layout, run->align == CI_TEXT_LEFT    ? PANGO_ALIGN_LEFT
                                       : run->align == CI_TEXT_RIGHT ? PANGO_ALIGN_RIGHT
                                                                     : PANGO_ALIGN_CENTER);
    pango_layout_set_text(layout, run->text, -1);
    return layout;
}

// The layout's metrics, as drawn in a box `box_height` tall; *top is where
// its first line starts.
static void text_metrics(PangoLayout *layout, uint32_t box_height, ci_text_metrics *metrics, int *top) {
    PangoRectangle ink, logical;
    pango_layout_get_pixel_extents(layout, &ink, &logical);
    int y = ((int)box_height - logical.height) / 2;
    *top = y;
    metrics->has_fonts = 1;
    metrics->lines = pango_layout_get_line_count(layout);
    metrics->ellipsized = pango_layout_is_ellipsized(layout);
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
    ci_status status = text_check(run, 0, err);
    if (status != CI_OK) return status;
    PangoFontMap *map = text_font_map();
    if (!map) return ci_fail(err, CI_ERR_NO_MEMORY, "text: no font map");
    if (!text_has_fonts(map)) {
        g_object_unref(map);
        return CI_OK;  // has_fonts = 0
    }
    PangoLayout *layout = text_layout(map, run);
    if (!layout) {
        g_object_unref(map);
        return ci_fail(err, CI_ERR_NO_MEMORY, "text: out of memory laying out");
    }
    int top;
    text_metrics(layout, run->height, metrics, &top);
    g_object_unref(layout);
    g_object_unref(map);
    return CI_OK;
}

// Premultiplied ARGB32 (Cairo's native-endian words) over RGB: dst = src + dst (1 - a).
static void text_composite(ci_image *canvas, ci_rect box, const uint8_t *data, int stride) {
    int64_t x0 = box.x > 0 ? box.x : 0, y0 = box.y > 0 ? box.y : 0;
    int64_t x1 = (int64_t)box.x + box.width, y1 = (int64_t)box.y + box.height;
    if (x1 > canvas->width) x1 = canvas->width;
    if (y1 > canvas->height) y1 = canvas->height;
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

ci_status ci_draw_text(ci_image *canvas, ci_rect box, const ci_text_run *run, ci_text_metrics *metrics,
                       ci_error *err) {
    ci_text_metrics local;
    if (!metrics) metrics = &local;
    memset(metrics, 0, sizeof *metrics);
    if (!canvas || !canvas->pixels || canvas->channels < 3 || canvas->stride < (size_t)canvas->width * canvas->channels)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: no canvas to draw on");
    ci_status status = text_check(run, 1, err);
    if (status != CI_OK) return status;
    if (box.width != run->width || box.height != run->height)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "text: the box is %ux%u but the run is laid out for %ux%u",
                       box.width, box.height, run->width, run->height);

    PangoFontMap *map = text_font_map();
    if (!map) return ci_fail(err, CI_ERR_NO_MEMORY, "text: no font map");
    if (!text_has_fonts(map)) {
        g_object_unref(map);
        return CI_OK;  // has_fonts = 0: nothing drawn
    }
    PangoLayout *layout = text_layout(map, run);
    if (!layout) {
        g_object_unref(map);
        return ci_fail(err, CI_ERR_NO_MEMORY, "text: out of memory laying out");
    }
    int top;
    text_metrics(layout, box.height, metrics, &top);

    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)box.width, (int)box.height);
    cairo_t *cr = cairo_create(surface);  // never NULL: an error object on failure
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        cairo_destroy(cr);
        cairo_surface_destroy(surface);
        g_object_unref(layout);
        g_object_unref(map);
        return ci_fail(err, CI_ERR_NO_MEMORY, "text: cannot make a %ux%u surface", box.width, box.height);
    }
    cairo_set_source_rgb(cr, run->colour.r / 255.0, run->colour.g / 255.0, run->colour.b / 255.0);
    cairo_move_to(cr, 0, top);
    pango_cairo_show_layout(cr, layout);
    cairo_surface_flush(surface);
    cairo_status_t drawn = cairo_status(cr);
    if (drawn == CAIRO_STATUS_SUCCESS)
        text_composite(canvas, box, cairo_image_surface_get_data(surface), cairo_image_surface_get_stride(surface));
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
    g_object_unref(layout);
    g_object_unref(map);
    if (drawn != CAIRO_STATUS_SUCCESS)
        return ci_fail(err, CI_ERR_NO_MEMORY, "text: drawing failed: %s", cairo_status_to_string(drawn));
    return CI_OK;
}
