// text_api.h — the Pango, Cairo, GLib and fontconfig functions text.c
// calls, looked up at run time (text_api.c says why). Not part of the public API.
#ifndef COLLAGE_IMAGING_TEXT_API_H
#define COLLAGE_IMAGING_TEXT_API_H

#include "../internal.h"

// Not the libraries' headers: including them needs their pkg-config
// flags, which would link the libraries too. Instead, what text.c uses of
// their stable C ABIs (Pango 1.x, Cairo 1.x, fontconfig 2.x, GLib 2.x),
// declared here under their own names; TextAPITests compares every constant
// and structure with the real headers.
typedef int gboolean;
typedef void *gpointer;
typedef long gssize;
typedef struct _PangoFontMap PangoFontMap;
typedef struct _PangoContext PangoContext;
typedef struct _PangoLayout PangoLayout;
typedef struct _PangoFontDescription PangoFontDescription;
typedef struct _PangoFont PangoFont;
typedef struct { int x, y, width, height; } PangoRectangle;
typedef int PangoWrapMode, PangoEllipsizeMode, PangoAlignment;
#define PANGO_SCALE 1024
#define PANGO_WRAP_WORD_CHAR 2
#define PANGO_ELLIPSIZE_END 3
#define PANGO_ALIGN_LEFT 0
#define PANGO_ALIGN_CENTER 1
#define PANGO_ALIGN_RIGHT 2
typedef struct _cairo cairo_t;
typedef struct _cairo_surface cairo_surface_t;
typedef struct _cairo_font_options cairo_font_options_t;
typedef int cairo_status_t, cairo_format_t, cairo_antialias_t, cairo_hint_metrics_t, cairo_pdf_metadata_t;
typedef cairo_status_t (*cairo_write_func_t)(void *closure, const unsigned char *data, unsigned int length);
typedef void (*cairo_destroy_func_t)(void *data);
#define CAIRO_STATUS_SUCCESS 0
#define CAIRO_STATUS_NO_MEMORY 1
#define CAIRO_STATUS_WRITE_ERROR 11
#define CAIRO_FORMAT_ARGB32 0
#define CAIRO_FORMAT_RGB24 1
#define CAIRO_MIME_TYPE_JPEG "image/jpeg"
#define CAIRO_PDF_METADATA_TITLE 0
#define CAIRO_PDF_METADATA_CREATOR 4
#define CAIRO_PDF_METADATA_CREATE_DATE 5
#define CAIRO_ANTIALIAS_GRAY 2
#define CAIRO_HINT_METRICS_OFF 1
typedef struct _FcConfig FcConfig;
typedef struct _FcPattern FcPattern;
typedef struct { int nfont, sfont; FcPattern **fonts; } FcFontSet;
typedef int FcSetName;
#define FcSetSystem 0
#define FcSetApplication 1

PangoFontMap *pango_cairo_font_map_get_default(void);
void pango_cairo_context_set_font_options(PangoContext *context, const cairo_font_options_t *options);
void pango_cairo_show_layout(cairo_t *cr, PangoLayout *layout);
PangoContext *pango_font_map_create_context(PangoFontMap *map);
PangoLayout *pango_layout_new(PangoContext *context);
PangoFontDescription *pango_font_description_from_string(const char *text);
void pango_font_description_set_absolute_size(PangoFontDescription *description, double size);
void pango_font_description_free(PangoFontDescription *description);
int pango_font_description_get_size(const PangoFontDescription *description);
int pango_font_description_get_size_is_absolute(const PangoFontDescription *description);
void pango_layout_set_font_description(PangoLayout *layout, const PangoFontDescription *description);
void pango_layout_set_width(PangoLayout *layout, int width);
void pango_layout_set_wrap(PangoLayout *layout, PangoWrapMode wrap);
void pango_layout_set_ellipsize(PangoLayout *layout, PangoEllipsizeMode ellipsize);
void pango_layout_set_height(PangoLayout *layout, int height);
void pango_layout_set_alignment(PangoLayout *layout, PangoAlignment alignment);
void pango_layout_set_text(PangoLayout *layout, const char *text, int length);
void pango_layout_get_pixel_extents(PangoLayout *layout, PangoRectangle *ink, PangoRectangle *logical);
int pango_layout_get_line_count(PangoLayout *layout);
gboolean pango_layout_is_ellipsized(PangoLayout *layout);
int pango_layout_get_unknown_glyphs_count(PangoLayout *layout);
PangoFont *pango_font_map_load_font(PangoFontMap *map, PangoContext *context, const PangoFontDescription *description);
PangoFontDescription *pango_font_describe(PangoFont *font);
const char *pango_font_description_get_family(const PangoFontDescription *description);
cairo_font_options_t *cairo_font_options_create(void);
void cairo_font_options_set_antialias(cairo_font_options_t *options, cairo_antialias_t antialias);
void cairo_font_options_set_hint_metrics(cairo_font_options_t *options, cairo_hint_metrics_t hint_metrics);
void cairo_font_options_destroy(cairo_font_options_t *options);
cairo_surface_t *cairo_image_surface_create(cairo_format_t format, int width, int height);
cairo_surface_t *cairo_image_surface_create_for_data(unsigned char *data, cairo_format_t format, int width, int height,
                                                     int stride);
