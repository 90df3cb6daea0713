// draw.c — the engine's entry points for a photo file, and the one path from
// any format's loader to its cell.
//
// A draw: sniff the format (table.c) -> the loader's header -> fit and
// placement (crop.c) -> the shrink-on-load scale (shrink.c's rule for the
// scales the loader has) -> the loader's rows at that scale, streamed
// through the resampler (resample.c), which turns them upright on the way
// into the cell -> colours to sRGB at cell size (colour.c). Smart and
// attention crops look at the whole frame at the draw's scale first. A
// loader that decodes whole (PNG) hands its image instead of rows. The
// photo is never held at full size by the driver; a streaming loader (JPEG,
// HEIF's tiles) never holds it whole at all.
//
// Every buffer is local to the call: calls on disjoint cells of one canvas
// may run concurrently.
#include "../internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// Opens `path` and reads its first bytes into a new source (close it with
// source_close), and finds its loader.
static ci_status source_open(const char *path, ci_source *source, const ci_loader **loader,
                             ci_error *err) {
    memset(source, 0, sizeof *source);
    source->name = path;
    source->fd = -1;
    ci_status status = ci_open_prefix(path, &source->fd, &source->file_size, &source->buffer,
                                      &source->capacity, &source->filled, err);
    if (status != CI_OK) return status;
    *loader = ci_loader_for(ci_sniff_format(source->buffer, source->filled));
    return *loader ? CI_OK : ci_fail_not_image(path, err);
}

static void source_close(ci_source *source) {
    free(source->buffer);
    if (source->fd >= 0) close(source->fd);
    memset(source, 0, sizeof *source);
    source->fd = -1;
}

ci_status ci_probe_file(const char *path, ci_photo_info *info, ci_error *err) {
    if (!path || !info) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_probe_file: missing argument");
    memset(info, 0, sizeof *info);
    // The header only, not the whole file (each loader reads what it needs).
    ci_source source;
    const ci_loader *loader = NULL;
    ci_status status = source_open(path, &source, &loader, err);
    if (status == CI_OK) status = loader->probe(&source, info, err);
    source_close(&source);
    if (status != CI_OK) memset(info, 0, sizeof *info);
    return status;
}

// The photo drawn as small as its loader decodes (an 8x8 cell, centre
// crop: no face search), for what only a decode tells: the corrupt data its
// decoder reads past (JPEG's "Corrupt JPEG data", a GIF frame cut short).
// Not for a file its loader's walk finds plainly whole (plainly_whole).
// A JPEG at 1/8 scale: the entropy decoding of every block, IDCTs of one
// coefficient; nothing at full size.
static ci_status draw_small(const char *path, const ci_limits *limits, ci_placement *placed, ci_error *err) {
    uint8_t pixels[8 * 8 * 3];
    ci_image canvas = {pixels, 8, 8, 8 * 3, 3};
    ci_draw_options options;
    memset(&options, 0, sizeof options);
    options.crop = CI_CROP_CENTRE;
    if (limits) options.limits = *limits;
    ci_status status = ci_draw_photo_placed(path, &canvas, (ci_rect){0, 0, 8, 8}, &options, placed, err);
    if (status != CI_OK) memset(placed, 0, sizeof *placed);
    return status;
}

ci_status ci_check_complete(const char *path, const ci_limits *limits, ci_placement *placed, ci_error *err) {
    if (placed) memset(placed, 0, sizeof *placed);
    if (!path) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_check_complete: missing argument");
    // A file cut short probes fine (its header is whole) and would fail only
    // at save: `add` asks here, from the start of the file.
    ci_source source;
    const ci_loader *loader = NULL;
    ci_status status = source_open(path, &source, &loader, err);
    if (status == CI_OK && loader->complete) {
        if (lseek(source.fd, 0, SEEK_SET) != 0)
            status = ci_fail(err, CI_ERR_OPEN, "%s: cannot read it again", path);
        else
            status = loader->complete(source.fd, path, err);
    }
    // The small draw only where the file's structure leaves something to
    // say (issue #42: it was an entropy decode of every photo, 34 ms of CPU
    // for 12 megapixels, when save decodes it again anyway).
    int draws_on = status == CI_OK && loader->corrupt_data && placed != NULL;
    if (draws_on && loader->plainly_whole && lseek(source.fd, 0, SEEK_SET) == 0 &&
        loader->plainly_whole(source.fd, path))
        draws_on = 0;
    source_close(&source);
    if (draws_on) status = draw_small(path, limits, placed, err);
    return status;
}

