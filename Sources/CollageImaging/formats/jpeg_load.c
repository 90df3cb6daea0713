// jpeg_load.c — JPEG decoding through libjpeg-turbo: the loader (jpeg_save.c
// is the saver).
//
// libjpeg reports fatal errors by calling error_exit, which must not return.
// Ours longjmps back to the function that started the work. Each public
// function here therefore has two halves: an outer one that owns every
// resource in a "job" struct and frees it, and an inner one that calls
// setjmp and drives libjpeg. Whatever the inner half changes lives in the
// outer half's frame and is reached through a pointer, so its value after a
// longjmp is well defined without `volatile` (C11 7.13.2.1 only makes
// automatic variables of the function that called setjmp indeterminate).
#include "../internal.h"

#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>  // jpeglib.h needs FILE and size_t declared first
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

#include "jpeg.h"

// ---------------------------------------------------------------------------
// Error handling


static void on_error_exit(j_common_ptr cinfo) {
    jpeg_failure *failure = (jpeg_failure *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, failure->reason);
    longjmp(failure->jump, 1);
}

// Where the data of a file cut short ran out: the scan and the row of
// blocks being read (the same whether the rows are read or skipped, and at
// any scale, so `add`'s small draw and `save`'s say the same).
static void note_dry(jpeg_failure *failure, j_decompress_ptr cinfo) {
    failure->ran_dry = 1;
    failure->dry_scan = cinfo->input_scan_number;
    failure->dry_row = cinfo->input_iMCU_row;
}

static void on_emit_message(j_common_ptr cinfo, int level) {
    jpeg_failure *failure = (jpeg_failure *)cinfo->err;
    if (level >= 0) return;  // trace messages: nothing to report
    // At the end of the data libjpeg warns and reads on as if the image
    // ended there. In the header that leaves no image to draw: refused,
    // "file is truncated". Past it (a photo whose download stopped, "Premature
    // end of JPEG file") the rest of the picture is grey, as every viewer
    // shows it (issue #32): drawn, and said by `add` and `save` with how
    // much of it there is (issue #44: jpeg_cut_short). A file missing only
    // its end marker ends there too, with every row whole: not damage.
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) {
        if (!failure->eof_is_warning) {
            failure->truncated = 1;
            (*cinfo->err->format_message)(cinfo, failure->reason);
            longjmp(failure->jump, 1);
        }
        if (!failure->eof_seen && cinfo->is_decompressor) {
            j_decompress_ptr decompress = (j_decompress_ptr)cinfo;
            failure->eof_seen = 1;
            // Before the last row of blocks of a scan, rows are missing
            // whatever the coder says (the arithmetic one never warns).
            if (decompress->input_iMCU_row + 1 < decompress->total_iMCU_rows) note_dry(failure, decompress);
        }
        return;
    }
    // After the end of the data every warning is the cut's (a restart
    // marker not found, ...), not corrupt data. The first that the end
    // marker libjpeg put there was reached by a Huffman decoder that still
    // needed bits says where the cut lies, exactly.
    if (failure->eof_seen) {
        if (cinfo->err->msg_code == JWRN_HIT_MARKER && !failure->hit_end && cinfo->is_decompressor) {
            failure->hit_end = 1;
            note_dry(failure, (j_decompress_ptr)cinfo);
        }
        return;
    }
    // Other warnings (stray bytes before a marker, a bad restart marker,
    // an unusual Huffman table...) are common in photos that every viewer
    // shows, so they do not fail the decode. Counted as libjpeg does.
    cinfo->err->num_warnings++;
}

static void on_output_message(j_common_ptr cinfo) {
    // A library must not write to stderr; messages reach the caller via ci_error.
    (void)cinfo;
}

struct jpeg_error_mgr *ci_jpeg_failure_init(jpeg_failure *failure) {
    memset(failure, 0, sizeof *failure);
    jpeg_std_error(&failure->pub);
    failure->pub.error_exit = on_error_exit;
    failure->pub.emit_message = on_emit_message;
    failure->pub.output_message = on_output_message;
    return &failure->pub;
}

