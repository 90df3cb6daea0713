// collage_imaging.h — the C image engine behind `collage`.
//
// Decodes photos in the formats its table lists (ci_formats: each through
// the library made for it), applies their orientation, converts colours to
// sRGB (lcms2), scales each photo to cover its cell of the collage with an
// anti-aliased filter, and writes the result through the writers' table
// (ci_writers: pixels with ci_encode, pages with ci_document_*).
//
// Rules every function here keeps:
//  - no global state: every call works on its own data, so calls on different
//    threads are safe; ci_draw_photo calls on disjoint cells of one canvas may
//    run at the same time;
//  - no exit()/abort(): libjpeg and libpng errors come back through setjmp as a
//    ci_status and a message that names the file;
//  - every error path frees what it took; sizes are checked before allocating.
#ifndef COLLAGE_IMAGING_H
#define COLLAGE_IMAGING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CI_OK = 0,
    CI_ERR_OPEN = 1,             // cannot open or read the file (missing, permission, a folder, a FIFO...)
    CI_ERR_NOT_IMAGE = 2,        // the content is in no format the table reads
    CI_ERR_UNSUPPORTED = 3,      // a valid file we do not handle (e.g. 12-bit JPEG)
    CI_ERR_CORRUPT = 4,          // the decoder found broken data
    CI_ERR_TOO_LARGE = 5,        // decoding would exceed the pixel limit
    CI_ERR_NO_MEMORY = 6,
    CI_ERR_INVALID_ARGUMENT = 7,
    CI_ERR_ENCODE = 8            // the encoder failed
} ci_status;

// Filled by every function that can fail. `message` is one line, names the
// file where there is one, and is always NUL-terminated.
typedef struct {
    ci_status status;
    char message[512];
} ci_error;

typedef enum {
    CI_FORMAT_UNKNOWN = 0,
    CI_FORMAT_JPEG = 1,
    CI_FORMAT_PNG = 2,
    CI_FORMAT_HEIF = 3,   // HEIC, HEIF and AVIF (ISO BMFF `ftyp` brands), through libheif
    CI_FORMAT_WEBP = 4,   // RIFF....WEBP, through libwebp
    CI_FORMAT_TIFF = 5,   // II*\0 / MM\0*, through libtiff (issue #22)
    CI_FORMAT_GIF = 6,    // GIF87a / GIF89a, through giflib
    CI_FORMAT_JXL = 7,    // JPEG XL codestream or container, through libjxl
    CI_FORMAT_RAW = 8,    // camera RAW (DNG, CR2, CR3, NEF, ARW, RAF, ORF, RW2), through libraw
    CI_FORMAT_PDF = 9     // written only (a page writer, ci_writers), never sniffed
} ci_format;

// "YYYY:MM:DD HH:MM:SS", then "+HH:MM" where the photo says its offset
// from UTC, and the NUL.
#define CI_DATE_TAKEN_BYTES 26

// Where a photo was taken: its EXIF GPS position (GPSLatitude and
// GPSLongitude with their references), for naming the place (CollagePlaces).
typedef struct {
    int known;        // nonzero when the file gives a position on the Earth
    double latitude;  // degrees, north positive (WGS 84, as GPS receivers give it)
    double longitude; // degrees, east positive
} ci_position;

// What a file is, read from its header only (cheap: no pixel is decoded).
typedef struct {
    ci_format format;
    uint32_t width, height;                  // as stored in the file
    int orientation;                         // EXIF orientation 1-8; 1 when absent or invalid
    uint32_t display_width, display_height;  // after orientation (swapped for 5-8)
    int has_alpha;                           // PNG with an alpha channel or tRNS
    // When the photo was taken: EXIF DateTimeOriginal as the camera wrote it,
    // "YYYY:MM:DD HH:MM:SS" (local time), checked to be a date, followed by
    // OffsetTimeOriginal ("+02:00") when the photo says its zone; empty when
    // the photo has none or its loader reads no EXIF.
    char date_taken[CI_DATE_TAKEN_BYTES];
    // Where it was taken, from the same EXIF (JPEG, HEIF, AVIF, WebP, PNG,
    // JPEG XL); unknown for the others.
    ci_position position;
} ci_photo_info;

typedef struct {
    uint8_t r, g, b;
} ci_color;