unsigned char *cairo_image_surface_get_data(cairo_surface_t *surface);
int cairo_image_surface_get_stride(cairo_surface_t *surface);
void cairo_surface_flush(cairo_surface_t *surface);
void cairo_surface_destroy(cairo_surface_t *surface);
cairo_t *cairo_create(cairo_surface_t *target);
void cairo_destroy(cairo_t *cr);
cairo_status_t cairo_status(cairo_t *cr);
const char *cairo_status_to_string(cairo_status_t status);
void cairo_set_source_rgb(cairo_t *cr, double red, double green, double blue);
void cairo_move_to(cairo_t *cr, double x, double y);
void cairo_save(cairo_t *cr);
void cairo_restore(cairo_t *cr);
void cairo_translate(cairo_t *cr, double tx, double ty);
void cairo_scale(cairo_t *cr, double sx, double sy);
void cairo_rectangle(cairo_t *cr, double x, double y, double width, double height);
void cairo_clip(cairo_t *cr);
void cairo_fill(cairo_t *cr);
void cairo_paint(cairo_t *cr);
void cairo_set_source_rgba(cairo_t *cr, double red, double green, double blue, double alpha);
void cairo_set_source_surface(cairo_t *cr, cairo_surface_t *surface, double x, double y);
void cairo_show_page(cairo_t *cr);
cairo_status_t cairo_surface_status(cairo_surface_t *surface);
void cairo_surface_finish(cairo_surface_t *surface);
void cairo_surface_mark_dirty(cairo_surface_t *surface);
cairo_status_t cairo_surface_set_mime_data(cairo_surface_t *surface, const char *mime_type, const unsigned char *data,
                                           unsigned long length, cairo_destroy_func_t destroy, void *closure);
cairo_surface_t *cairo_pdf_surface_create_for_stream(cairo_write_func_t write_func, void *closure,
                                                     double width_in_points, double height_in_points);
void cairo_pdf_surface_set_metadata(cairo_surface_t *surface, cairo_pdf_metadata_t metadata, const char *utf8);
void cairo_pdf_surface_set_size(cairo_surface_t *surface, double width_in_points, double height_in_points);
const char *pango_version_string(void);
const char *cairo_version_string(void);
gpointer g_object_ref(gpointer object);
void g_object_unref(gpointer object);
gboolean g_utf8_validate(const char *text, gssize length, const char **end);
FcFontSet *FcConfigGetFonts(FcConfig *config, FcSetName set);

#define CI_PANGOCAIRO_FUNCTIONS(X)       \
    X(pango_cairo_font_map_get_default)  \
    X(pango_cairo_context_set_font_options) \
    X(pango_cairo_show_layout)