// A progressive (or multi-scan) JPEG is read whole by jpeg_start_decompress,
// and every scan walks the coefficients of every block it covers, whatever
// the output scale. Nothing in the format bounds the number of scans: a
// 232 KB file of 1000 scans over an 8192 x 8192 image took 15 s (5000 scans,
// 636 KB: over a minute), and thousands of scans over the largest image the
// memory cap allows would take hours (a known libjpeg weakness; measured here at 15 ns per block per
// scan). Real photos have about 10 scans (libjpeg's progression for
// colour), rarely more than a few dozen. So scans x blocks is bounded to
// 200 million (about 3 s), with at least 32 and at most 500 scans allowed
// (500 is libjpeg-turbo's own TJFLAG_LIMITSCANS). The monitor runs once per
// row of blocks while the input is absorbed.
#define SCAN_WORK_BUDGET 200000000.0
#define MIN_SCANS 32
#define MAX_SCANS 500

static void on_progress(j_common_ptr common) {
    if (!common->is_decompressor) return;
    j_decompress_ptr cinfo = (j_decompress_ptr)common;
    double blocks = 0;
    for (int ci = 0; ci < cinfo->num_components; ci++)
        blocks += (double)cinfo->comp_info[ci].width_in_blocks * cinfo->comp_info[ci].height_in_blocks;
    double allowed = blocks > 0 ? SCAN_WORK_BUDGET / blocks : MAX_SCANS;
    if (allowed < MIN_SCANS) allowed = MIN_SCANS;
    if (allowed > MAX_SCANS) allowed = MAX_SCANS;
    if (cinfo->input_scan_number > (int)allowed) {
        jpeg_failure *failure = (jpeg_failure *)common->err;
        failure->too_many_scans = 1;
        snprintf(failure->reason, sizeof failure->reason,
                 "more than %d scans for a %ux%u image: refused (a photo has a few dozen at most)",
                 (int)allowed, cinfo->image_width, cinfo->image_height);
        longjmp(failure->jump, 1);
    }
}

static void limit_scans(j_decompress_ptr cinfo, jpeg_failure *failure) {
    failure->progress.progress_monitor = on_progress;
    cinfo->progress = &failure->progress;
}

// Turns what libjpeg said into our status and a "NAME: reason" message.
static ci_status decode_failure(const jpeg_failure *failure, const char *name, ci_error *err) {
    if (failure->truncated) return ci_fail(err, CI_ERR_CORRUPT, "%s: file is truncated", name);
    if (failure->too_many_scans) return ci_fail(err, CI_ERR_CORRUPT, "%s: %s", name, failure->reason);
    switch (failure->pub.msg_code) {
    case JERR_BAD_PRECISION:
        // This libjpeg-turbo is built for 8-bit samples only; 12-bit files
        // (medical, some raw converters) need a differently built library.
        return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: %d-bit JPEG is not supported (only 8-bit)", name,
                       failure->pub.msg_parm.i[0]);
    case JERR_OUT_OF_MEMORY:
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory while decoding", name);
    case JERR_NO_BACKING_STORE:
        // Raised when a multi-scan image needs more memory than
        // max_memory_to_use allows (see decode_memory_cap).
        return ci_fail(err, CI_ERR_TOO_LARGE,
                       "%s: the image is too large to decode within the memory limit", name);
    case JERR_SOF_UNSUPPORTED:  // lossless and hierarchical JPEG
    case JERR_NOTIMPL:
    case JERR_ARITH_NOTIMPL:
    case JERR_CONVERSION_NOTIMPL:
    case JERR_CCIR601_NOTIMPL:
    case JERR_FRACT_SAMPLE_NOTIMPL:
    case JERR_IMAGE_TOO_BIG:
        return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: %s", name, failure->reason);
    default:
        return ci_fail(err, CI_ERR_CORRUPT, "%s: %s", name, failure->reason);
    }
}

// ---------------------------------------------------------------------------
// Reading the header (shared by the probe and the loader)

// Reads the header from the source already attached to cinfo, keeping APP1
// markers for EXIF and APP2 for an ICC profile (jpeg_read_icc_profile joins
// one split over several). Returns the EXIF orientation (1-8), the camera's
// subject (upright) where `subject` is not NULL, and the date and place taken
// where `date_taken` and `position` are not NULL. Errors longjmp.
static int read_header_exif(j_decompress_ptr cinfo, int *has_subject, ci_box *subject, char *date_taken,
                            ci_position *position) {
    // APP1 can hold EXIF or XMP; both are below 64 KiB by construction.
    jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(cinfo, TRUE);

    for (jpeg_saved_marker_ptr m = cinfo->marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 &&
            memcmp(m->data, "Exif\0\0", 6) == 0) {
            // The first EXIF block wins.
            int orientation = ci_exif_read(m->data, m->data_length, cinfo->image_width,
                                           cinfo->image_height, has_subject, subject, date_taken, position);
            if (has_subject && *has_subject) *subject = ci_box_upright(*subject, orientation);
            return orientation;
        }
    }
    return 1;
}