// Decoding refuses any image whose *decoded* size (after shrink-on-load)
// exceeds max_pixels, before allocating it. 0 means CI_DEFAULT_MAX_PIXELS.
#define CI_DEFAULT_MAX_PIXELS ((uint64_t)100000000)  // 100 megapixels
typedef struct {
    uint64_t max_pixels;
} ci_limits;

// An RGB (3 bytes per pixel) or RGBA (4) image owned by the caller or by the
// engine (see ci_image_free).
typedef struct {
    uint8_t *pixels;
    uint32_t width, height;
    size_t stride;   // bytes from one row to the next
    int channels;    // 3 (RGB) or 4 (RGBA, straight alpha)
} ci_image;

// A cell of the collage in canvas coordinates. The layouts keep cells on
// the canvas, but a caller's cell may reach past it: only the part inside
// the canvas is drawn.
typedef struct {
    int32_t x, y;
    uint32_t width, height;
} ci_rect;

typedef struct {
    // Shrink-on-load target: JPEGs are decoded at the smallest DCT scale
    // (n/8) whose *oriented* size still covers min_width x min_height.
    // 0 x 0 decodes at full size.
    uint32_t min_width, min_height;
    int apply_orientation;   // nonzero: rotate/flip by the EXIF orientation
    int keep_alpha;          // nonzero: RGBA output (straight alpha); zero: RGB composited over background
    ci_color background;
    ci_limits limits;
    int keep_colours;        // nonzero: the pixels as coded, not converted to sRGB (for
                             // comparing with decoders that do not convert)
} ci_decode_options;

// Shrink-on-load: the one rule for the reduced size a photo is decoded at,
// used by every draw and decode here and by whatever predicts their sizes
// (in the spirit of turbojpeg's TJSCALED). JPEGs decode at n/8 of their
// stored size, n = 1..8.

// `dimension` decoded at scale_num/8 (1-8), rounded up as libjpeg does.
uint32_t ci_scaled_size(uint32_t dimension, unsigned scale_num);

// The size a photo shown display_width x display_height must at least be
// decoded at for a box: `width` x `height` just covers it (contain = 0: the
// cell's cover factor max(boxW / w, boxH / h)) or fits it (contain = 1:
// min(...)); `filter_*` adds the 4/3 headroom the Lanczos pass needs to
// repair the DCT's scaling, taken from width x height (so it may exceed the
// photo, which then decodes at full size). Rounded up; width x height is
// never more than the photo itself. All zero for a photo without pixels.
typedef struct {
    uint32_t width, height;
    uint32_t filter_width, filter_height;
} ci_shrink_target;
ci_shrink_target ci_shrink_target_for_box(uint32_t display_width, uint32_t display_height,
                                          uint32_t box_width, uint32_t box_height, int contain);

// The smallest n (1-8) whose n/8 scale of width x height is at least
// need_width x need_height; 8 when none is (and for 0 x 0: full size).
unsigned ci_shrink_scale(uint32_t width, uint32_t height, uint32_t need_width, uint32_t need_height);

// The scale ci_draw_photo decodes a JPEG stored width x height (EXIF
// `orientation`) at for a cell: the filter target's, or the covering one's
// where the filter target alone would exceed the pixel limit.
unsigned ci_draw_scale(uint32_t width, uint32_t height, int orientation, uint32_t cell_width,
                       uint32_t cell_height, const ci_limits *limits);

// A pixel count and the limit it is compared with, as text in units that make
// sense at any size ("350 pixels"; "100.000001 megapixels" against "100.0
// megapixels": the fewest decimals that tell them apart). Each buffer holds
// `size` bytes (48 is plenty).
void ci_describe_pixels(uint64_t pixels, uint64_t limit, char *pixels_text, char *limit_text, size_t size);

// The libraries the engine reads and writes with, and their versions as
// loaded at run time where the library can say ("libjpeg-turbo 2.1.5,
// libpng 1.6.39, libheif 1.15.1 with libde265 1.0.11, ..."), for `collage
// --version`, into `out` (`size` bytes, NUL-terminated, cut short if
// small). Loads the libraries the engine otherwise loads on first use, so
// it costs a few milliseconds: call it for --version only. Returns the
// length of the whole text.
size_t ci_library_versions(char *out, size_t size);

