// internal.h — what the engine's C files share. Not part of the public API.
#ifndef COLLAGE_IMAGING_INTERNAL_H
#define COLLAGE_IMAGING_INTERNAL_H

#include "collage_imaging.h"

#include <stdarg.h>
#include <stddef.h>

// The largest file we read into memory. Real photos are far smaller; the
// limit keeps a hostile "file" (a huge sparse file) from exhausting memory.
// Inner loops are plain C that the compiler vectorises. On x86-64 the
// functions marked with this are also compiled for AVX2 and FMA (8 lanes,
// fused multiply-add), picked at load time on the machines that have them;
// elsewhere the baseline build runs.
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones) && !defined(__SANITIZE_ADDRESS__)
#define CI_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
#endif
#ifndef CI_VECTOR_CLONES
#define CI_VECTOR_CLONES
#endif

#define CI_MAX_FILE_BYTES ((size_t)1 << 30)  // 1 GiB

// Built with AddressSanitizer (make test-sanitized, the fuzzers), whose
// allocator replaces glibc's: what works on glibc's own heap (a frame
// mapped apart, malloc_trim) is left out there. GCC and newer clang say so
// with __SANITIZE_ADDRESS__, clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define CI_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CI_ADDRESS_SANITIZER 1
#endif
#endif