// ---------------------------------------------------------------------------
// Reading from a file, a buffer at a time
//
// What libjpeg's own sources do, over a descriptor and a buffer the caller
// owns. The buffer may start with bytes already read (the caller sniffed the
// format from them). At the end of the file it warns (JWRN_JPEG_EOF, which
// on_emit_message weighs, as with jpeg_mem_src) and inserts a fake EOI marker.

typedef struct {
    struct jpeg_source_mgr pub;  // first, so libjpeg's pointer is also ours
    int fd;
    uint8_t *buffer;
    size_t capacity;
    int read_error;              // errno of a failed read, else 0
} fd_source;

static void fd_init_source(j_decompress_ptr cinfo) { (void)cinfo; }
static void fd_term_source(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean fd_fill_input_buffer(j_decompress_ptr cinfo) {
    fd_source *source = (fd_source *)cinfo->src;
    int error;
    size_t filled = ci_read_up_to(source->fd, source->buffer, source->capacity, &error);
    if (error) {
        source->read_error = error;
        ERREXIT(cinfo, JERR_FILE_READ);
    }
    if (filled == 0) {
        WARNMS(cinfo, JWRN_JPEG_EOF);
        source->buffer[0] = (JOCTET)0xFF;
        source->buffer[1] = (JOCTET)JPEG_EOI;
        filled = 2;
    }
    source->pub.next_input_byte = source->buffer;
    source->pub.bytes_in_buffer = filled;
    return TRUE;
}

static void fd_skip_input_data(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *source = cinfo->src;
    if (count <= 0) return;
    while (count > (long)source->bytes_in_buffer) {
        count -= (long)source->bytes_in_buffer;
        (void)(*source->fill_input_buffer)(cinfo);
    }
    source->next_input_byte += count;
    source->bytes_in_buffer -= (size_t)count;
}

// `buffer` (capacity bytes, at least 2) holds `prefilled` bytes already read
// from the start of the file; fd is positioned right after them.
static void fd_source_attach(j_decompress_ptr cinfo, fd_source *source, int fd, uint8_t *buffer,
                             size_t capacity, size_t prefilled) {
    memset(source, 0, sizeof *source);
    source->fd = fd;
    source->buffer = buffer;
    source->capacity = capacity;
    source->pub.init_source = fd_init_source;
    source->pub.fill_input_buffer = fd_fill_input_buffer;
    source->pub.skip_input_data = fd_skip_input_data;
    source->pub.resync_to_restart = jpeg_resync_to_restart;
    source->pub.term_source = fd_term_source;
    source->pub.next_input_byte = buffer;
    source->pub.bytes_in_buffer = prefilled;
    cinfo->src = &source->pub;
}

// decode_failure, plus the read errors of a file source.
static ci_status fd_failure(const jpeg_failure *failure, const fd_source *source,
                            const char *name, ci_error *err) {
    if (source->read_error)
        return ci_fail(err, CI_ERR_OPEN, "%s: %s", name, strerror(source->read_error));
    return decode_failure(failure, name, err);
}

// Colour spaces we can turn into RGB: libjpeg converts grey, YCbCr and RGB
// itself; CMYK and YCCK come out as CMYK and we convert them.
static int colour_space_supported(J_COLOR_SPACE space) {
    return space == JCS_GRAYSCALE || space == JCS_YCbCr || space == JCS_RGB ||
           space == JCS_CMYK || space == JCS_YCCK;
}

static ci_status unsupported_colour(j_decompress_ptr cinfo, const char *name, ci_error *err) {
    return ci_fail(err, CI_ERR_UNSUPPORTED,
                   "%s: JPEG with %d colour components in an unknown colour space is not supported",
                   name, cinfo->num_components);
}

// ---------------------------------------------------------------------------
// Probe

typedef struct {
    struct jpeg_decompress_struct cinfo;
    jpeg_failure failure;
    fd_source source;  // a file's (stays zeroed when probing memory)
} probe_job;

// From memory (`data`, `size` bytes) or, when `buffer` is set, from fd through
// `buffer` (capacity bytes, the first `size` of them already read; see
// fd_source_attach).
static ci_status probe_inner(probe_job *job, const uint8_t *data, size_t size, int fd,
                             uint8_t *buffer, size_t capacity, const char *name,
                             ci_photo_info *info, ci_error *err) {
    job->cinfo.err = ci_jpeg_failure_init(&job->failure);
    if (setjmp(job->failure.jump)) return fd_failure(&job->failure, &job->source, name, err);

    jpeg_create_decompress(&job->cinfo);
    if (buffer)
        fd_source_attach(&job->cinfo, &job->source, fd, buffer, capacity, size);
    else
        jpeg_mem_src(&job->cinfo, data, (unsigned long)size);
    int orientation = read_header_exif(&job->cinfo, NULL, NULL, info->date_taken, &info->position);
    if (!colour_space_supported(job->cinfo.jpeg_color_space))
        return unsupported_colour(&job->cinfo, name, err);

    info->format = CI_FORMAT_JPEG;
    info->width = job->cinfo.image_width;
    info->height = job->cinfo.image_height;
    info->orientation = orientation;
    ci_oriented_size(orientation, info->width, info->height, &info->display_width,
                     &info->display_height);
    info->has_alpha = 0;
    return CI_OK;
}

// probe_inner's owner.
static ci_status probe(const uint8_t *data, size_t size, int fd, uint8_t *buffer, size_t capacity,
                       const char *name, ci_photo_info *info, ci_error *err) {
    probe_job job;
    // Zeroed so that jpeg_destroy is safe even if jpeg_create failed early,
    // and so that fd_failure sees no read error where nothing was read.
    memset(&job, 0, sizeof job);
    memset(info, 0, sizeof *info);
    ci_status status = probe_inner(&job, data, size, fd, buffer, capacity, name, info, err);
    jpeg_destroy_decompress(&job.cinfo);
    if (status != CI_OK) memset(info, 0, sizeof *info);
    return status;
}

// The codec's probe: through the source's buffer (from its file when it has
// one, else from the bytes in memory).
static ci_status jpeg_probe_source(ci_source *source, ci_photo_info *info, ci_error *err) {
    if (source->fd < 0) {
        if (source->filled > ULONG_MAX)
            return ci_fail(err, CI_ERR_TOO_LARGE, "%s: file is too large", source->name);
        return probe(source->buffer, source->filled, -1, NULL, 0, source->name, info, err);
    }
    return probe(NULL, source->filled, source->fd, source->buffer, source->capacity, source->name,
                 info, err);
}

// ---------------------------------------------------------------------------
// Decoding: the pieces the loader below uses

// Sets scale n/8 (shrink.c's rule) in cinfo and computes the output sizes.
static void set_scale(j_decompress_ptr cinfo, unsigned n) {
    cinfo->scale_num = n;
    cinfo->scale_denom = 8;
    jpeg_calc_output_dimensions(cinfo);
}

// Progressive and multi-scan JPEGs buffer the whole image's DCT coefficients
// (2 bytes per coefficient, about 3-8 bytes per pixel) at full size whatever
// the output scale. Without a cap, a tiny hostile file declaring 65500x65500
// could take tens of gigabytes while its 1/8-scaled output passes the pixel
// limit. 16 bytes per pixel covers any image that could be decoded at full
// size within the limit; libjpeg fails with JERR_NO_BACKING_STORE beyond it.
// The cap never goes below what the default limit allows: the caller's
// limit is about decoded pixels, and lowering it must not refuse an
// ordinary progressive photo that shrink-on-load brings under it.
static long decode_memory_cap(const ci_limits *limits) {
    uint64_t pixels = ci_max_pixels(limits);
    if (pixels < CI_DEFAULT_MAX_PIXELS) pixels = CI_DEFAULT_MAX_PIXELS;
    return pixels > (uint64_t)LONG_MAX / 16 ? LONG_MAX : (long)(pixels * 16);
}

// The embedded ICC profile (malloc'd by libjpeg, the caller's to free) as a
// colour tag, read right after the header (the saved markers are freed
// with the image's memory pool).
static void read_icc(j_decompress_ptr cinfo, JOCTET **icc, ci_colour_tag *tag) {
    memset(tag, 0, sizeof *tag);
    unsigned int length = 0;
    if (jpeg_read_icc_profile(cinfo, icc, &length) && *icc) {
        tag->icc = *icc;
        tag->icc_size = length;
    }
}

// One row of CMYK (as libjpeg delivers it) to RGB or RGBA.
static void cmyk_row_to_rgb(const JSAMPLE *cmyk, uint8_t *out, uint32_t width, int channels,
                            int adobe_inverted) {
    for (uint32_t x = 0; x < width; x++, cmyk += 4, out += channels) {
        // Photoshop writes CMYK (and YCCK) with every sample inverted
        // (255 = no ink) and marks such files with an Adobe APP14 marker;
        // libjpeg passes the samples through untouched, so undo it here.
        unsigned c = cmyk[0], m = cmyk[1], y = cmyk[2], k = cmyk[3];
        if (!adobe_inverted) {
            c = 255 - c;
            m = 255 - m;
            y = 255 - y;
            k = 255 - k;
        }
        // Now each value is "255 - ink": a naive, profile-free conversion
        // multiplies the light each ink lets through. Exact rounding of /255.
        unsigned r = c * k + 128, g = m * k + 128, b = y * k + 128;
        out[0] = (uint8_t)((r + (r >> 8)) >> 8);
        out[1] = (uint8_t)((g + (g >> 8)) >> 8);
        out[2] = (uint8_t)((b + (b >> 8)) >> 8);
        if (channels == 4) out[3] = 255;
    }
}

// ---------------------------------------------------------------------------
// The loader: rows straight from libjpeg at a DCT scale, one at a time
//
// The driver (draw.c) streams them into the resampler, which keeps only a
// ring of the few rows its filter reads: the photo is never held whole.
// libjpeg only transforms what the cell shows: jpeg_crop_scanline limits the
// IDCT and colour conversion to the columns the filter reads, and
// jpeg_skip_scanlines the rows above and below them.

typedef struct {
    struct jpeg_decompress_struct cinfo;
    jpeg_failure failure;
    fd_source source;
    ci_cut cut;           // judged before jpeg_finish_decompress frees what tells (jpeg_cut_short)
    double drawn_share;
    const char *name;
    const ci_limits *limits;
    JOCTET *icc;     // the embedded profile, if any
    int is_cmyk;
    JSAMPARRAY cmyk_row;  // libjpeg-owned, freed with the decompressor
    ci_row_converter *cmyk;
    JDIMENSION width;     // of the rows decoded (after jpeg_crop_scanline)
} jpeg_draw;

// The crop margin, in output pixels: more than fancy upsampling reaches
// (one chroma sample, two pixels at 2x2 subsampling) at any scale.
#define CROP_MARGIN 16

// One decoded row into `slot` (4 bytes a pixel), through the CMYK
// conversion where the file is CMYK. Returns 0 when the decoder stopped.
static int read_row(jpeg_draw *draw, uint8_t *slot) {
    j_decompress_ptr cinfo = &draw->cinfo;
    if (draw->cmyk_row) {
        if (jpeg_read_scanlines(cinfo, draw->cmyk_row, 1) != 1) return 0;
        if (draw->cmyk)
            ci_colour_row(draw->cmyk, draw->cmyk_row[0], slot, draw->width);
        else
            cmyk_row_to_rgb(draw->cmyk_row[0], slot, draw->width, 4, cinfo->saw_Adobe_marker);
        return 1;
    }
    JSAMPROW rows[1] = {slot};
    return jpeg_read_scanlines(cinfo, rows, 1) == 1;
}

// Every step below drives libjpeg, whose errors longjmp back to the setjmp
// at the step's start; what a step changes lives in the loader's state.

static ci_status jpeg_open(void *state, ci_source *source, const ci_draw_request *request,
                           ci_header *header, ci_error *err) {
    jpeg_draw *draw = state;
    draw->name = source->name;
    draw->limits = request->limits;
    j_decompress_ptr cinfo = &draw->cinfo;
    cinfo->err = ci_jpeg_failure_init(&draw->failure);
    if (setjmp(draw->failure.jump)) return fd_failure(&draw->failure, &draw->source, draw->name, err);

    jpeg_create_decompress(cinfo);
    cinfo->mem->max_memory_to_use = decode_memory_cap(request->limits);
    limit_scans(cinfo, &draw->failure);
    if (source->fd < 0)
        jpeg_mem_src(cinfo, source->buffer, (unsigned long)source->filled);
    else
        fd_source_attach(cinfo, &draw->source, source->fd, source->buffer, source->capacity,
                         source->filled);
    header->orientation = read_header_exif(cinfo, &header->has_subject, &header->subject, header->date_taken, NULL);
    read_icc(cinfo, &draw->icc, &header->tag);
    if (!colour_space_supported(cinfo->jpeg_color_space))
        return unsupported_colour(cinfo, draw->name, err);
    draw->is_cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
    // RGBX: 4 bytes per pixel, which the resampler handles as one vector.
    cinfo->out_color_space = draw->is_cmyk ? JCS_CMYK : JCS_EXT_RGBX;
    header->width = cinfo->image_width;
    header->height = cinfo->image_height;
    ci_oriented_size(header->orientation, header->width, header->height, &header->display_width,
                     &header->display_height);
    header->scales = CI_SCALES_EIGHTHS;
    return CI_OK;
}

static ci_status jpeg_start(void *state, ci_scale *scale, ci_header *header, uint32_t *width,
                            uint32_t *height, ci_image **whole, ci_error *err) {
    jpeg_draw *draw = state;
    j_decompress_ptr cinfo = &draw->cinfo;
    if (setjmp(draw->failure.jump)) return fd_failure(&draw->failure, &draw->source, draw->name, err);
    set_scale(cinfo, scale->eighths);
    *width = cinfo->output_width;
    *height = cinfo->output_height;
    return ci_check_pixels(cinfo->output_width, cinfo->output_height, draw->limits, draw->name, err);
}

static ci_status jpeg_begin(void *state, ci_header *header, uint32_t *first_column, uint32_t *columns,
                            ci_error *err) {
    jpeg_draw *draw = state;
    j_decompress_ptr cinfo = &draw->cinfo;
    if (setjmp(draw->failure.jump)) return fd_failure(&draw->failure, &draw->source, draw->name, err);
    // The header is whole: from here data that ends early is drawn
    // (jpeg_start_decompress reads a progressive file's scans).
    draw->failure.eof_is_warning = 1;
    jpeg_start_decompress(cinfo);
    // Only the columns the cell reads are transformed (plus a margin, so the
    // crop's edge never changes a pixel the filter uses).
    JDIMENSION full = cinfo->output_width;
    JDIMENSION first = *first_column > CROP_MARGIN ? *first_column - CROP_MARGIN : 0;
    JDIMENSION width = *first_column + *columns + CROP_MARGIN - first;
    if (first + width > full) width = full - first;
    if (width < full)
        jpeg_crop_scanline(cinfo, &first, &width);  // may move `first` left, to a block edge
    *first_column = first;
    *columns = width;
    draw->width = width;
    // CMYK goes through one libjpeg-owned row, and through its profile when
    // it has one: converted on the way in, nothing is left for the cell.
    if (draw->is_cmyk) {
        draw->cmyk_row = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE, width * 4, 1);
        draw->cmyk = ci_colour_cmyk_open(&header->tag, cinfo->saw_Adobe_marker, 4);
        memset(&header->tag, 0, sizeof header->tag);
    }
    return CI_OK;
}