// ---------------------------------------------------------------------------
// The driver

static uint8_t *image_slot(void *target) {
    ci_image_rows *rows = target;
    return rows->image->pixels + (size_t)rows->next * rows->image->stride;
}

static void image_push(void *target, const uint8_t *row) {
    (void)row;
    ((ci_image_rows *)target)->next++;
}

ci_row_sink ci_image_sink(ci_image_rows *rows) {
    ci_row_sink sink = {image_slot, image_push, rows};
    return sink;
}

// A frame's rows (frame_alloc): each row comes as 4 bytes a pixel (RGBX, or
// RGBA already blended by the driver) at where its RGB row starts, and is
// narrowed there in place (forward, so it never overtakes what it reads);
// the part of the 4-byte row past its RGB row is the next row's, not yet
// written. So a frame holds RGB and its mapping is only ever touched over
// its first three quarters (and one row): 0.76 MB less resident a 1008 x
// 756 frame, and a drawing thread holds one (issue #42: W6's smart save
// peaked 0.7 MiB over its 32 MiB; the resampler reads RGB as it reads any
// whole image).
static void packed_push(void *target, const uint8_t *row) {
    ci_image_rows *rows = target;
    uint8_t *out = (uint8_t *)row;
    for (uint32_t x = 0; x < rows->image->width; x++, row += 4, out += 3) {
        out[0] = row[0];
        out[1] = row[1];
        out[2] = row[2];
    }
    rows->next++;
}

static ci_row_sink packed_frame_sink(ci_image_rows *rows) {
    ci_row_sink sink = {image_slot, packed_push, rows};
    return sink;
}

static uint8_t *plan_slot(void *target) { return ci_cover_plan_slot(target); }
static void plan_push(void *target, const uint8_t *row) { ci_cover_plan_push(target, row); }

// ---------------------------------------------------------------------------
// Between a loader and the cell: the halving its decoder could not do and
// alpha over the background, each written once here for every format, in
// front of the resampler. Loaders hand over their pixels as stored.

// Over `background`, rounded: (c*a + bg*(255-a) + 127) / 255.
static inline uint8_t over(unsigned c, unsigned a, unsigned bg) {
    return (uint8_t)((c * a + bg * (255u - a) + 127u) / 255u);
}

// `count` pixels of straight RGBA over `background` into `out`, `channels`
// (3, or 4 with the fourth 255) a pixel. `out` may be `in`: it never runs
// ahead of it.
static void blend_row(const uint8_t *in, uint32_t count, ci_color background, uint8_t *out, int channels) {
    for (uint32_t x = 0; x < count; x++, in += 4, out += channels) {
        const unsigned a = in[3];
        const uint8_t r = over(in[0], a, background.r), g = over(in[1], a, background.g),
                      b = over(in[2], a, background.b);
        out[0] = r;
        out[1] = g;
        out[2] = b;
        if (channels == 4) out[3] = 255;
    }
}

// A row sink in front of another: each box of factor x factor pixels in
// (fewer at the picture's edges) averaged into one out, alpha-weighted
// where there is alpha, then blended when asked. Factor 1: the blend alone,
// in the next sink's own row.
typedef struct {
    ci_row_sink next;
    unsigned factor;                 // 1, 2, 4 or 8
    int in_channels, out_channels;   // 3 or 4 each
    int alpha;                       // the rows in carry straight alpha
    int blend;                       // put it over `background` (else kept)
    ci_color background;
    uint32_t in_first, in_columns;   // the columns of the rows in
    uint32_t columns;                // of the rows out, from in_first / factor
    uint32_t rows_summed, row, last_row;  // rows in: toward this box, the next one's number, the last
    uint32_t *sums;                  // 4 a column out: colour (times alpha) and alpha
    uint8_t *in;                     // a row in (factor > 1); else the next sink's slot
} driver_rows;

static uint8_t *driver_slot(void *target) {
    driver_rows *d = target;
    return d->factor > 1 ? d->in : (d->in = d->next.slot(d->next.target));
}