// The format by the first bytes of a file (magic numbers, a HEIF's `ftyp`
// brands), never by its name. CI_SNIFF_BYTES are enough to tell whether a
// file is one the engine reads; a camera RAW that begins like a TIFF (DNG,
// NEF, ARW) is told from one by the first 64 KiB (libraw reads them), and
// with fewer may be called a TIFF.
#define CI_SNIFF_BYTES 64
ci_format ci_sniff_format(const uint8_t *data, size_t size);

// Reads the header of `path` and fills `info`. Judges the format by content,
// never by the name. Refuses what cannot be decoded later (e.g. 12-bit JPEG).
// Decodes no pixel and does not check that the file is whole: a file cut
// short after its header probes fine (ci_check_complete tells).
ci_status ci_probe_file(const char *path, ci_photo_info *info, ci_error *err);

// Decodes `path` into a new image (free it with ci_image_free).
ci_status ci_decode_file(const char *path, const ci_decode_options *options,
                         ci_image *out, ci_error *err);

// The same from memory; `name` is used in messages only.
ci_status ci_decode_memory(const uint8_t *data, size_t size, const char *name,
                           const ci_decode_options *options, ci_image *out, ci_error *err);

void ci_image_free(ci_image *image);

// Draws the photo at `path` into `cell` of the RGB `canvas`: decoded with
// shrink-on-load, oriented, scaled to *cover* the cell keeping its aspect ratio
// (factor max(cellW / w, cellH / h)), centred (ci_draw_photo_placed below
// places it otherwise), the overflow cropped, alpha
// composited over `background`. Only pixels inside both the cell and the
// canvas are written. A photo whose oriented size equals the cell is copied
// pixel for pixel.
ci_status ci_draw_photo(const char *path, ci_image *canvas, ci_rect cell,
                        ci_color background, const ci_limits *limits, ci_error *err);

// --- Where the crop goes, and fitting the whole photo (issue #13) ---

// How a photo that does not have its cell's shape is cropped to cover it.
typedef enum {
    CI_CROP_CENTRE = 0,     // centred: the original app's aspect-fill
    CI_CROP_SMART = 1,      // keep the focus, else the faces, else the camera's subject, else centred
    CI_CROP_ATTENTION = 2   // the most salient part (edges, saturation, skin)
} ci_crop;

typedef enum {
    CI_FIT_COVER = 0,       // fill the cell, cropping the overflow
    CI_FIT_CONTAIN = 1      // the whole photo, centred; the rest of the cell the background
} ci_fit;

// A rectangle in fractions (0-1) of the upright photo's width and height.
typedef struct {
    double x, y, width, height;
} ci_box;

// What decided where the crop went.
typedef enum {
    CI_PLACED_CENTRE = 0,     // nothing to go by, or nothing to crop
    CI_PLACED_FOCUS = 1,      // the focus the person set
    CI_PLACED_FACES = 2,      // faces found in the photo
    CI_PLACED_SUBJECT = 3,    // the camera's subject (EXIF SubjectArea / SubjectLocation)
    CI_PLACED_ATTENTION = 4,  // the attention crop
    CI_PLACED_WHOLE = 5       // contain: the whole photo is shown
} ci_placed_by;

typedef struct {
    ci_color background;
    ci_limits limits;
    ci_crop crop;
    ci_fit fit;
    int has_focus;              // nonzero: centre the crop on (focus_x, focus_y),
    double focus_x, focus_y;    // fractions of the upright photo; overrides crop
    int draft;                  // nonzero: decode at the scale that just covers the cell, without
                                // the filter's headroom (previews: a terminal cannot show it)
    int faces_wanted;           // nonzero (smart): faces are looked for and reported in the placement
                                // even where the crop has no room to move or the photo is contained
                                // (a caption's band is placed clear of them)
} ci_draw_options;

// How a file cut short is drawn (ci_placement.cut_short).
typedef enum {
    CI_CUT_NONE = 0,   // whole (or not a format that tells)
    CI_CUT_ROWS = 1,   // the rows the data reached, the rest grey
    CI_CUT_SCANS = 2,  // a progressive JPEG whose later scans are missing: every row, coarse
    CI_CUT_ROWS_EMPTY = 3, // the rows the data reached, the rest empty (a GIF's: the background shows)
} ci_cut;