// Whether a file whose data ran out (on_emit_message) lost any of its
// picture, and how it is drawn, once every row is read: a sequential JPEG
// has the rows of blocks above the one the data ran out in (`drawn_share`
// of them), the rest grey; a progressive one has every row from its first
// scans, coarse, unless the data ran out in the first scan (rows, as for a
// sequential one). A file missing only its end marker lost nothing.
// libjpeg's coef_bits (the precision each coefficient has reached, -1 for
// none yet, in a progressive file) tells a cut that fell between two scans;
// it is freed by jpeg_finish_decompress, so this is asked before.
static ci_cut judge_cut(j_decompress_ptr cinfo, const jpeg_failure *failure, double *drawn_share) {
    *drawn_share = 0;
    if (!failure->eof_seen) return CI_CUT_NONE;
    if (cinfo->progressive_mode && !(failure->ran_dry && failure->dry_scan <= 1)) {
        int missing = failure->ran_dry;
        for (int ci = 0; ci < cinfo->num_components && !missing && cinfo->coef_bits; ci++)
            for (int k = 0; k < DCTSIZE2; k++)
                if (cinfo->coef_bits[ci][k] != 0) missing = 1;
        return missing ? CI_CUT_SCANS : CI_CUT_NONE;
    }
    if (!failure->ran_dry) return CI_CUT_NONE;
    if (cinfo->total_iMCU_rows > 0) *drawn_share = (double)failure->dry_row / cinfo->total_iMCU_rows;
    return CI_CUT_ROWS;
}