// The box over `count` pixels in, as one pixel out.
static void finish_box(const driver_rows *d, const uint32_t sum[4], uint32_t count, uint8_t *out) {
    unsigned a = 255;
    if (!d->alpha) {
        for (int c = 0; c < 3; c++) out[c] = (uint8_t)((sum[c] + count / 2) / count);
    } else {
        const uint32_t total = sum[3];
        for (int c = 0; c < 3; c++) out[c] = total ? (uint8_t)((sum[c] + total / 2) / total) : 0;
        a = (total + count / 2) / count;
    }
    if (d->alpha && d->blend) {
        const uint8_t background[3] = {d->background.r, d->background.g, d->background.b};
        for (int c = 0; c < 3; c++) out[c] = over(out[c], a, background[c]);
        a = 255;
    }
    if (d->out_channels == 4) out[3] = (uint8_t)a;
}

static void driver_push(void *target, const uint8_t *row) {
    driver_rows *d = target;
    if (d->factor == 1) {
        blend_row(d->in, d->in_columns, d->background, d->in, 4);
        d->next.push(d->next.target, d->in);
        return;
    }
    const unsigned f = d->factor;
    const uint32_t first_box = d->in_first / f;
    for (uint32_t x = 0; x < d->in_columns; x++, row += d->in_channels) {
        uint32_t *sum = d->sums + (size_t)((d->in_first + x) / f - first_box) * 4;
        const unsigned a = d->alpha ? row[3] : 1;
        for (int c = 0; c < 3; c++) sum[c] += row[c] * a;
        sum[3] += a;
    }
    const uint32_t y = d->row++;
    if (++d->rows_summed < f && y < d->last_row) return;
    uint8_t *out = d->next.slot(d->next.target), *pixel = out;
    const uint64_t in_end = (uint64_t)d->in_first + d->in_columns;
    for (uint32_t x = 0; x < d->columns; x++, pixel += d->out_channels) {
        uint64_t left = (uint64_t)(first_box + x) * f, right = left + f;
        if (left < d->in_first) left = d->in_first;
        if (right > in_end) right = in_end;
        finish_box(d, d->sums + (size_t)x * 4, (uint32_t)(right - left) * d->rows_summed, pixel);
    }
    d->next.push(d->next.target, out);
    memset(d->sums, 0, (size_t)d->columns * 4 * sizeof *d->sums);
    d->rows_summed = 0;
}

// Gets `d` ready for rows in_first.. (in_columns wide) numbered first_row..
// last_row at the loader's scale, `factor` times the rows out going to
// `next`. Its buffers are freed by driver_rows_free.
static ci_status driver_rows_start(driver_rows *d, const ci_row_sink *next, unsigned factor, int in_channels,
                                   int out_channels, int alpha, const ci_draw_request *request, uint32_t in_first,
                                   uint32_t in_columns, uint32_t first_row, uint32_t last_row, const char *name,
                                   ci_error *err) {
    d->next = *next;
    d->factor = factor;
    d->in_channels = in_channels;
    d->out_channels = out_channels;
    d->alpha = alpha;
    d->blend = alpha && !request->keep_alpha;
    d->background = request->background;
    d->in_first = in_first;
    d->in_columns = in_columns;
    d->columns = (uint32_t)(((uint64_t)in_first + in_columns + factor - 1) / factor - in_first / factor);
    d->rows_summed = 0;
    d->row = first_row;
    d->last_row = last_row;
    if (factor == 1) return CI_OK;
    d->sums = calloc((size_t)d->columns * 4, sizeof *d->sums);
    d->in = malloc((size_t)in_columns * (size_t)in_channels);
    if (!d->sums || !d->in) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory", name);
    return CI_OK;
}

static void driver_rows_free(driver_rows *d) {
    if (d->factor > 1) {
        free(d->sums);
        free(d->in);
    }
    memset(d, 0, sizeof *d);
}

// The sink a loader's rows go into: `next` itself when there is nothing
// to halve or blend, else `d` in front of it.
static ci_row_sink driver_sink(driver_rows *d, const ci_row_sink *next) {
    if (d->factor == 1 && !d->blend) return *next;
    ci_row_sink sink = {driver_slot, driver_push, d};
    return sink;
}

// The halving the loader left (its scale reached over the one asked for).
static unsigned halving_left(const ci_scale *asked, const ci_scale *reached) {
    unsigned factor = 1;
    while (factor < 8 && asked->eighths * factor < reached->eighths) factor <<= 1;
    return factor;
}