#define CI_MAX_FACES 16
typedef struct {
    ci_placed_by placed_by;
    ci_box shown;               // the part of the photo the cell shows
    int face_count;             // faces found (smart, where it had to look)
    ci_box faces[CI_MAX_FACES]; // the first CI_MAX_FACES of them, best first
    int has_subject;
    ci_box subject;             // the camera's subject, where the file gives one
    char date_taken[CI_DATE_TAKEN_BYTES]; // when it was taken (EXIF), "" when the file does not say
    uint32_t display_width, display_height; // the upright photo's size, which `shown` is a fraction of
    int corrupt_data;           // how often the decoder read past broken data and drew on (libjpeg's
                                // "Corrupt JPEG data" warnings, a JPEG cut short, a GIF frame cut short);
                                // 0 for a whole, clean file (a JPEG missing only its end marker, every
                                // row there, is one)
    ci_cut cut_short;           // a JPEG that ends before its picture does (a download that stopped), and how
    double drawn_share;         // with CI_CUT_ROWS: the share of the picture's rows its data reached (0 to 1),
                                // from the top; the rest is grey
    ci_rect drawn;              // where `shown` went on the canvas: the cell, or (contain) the part of it
                                // the whole photo fits
} ci_placement;

// A face's box (fractions of the photo, as ci_placement.faces) grown to the
// head the smart crop keeps whole: the forehead and hair above, a little
// around; within the photo.
ci_box ci_head_of(ci_box face);

// ci_draw_photo with a crop rule and fit; `placement` (may be NULL) says
// what the cell shows and why. Smart and attention look at the photo's
// shrink-on-load decode, never the full-size photo, and only when the crop
// has room to move. A photo where smart finds nothing is drawn exactly as
// CI_CROP_CENTRE draws it.
ci_status ci_draw_photo_placed(const char *path, ci_image *canvas, ci_rect cell,
                               const ci_draw_options *options, ci_placement *placement,
                               ci_error *err);

// Refuses a file cut short (no PNG IEND chunk, no GIF trailer, a TIFF
// strip past the end, ...) with CI_ERR_CORRUPT and a message naming it
// ("PATH: the file is cut short (...)"). Walks the file's structure without
// decoding where the format allows (a few milliseconds for a 12-megapixel
// photo); a JPEG XL's first frame is decoded (libjxl cannot tell otherwise:
// about 0.5 s for 12 megapixels). A JPEG cut short after its header is not
// refused: it is drawn as far as it goes, as other readers draw it (with
// `cut_short`, said there). For `add`, which must refuse such a file
// before accepting it; what only wants a photo's size (a layout's plan, a
// preview) calls ci_probe_file alone.
// With `placed` (may be NULL: the walk alone), a format whose decoder
// reads past broken data (JPEG, GIF) is also drawn as small as it decodes,
// within `limits` (NULL: the default), as `save` would draw it: a file that
// draw refuses is refused, and *placed is that draw's placement, whose
// corrupt_data, cut_short and drawn_share say what `save` will find (all 0
// for a clean file). That draw is mostly a JPEG's entropy decoding (about
// 35 ms of CPU for 12 megapixels), so a JPEG whose structure is plainly
// whole (one sequential scan to its end marker, its restart markers in
// order; a walk of about a millisecond) is not drawn: *placed is all 0, and
// corrupt data inside its scan is found by the draw at save (issue #42).
ci_status ci_check_complete(const char *path, const ci_limits *limits, ci_placement *placed, ci_error *err);

// The rule itself, without pixels: where the crop of a photo shown
// photo_width x photo_height goes in a cell_width x cell_height cell, given
// what is known of the photo (faces as found, the camera's subject, the
// person's focus; NULL or 0 for none), in the order smart keeps them:
// the focus; the faces, all of them when they fit, else the largest group
// that does (most faces, then most area, then nearest the centre), each
// with room for the head above the face; the subject; else the centre.
// The crop moves as little from the centre as keeps them. Returns what
// decided it; *shown is the part of the photo shown.
typedef struct {
    int has_focus;
    double focus_x, focus_y;
    const ci_box *faces;
    int face_count;
    int has_subject;
    ci_box subject;
} ci_placement_hints;
ci_placed_by ci_place_crop(uint32_t photo_width, uint32_t photo_height, uint32_t cell_width,
                           uint32_t cell_height, const ci_placement_hints *hints, ci_box *shown);