// Skipped rows are still entropy-decoded, and the last row is read, so
// corrupt data and a file cut short are counted wherever they lie, as a
// full decode would count them.
static ci_status jpeg_rows(void *state, uint32_t first_row, uint32_t last_row, uint32_t first_column,
                           uint32_t columns, const ci_row_sink *sink, ci_error *err) {
    jpeg_draw *draw = state;
    j_decompress_ptr cinfo = &draw->cinfo;
    if (setjmp(draw->failure.jump)) return fd_failure(&draw->failure, &draw->source, draw->name, err);
    if (first_row > 0) jpeg_skip_scanlines(cinfo, first_row);
    while (cinfo->output_scanline < cinfo->output_height) {
        JDIMENSION y = cinfo->output_scanline;
        if (y > last_row && cinfo->output_height - y > 1) {
            // Below the cell: entropy-decode up to the last row only.
            jpeg_skip_scanlines(cinfo, cinfo->output_height - y - 1);
            continue;
        }
        uint8_t *slot = sink->slot(sink->target);
        if (!read_row(draw, slot)) break;
        if (y <= last_row) sink->push(sink->target, slot);
    }
    if (cinfo->output_scanline < cinfo->output_height)
        return ci_fail(err, CI_ERR_CORRUPT, "%s: decoder stopped early", draw->name);
    draw->cut = judge_cut(cinfo, &draw->failure, &draw->drawn_share);
    jpeg_finish_decompress(cinfo);
    return CI_OK;
}