// Sets err (if not NULL) to `status` and a printf-style message; returns status.
ci_status ci_fail(ci_error *err, ci_status status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

// Reads a whole regular file into a new malloc'd buffer. Refuses folders,
// FIFOs and devices without blocking, and empty or oversized files.
ci_status ci_read_file(const char *path, uint8_t **data, size_t *size, ci_error *err);

// ci_read_file's checks, leaving the file open for reading: *fd (close it)
// and its size.
ci_status ci_open_file(const char *path, int *fd, size_t *size, ci_error *err);

// read() until `capacity` bytes or the end; retries EINTR. Returns the count;
// *error is errno on a failed read, else 0.
size_t ci_read_up_to(int fd, uint8_t *buffer, size_t capacity, int *error);

// The buffer ci_open_prefix reads the start of a file into: enough for the
// headers (EXIF included) and to tell the format apart.
#define CI_READ_BUFFER_BYTES 65536

// ci_open_file, then the first read into a new malloc'd *buffer of *capacity
// bytes (CI_READ_BUFFER_BYTES at most, 16 at least): on success *filled > 0
// bytes of it, fd (close it) right after them and the buffer (free it). On
// failure nothing is left to free or close.
ci_status ci_open_prefix(const char *path, int *fd, size_t *file_size, uint8_t **buffer,
                         size_t *capacity, size_t *filled, ci_error *err);

// The rest of the file after ci_open_prefix's *filled bytes: grows *buffer to
// file_size and reads on. On failure *buffer (unchanged when it could not
// grow) is still the caller's to free.
ci_status ci_read_rest(int fd, uint8_t **buffer, size_t *filled, size_t file_size,
                       const char *path, ci_error *err);


// An encoded file growing in memory as an encoder writes it (the savers'
// and the PDF page's output), doubling from 64 KiB.
typedef struct {
    uint8_t *data;
    size_t size, capacity;
} ci_growing_buffer;

// Appends `size` bytes; 0 (the buffer unchanged, still the caller's to free)
// when it cannot grow.
int ci_growing_append(ci_growing_buffer *buffer, const void *bytes, size_t size);

// The effective pixel limit of `limits` (NULL or 0 means the default).
uint64_t ci_max_pixels(const ci_limits *limits);

// Refuses (CI_ERR_TOO_LARGE) a width x height image over the pixel limit.
ci_status ci_check_pixels(uint32_t width, uint32_t height, const ci_limits *limits,
                          const char *name, ci_error *err);

// Allocates image->pixels for width x height x channels (3 or 4; 1 for the
// grey pictures the analyses look at, reduce.c) after checking the size
// against the pixel limit and for overflow. `name` is for the message.
ci_status ci_image_alloc(ci_image *image, uint32_t width, uint32_t height, int channels,
                         const ci_limits *limits, const char *name, ci_error *err);

// Oriented size of a width x height image for EXIF orientation 1-8.
void ci_oriented_size(int orientation, uint32_t width, uint32_t height,
                      uint32_t *out_width, uint32_t *out_height);

// Nothing of the cell is on the canvas (both non-empty).
static inline int ci_cell_off_canvas(const ci_image *canvas, ci_rect cell) {
    int64_t right = (int64_t)cell.x + cell.width, bottom = (int64_t)cell.y + cell.height;
    return right <= 0 || bottom <= 0 || cell.x >= (int64_t)canvas->width ||
           cell.y >= (int64_t)canvas->height;
}

// Is a file whole (complete.c)? A forward reader over an open file, for
// the loaders' walks to the end marker without decoding.
typedef struct ci_walker ci_walker;
// Runs `walk` over fd from its current position; a read error is reported
// as such, not as the file cut short.
ci_status ci_walk_file(int fd, ci_status (*walk)(ci_walker *walker, const char *name, ci_error *err),
                       const char *name, ci_error *err);
int ci_walk_byte(ci_walker *walker, uint8_t *byte);     // 0 at the end of the file
int ci_walk_skip(ci_walker *walker, uint64_t count);    // 0 when the file ends first
int ci_walk_find_ff(ci_walker *walker);                 // to the byte after the next 0xFF; 0 at the end
// "NAME: the file is cut short (what)", CI_ERR_CORRUPT.
ci_status ci_cut_short(const char *name, const char *what, ci_error *err);

// --- Libraries loaded on first use (common.c) ---
// libheif (formats/heif_api.c), libjxl (formats/jxl_api.c) and Pango with Cairo (text/text_api.c) are
// not linked but opened when first needed: linking them cost every command
// milliseconds of start-up, HEIF or text or not. A library is opened by
// its SONAME into *handle; ci_libraries_open opens them in order and
// returns NULL, or the SONAME of the first absent with none left open.
typedef struct {
    void **handle;
    const char *soname;
} ci_library;
const char *ci_libraries_open(const ci_library *libraries, size_t count);
// Closes those open, in the reverse order, and zeroes their handles.
void ci_libraries_close(const ci_library *libraries, size_t count);
void *ci_library_symbol(void *handle, const char *symbol);
// api->function = `function` looked up in `handle`, by the name and type
// its declaration gives (a mismatch fails to compile, not to run); else
// `missing` names it. Stops at the first missing.
#define CI_LOAD_FUNCTION(missing, handle, api, function)                                                   \
    if (!(missing) && !((api)->function = (__typeof__(&function))ci_library_symbol((handle), #function))) \
        (missing) = #function;

// --- Formats: one file each, the same entry points (draw.c dispatches) ---

// A photo being read: the file open, its first bytes read. From memory
// (ci_decode_memory, the fuzz harnesses): fd is -1 and the buffer, which the
// source does not own, holds all of it.
typedef struct {
    const char *name;       // the path, for messages
    int fd;                 // positioned right after the first `filled` bytes; -1 for memory
    size_t file_size;
    uint8_t *buffer;        // `capacity` bytes, the first `filled` of the file in them
    size_t capacity, filled;
} ci_source;

// A source over bytes in memory (not copied, not freed).
ci_source ci_source_memory(const uint8_t *data, size_t size, const char *name);

// The whole file into source->buffer (grown as needed): for the formats whose
// library decodes from memory. A no-op when it is all there.
ci_status ci_source_read_all(ci_source *source, ci_error *err);

// The centre of the part of the photo a cover crop shows, in fractions
// (0-1) of the upright photo (the resampler keeps the window on the photo).
typedef struct {
    double x, y;
} ci_focus;

// What a draw is asked for besides the photo and the cell.
typedef struct {
    ci_color background;        // under transparent pixels (the driver's blend; no loader's)
    int keep_alpha;             // alpha is kept, not blended over `background`
                                // (ci_decode_memory's RGBA decodes only)
    const ci_limits *limits;    // NULL: the default
    ci_crop crop;
    ci_fit fit;
    int has_focus;
    ci_focus focus;             // the person's, upright
    int has_subject;
    ci_box subject;             // the camera's (upright), from the loader's header
    ci_placement *placement;    // NULL, or what the draw reports
    int draft;                  // ci_draw_options.draft
    int faces_wanted;           // ci_draw_options.faces_wanted
} ci_draw_request;

// --- Placing the crop (crop.c) ---
// The cell a draw covers: `cell` itself, or for CI_FIT_CONTAIN the part of
// it the whole photo (dw x dh upright) fits, centred, after filling the rest
// of the cell's visible part with the background.
ci_rect ci_fit_cell(const ci_draw_request *request, ci_image *canvas, ci_rect cell, uint32_t dw,
                    uint32_t dh);
// Whether placing the crop needs the photo's pixels (smart without a focus,
// attention) and the crop has room to move, or smart is asked for the faces
// whatever the crop (faces_wanted): then the driver decodes the whole frame
// at its draw scale and hands it to ci_draw_frame.
int ci_placement_needs_pixels(const ci_draw_request *request, uint32_t dw, uint32_t dh, ci_rect cell);
// The focus a streaming draw uses without looking at pixels: the person's,
// or NULL (centred). Reports the placement too.
const ci_focus *ci_placement_without_pixels(const ci_draw_request *request, uint32_t dw, uint32_t dh,
                                            ci_rect cell, ci_focus *storage);
// Looks at `frame` (the whole photo at draw scale, stored orientation, 3 or
// 4 bytes a pixel), places the crop and draws it into `cell`.
ci_status ci_draw_frame(const ci_image *frame, int orientation, ci_image *canvas, ci_rect cell,
                        const ci_draw_request *request, const char *name, ci_error *err);

// ci_decode_file, and whether a smaller picture the file carries stood in
// for the photo (a HEIF's thumbnail that covers min_width x min_height),
// and how often the decoder read past broken data (as
// ci_placement.corrupt_data): for `collage suggest`, which says what it
// measured and never chooses a broken photo while others are left.
// Either may be NULL.
ci_status ci_decode_file_noting_stand_in(const char *path, const ci_decode_options *options, ci_image *out,
                                         int *stand_in, int *corrupt_data, ci_error *err);

// "Pango 1.50.12, Cairo 1.16.0": the text libraries as loaded (text.c).
void ci_text_library(char *out, size_t size);

// The one refusal of content that is no format we read.
ci_status ci_fail_not_image(const char *name, ci_error *err);

// --- Colour (colour.c): what a photo says its colours are, to sRGB ---

// From the file: an embedded ICC profile and/or (HEIF, AVIF) an nclx colour
// description, in ITU-T H.273 code points. Neither means sRGB.
typedef struct {
    const uint8_t *icc;    // NULL: none
    size_t icc_size;
    int has_nclx;
    int primaries, transfer, matrix, full_range;
} ci_colour_tag;

// Converts the part of `cell` on the RGB `canvas` from the tagged colours to
// sRGB, in place. Untagged and sRGB: nothing to do. A profile lcms2 cannot
// use is ignored (the pixels are taken as sRGB), as browsers do.
ci_status ci_colour_convert_cell(const ci_colour_tag *tag, ci_image *canvas, ci_rect cell,
                                 const char *name, ci_error *err);

// The same for a whole decoded image (RGB or RGBA; alpha is kept).
ci_status ci_colour_convert_image(const ci_colour_tag *tag, ci_image *image, const char *name,
                                  ci_error *err);

// Rows of samples lcms2 turns into sRGB: RGB (channels 3) or RGBX (4; the
// fourth byte set to 255), for a decoder's rows.
typedef struct ci_row_converter ci_row_converter;
// CMYK through the tag's CMYK profile; NULL when the tag has none that
// lcms2 uses (the caller then converts without one). `adobe_inverted`: the
// samples are Photoshop's inverted CMYK.
ci_row_converter *ci_colour_cmyk_open(const ci_colour_tag *tag, int adobe_inverted, int channels);
// CIE L*a*b* (D50, as ICC's), 4 bytes a pixel: L* 0-100 as 0-255, a* and
// b* offset by 128 (lcms2's TYPE_Lab_8), a byte ignored. NULL when lcms2
// cannot.
ci_row_converter *ci_colour_lab_open(int channels);
void ci_colour_row(ci_row_converter *converter, const uint8_t *samples, uint8_t *out, uint32_t width);
void ci_colour_rows_close(ci_row_converter *converter);  // NULL is fine

// --- Formats: a loader per format read, in one table (table.c); a writer
// per format written, in another (writers.c) ---
//
// A loader says what a photo is and hands over its pixels, at a scale it can
// decode at, as rows in its stored orientation; everything else a draw does
// (fit, placement, the shrink-on-load choice, resampling, orientation and
// colour) is draw.c's, written once for every format.

// What a saved collage says of itself (metadata.h).
typedef struct ci_output_tags ci_output_tags;

// A writer of pixels: ci_encode's contract, with `options` whole (quality
// already clamped to 1-100) and `tags` (metadata.h: the sRGB profile, the
// date taken) to embed. Each reads the options it uses.
typedef ci_status ci_saver(const ci_image *image, const ci_save_options *options, const ci_output_tags *tags,
                           uint8_t **out, size_t *out_size, ci_error *err);

// A format written (writers.c's table), declared in its writer's file
// (formats/NAME_save.c): what ci_writers says of it, and its functions.
typedef struct ci_writer {
    ci_format format;
    const char *name;        // as messages name what it writes: "AVIF"
    const char *extensions;  // those its files are given, the usual first
    ci_writes writes;
    unsigned options;        // the CI_OPTION_* its functions read
    // CI_WRITES_PIXELS: the whole file from the image.
    ci_saver *save;
    // CI_WRITES_PAGES: a document written as it is made (ci_document_*):
    // `open` sets document->state (freed by `close`, which always comes).
    ci_status (*open)(ci_document *document, ci_error *err);
    ci_status (*add)(ci_document *document, const ci_page *page, ci_error *err);
    ci_status (*close)(ci_document *document, ci_error *err);
} ci_writer;

// The writer of a format, or NULL for one that is not written.
const ci_writer *ci_writer_for(ci_format format);

// The scales a loader decodes at, for shrink-on-load.
typedef enum {
    CI_SCALES_FULL = 0,     // full size only
    CI_SCALES_EIGHTHS = 1,  // n/8, n = 1..8 (a JPEG's reduced IDCTs)
    CI_SCALES_HALVINGS = 2, // 1, 1/2, 1/4, 1/8: box averages, the driver's of whatever
                            // larger scale the decoder reached (HEIF, TIFF, JPEG XL: full
                            // size; RAW: full or half)
    CI_SCALES_ANY = 3       // any size (a decoder that scales as it decodes)
} ci_scales;

// What a loader says of a photo before decoding a pixel.
typedef struct {
    uint32_t width, height;                  // what the rows come from, at full scale, stored
    int orientation;                         // 1-8: how stored rows turn upright
    uint32_t display_width, display_height;  // upright, as the photo is shown
    ci_scales scales;
    int has_alpha;                           // the rows (or whole image) carry straight alpha in
                                             // their fourth byte; set by `open` or `start`
    ci_colour_tag tag;                       // the colours, converted to sRGB once drawn
    int has_subject;
    ci_box subject;                          // the camera's (upright)
    char date_taken[CI_DATE_TAKEN_BYTES];    // EXIF DateTimeOriginal, as ci_photo_info has it
    int stand_in;                            // set by `choose`: the rows are a smaller picture the
                                             // file carries (a HEIF's thumbnail), not the photo's own
} ci_header;

// ci_shrink_scale for a stored width x height whose upright need is
// need_width x need_height (EXIF `orientation`).
unsigned ci_shrink_scale_upright(uint32_t width, uint32_t height, int orientation, uint32_t need_width,
                                 uint32_t need_height);

// shrink.c's rule for a decoder that scales to any size: the stored size
// to decode a photo shown display_width x display_height at for a cell
// (ci_draw_scale's targets, the photo's aspect kept).
void ci_any_scale(uint32_t display_width, uint32_t display_height, int orientation, uint32_t cell_width,
                  uint32_t cell_height, const ci_limits *limits, uint32_t *width, uint32_t *height);

// The scale the driver chose (shrink.c's rule for header.scales): n/8 of
// the header's size (EIGHTHS, HALVINGS, FULL: 8), or width x height (ANY).
typedef struct {
    unsigned eighths;
    uint32_t width, height;
} ci_scale;

// Where a loader's rows go, in order: `slot` gives the buffer for the next
// row (at least the columns begin() settled on, 4 bytes a pixel), `push`
// hands it over.
typedef struct {
    uint8_t *(*slot)(void *target);
    void (*push)(void *target, const uint8_t *row);
    void *target;
} ci_row_sink;

// The rows of `image`, from its top: a sink filling it.
typedef struct {
    ci_image *image;
    uint32_t next;
} ci_image_rows;
ci_row_sink ci_image_sink(ci_image_rows *rows);

typedef struct ci_loader {
    ci_format format;
    const char *name;        // "JPEG", for messages and --help
    const char *title;       // the names people know it by, for help texts: "HEIC/HEIF/AVIF"
    const char *extensions;  // the names its files go by, lower case, space-separated, the usual first
    // Optional: the library it reads with and its version as loaded at run
    // time, not as its headers said ("libpng 1.6.39"), into `out` (`size` bytes).
    void (*library)(char *out, size_t size);
    // The smallest scale (in eighths) a photo is decoded at, which the pixel
    // limit is checked against: 1 for a JPEG's 1/8 IDCT; 8 where the whole
    // photo is decoded first (a PNG, a lossless stream, HEIF's planes).
    unsigned smallest_scale;
    // Whether the first bytes (at most CI_SNIFF_BYTES) are this format's.
    int (*sniff)(const uint8_t *data, size_t size);
    // Optional: whether the bytes read (a file's first CI_READ_BUFFER_BYTES,
    // or all of it from memory) really are, where the first bytes are
    // another format's too (a camera RAW begins like a TIFF). Asked only
    // when `sniff` said yes; no: the table tries the formats after it.
    int (*confirm)(const uint8_t *data, size_t size);
    // Whether the open file reaches its end (complete.c's walks), reading
    // from the start, and what else a draw will need of it that a probe
    // does not read (TIFF: libtiff's reader); NULL when opening it already
    // tells (HEIF).
    ci_status (*complete)(int fd, const char *name, ci_error *err);
    // The header for ci_probe_file: fills `info`; may read more of the source.
    ci_status (*probe)(ci_source *source, ci_photo_info *info, ci_error *err);

    // Drawing: `state_size` zeroed bytes the driver allocates for one draw.
    size_t state_size;
    // Reads the header for a draw (`request`: its limits,
    // kept for the calls below).
    ci_status (*open)(void *state, ci_source *source, const ci_draw_request *request,
                      ci_header *header, ci_error *err);
    // Optional: a smaller picture of the photo (its own thumbnail) covering
    // an upright need_width x need_height may stand in; updates `header`.
    // 0 x 0 asks for the full image: nothing stands in.
    void (*choose)(void *state, uint32_t need_width, uint32_t need_height, ci_header *header);
    // Decodes at `scale` (or gets ready to), or, where its decoder does not
    // reach that scale (HALVINGS: a TIFF, a JPEG XL, a RAW's demosaic), at
    // the larger one it does, which it writes back into *scale (eighths);
    // the driver halves the rest. The rows' size, *width x *height. A
    // loader that decodes whole sets *whole to its image (it keeps it and
    // frees it; 3 or 4 bytes a pixel; the driver may blend it in place)
    // and is asked for no rows. Pixels are as stored: alpha is never
    // blended by a loader (header->has_alpha says it is there).
    ci_status (*start)(void *state, ci_scale *scale, ci_header *header, uint32_t *width,
                       uint32_t *height, ci_image **whole, ci_error *err);
    // Optional: the columns rows will hold, at least [*first_column, +
    // *columns); a loader may widen them (a JPEG crops at block edges).
    ci_status (*begin)(void *state, ci_header *header, uint32_t *first_column, uint32_t *columns,
                       ci_error *err);
    // Rows first_row..last_row, those columns, into `sink`, 4 bytes a pixel
    // (the fourth straight alpha when header->has_alpha, else ignored).
    // Reads to the end of the picture, so a file cut short is refused
    // wherever the cut lies.
    ci_status (*rows)(void *state, uint32_t first_row, uint32_t last_row, uint32_t first_column,
                      uint32_t columns, const ci_row_sink *sink, ci_error *err);
    // Optional: after `rows`, how often the decoder read past broken data
    // and drew on (ci_placement.corrupt_data); NULL: a loader that never does.
    int (*corrupt_data)(const void *state);
    // Optional, beside corrupt_data: whether the open file, walked from its
    // start without decoding, is plainly whole, so that a draw would have
    // nothing to say of it that its structure shows (a JPEG: one sequential
    // scan that runs to the end marker, its restart markers in order and as
    // many as its blocks need, nothing where a marker belongs but a marker).
    // 1: plainly so, and `add` does not draw it small (issue #42: that draw
    // was a whole entropy decode of every photo); 0: only a draw tells. What
    // no walk sees (broken entropy data inside such a scan) is said when
    // the photo is drawn.
    int (*plainly_whole)(int fd, const char *name);
    // Optional: after `rows`, whether the file ended before the picture did,
    // and how it was drawn (ci_placement.cut_short; *drawn_share for
    // CI_CUT_ROWS); NULL: a loader that does not tell.
    ci_cut (*cut_short)(const void *state, double *drawn_share);
    // Frees what the state holds, whatever happened (also after a failed open).
    void (*close)(void *state);
} ci_loader;

// The loader of a format, or NULL for CI_FORMAT_UNKNOWN.
const ci_loader *ci_loader_for(ci_format format);


// --- HEIF, HEIC, AVIF (formats/heif_load.c, heif_box.c) ---

// Where a HEIF's primary image comes from in its coded (stored) pixels: its
// transformations (clap, irot, imir, in the order the file lists them) as
// one crop of the stored image turned by an EXIF-style orientation.
typedef struct {
    uint32_t crop_x, crop_y, crop_width, crop_height;  // in stored pixels
    int orientation;                                    // 1-8, as EXIF's
    uint32_t width, height;                             // as displayed
} ci_heif_geometry;

// Reads the transformations of the primary item of the HEIF file in `data`
// whose coded image is stored_width x stored_height. Returns 0 when the boxes
// cannot be read or describe a crop outside the image (the caller then lets
// libheif apply them), 1 with *out filled (identity when there are none).
int ci_heif_transform(const uint8_t *data, size_t size, uint32_t stored_width,
                      uint32_t stored_height, ci_heif_geometry *out);

// The same built step by step, from whatever lists the transformations (the
// boxes above, or libheif >= 1.16 itself): an affine map with a
// signed-permutation matrix, stored = A * shown + b.
typedef struct {
    int64_t a, b, c, d;     // [[a, b], [c, d]]
    int64_t x, y;
    int64_t width, height;  // of the image so far
} ci_heif_mapping;
void ci_heif_mapping_start(ci_heif_mapping *m, uint32_t stored_width, uint32_t stored_height);
void ci_heif_mapping_rotate(ci_heif_mapping *m, int turns);  // quarter turns anticlockwise (irot)
void ci_heif_mapping_mirror(ci_heif_mapping *m, int axis);   // 1: left to right, 0: top to bottom (imir)
// Keeps columns left..right and rows top..bottom (inclusive) of the image so
// far; 0 when that is empty or reaches outside it.
int ci_heif_mapping_crop(ci_heif_mapping *m, int64_t left, int64_t top, int64_t right, int64_t bottom);
// The geometry the steps make; 0 when it reaches outside the stored image.
int ci_heif_mapping_finish(const ci_heif_mapping *m, uint32_t stored_width, uint32_t stored_height,
                           ci_heif_geometry *out);

// Bytes inside a buffer someone else owns.
typedef struct {
    const uint8_t *data;
    size_t size;
} ci_bytes;

// The primary image as HEVC tiles in the file, for decoding only the tiles a
// cell shows with libde265 (libheif 1.15 decodes a grid whole and has no
// API for one tile). A single hvc1 image is a grid of one tile.
#define CI_HEVC_MAX_TILES 1024
typedef struct {
    uint32_t columns, rows;
    uint32_t tile_width, tile_height;   // every tile's coded size (ispe)
    uint32_t width, height;             // the grid's (before transformations)
    const uint8_t *config;              // the tiles' hvcC payload
    size_t config_size;
    ci_bytes tile[CI_HEVC_MAX_TILES];   // each tile's coded data, row by row
} ci_hevc_layout;

// CI_OK with *out filled when the primary image is HEVC tiles this path
// can take (one extent each, one size and configuration); else
// CI_ERR_UNSUPPORTED, and libheif decodes it.
ci_status ci_heif_hevc_layout(const uint8_t *data, size_t size, ci_hevc_layout *out);

// --- EXIF (exif.c) ---
// The largest EXIF block read (libexif takes an unsigned int size; a
// phone's, thumbnail included, is under 256 KiB).
#define CI_EXIF_MAX_BYTES ((size_t)4 << 20)
// The orientation (1-8) in an APP1 "Exif\0\0" payload; 1 when absent/invalid.
int ci_exif_orientation(const uint8_t *app1, size_t size);
// The same, and the camera's subject (SubjectArea, else SubjectLocation) as
// a box in fractions of the *stored* image stored_width x stored_height:
// *has_subject 0 when there is none or it lies outside the image; and, where
// `date_taken` (CI_DATE_TAKEN_BYTES) is not NULL, DateTimeOriginal as
// ci_photo_info holds it ("" when absent or not a date), and where
// `position` is not NULL, the GPS position (unknown when absent or not one).
int ci_exif_read(const uint8_t *app1, size_t size, uint32_t stored_width, uint32_t stored_height,
                 int *has_subject, ci_box *subject, char *date_taken, ci_position *position);
// An EXIF block as a container holds it (a RIFF EXIF chunk, HEIF's Exif
// item after its offset): the TIFF structure, with or without the
// "Exif\0\0" that JPEG's APP1 puts first. Its orientation; and its date
// taken where `date_taken` is not NULL, its position where `position` is not.
int ci_exif_read_tiff(const uint8_t *data, size_t size, char *date_taken, ci_position *position);
// DateTimeOriginal's `size` bytes of text into `date_taken`
// (CI_DATE_TAKEN_BYTES) when they are a date; else it is left as it is.
void ci_exif_date(const unsigned char *text, size_t size, char *date_taken);

// --- Orientation (orient.c) ---
// Where point (a, b) of a stored image sw x sh lands upright for EXIF
// `orientation`, and back, in continuous coordinates: pixel (i, j) covers
// [i, i + 1) x [j, j + 1), so its centre maps to the centre of the pixel it
// lands on; with sw = sh = 1, fractions of the image map to fractions.
void ci_point_upright(int orientation, double sw, double sh, double a, double b, double *x, double *y);
void ci_point_stored(int orientation, double sw, double sh, double x, double y, double *a, double *b);
// Replaces image's pixels by the upright version for EXIF `orientation`
// (1, 3 or 4 bytes a pixel). Frees the old buffer on success; leaves
// `image` untouched on failure.
ci_status ci_apply_orientation(ci_image *image, int orientation, const char *name, ci_error *err);

// --- Reducing to look at a photo (reduce.c) ---
// The one picture the analyses look at: the frame (3 or 4 bytes a pixel,
// the fourth ignored, stored as EXIF `orientation` says) reduced by
// averaging boxes of its pixels to about `width` x `height` upright pixels
// (never more than it has), as `channels` bytes a pixel: 3 (RGB, the
// attention crop) or 1 (grey, the luma of each box's average colour: the
// face search, suggest's measures), packed (stride = width). Caller frees.
ci_status ci_reduce_upright(const ci_image *frame, int orientation, uint32_t width, uint32_t height, int channels,
                            ci_image *out, const char *name, ci_error *err);
// The size of an upright dw x dh picture reduced so that its long side
// (`by_long_side`) or its short side is at most `side`; never enlarged.
void ci_reduced_size(uint32_t dw, uint32_t dh, uint32_t side, int by_long_side, uint32_t *w, uint32_t *h);
// `focus` (upright) as fractions of the stored photo's axes, for EXIF
// `orientation` (the resampler works in stored coordinates).
void ci_focus_to_stored(const ci_focus *focus, int orientation, double *a, double *b);
// A box in fractions of the stored image, upright for EXIF `orientation`.
ci_box ci_box_upright(ci_box stored, int orientation);

// --- Resampling (resample.c) ---
// Scales `source` (3 bytes a pixel, or 4 with the fourth ignored), stored
// as EXIF `orientation` says, to cover the upright `cell` (factor
// max(cellW/w, cellH/h)), centred on `focus` (NULL: the middle), cropped,
// with an anti-aliased separable filter, and writes the part of the cell
// inside `canvas` upright. Identity (copy) when source size == cell size.
ci_status ci_resample_cover(const ci_image *source, int orientation, ci_image *canvas, ci_rect cell,
                            const ci_focus *focus, const char *name, ci_error *err);

// The taps of one axis (see resample.c).
typedef struct {
    int32_t *start;
    int32_t *taps;
    float *weight;
    int max_taps;
    int32_t lowest, highest;   // the source range all outputs together need
} ci_axis_table;

// Streaming cover scaling: what ci_resample_cover does, for a photo that
// arrives one row at a time, top to bottom, in its *stored* orientation, and
// is written upright (EXIF `orientation`) into the canvas. Only the rows and
// columns the visible part of the cell reads are asked for, and only a ring
// of a few rows is kept, so a decoder can feed it without ever holding the
// whole photo. Scaling in stored coordinates and then turning each output
// pixel gives the same picture as turning the photo first: the cover factor,
// the centred crop and the (symmetric) filter are unchanged by flips and
// transposition.
//
//   ci_cover_plan_init   tables; sets first_row..last_row, first_column, columns
//   ci_cover_plan_start  where delivered rows begin (a decoder may crop wider)
//   ci_cover_plan_slot   a buffer for the next row (when the plan owns the ring)
//   ci_cover_plan_push   the next row; writes every output row it completes
//   ci_cover_plan_free   always, also after a failure (safe on a zeroed plan)
typedef struct {
    // Set by ci_cover_plan_init.
    int empty;                        // nothing of the cell is on the canvas
    uint32_t first_row, last_row;     // source rows needed, inclusive
    uint32_t first_column, columns;   // source columns needed
    // Private.
    int identity;                     // source size == cell size: copy
    int in_channels;                  // bytes per pixel of pushed rows: 3 or 4 (4th ignored)
    int channels;                     // values per pixel filtered: in_channels, or 4 for RGB as floats
    ci_axis_table across, down;       // stored x and y
    uint32_t out_w, out_h;            // visible part of the cell, stored orientation
    uint8_t *canvas_pixels;
    ptrdiff_t origin, step_a, step_b; // canvas byte offset of stored-cell pixel (a, b)
    const void **ring;                // ring_rows pointers to the latest rows (8-bit or float)
    uint8_t *storage;                 // rows handed out by ci_cover_plan_slot
    float *float_storage;             // the ring as floats (when `floats`)
    int floats;
    uint32_t ring_rows;
    size_t row_bytes;
    size_t skip_bytes;                // from a delivered row's start to first_column
    float *row;                       // the vertical pass's output
    const void **tap_rows;            // the rows one output row reads
    float *weight4;                   // across's weights, each repeated 4 times
    int pairs;                        // tap pairs horizontal_pass4 takes per pixel
    uint32_t pushed, next_out;
} ci_cover_plan;

ci_status ci_cover_plan_init(ci_cover_plan *plan, uint32_t width, uint32_t height, int channels,
                             int orientation, ci_image *canvas, ci_rect cell, const ci_focus *focus,
                             const char *name, ci_error *err);
// Rows pushed from now on begin at source column `first_column` (at most
// plan->first_column) and hold at least up to plan->first_column +
// plan->columns. With `own_rows`, the plan allocates a ring of rows that
// wide, which ci_cover_plan_slot hands out.
ci_status ci_cover_plan_start(ci_cover_plan *plan, uint32_t first_column, uint32_t columns,
                              int own_rows, const char *name, ci_error *err);
uint8_t *ci_cover_plan_slot(ci_cover_plan *plan);
void ci_cover_plan_push(ci_cover_plan *plan, const uint8_t *row);
void ci_cover_plan_free(ci_cover_plan *plan);

#endif