// `image` (3 or 4 bytes a pixel) as `channels`, in place where it narrows
// (RGBX to RGB), into a new image where it widens (RGB to RGBA, opaque);
// RGBX rows of an `opaque` photo as RGBA get their alpha.
static ci_status set_channels(ci_image *image, int channels, int opaque, const ci_limits *limits, const char *name,
                              ci_error *err) {
    if (image->channels == 4 && channels == 4 && opaque)
        for (uint32_t y = 0; y < image->height; y++)
            for (uint32_t x = 0; x < image->width; x++) image->pixels[(size_t)y * image->stride + 4 * (size_t)x + 3] = 255;
    if (image->channels == channels) return CI_OK;
    ci_image out;
    if (channels == 3) {
        out = *image;
        out.channels = 3;
        out.stride = (size_t)image->width * 3;
    } else {
        ci_status status = ci_image_alloc(&out, image->width, image->height, channels, limits, name, err);
        if (status != CI_OK) return status;
    }
    for (uint32_t y = 0; y < image->height; y++) {
        const uint8_t *in = image->pixels + (size_t)y * image->stride;
        uint8_t *to = out.pixels + (size_t)y * out.stride;
        for (uint32_t x = 0; x < image->width; x++, in += image->channels, to += channels) {
            to[0] = in[0];
            to[1] = in[1];
            to[2] = in[2];
            if (channels == 4) to[3] = 255;
        }
    }
    if (channels == 4) ci_image_free(image);
    *image = out;
    return CI_OK;
}

// A loader's whole image made ready for the resampler: halved by `factor`
// into `reduced`, blended on the way (or, at factor 1, in place); *ready
// is what to draw. RGB unless alpha is kept.
static ci_status finish_whole(ci_image *whole, unsigned factor, int alpha, const ci_draw_request *request,
                              ci_image *reduced, const ci_image **ready, const char *name, ci_error *err) {
    *ready = whole;
    const int blend = alpha && !request->keep_alpha;
    if (factor == 1) {
        // RGBX narrowed to RGB, as a decoder's RGB would come.
        if (!blend) return request->keep_alpha ? CI_OK : set_channels(whole, 3, 0, request->limits, name, err);
        const size_t stride = (size_t)whole->width * 3;
        for (uint32_t y = 0; y < whole->height; y++)
            blend_row(whole->pixels + (size_t)y * whole->stride, whole->width, request->background,
                      whole->pixels + (size_t)y * stride, 3);
        whole->channels = 3;
        whole->stride = stride;
        return CI_OK;
    }
    const int channels = alpha && !blend ? 4 : 3;
    ci_status status = ci_image_alloc(reduced, (whole->width + factor - 1) / factor,
                                      (whole->height + factor - 1) / factor, channels, request->limits, name, err);
    ci_image_rows rows = {reduced, 0};
    ci_row_sink next = ci_image_sink(&rows);
    driver_rows d;
    memset(&d, 0, sizeof d);
    if (status == CI_OK)
        status = driver_rows_start(&d, &next, factor, whole->channels, channels, alpha && whole->channels == 4,
                                   request, 0, whole->width, 0, whole->height - 1, name, err);
    for (uint32_t y = 0; status == CI_OK && y < whole->height; y++)
        driver_push(&d, whole->pixels + (size_t)y * whole->stride);
    driver_rows_free(&d);
    *ready = reduced;
    return status;
}

// n/8 of the header's size, n rounded up to a halving (1, 2, 4, 8) where
// those are the loader's only scales.
static ci_scale eighths_scale(const ci_header *header, unsigned n) {
    if (header->scales == CI_SCALES_HALVINGS) {
        unsigned halving = 1;
        while (halving < n) halving <<= 1;
        n = halving;
    }
    ci_scale scale = {n, ci_scaled_size(header->width, n), ci_scaled_size(header->height, n)};
    return scale;
}

// The scale a decode covering an upright min_width x min_height reads at
// (0 x 0: full size): shrink.c's rule without a cell's filter headroom.
static ci_scale decode_scale(const ci_header *header, uint32_t min_width, uint32_t min_height) {
    ci_scale scale = {8, header->width, header->height};
    if (min_width == 0 && min_height == 0) return scale;
    if (header->scales == CI_SCALES_EIGHTHS || header->scales == CI_SCALES_HALVINGS) {
        scale = eighths_scale(header, ci_shrink_scale_upright(header->width, header->height, header->orientation,
                                                              min_width, min_height));
    } else if (header->scales == CI_SCALES_ANY) {
        ci_shrink_target target = ci_shrink_target_for_box(header->display_width, header->display_height,
                                                           min_width, min_height, 0);
        ci_oriented_size(header->orientation, target.width, target.height, &scale.width, &scale.height);
    }
    return scale;
}