// Frees a buffer ci_encode returned.
void ci_buffer_free(uint8_t *buffer);

// --- The formats read: one table of loaders ---

// What the engine says of a format it reads, for the places that list
// formats (help texts, shell completions, the picker) and predict its sizes.
typedef struct {
    ci_format format;
    const char *name;          // "JPEG", "HEIF": as messages name it
    const char *title;         // "JPEG", "HEIC/HEIF/AVIF": the names people know it by, for help texts
    const char *extensions;    // lower case, space-separated, the usual first: "jpg jpeg jpe"
    unsigned smallest_scale;   // the smallest scale, in eighths (1-8), a photo is decoded at,
                               // which the pixel limit is checked against (8: full size only)
} ci_format_info;

// The number of formats read; with `index` below it, fills *info with that
// one's (in sniffing order). `info` may be NULL.
size_t ci_formats(size_t index, ci_format_info *info);

// --- The formats written: one table of writers (formats/writers.c) ---
//
// Apart from the loaders, as libvips keeps its save classes apart from its
// load classes: a format may be read and not written (TIFF) or written and
// never read (PDF). A writer writes pixels (ci_encode: a raster file) or
// pages (ci_document_*: a page that sets text as text, a document of many).

typedef enum {
    CI_WRITES_PIXELS = 0,
    CI_WRITES_PAGES = 1
} ci_writes;

// The ci_save_options a writer reads (ci_writer_info.options); it ignores
// the others, which a caller may tell the person who gave them.
#define CI_OPTION_QUALITY 1u    // quality: a lossy encoder (a page's: its photos' JPEGs)
#define CI_OPTION_DPI 2u        // dots_per_inch: the print resolution the file says

typedef struct {
    ci_format format;          // the file it writes
    const char *name;          // "JPEG", "AVIF", "PDF": as messages name what it writes
    const char *extensions;    // those its files are given, lower case, space-separated, the usual first
    ci_writes writes;
    unsigned options;          // the CI_OPTION_* it reads
} ci_writer_info;

// The number of writers; with `index` below it, fills *info with that
// one's (in the table's order, the usual first). `info` may be NULL.
size_t ci_writers(size_t index, ci_writer_info *info);

// How a writer writes a collage: one value for every writer, so an option
// only one format uses is a field here and that format's writer (the others
// never read it; ci_writer_info.options says which). Start from
// ci_save_options_default() and set what differs; a field added later takes
// 0 to mean "as before", so a caller that zeroes the rest keeps its files.
typedef struct {
    int quality;                // 1-100 (clamped) where the writer reads it (CI_OPTION_QUALITY)
    int threads;                // at most this many threads where the writer can use them; < 2: one
    const char *date_taken;     // NULL, or the earliest photo's "YYYY:MM:DD HH:MM:SS", written as
                                // EXIF DateTimeOriginal (pixel writers)
    int dots_per_inch;          // 0: the file says no print size (as before); 1-65535: the print
                                // resolution (issue #34), written as JPEG's JFIF density, PNG's pHYs
                                // and EXIF XResolution/YResolution in every format that has EXIF
} ci_save_options;

// Quality 90, one thread, no date, no print resolution.
ci_save_options ci_save_options_default(void);

// Encodes the RGB `image` as `format` (a writer of pixels) into a new
// buffer (free it with ci_buffer_free) as `options` says (NULL: the
// defaults). The file carries an sRGB ICC profile (what its pixels are),
// the date taken and the print resolution where the options give them;
// nothing else of the photos' metadata.
ci_status ci_encode(ci_format format, const ci_image *image, const ci_save_options *options,
                    uint8_t **out, size_t *out_size, ci_error *err);

// --- Text: titles, through Pango and Cairo (issue #20) ---
//
// A text run is plain data: no handle, nothing kept by the caller. Glyphs
// are shaped by Pango (HarfBuzz, fontconfig fallback) and rasterised by
// Cairo into an ARGB surface the size of the box; the engine composites it
// over the RGB canvas. Never our own rasteriser.