// libjpeg's count of the warnings on_emit_message let pass, and a cut: all
// damage, for whatever only asks whether there is any.
static int jpeg_corrupt_data(const void *state) {
    const jpeg_draw *draw = state;
    long warnings = draw->failure.pub.num_warnings + (draw->cut != CI_CUT_NONE);
    return warnings > INT_MAX ? INT_MAX : (int)warnings;
}

static ci_cut jpeg_cut_short(const void *state, double *drawn_share) {
    const jpeg_draw *draw = state;
    *drawn_share = draw->drawn_share;
    return draw->cut;
}

static void jpeg_close(void *state) {
    jpeg_draw *draw = state;
    jpeg_destroy_decompress(&draw->cinfo);
    free(draw->icc);
    ci_colour_rows_close(draw->cmyk);
}

// ---------------------------------------------------------------------------
// Plainly whole? (for `add`: ci_check_complete)
//
// The common camera JPEG is one sequential scan to its end marker. Walked
// from the start (segments skipped by their lengths, the scan's bytes
// searched for 0xFF with memchr: about a millisecond for 12 megapixels in
// the page cache), such a file shows nothing a draw would say: whatever
// would (a cut, bytes where a marker belongs, restart markers out of order
// or too few, a second scan, a progressive or arithmetic-coded frame, which
// may also hold thousands of scans) sends it to `add`'s small draw, which
// says it exactly as `save` will. Only entropy data broken inside the
// scan, which nothing short of decoding sees, is left to the draw at save.