// The scale to decode at for `cell`, by shrink.c's rule for the scales the
// loader has; for a draft, the scale that just covers it.
static ci_scale choose_scale(const ci_header *header, ci_rect cell, const ci_draw_request *request) {
    const ci_limits *limits = request->limits;
    if (request->draft) {
        ci_shrink_target cover = ci_shrink_target_for_box(header->display_width, header->display_height, cell.width,
                                                          cell.height, 0);
        return decode_scale(header, cover.width, cover.height);
    }
    ci_scale scale = {8, header->width, header->height};
    if (header->scales == CI_SCALES_EIGHTHS || header->scales == CI_SCALES_HALVINGS) {
        scale.eighths = ci_draw_scale(header->width, header->height, header->orientation, cell.width,
                                      cell.height, limits);
        scale = eighths_scale(header, scale.eighths);
    } else if (header->scales == CI_SCALES_ANY) {
        ci_any_scale(header->display_width, header->display_height, header->orientation, cell.width,
                     cell.height, limits, &scale.width, &scale.height);
    }
    return scale;
}

// The bytes a frame takes: its RGB rows, and room for the last one to
// arrive as 4 bytes a pixel (packed_frame_sink).
static size_t frame_bytes(const ci_image *frame) {
    return (size_t)frame->width * 3 * frame->height + frame->width;
}

// The frame a smart or attention draw looks at (RGB, filled through
// packed_frame_sink), in a mapping of its own, so that it goes back to the
// system when the draw ends. From malloc it did not: once glibc frees a
// block it had mapped, it raises its mapping threshold to that block's
// size, so every later frame came from the drawing thread's arena, and a
// thread's arena keeps the free memory at its top resident (malloc_trim
// does not trim it) to the end of the process: W6's smart save peaked 2.6
// MiB higher (docs/performance.md).
// Under AddressSanitizer (make test-sanitized, the fuzzers) it comes from
// malloc, whose red zones catch a loader writing past it; a mapping has none.
static ci_status frame_alloc(ci_image *frame, uint32_t width, uint32_t height, const ci_limits *limits,
                             const char *name, ci_error *err) {
    memset(frame, 0, sizeof *frame);
    ci_status status = ci_check_pixels(width, height, limits, name, err);
    if (status != CI_OK) return status;
    if ((uint64_t)width * height * 4 > SIZE_MAX) return ci_fail(err, CI_ERR_TOO_LARGE, "%s: image too large", name);
    ci_image shape = {NULL, width, height, (size_t)width * 3, 3};
#ifdef CI_ADDRESS_SANITIZER
    void *pixels = malloc(frame_bytes(&shape));
    if (!pixels)
#else
    void *pixels = mmap(NULL, frame_bytes(&shape), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pixels == MAP_FAILED)
#endif
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory for a %ux%u image", name, width, height);
    *frame = shape;
    frame->pixels = pixels;
    return CI_OK;
}

static void frame_free(ci_image *frame) {
#ifdef CI_ADDRESS_SANITIZER
    free(frame->pixels);
#else
    if (frame->pixels) munmap(frame->pixels, frame_bytes(frame));
#endif
    memset(frame, 0, sizeof *frame);
}

typedef struct {
    ci_header header;
    void *state;
    uint32_t loader_width, loader_height;  // the loader's rows, at the scale it reached
    unsigned factor;    // the halving the driver adds to them
    ci_cover_plan plan;
    ci_image frame;     // smart and attention: the whole photo at the draw's scale (frame_alloc)
    ci_image reduced;   // a whole image the driver halved
    driver_rows rows;   // the driver's halving and blend of the loader's rows
} draw_job;

// The loader started at `scale`, or at the larger one it reached, and its
// pixels made ready at the scale asked: *width x *height, and *whole, the
// loader's whole image ready (halved, blended), or NULL for rows.
static ci_status start_loader(draw_job *job, const ci_loader *loader, ci_scale scale, const ci_draw_request *request,
                              uint32_t *width, uint32_t *height, const ci_image **whole, const char *name,
                              ci_error *err) {
    const ci_scale asked = scale;
    ci_image *loaders = NULL;
    *whole = NULL;
    ci_status status = loader->start(job->state, &scale, &job->header, &job->loader_width, &job->loader_height,
                                     &loaders, err);
    if (status != CI_OK) return status;
    job->factor = halving_left(&asked, &scale);
    if (loaders)
        status = finish_whole(loaders, job->factor, job->header.has_alpha, request, &job->reduced, whole, name, err);
    *width = (job->loader_width + job->factor - 1) / job->factor;
    *height = (job->loader_height + job->factor - 1) / job->factor;
    return status;
}