typedef enum {
    CI_TEXT_CENTRE = 0,
    CI_TEXT_LEFT = 1,
    CI_TEXT_RIGHT = 2
} ci_text_align;

// The longest text a run takes, in bytes (UTF-8); longer is refused.
#define CI_TEXT_MAX_BYTES 16384
// The largest box, each side (Cairo's own limit is 32767), and in all: its
// ARGB surface takes 4 bytes a pixel (a two-line title across a 16384-pixel
// canvas is about 30 megapixels).
#define CI_TEXT_MAX_SIDE 16384
#define CI_TEXT_MAX_PIXELS ((uint64_t)48000000)

typedef struct {
    const char *text;       // UTF-8, NUL-terminated; invalid UTF-8 is refused
    const char *font;       // a Pango font description ("Sans Bold", "DejaVu Serif 40"); NULL: "Sans"
    double pixel_size;      // > 0: the font's size in pixels, whatever `font` says
    ci_color colour;
    uint32_t width, height; // the box: lines wrap at `width`; drawing is clipped to it
    int max_lines;          // wrapped to at most this many lines (>= 1), the last ellipsised
    ci_text_align align;
} ci_text_run;

typedef struct {
    int has_fonts;          // zero: fontconfig knows no font at all; nothing is drawn
    int lines;              // lines laid out
    int ellipsized;         // nonzero: the text did not fit in max_lines and was cut with "…"
    int missing_glyphs;     // characters no installed font has (drawn as boxes with their code)
    uint32_t width, height; // the laid-out text's logical size in pixels (rounded up)
    int32_t ink_x, ink_y;   // where ink falls, relative to the box's top left (when drawn
    uint32_t ink_width, ink_height; // centred vertically in it, as ci_draw_text does)
} ci_text_metrics;

// Whether fontconfig knows any font at all (on this thread's font map):
// without one no text can be drawn.
int ci_text_fonts_available(void);

// Lays the run out (no pixels): how many lines, how big. The box's height
// is not used, so a caller can size a box to fit the text.
ci_status ci_text_measure(const ci_text_run *run, ci_text_metrics *metrics, ci_error *err);

// Lays the run out in `box` of the RGB `canvas`, centred vertically (and
// horizontally as `align` says), and composites its ink over the pixels.
// Only pixels inside both the box and the canvas are written. Without any
// font, returns CI_OK with metrics->has_fonts = 0 and draws nothing.
// `metrics` may be NULL.
ci_status ci_draw_text(ci_image *canvas, ci_rect box, const ci_text_run *run,
                       ci_text_metrics *metrics, ci_error *err);

// The size a Pango font description gives ("DejaVu Serif Bold 40": 40
// points, 53.3 pixels; "Sans 30px": 30), in pixels; 0 when it gives none.
// Refuses what a run would: invalid UTF-8, too long, a size over the limit.
ci_status ci_text_font_pixels(const char *font, double *pixels, ci_error *err);

// The family a Pango font description asks for ("NoSuchFamily" of
// "NoSuchFamily 40"; "" when it names none) into `asked`, and the one
// fontconfig gives it, which a run draws with (its own when installed, else
// its substitute: "DejaVu Sans") into `used`; each `size` bytes.
ci_status ci_text_font_family(const char *font, char *asked, char *used, size_t size, ci_error *err);

// Covers `box` of the RGB `canvas` with `colour` at `alpha` / 255 opacity:
// the translucent band that keeps a caption legible on any photo. Only
// pixels inside both the box and the canvas are written.
void ci_shade_box(ci_image *canvas, ci_rect box, ci_color colour, uint8_t alpha);

// --- Pages: collages to print, one document of many (issue #34) ---
//
// A page of a physical size: the background, the caption bands (shades)
// and the text are vector; each photo is its cell of the canvas, which the
// writer encodes as a JPEG at the options' quality and embeds as it is.
// Every position is in the pixels of the canvas the layout planned, which
// the page scales to its points. A document is written as it is made: open
// it, add its pages one at a time, close it; what it holds does not grow
// with its pages (each page's photos are written out and let go when the
// page is added). A one-page file is a document of one page.

typedef struct {
    ci_rect box;
    ci_color colour;
    uint8_t alpha;              // opacity / 255, as ci_shade_box's
} ci_page_shade;