static int walk_u16(ci_walker *w, unsigned *value) {
    uint8_t high, low;
    if (!ci_walk_byte(w, &high) || !ci_walk_byte(w, &low)) return 0;
    *value = (unsigned)high << 8 | low;
    return 1;
}

// The marker code after 0xFF and any fill bytes (more 0xFF); 0 at the end.
static int walk_marker_code(ci_walker *w, uint8_t *code) {
    do {
        if (!ci_walk_byte(w, code)) return 0;
    } while (*code == 0xFF);
    return 1;
}

// The scan's entropy-coded data to its end marker: CI_OK when it ends in
// EOI with nothing but stuffed bytes and restart markers in order before it,
// as many as `mcus` in intervals of `interval` need.
static ci_status walk_scan(ci_walker *w, unsigned interval, uint64_t mcus, ci_status unplain) {
    unsigned next_restart = 0;
    uint64_t restarts = 0;
    uint8_t code;
    for (;;) {
        if (!ci_walk_find_ff(w) || !walk_marker_code(w, &code)) return unplain;
        if (code == 0x00) continue;  // a stuffed 0xFF
        if (code >= 0xD0 && code <= 0xD7) {
            if (!interval || code != 0xD0 + next_restart) return unplain;
            next_restart = (next_restart + 1) & 7;
            restarts++;
            continue;
        }
        if (code != 0xD9) return unplain;  // tables, DNL, a second scan: the draw tells
        if (interval && restarts != (mcus + interval - 1) / interval - 1) return unplain;
        return CI_OK;
    }
}