// Gets the loader's rows ready for rows first_row..last_row and columns
// [*first, + *columns) out (the driver's scale), into `next` with
// out_channels a pixel: *first and *columns come back as the loader
// widened them.
static ci_status begin_rows(draw_job *job, const ci_loader *loader, uint32_t first_row, uint32_t last_row,
                            uint32_t *first, uint32_t *columns, const ci_row_sink *next,
                            const ci_draw_request *request, const char *name, ci_error *err) {
    const unsigned factor = job->factor;
    uint64_t left = (uint64_t)*first * factor, right = ((uint64_t)*first + *columns) * factor;
    uint64_t bottom = ((uint64_t)last_row + 1) * factor;
    if (right > job->loader_width) right = job->loader_width;
    if (bottom > job->loader_height) bottom = job->loader_height;
    uint32_t in_first = (uint32_t)left, in_columns = (uint32_t)(right - left);
    ci_status status = CI_OK;
    if (loader->begin) status = loader->begin(job->state, &job->header, &in_first, &in_columns, err);
    if (status == CI_OK)
        status = driver_rows_start(&job->rows, next, factor, 4, 4, job->header.has_alpha, request, in_first,
                                   in_columns, first_row * factor, (uint32_t)bottom - 1, name, err);
    *first = in_first / factor;
    *columns = job->rows.columns;
    return status;
}

// The rows begin_rows got ready, through the driver's halving and blend.
static ci_status read_rows(draw_job *job, const ci_loader *loader, ci_error *err) {
    driver_rows *d = &job->rows;
    ci_row_sink sink = driver_sink(d, &d->next);
    return loader->rows(job->state, d->row, d->last_row, d->in_first, d->in_columns, &sink, err);
}

static ci_status draw_inner(draw_job *job, const ci_loader *loader, ci_source *source, ci_image *canvas,
                            ci_rect cell, const ci_draw_request *given, ci_error *err) {
    const char *name = source->name;
    ci_header *header = &job->header;
    header->orientation = 1;
    job->state = calloc(1, loader->state_size);
    if (!job->state) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory", name);
    ci_status status = loader->open(job->state, source, given, header, err);
    if (status == CI_OK && given->placement) {
        memcpy(given->placement->date_taken, header->date_taken, sizeof header->date_taken);
        given->placement->display_width = header->display_width;
        given->placement->display_height = header->display_height;
    }
    // A cell entirely off the canvas: the header has been checked (so a
    // broken file is still reported), but there is nothing to decode for.
    if (status != CI_OK || ci_cell_off_canvas(canvas, cell)) return status;
    ci_draw_request request = *given;
    request.has_subject = header->has_subject;
    request.subject = header->subject;
    const uint32_t dw = header->display_width, dh = header->display_height;

    cell = ci_fit_cell(&request, canvas, cell, dw, dh);
    if (given->placement) given->placement->drawn = cell;
    const int whole_frame = ci_placement_needs_pixels(&request, dw, dh, cell);
    if (loader->choose) {
        ci_shrink_target target = ci_shrink_target_for_box(dw, dh, cell.width, cell.height, 0);
        loader->choose(job->state, target.width, target.height, header);
    }
    uint32_t width, height;
    const ci_image *whole = NULL;
    status = start_loader(job, loader, choose_scale(header, cell, &request), &request, &width, &height, &whole,
                          name, err);
    if (status != CI_OK) return status;

    ci_focus focus_storage;
    if (whole) {
        if (whole_frame)
            status = ci_draw_frame(whole, header->orientation, canvas, cell, &request, name, err);
        else
            status = ci_resample_cover(whole, header->orientation, canvas, cell,
                                       ci_placement_without_pixels(&request, dw, dh, cell, &focus_storage),
                                       name, err);
    } else if (whole_frame) {
        // Smart or attention: the whole frame at this scale, looked at, then drawn.
        status = frame_alloc(&job->frame, width, height, request.limits, name, err);
        uint32_t first = 0, columns = width;
        ci_image_rows rows = {&job->frame, 0};
        ci_row_sink sink = packed_frame_sink(&rows);
        if (status == CI_OK)
            status = begin_rows(job, loader, 0, height - 1, &first, &columns, &sink, &request, name, err);
        if (status == CI_OK) status = read_rows(job, loader, err);
        if (status == CI_OK)
            status = ci_draw_frame(&job->frame, header->orientation, canvas, cell, &request, name, err);
    } else {
        const ci_focus *focus = ci_placement_without_pixels(&request, dw, dh, cell, &focus_storage);
        status = ci_cover_plan_init(&job->plan, width, height, 4, header->orientation, canvas, cell, focus,
                                    name, err);
        // Not empty: the cell is on the canvas (checked above).
        uint32_t first = job->plan.first_column, columns = job->plan.columns;
        ci_row_sink sink = {plan_slot, plan_push, &job->plan};
        if (status == CI_OK)
            status = begin_rows(job, loader, job->plan.first_row, job->plan.last_row, &first, &columns, &sink,
                                &request, name, err);
        if (status == CI_OK) status = ci_cover_plan_start(&job->plan, first, columns, 1, name, err);
        if (status == CI_OK) status = read_rows(job, loader, err);
    }
    if (status != CI_OK) return status;
    if (given->placement && loader->corrupt_data) given->placement->corrupt_data = loader->corrupt_data(job->state);
    if (given->placement && loader->cut_short)
        given->placement->cut_short = loader->cut_short(job->state, &given->placement->drawn_share);
    return ci_colour_convert_cell(&header->tag, canvas, cell, name, err);
}