typedef struct {
    ci_rect box;                // as ci_draw_text's box; the run's width and height are the box's
    ci_text_run run;
} ci_page_text;

typedef struct {
    double width_points, height_points;        // the page, 1/72 inch (3 to 14400 each)
    ci_image canvas;                           // RGB: the photos drawn in their cells, at the print
                                               // resolution; borrowed until ci_document_add returns
    ci_color background;
    const ci_rect *photos;                     // each photo's cell of the canvas (clipped to it)
    size_t photo_count;
    const ci_page_shade *shades;               // drawn over the photos, in order
    size_t shade_count;
    const ci_page_text *texts;                 // drawn last, in order
    size_t text_count;
} ci_page;

// Where a document's bytes go, as they are made: nonzero when all `size`
// were written.
typedef int (*ci_write_fn)(void *closure, const uint8_t *bytes, size_t size);

// A document being written: the caller's, filled in before ci_document_open
// and kept (it may move) until ci_document_close, which must follow a
// successful open whatever happens between.
typedef struct {
    ci_format format;           // a writer of pages (ci_writer_info.writes): CI_FORMAT_PDF
    ci_save_options options;    // what its writer reads of them: the photos' quality, threads
    const char *title;          // the document's title; NULL or "": none
    const char *creator;        // the program that made it ("collage 1.2"); NULL: none
    const char *creation_date;  // ISO 8601 ("2026-11-28T10:00:00Z"); NULL: now
    ci_write_fn write;          // where the file goes (a failed write fails the page or the close)
    void *closure;
    void *state;                // the writer's, from open to close (a page writer's surface
                                // outlives a call); the caller leaves it alone
} ci_document;

// Starts the document (nothing is written before its first page); the
// strings are copied.
ci_status ci_document_open(ci_document *document, ci_error *err);

// Draws `page` and writes it out. After a failure the document takes no
// more pages; close it.
ci_status ci_document_add(ci_document *document, const ci_page *page, ci_error *err);

// Writes the document's end and frees what it held, whatever came before;
// refuses a document without pages or with a page that failed.
ci_status ci_document_close(ci_document *document, ci_error *err);

// --- Measures for `collage suggest` (issue #33; measure.c) ---

typedef struct {
    ci_limits limits;
    int use_thumbnail;      // nonzero: measure the thumbnail the file carries where usable (a JPEG's
                            // EXIF one of the photo's shape, a HEIF's own covering the 160 pixels measured)
} ci_measure_options;

typedef struct {
    ci_photo_info info;     // the probe's: format, sizes, orientation, date taken
    uint64_t hash;          // DCT hash of the upright picture (near-duplicates differ in few bits)
    uint64_t gradient_hash; // which cells of a 9 x 8 grey copy are brighter than their left neighbour:
                            // the same scene shot darker or brighter (a bracket) keeps it
    double sharpness;       // variance of the Laplacian of the grey picture (compare within one scene)
    double dark_share;      // share of pixels in clipped shadows (grey <= 10)
    double bright_share;    // share of pixels in clipped highlights (grey >= 245)
    double mean_level;      // mean grey level, 0-1
    int from_thumbnail;     // nonzero: measured on the file's thumbnail (EXIF's, a HEIF's), else on the smallest decode
    uint32_t measured_width, measured_height; // the grey picture measured (at most 160 on its long side)
    int corrupt_data;       // the decode read past broken data or the end of a file cut short (libjpeg's
                            // warnings, as ci_placement.corrupt_data counts them); 0 for a clean file
} ci_measures;

// Measures the photo at `path` from its cheapest picture: the thumbnail
// the file carries when asked for and usable (of the photo's shape), else a
// shrink-on-load decode to about 160 pixels. Never decodes a JPEG at
// full size. A JPEG that does not end with its end marker is decoded, not
// measured on its thumbnail, so that a file cut short is noticed.
ci_status ci_measure_photo(const char *path, const ci_measure_options *options, ci_measures *out, ci_error *err);

// The faces the smart crop's search finds anywhere in the photo (frontal,
// at its search size); dearer than ci_measure_photo (a decode to a
// 480-pixel short side and the search).
ci_status ci_count_faces(const char *path, const ci_limits *limits, int *faces, ci_error *err);

#ifdef __cplusplus
}
#endif

#endif