static ci_status jpeg_plain_walk(ci_walker *w, const char *name, ci_error *err) {
    // No message: the caller only asks yes or no.
    (void)name;
    (void)err;
    const ci_status unplain = CI_ERR_CORRUPT;
    uint8_t byte, code;
    if (!ci_walk_byte(w, &byte) || byte != 0xFF || !ci_walk_byte(w, &byte) || byte != 0xD8) return unplain;
    unsigned interval = 0, components = 0;
    uint64_t mcus = 0;
    for (;;) {
        if (!ci_walk_byte(w, &byte) || byte != 0xFF || !walk_marker_code(w, &code)) return unplain;
        if (code == 0x01 || code == 0xD9 || (code >= 0xD0 && code <= 0xD8)) return unplain;  // no length, or out of place
        unsigned length;
        if (!walk_u16(w, &length) || length < 2) return unplain;
        if (code == 0xC0 || code == 0xC1) {  // baseline or extended sequential, Huffman-coded
            uint8_t frame[6];
            for (int i = 0; i < 6; i++)
                if (!ci_walk_byte(w, &frame[i])) return unplain;
            const unsigned height = (unsigned)frame[1] << 8 | frame[2], width = (unsigned)frame[3] << 8 | frame[4];
            if (components || frame[5] == 0 || length != 8u + 3u * frame[5] || height == 0 || width == 0)
                return unplain;  // a second frame, or a height left to a DNL marker
            components = frame[5];
            unsigned most_h = 1, most_v = 1;
            for (unsigned c = 0; c < components; c++) {
                uint8_t id, sampling, table;
                if (!ci_walk_byte(w, &id) || !ci_walk_byte(w, &sampling) || !ci_walk_byte(w, &table)) return unplain;
                if ((sampling >> 4) > most_h) most_h = sampling >> 4;
                if ((sampling & 15) > most_v) most_v = sampling & 15;
            }
            // libjpeg's MCUs: one block each in a one-component scan,
            // else the most subsampled component's blocks.
            if (components == 1) most_h = most_v = 1;
            mcus = (uint64_t)((width + 8 * most_h - 1) / (8 * most_h)) * ((height + 8 * most_v - 1) / (8 * most_v));
        } else if (code >= 0xC2 && code <= 0xCF && code != 0xC4 && code != 0xC8 && code != 0xCC) {
            return unplain;  // progressive, lossless or arithmetic-coded
        } else if (code == 0xDD) {  // DRI
            if (length != 4 || !walk_u16(w, &interval)) return unplain;
        } else if (code == 0xDA) {  // SOS: the one scan, over every component
            uint8_t count;
            if (!components || !ci_walk_byte(w, &count) || count != components || !ci_walk_skip(w, length - 3))
                return unplain;
            return walk_scan(w, interval, mcus, unplain);
        } else if (!ci_walk_skip(w, length - 2)) {
            return unplain;
        }
    }
}

static int jpeg_plainly_whole(int fd, const char *name) {
    ci_error ignored = {0};
    return ci_walk_file(fd, jpeg_plain_walk, name, &ignored) == CI_OK;
}

static int jpeg_sniff(const uint8_t *data, size_t size) {
    return size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF;
}

// libjpeg has no function that says its version: the headers' (Debian's
// package pins the library to them).
#define JPEG_STRINGIFY_(x) #x
#define JPEG_STRINGIFY(x) JPEG_STRINGIFY_(x)
static void jpeg_library(char *out, size_t size) {
    snprintf(out, size, "libjpeg-turbo " JPEG_STRINGIFY(LIBJPEG_TURBO_VERSION));
}

const ci_loader ci_jpeg_loader = {
    .format = CI_FORMAT_JPEG,
    .name = "JPEG",
    .title = "JPEG",
    .extensions = "jpg jpeg",
    .library = jpeg_library,
    .smallest_scale = 1,
    .sniff = jpeg_sniff,
    .probe = jpeg_probe_source,
    .state_size = sizeof(jpeg_draw),
    .open = jpeg_open,
    .start = jpeg_start,
    .begin = jpeg_begin,
    .rows = jpeg_rows,
    .corrupt_data = jpeg_corrupt_data,
    .plainly_whole = jpeg_plainly_whole,
    .cut_short = jpeg_cut_short,
    .close = jpeg_close,
};