static ci_status draw(const ci_loader *loader, ci_source *source, ci_image *canvas, ci_rect cell,
                      const ci_draw_request *request, ci_error *err) {
    draw_job job;
    memset(&job, 0, sizeof job);
    ci_status status = draw_inner(&job, loader, source, canvas, cell, request, err);
    ci_cover_plan_free(&job.plan);
    frame_free(&job.frame);
    ci_image_free(&job.reduced);
    driver_rows_free(&job.rows);
    if (job.state) loader->close(job.state);
    free(job.state);
    return status;
}

ci_status ci_draw_photo_placed(const char *path, ci_image *canvas, ci_rect cell,
                               const ci_draw_options *options, ci_placement *placement,
                               ci_error *err) {
    if (placement) memset(placement, 0, sizeof *placement);
    if (!path || !options) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_draw_photo: missing argument");
    if (!canvas || !canvas->pixels || canvas->channels != 3 || canvas->width == 0 ||
        canvas->height == 0 || canvas->stride < (size_t)canvas->width * 3)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: the canvas must be a non-empty RGB image",
                       path);
    if (cell.width == 0 || cell.height == 0)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: empty cell %ux%u", path, cell.width,
                       cell.height);
    if (options->has_focus && !(options->focus_x >= 0 && options->focus_x <= 1 && options->focus_y >= 0 &&
                                options->focus_y <= 1))
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: the focus must be fractions from 0 to 1", path);

    ci_source source;
    const ci_loader *loader = NULL;
    ci_status status = source_open(path, &source, &loader, err);
    ci_draw_request request = {
        .background = options->background,
        .limits = &options->limits,
        .crop = options->crop,
        .fit = options->fit,
        .has_focus = options->has_focus,
        .focus = {options->focus_x, options->focus_y},
        .placement = placement,
        .draft = options->draft,
        .faces_wanted = options->faces_wanted,
    };
    if (status == CI_OK) status = draw(loader, &source, canvas, cell, &request, err);
    source_close(&source);
    return status;
}

ci_status ci_draw_photo(const char *path, ci_image *canvas, ci_rect cell,
                        ci_color background, const ci_limits *limits, ci_error *err) {
    ci_draw_options options;
    memset(&options, 0, sizeof options);
    options.background = background;
    if (limits) options.limits = *limits;
    return ci_draw_photo_placed(path, canvas, cell, &options, NULL, err);
}

// ---------------------------------------------------------------------------
// Decoding into an image: the loader's rows at a scale, whole