#define CI_PANGO_FUNCTIONS(X)                     \
    X(pango_font_map_create_context)              \
    X(pango_layout_new)                           \
    X(pango_version_string)                       \
    X(pango_font_description_from_string)         \
    X(pango_font_description_set_absolute_size)   \
    X(pango_font_description_free)                \
    X(pango_font_description_get_size)            \
    X(pango_font_description_get_size_is_absolute) \
    X(pango_layout_set_font_description)          \
    X(pango_layout_set_width)                     \
    X(pango_layout_set_wrap)                      \
    X(pango_layout_set_ellipsize)                 \
    X(pango_layout_set_height)                    \
    X(pango_layout_set_alignment)                 \
    X(pango_layout_set_text)                      \
    X(pango_layout_get_pixel_extents)             \
    X(pango_layout_get_line_count)                \
    X(pango_layout_is_ellipsized)                 \
    X(pango_layout_get_unknown_glyphs_count)     \
    X(pango_font_map_load_font)                  \
    X(pango_font_describe)                       \
    X(pango_font_description_get_family)

#define CI_CAIRO_FUNCTIONS(X)            \
    X(cairo_font_options_create)         \
    X(cairo_font_options_set_antialias)  \
    X(cairo_font_options_set_hint_metrics) \
    X(cairo_font_options_destroy)        \
    X(cairo_image_surface_create)        \
    X(cairo_image_surface_create_for_data) \
    X(cairo_image_surface_get_data)      \
    X(cairo_image_surface_get_stride)    \
    X(cairo_surface_flush)               \
    X(cairo_surface_destroy)             \
    X(cairo_create)                      \
    X(cairo_destroy)                     \
    X(cairo_version_string)              \
    X(cairo_status)                      \
    X(cairo_status_to_string)            \
    X(cairo_set_source_rgb)              \
    X(cairo_move_to)                     \
    X(cairo_save)                        \
    X(cairo_restore)                     \
    X(cairo_translate)                   \
    X(cairo_scale)                       \
    X(cairo_rectangle)                   \
    X(cairo_clip)                        \
    X(cairo_fill)                        \
    X(cairo_paint)                       \
    X(cairo_set_source_rgba)             \
    X(cairo_set_source_surface)          \
    X(cairo_show_page)                   \
    X(cairo_surface_status)              \
    X(cairo_surface_finish)              \
    X(cairo_surface_mark_dirty)          \
    X(cairo_surface_set_mime_data)       \
    X(cairo_pdf_surface_create_for_stream) \
    X(cairo_pdf_surface_set_metadata)    \
    X(cairo_pdf_surface_set_size)

#define CI_GOBJECT_FUNCTIONS(X) \
    X(g_object_ref)             \
    X(g_object_unref)

#define CI_GLIB_FUNCTIONS(X) X(g_utf8_validate)

#define CI_FONTCONFIG_FUNCTIONS(X) X(FcConfigGetFonts)

typedef struct {
    void *pangocairo, *pango, *cairo, *gobject, *glib, *fontconfig;
#define CI_TEXT_POINTER(function) __typeof__(&function) function;
    CI_PANGOCAIRO_FUNCTIONS(CI_TEXT_POINTER)
    CI_PANGO_FUNCTIONS(CI_TEXT_POINTER)
    CI_CAIRO_FUNCTIONS(CI_TEXT_POINTER)
    CI_GOBJECT_FUNCTIONS(CI_TEXT_POINTER)
    CI_GLIB_FUNCTIONS(CI_TEXT_POINTER)
    CI_FONTCONFIG_FUNCTIONS(CI_TEXT_POINTER)
#undef CI_TEXT_POINTER
} ci_text_api;

// Opens the libraries (once per process; later calls only count references)
// and looks the functions up. CI_ERR_UNSUPPORTED names what is missing.
ci_status ci_text_api_open(ci_text_api *api, ci_error *err);
void ci_text_api_close(ci_text_api *api);

// Shows `run` in `box` on any Cairo context whose units are the canvas's
// pixels (the PDF page's, formats/pdf_save.c), clipped to the box and placed as
// ci_draw_text places it; fonts are Cairo's to embed. No font: nothing
// shown, CI_OK.
ci_status ci_text_show_on(const ci_text_api *t, cairo_t *cr, ci_rect box, const ci_text_run *run, ci_error *err);

#endif