static ci_status decode_inner(draw_job *job, const ci_loader *loader, ci_source *source,
                              const ci_decode_options *options, ci_image *out, ci_error *err) {
    const char *name = source->name;
    ci_header *header = &job->header;
    header->orientation = 1;
    ci_draw_request request = {
        .background = options->background,
        .keep_alpha = options->keep_alpha,
        .limits = &options->limits,
    };
    job->state = calloc(1, loader->state_size);
    if (!job->state) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory", name);
    ci_status status = loader->open(job->state, source, &request, header, err);
    if (status != CI_OK) return status;
    // What the photo says of its turn (EXIF's; probe reports it), before
    // `choose` may add the turn of the picture it picks (a HEIF's irot):
    // that one is the picture's own, applied even to an unturned decode.
    const int said = header->orientation;
    if (loader->choose) loader->choose(job->state, options->min_width, options->min_height, header);
    uint32_t width, height;
    const ci_image *whole = NULL;
    status = start_loader(job, loader, decode_scale(header, options->min_width, options->min_height), &request,
                          &width, &height, &whole, name, err);
    if (status != CI_OK) return status;
    const int channels = options->keep_alpha ? 4 : 3;
    if (whole) {
        status = ci_image_alloc(out, whole->width, whole->height, whole->channels, &options->limits, name, err);
        for (uint32_t y = 0; status == CI_OK && y < whole->height; y++)
            memcpy(out->pixels + (size_t)y * out->stride, whole->pixels + (size_t)y * whole->stride,
                   (size_t)whole->width * (size_t)whole->channels);
    } else {
        status = ci_image_alloc(out, width, height, 4, &options->limits, name, err);
        uint32_t first = 0, columns = width;
        ci_image_rows rows = {out, 0};
        ci_row_sink sink = ci_image_sink(&rows);
        if (status == CI_OK)
            status = begin_rows(job, loader, 0, height - 1, &first, &columns, &sink, &request, name, err);
        if (status == CI_OK) status = read_rows(job, loader, err);
    }
    if (status == CI_OK) status = set_channels(out, channels, !header->has_alpha, &options->limits, name, err);
    // Orienting after the scaled decode touches the fewest pixels.
    if (status == CI_OK && (options->apply_orientation || header->orientation != said))
        status = ci_apply_orientation(out, header->orientation, name, err);
    if (status == CI_OK && !options->keep_colours) status = ci_colour_convert_image(&header->tag, out, name, err);
    return status;
}

// One decode of `source`, through the same loader calls as a draw; *stand_in
// (when asked) says whether a smaller picture the file carries stood in,
// *corrupt_data (when asked) how often the decoder read past broken data.
static ci_status decode(ci_source *source, const ci_decode_options *options, ci_image *out, int *stand_in,
                        int *corrupt_data, ci_error *err) {
    memset(out, 0, sizeof *out);
    const ci_loader *loader = ci_loader_for(ci_sniff_format(source->buffer, source->filled));
    if (!loader) return ci_fail_not_image(source->name, err);
    draw_job job;
    memset(&job, 0, sizeof job);
    ci_status status = decode_inner(&job, loader, source, options, out, err);
    if (stand_in) *stand_in = status == CI_OK && job.header.stand_in;
    if (corrupt_data)
        *corrupt_data = status == CI_OK && loader->corrupt_data && job.state ? loader->corrupt_data(job.state) : 0;
    ci_image_free(&job.reduced);
    driver_rows_free(&job.rows);
    if (job.state) loader->close(job.state);
    free(job.state);
    if (status != CI_OK) ci_image_free(out);
    return status;
}

ci_status ci_decode_memory(const uint8_t *data, size_t size, const char *name,
                           const ci_decode_options *options, ci_image *out, ci_error *err) {
    if (!data || !options || !out)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_decode_memory: missing argument");
    ci_source source = ci_source_memory(data, size, name ? name : "(memory)");
    return decode(&source, options, out, NULL, NULL, err);
}

ci_status ci_decode_file_noting_stand_in(const char *path, const ci_decode_options *options, ci_image *out,
                                         int *stand_in, int *corrupt_data, ci_error *err) {
    if (!path || !options || !out) return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "ci_decode_file: missing argument");
    ci_source source;
    const ci_loader *loader = NULL;
    ci_status status = source_open(path, &source, &loader, err);
    if (status == CI_OK) status = decode(&source, options, out, stand_in, corrupt_data, err);
    source_close(&source);
    return status;
}

ci_status ci_decode_file(const char *path, const ci_decode_options *options, ci_image *out, ci_error *err) {
    return ci_decode_file_noting_stand_in(path, options, out, NULL, NULL, err);
}
