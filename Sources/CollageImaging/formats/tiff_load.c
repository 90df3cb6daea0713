// tiff_load.c — TIFF through libtiff: the loader (TIFF is only read).
//
// libtiff reads the file through the engine's ci_source (TIFFClientOpenExt:
// the bytes already read, then pread on the descriptor, or the bytes in
// memory, mapped), and reports errors and warnings to handlers of this
// handle only (TIFFOpenOptions' ...ExtR), never libtiff's global handlers:
// two draws on two threads each get their own messages, and nothing is
// written to stderr.
//
// Pixels come from libtiff's RGBA reader (TIFFRGBAImage), which knows every
// photometric and layout a photo or a scan comes in (grey, RGB, palette,
// CMYK, YCbCr and JPEG-in-TIFF, 1 to 16 bits, strips and tiles, contiguous
// or planar) and crops to columns (col_offset), one band of rows at a time
// (row_offset): a band is a strip, or a row of tiles, so each is decoded
// once and the photo is never held whole; drawn small, the driver box
// averages the rows by halvings as they come (CI_SCALES_HALVINGS), so
// neither the resampler nor a smart crop's frame sees the full size.
// Its own handling of the
// Orientation tag (flips only, no transposition) is switched off: the rows
// go to the driver as stored, and the resampler turns them upright as it
// does EXIF's. CMYK with an ICC profile and CIE L*a*b* have their samples
// passed through unconverted (our own put routines) and go through lcms2
// (colour.c's rows), as CMYK JPEG does: libtiff's own conversions are a
// naive CMYK and an approximate Lab (31 dB from ImageMagick's conversion on
// the fixtures, where lcms2's is over 40; issue #32 measured 23 on a photo).
// CMYK without a profile keeps libtiff's.
//
// The probe reads the first directory only. `add`'s check that the file is
// whole (`complete`) asks libtiff what a draw will ask: it starts the
// reader (TIFFRGBAImageOK takes 16-bit CMYK, which the reader refuses),
// asks the strip's or tile's size, and finds every strip or tile inside the
// file and not empty (libtiff refuses to read one of no bytes).
//
// A reduced-resolution subfile (a pyramid's level: a SubIFD, or a later IFD
// marked NewSubfileType reduced-image, as vips writes them) that covers the
// cell stands in for the full image (`choose`). Only the first page of a
// multi-page file is read.
#include "../internal.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tiffio.h>

// libtiff's own allocations (a strip's or tile's buffer, its tables) are
// bounded too, by what the largest image the pixel limit allows takes at
// 16 bytes a pixel (4 samples of 16 bits; at least 64 MiB): a hostile
// directory can claim thousands of samples a pixel, or a strip far larger
// than its image.
static tmsize_t max_single_alloc(const ci_limits *limits) {
    uint64_t bytes = ci_max_pixels(limits) * 16;
    if (bytes < ((uint64_t)64 << 20)) bytes = (uint64_t)64 << 20;
    return bytes > (uint64_t)INT64_MAX ? INT64_MAX : (tmsize_t)bytes;
}

// The most subfiles looked at for a pyramid's levels (vips writes one per
// halving: 16 is a 2^16-pixel photo's worth).
#define TIFF_MAX_LEVELS 16

// ---------------------------------------------------------------------------
// I/O over a ci_source, and errors per handle

typedef struct {
    const ci_source *source;
    uint64_t position;
    int read_error;          // errno of a failed pread
    char message[256];       // libtiff's first error
} tiff_io;

static tmsize_t io_read(thandle_t handle, void *buffer, tmsize_t size) {
    tiff_io *io = handle;
    const ci_source *source = io->source;
    if (size <= 0 || io->position >= source->file_size) return 0;
    uint64_t want = (uint64_t)size;
    if (want > source->file_size - io->position) want = source->file_size - io->position;
    uint8_t *out = buffer;
    uint64_t done = 0;
    // What the source has read already (all of it, from memory).
    if (io->position < source->filled) {
        uint64_t have = source->filled - io->position;
        done = have < want ? have : want;
        memcpy(out, source->buffer + io->position, (size_t)done);
    }
    while (done < want && source->fd >= 0) {
        ssize_t n = pread(source->fd, out + done, (size_t)(want - done), (off_t)(io->position + done));
        if (n < 0) {
            if (errno == EINTR) continue;
            io->read_error = errno;
            break;
        }
        if (n == 0) break;
        done += (uint64_t)n;
    }
    io->position += done;
    return (tmsize_t)done;
}

static tmsize_t io_write(thandle_t handle, void *buffer, tmsize_t size) {
    (void)handle, (void)buffer, (void)size;
    return 0;  // read-only
}

static toff_t io_seek(thandle_t handle, toff_t offset, int whence) {
    tiff_io *io = handle;
    uint64_t base = whence == SEEK_CUR ? io->position : whence == SEEK_END ? io->source->file_size : 0;
    // libtiff passes negative offsets as large unsigned ones.
    uint64_t target = base + offset;
    if ((whence == SEEK_SET && offset > (toff_t)INT64_MAX) || (int64_t)target < 0) return (toff_t)-1;
    io->position = target;
    return target;
}

static int io_close(thandle_t handle) {
    (void)handle;
    return 0;  // the source is the caller's
}

static toff_t io_size(thandle_t handle) { return ((tiff_io *)handle)->source->file_size; }

// Bytes in memory are handed to libtiff as a mapped file (it then copies
// nothing); a file's are read.
static int io_map(thandle_t handle, void **base, toff_t *size) {
    tiff_io *io = handle;
    if (io->source->fd >= 0 || io->source->filled < io->source->file_size) return 0;
    *base = io->source->buffer;
    *size = io->source->filled;
    return 1;
}

static void io_unmap(thandle_t handle, void *base, toff_t size) { (void)handle, (void)base, (void)size; }

static int on_error(TIFF *tif, void *user, const char *module, const char *format, va_list args) {
    (void)tif, (void)module;
    tiff_io *io = user;
    if (!io->message[0]) {
        vsnprintf(io->message, sizeof io->message, format, args);
        // One line: libtiff's messages rarely hold a newline, but a tag's
        // text quoted in one may.
        for (char *c = io->message; *c; c++)
            if (*c == '\n' || *c == '\r') *c = ' ';
    }
    return 1;  // handled: libtiff's global handlers are not called
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *format, va_list args) {
    (void)tif, (void)user, (void)module, (void)format, (void)args;
    return 1;  // unknown tags and the like: every viewer shows such files
}

static ci_status tiff_failure(const tiff_io *io, ci_status status, const char *name, const char *what,
                              ci_error *err) {
    if (io->read_error) return ci_fail(err, CI_ERR_OPEN, "%s: %s", name, strerror(io->read_error));
    if (io->message[0]) return ci_fail(err, status, "%s: %s (%s)", name, what, io->message);
    return ci_fail(err, status, "%s: %s", name, what);
}

// Opens the first directory of the source.
static ci_status tiff_open_source(const ci_source *source, const ci_limits *limits, tiff_io *io, TIFF **tif,
                                  ci_error *err) {
    memset(io, 0, sizeof *io);
    io->source = source;
    *tif = NULL;
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory", source->name);
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, max_single_alloc(limits));
    TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, io);
    TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, io);
    *tif = TIFFClientOpenExt(source->name, "r", io, io_read, io_write, io_seek, io_close, io_size, io_map,
                             io_unmap, options);
    TIFFOpenOptionsFree(options);
    if (!*tif) return tiff_failure(io, CI_ERR_CORRUPT, source->name, "not a readable TIFF file", err);
    return CI_OK;
}

// ---------------------------------------------------------------------------
// What a directory says

typedef struct {
    uint32_t width, height;
    int orientation;
    int has_alpha;
    char date_taken[CI_DATE_TAKEN_BYTES];
} tiff_facts;

// DateTimeOriginal, else DateTimeDigitized, from the EXIF directory a
// camera's or scanner's TIFF may carry, else the first directory's
// DateTime (as exif.c reads a JPEG's); the first directory is current
// again after.
static void read_date_taken(TIFF *tif, tiff_io *io, char *date_taken) {
    const char *text = NULL;
    uint64_t exif = 0;
    if (TIFFGetField(tif, TIFFTAG_EXIFIFD, &exif) && exif != 0) {
        if (TIFFReadEXIFDirectory(tif, exif)) {
            if (TIFFGetField(tif, EXIFTAG_DATETIMEORIGINAL, &text) && text)
                ci_exif_date((const unsigned char *)text, strnlen(text, 64), date_taken);
            text = NULL;
            if (!date_taken[0] && TIFFGetField(tif, EXIFTAG_DATETIMEDIGITIZED, &text) && text)
                ci_exif_date((const unsigned char *)text, strnlen(text, 64), date_taken);
        }
        TIFFSetDirectory(tif, 0);
    }
    text = NULL;
    if (!date_taken[0] && TIFFGetField(tif, TIFFTAG_DATETIME, &text) && text)
        ci_exif_date((const unsigned char *)text, strnlen(text, 64), date_taken);
    io->message[0] = 0;  // what a broken EXIF directory said: no date, no failure
}

static ci_status read_facts(TIFF *tif, tiff_io *io, const char *name, tiff_facts *facts, ci_error *err) {
    memset(facts, 0, sizeof *facts);
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &facts->width) ||
        !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &facts->height) || facts->width == 0 || facts->height == 0)
        return tiff_failure(io, CI_ERR_CORRUPT, name, "the image has no size", err);
    uint16_t orientation = ORIENTATION_TOPLEFT;
    TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &orientation);
    // TIFF's Orientation is the tag EXIF took its values from.
    facts->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
    uint16_t extra = 0, *kinds = NULL;
    if (TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &extra, &kinds) && kinds)
        for (uint16_t i = 0; i < extra; i++)
            if (kinds[i] == EXTRASAMPLE_ASSOCALPHA || kinds[i] == EXTRASAMPLE_UNASSALPHA) facts->has_alpha = 1;
    read_date_taken(tif, io, facts->date_taken);
    return CI_OK;
}

// Whether libtiff's RGBA reader takes this directory, from its tags; why
// not in `why`.
static int readable(TIFF *tif, char why[1024]) {
    why[0] = 0;
    return TIFFRGBAImageOK(tif, why);
}

// Whether it does when a draw starts it (TIFFRGBAImageOK takes 16-bit
// CMYK, which the start refuses), and libtiff sizes its strips or tiles
// within its allocation limit. Starting the reader reads no pixels: it
// builds its few tables.
static int drawable(TIFF *tif, const ci_limits *limits, char why[1024]) {
    why[0] = 0;
    TIFFRGBAImage image;
    if (!TIFFRGBAImageBegin(&image, tif, 1, why)) return 0;
    TIFFRGBAImageEnd(&image);
    uint64_t block = TIFFIsTiled(tif) ? TIFFTileSize64(tif) : TIFFStripSize64(tif);
    if (block == 0 || block > (uint64_t)max_single_alloc(limits)) {
        snprintf(why, 1024, "libtiff cannot read its %s", TIFFIsTiled(tif) ? "tiles" : "strips");
        return 0;
    }
    return 1;
}

// The bytes libtiff's reader asks of uncompressed strip or tile `index`
// when it reads all its rows: a tile's whole size; a strip's rows, the last
// of each plane shorter, counted as libtiff counts them (RowsPerStrip past
// the height is the height: Pillow's tiff_overflow_rows_per_strip.tif says
// 2^31 + 1).
static uint64_t raw_block_size(TIFF *tif, uint32_t index) {
    if (TIFFIsTiled(tif)) return TIFFTileSize64(tif);
    uint32_t height = 0, rows = 0;
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height);
    TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows);
    if (rows == 0 || rows > height) rows = height;
    if (rows == 0) return 0;
    uint32_t per_plane = (uint32_t)(((uint64_t)height + rows - 1) / rows);
    uint64_t first = (uint64_t)(index % per_plane) * rows;
    uint64_t left = first < height ? height - first : 0;
    return TIFFVStripSize64(tif, (uint32_t)(left < rows ? left : rows));
}

// Every strip or tile of the current directory lies inside the file and
// holds bytes: a file cut short is refused without decoding (and wherever
// the cut lies, since a draw reads only the rows its cell shows).
// Uncompressed, each must also hold all its rows' bytes, which libtiff
// insists on ("Not enough data for scanline"): `add` asks it here, as the
// draw does, so what add records, save can draw. (Compressed data tells
// only when decoded.)
static ci_status check_blocks(TIFF *tif, tiff_io *io, const char *name, ci_error *err) {
    uint32_t blocks = TIFFIsTiled(tif) ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif);
    if (blocks == 0) return tiff_failure(io, CI_ERR_CORRUPT, name, "the image has no strips or tiles", err);
    uint16_t compression = COMPRESSION_NONE;
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    uint64_t size = io->source->file_size;
    for (uint32_t i = 0; i < blocks; i++) {
        int failed = 0;
        uint64_t offset = TIFFGetStrileOffsetWithErr(tif, i, &failed);
        uint64_t count = failed ? 0 : TIFFGetStrileByteCountWithErr(tif, i, &failed);
        if (failed) return tiff_failure(io, CI_ERR_CORRUPT, name, "its strip or tile table is broken", err);
        if (offset > size || count > size - offset) return ci_cut_short(name, "a strip or tile ends past it", err);
        if (count == 0) return ci_fail(err, CI_ERR_CORRUPT, "%s: broken TIFF data (strip or tile %u is empty)", name, i + 1);
        if (compression == COMPRESSION_NONE) {
            uint64_t need = raw_block_size(tif, i);
            if (count < need)
                return ci_fail(err, CI_ERR_CORRUPT,
                               "%s: broken TIFF data (%s %u holds %llu bytes of the %llu its pixels take)", name,
                               TIFFIsTiled(tif) ? "tile" : "strip", i + 1, (unsigned long long)count,
                               (unsigned long long)need);
        }
    }
    return CI_OK;
}

// ---------------------------------------------------------------------------
// Probe

static ci_status tiff_probe_source(ci_source *source, ci_photo_info *info, ci_error *err) {
    memset(info, 0, sizeof *info);
    tiff_io io;
    TIFF *tif;
    ci_status status = tiff_open_source(source, NULL, &io, &tif, err);
    if (status != CI_OK) return status;
    tiff_facts facts;
    status = read_facts(tif, &io, source->name, &facts, err);
    char why[1024];
    if (status == CI_OK && !readable(tif, why))
        status = ci_fail(err, CI_ERR_UNSUPPORTED, "%s: this TIFF is not supported (%s)", source->name, why);
    if (status == CI_OK) {
        info->format = CI_FORMAT_TIFF;
        info->width = facts.width;
        info->height = facts.height;
        info->orientation = facts.orientation;
        ci_oriented_size(facts.orientation, facts.width, facts.height, &info->display_width,
                         &info->display_height);
        info->has_alpha = facts.has_alpha;
        memcpy(info->date_taken, facts.date_taken, sizeof info->date_taken);
    }
    TIFFClose(tif);
    if (status != CI_OK) memset(info, 0, sizeof *info);
    return status;
}

// ---------------------------------------------------------------------------
// Is the file whole, and will a draw read it? (`add`, after the probe.)

static ci_status tiff_complete(int fd, const char *name, ci_error *err) {
    off_t end = lseek(fd, 0, SEEK_END);
    if (end < 0) return ci_fail(err, CI_ERR_OPEN, "%s: %s", name, strerror(errno));
    ci_source source = {.name = name, .fd = fd, .file_size = (size_t)end};
    tiff_io io;
    TIFF *tif;
    ci_status status = tiff_open_source(&source, NULL, &io, &tif, err);
    if (status != CI_OK) return status;
    char why[1024];
    if (!drawable(tif, NULL, why)) {
        status = io.read_error ? tiff_failure(&io, CI_ERR_OPEN, name, "", err)
                               : ci_fail(err, CI_ERR_UNSUPPORTED, "%s: this TIFF is not supported (%s)", name, why);
    }
    if (status == CI_OK) status = check_blocks(tif, &io, name, err);
    TIFFClose(tif);
    return status;
}

// ---------------------------------------------------------------------------
// Reading: libtiff's RGBA reader, a band of rows at a time

typedef struct {
    TIFF *tif;
    tiff_io io;
    const char *name;
    const ci_limits *limits;
    tiff_facts facts;              // the first directory's
    uint8_t *icc;                  // its profile, copied (libtiff's goes with the directory)
    uint32_t icc_size;
    // The directory read: the first, or a reduced level (choose).
    int level_is_sub;              // a SubIFD, set by offset; else by index
    uint64_t level;
    uint32_t width, height;        // the directory read's
    TIFFRGBAImage image;
    int image_begun;
    int premultiplied;             // the reader's alpha is associated
    ci_row_converter *converter;   // CMYK through its profile, or Lab: raw samples come out
    uint32_t band;                 // rows read at once: a strip's or a row of tiles'
    uint32_t *raster;              // one band, `columns` wide
    uint32_t raster_columns;
    uint32_t columns;              // of the rows being read
} tiff_reader;

static ci_status reader_open(tiff_reader *reader, ci_source *source, const ci_limits *limits, ci_error *err) {
    reader->name = source->name;
    reader->limits = limits;
    ci_status status = tiff_open_source(source, limits, &reader->io, &reader->tif, err);
    if (status == CI_OK) status = read_facts(reader->tif, &reader->io, reader->name, &reader->facts, err);
    // The limit before anything is allocated for the pixels: libtiff has
    // read the directory only.
    if (status == CI_OK) status = ci_check_pixels(reader->facts.width, reader->facts.height, limits, reader->name, err);
    if (status != CI_OK) return status;
    uint32_t icc_size = 0;
    void *icc = NULL;
    if (TIFFGetField(reader->tif, TIFFTAG_ICCPROFILE, &icc_size, &icc) && icc && icc_size > 0) {
        reader->icc = malloc(icc_size);
        if (!reader->icc) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory", reader->name);
        memcpy(reader->icc, icc, icc_size);
        reader->icc_size = icc_size;
    }
    reader->width = reader->facts.width;
    reader->height = reader->facts.height;
    char why[1024];
    if (!readable(reader->tif, why))
        return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: this TIFF is not supported (%s)", reader->name, why);
    return check_blocks(reader->tif, &reader->io, reader->name, err);
}

static ci_colour_tag reader_tag(const tiff_reader *reader) {
    ci_colour_tag tag;
    memset(&tag, 0, sizeof tag);
    tag.icc = reader->icc;
    tag.icc_size = reader->icc_size;
    return tag;
}

static int set_level(tiff_reader *reader, int is_sub, uint64_t level) {
    return is_sub ? TIFFSetSubDirectory(reader->tif, level) : TIFFSetDirectory(reader->tif, (tdir_t)level);
}

// Whether a w x h level has the photo's shape: a pyramid's levels are its
// halvings, rounded, so the height at the level's width is within a pixel.
static int same_shape(const tiff_facts *photo, uint32_t w, uint32_t h) {
    double expected = (double)photo->height * w / photo->width;
    return w <= photo->width && h <= photo->height && expected - h <= 1.0 && h - expected <= 1.0;
}

// If the current directory is a reduced level that covers the need (stored
// axes), readable and whole, and smaller than the best so far: it is now.
static void consider_level(tiff_reader *reader, int is_sub, uint64_t level, uint32_t need_w, uint32_t need_h,
                           uint64_t *best_pixels) {
    TIFF *tif = reader->tif;
    uint32_t kind = 0, w = 0, h = 0;
    TIFFGetField(tif, TIFFTAG_SUBFILETYPE, &kind);
    if (!is_sub && !(kind & FILETYPE_REDUCEDIMAGE)) return;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h)) return;
    if (w < need_w || h < need_h || !same_shape(&reader->facts, w, h)) return;
    if ((uint64_t)w * h >= *best_pixels) return;
    char why[1024];
    ci_error ignored;
    if (!drawable(tif, reader->limits, why) || check_blocks(tif, &reader->io, reader->name, &ignored) != CI_OK) return;
    *best_pixels = (uint64_t)w * h;
    reader->level_is_sub = is_sub;
    reader->level = level;
    reader->width = w;
    reader->height = h;
}

// The smallest reduced level covering need_width x need_height (upright),
// else the full image: the level's directory is left current. 0 x 0 asks
// for the full image (a decode at full size).
static void choose_level(tiff_reader *reader, uint32_t need_width, uint32_t need_height) {
    uint32_t need_w, need_h;
    ci_oriented_size(reader->facts.orientation, need_width, need_height, &need_w, &need_h);
    if ((need_w == 0 && need_h == 0) || (need_w >= reader->facts.width && need_h >= reader->facts.height)) return;
    TIFF *tif = reader->tif;
    uint64_t best = (uint64_t)reader->facts.width * reader->facts.height;
    // SubIFDs of the first directory (copied: the list goes with it).
    uint64_t subs[TIFF_MAX_LEVELS];
    uint16_t count = 0;
    uint64_t *offsets = NULL;
    if (TIFFGetField(tif, TIFFTAG_SUBIFD, &count, &offsets) && offsets) {
        if (count > TIFF_MAX_LEVELS) count = TIFF_MAX_LEVELS;
        memcpy(subs, offsets, count * sizeof subs[0]);
    } else {
        count = 0;
    }
    for (uint16_t i = 0; i < count; i++)
        if (TIFFSetSubDirectory(tif, subs[i])) consider_level(reader, 1, subs[i], need_w, need_h, &best);
    // Later directories marked reduced (vips' pyramids).
    for (tdir_t i = 1; i <= TIFF_MAX_LEVELS && TIFFSetDirectory(tif, i); i++)
        consider_level(reader, 0, i, need_w, need_h, &best);
    if (!set_level(reader, reader->level_is_sub, reader->level)) {
        // The first directory read once; it reads again.
        reader->level_is_sub = 0;
        reader->level = 0;
        reader->width = reader->facts.width;
        reader->height = reader->facts.height;
        TIFFSetDirectory(tif, 0);
    }
    reader->io.message[0] = 0;  // what the levels not taken said
}

// CMYK with its profile: libtiff's put routine would convert naively, so
// the raw samples (4 bytes a pixel, as the raster's uint32) are copied out
// instead, for colour.c.
static void put_cmyk_samples(TIFFRGBAImage *image, uint32_t *out, uint32_t x, uint32_t y, uint32_t w,
                             uint32_t h, int32_t fromskew, int32_t toskew, unsigned char *in) {
    (void)x, (void)y;
    size_t in_step = (size_t)image->samplesperpixel * (size_t)((int64_t)w + fromskew);
    for (uint32_t row = 0; row < h; row++) {
        for (uint32_t i = 0; i < w; i++) memcpy(out + i, in + (size_t)i * image->samplesperpixel, 4);
        out += (int64_t)w + toskew;
        in += in_step;
    }
}

// CIE L*a*b* for lcms2: TIFF's a* and b* are signed, lcms2's offset by 128
// (the top bit flipped); 16-bit samples (native order: libtiff swaps them)
// are rounded to 8 bits (L* x 655.35, a* and b* x 256). L*, a*, b* and a
// byte unused, as the raster's uint32.
static void put_lab_samples(TIFFRGBAImage *image, uint32_t *out, uint32_t x, uint32_t y, uint32_t w, uint32_t h,
                            int32_t fromskew, int32_t toskew, unsigned char *in) {
    (void)x, (void)y;
    const int wide = image->bitspersample == 16;
    size_t in_step = (size_t)image->samplesperpixel * (size_t)((int64_t)w + fromskew) << wide;
    for (uint32_t row = 0; row < h; row++) {
        for (uint32_t i = 0; i < w; i++) {
            uint8_t lab[4] = {0, 0, 0, 0};
            for (int c = 0; c < 3; c++) {
                size_t at = (size_t)i * image->samplesperpixel + (size_t)c;
                int value = wide ? (c ? ((const int16_t *)in)[at] : ((const uint16_t *)in)[at])
                                 : (c ? (int8_t)in[at] : in[at]);
                if (wide) value = (value + 128) >> 8;  // floor, so rounded for either sign
                if (value > (c ? 127 : 255)) value = c ? 127 : 255;
                lab[c] = (uint8_t)(c ? value + 128 : value);
            }
            memcpy(out + i, lab, 4);
        }
        out += (int64_t)w + toskew;
        in += in_step;
    }
}

// Gets libtiff's reader ready for the current directory: rows as stored
// (its own orientation handling off), `columns` at most a band's raster.
static ci_status reader_begin(tiff_reader *reader, uint32_t columns, ci_error *err) {
    TIFF *tif = reader->tif;
    char why[1024] = "";
    if (!TIFFRGBAImageBegin(&reader->image, tif, 1, why)) {
        if (reader->io.read_error) return tiff_failure(&reader->io, CI_ERR_OPEN, reader->name, "", err);
        return ci_fail(err, CI_ERR_UNSUPPORTED, "%s: this TIFF is not supported (%s)", reader->name, why);
    }
    reader->image_begun = 1;
    reader->image.req_orientation = ORIENTATION_TOPLEFT;
    reader->image.orientation = ORIENTATION_TOPLEFT;
    const TIFFRGBAImage *image = &reader->image;
    // libtiff premultiplies unassociated alpha for colour, not for grey.
    int grey = image->photometric == PHOTOMETRIC_MINISBLACK || image->photometric == PHOTOMETRIC_MINISWHITE;
    reader->premultiplied = image->alpha == EXTRASAMPLE_ASSOCALPHA ||
                            (image->alpha == EXTRASAMPLE_UNASSALPHA && !grey);
    if (image->photometric == PHOTOMETRIC_SEPARATED && image->isContig && image->bitspersample == 8 &&
        image->samplesperpixel == 4 && image->alpha == 0) {
        ci_colour_tag tag = reader_tag(reader);
        reader->converter = ci_colour_cmyk_open(&tag, 0, 4);
        if (reader->converter) reader->image.put.contig = put_cmyk_samples;
    } else if (image->photometric == PHOTOMETRIC_CIELAB && image->isContig && image->samplesperpixel == 3 &&
               (image->bitspersample == 8 || image->bitspersample == 16)) {
        reader->converter = ci_colour_lab_open(4);
        if (reader->converter) reader->image.put.contig = put_lab_samples;
    }
    uint32_t band = 0;
    if (TIFFIsTiled(tif)) {
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &band);
    } else {
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &band);
    }
    if (band == 0 || band > reader->height) band = reader->height;
    reader->band = band;
    // The band's raster: checked against the limit like an image (it is at
    // most the image).
    ci_status status = ci_check_pixels(columns, band, reader->limits, reader->name, err);
    if (status != CI_OK) return status;
    reader->raster = malloc((size_t)columns * band * sizeof *reader->raster);
    if (!reader->raster) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory", reader->name);
    reader->raster_columns = columns;
    return CI_OK;
}

// A raster row to `out`, 4 bytes a pixel: RGBA, straight alpha.
static void row_out(const tiff_reader *reader, const uint32_t *in, uint32_t count, uint8_t *out) {
    // Raw samples: each uint32 holds the 4 bytes put_*_samples made.
    if (reader->converter) {
        ci_colour_row(reader->converter, (const uint8_t *)in, out, count);
        return;
    }
    for (uint32_t x = 0; x < count; x++, out += 4) {
        uint32_t p = in[x];
        unsigned r = TIFFGetR(p), g = TIFFGetG(p), b = TIFFGetB(p), a = TIFFGetA(p);
        if (reader->premultiplied && a > 0 && a < 255) {
            r = (r * 255 + a / 2) / a;
            g = (g * 255 + a / 2) / a;
            b = (b * 255 + a / 2) / a;
        }
        out[0] = (uint8_t)(r > 255 ? 255 : r);
        out[1] = (uint8_t)(g > 255 ? 255 : g);
        out[2] = (uint8_t)(b > 255 ? 255 : b);
        out[3] = (uint8_t)a;
    }
}

// Rows first_row..last_row, columns first_column.. (+columns, at most the
// raster's), band by band, each row handed to `deliver`.
typedef void (*row_handler)(void *target, const tiff_reader *reader, const uint32_t *row);

static ci_status read_rows(tiff_reader *reader, uint32_t first_row, uint32_t last_row, uint32_t first_column,
                           uint32_t columns, row_handler deliver, void *target, ci_error *err) {
    if (columns > reader->raster_columns || first_column + (uint64_t)columns > reader->width ||
        last_row >= reader->height)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: rows outside the image", reader->name);
    reader->columns = columns;
    for (uint32_t start = first_row / reader->band * reader->band; start <= last_row; start += reader->band) {
        uint32_t rows = reader->height - start < reader->band ? reader->height - start : reader->band;
        reader->image.row_offset = (int)start;
        reader->image.col_offset = (int)first_column;
        if (!TIFFRGBAImageGet(&reader->image, reader->raster, columns, rows))
            return tiff_failure(&reader->io, CI_ERR_CORRUPT, reader->name, "broken TIFF data", err);
        for (uint32_t y = start < first_row ? first_row : start; y < start + rows && y <= last_row; y++)
            deliver(target, reader, reader->raster + (size_t)(y - start) * columns);
        if (start > UINT32_MAX - reader->band) break;
    }
    return CI_OK;
}

static void reader_close(tiff_reader *reader) {
    if (reader->image_begun) TIFFRGBAImageEnd(&reader->image);
    reader->image_begun = 0;
    if (reader->tif) TIFFClose(reader->tif);
    reader->tif = NULL;
    free(reader->raster);
    free(reader->icc);
    ci_colour_rows_close(reader->converter);
    memset(reader, 0, sizeof *reader);
}

// ---------------------------------------------------------------------------
// The loader

// TIFF has no reduced decode: its rows come at full size (of the level
// `choose` picked), and the driver halves them as they come.
typedef struct {
    tiff_reader reader;
} tiff_draw;

static void fill_header(const tiff_reader *reader, ci_header *header) {
    header->width = reader->width;
    header->height = reader->height;
    header->orientation = reader->facts.orientation;
    ci_oriented_size(header->orientation, reader->facts.width, reader->facts.height, &header->display_width,
                     &header->display_height);
    header->scales = CI_SCALES_HALVINGS;
    header->has_alpha = reader->facts.has_alpha;
    header->tag = reader_tag(reader);
    memcpy(header->date_taken, reader->facts.date_taken, sizeof header->date_taken);
}

static ci_status tiff_open(void *state, ci_source *source, const ci_draw_request *request, ci_header *header,
                           ci_error *err) {
    tiff_draw *draw = state;
    ci_status status = reader_open(&draw->reader, source, request->limits, err);
    if (status != CI_OK) return status;
    fill_header(&draw->reader, header);
    return CI_OK;
}

static void tiff_choose(void *state, uint32_t need_width, uint32_t need_height, ci_header *header) {
    tiff_draw *draw = state;
    choose_level(&draw->reader, need_width, need_height);
    header->width = draw->reader.width;
    header->height = draw->reader.height;
}

static ci_status tiff_start(void *state, ci_scale *scale, ci_header *header, uint32_t *width,
                            uint32_t *height, ci_image **whole, ci_error *err) {
    (void)header, (void)whole, (void)err;
    tiff_draw *draw = state;
    scale->eighths = 8;
    *width = draw->reader.width;
    *height = draw->reader.height;
    return CI_OK;
}

// Whether libtiff's reader can start a row at a column (col_offset): it
// steps col_offset x samples a pixel *bytes* into the strip or tile, which
// is right for 8-bit samples only. Packed samples (bilevel, 2- and 4-bit
// palettes, as ImageMagick writes a few-colour picture at any -depth) and
// 16-bit ones started that far in show other columns, and subsampled YCbCr
// (not JPEG's, which libjpeg turns into RGB) has no column of its own: all
// are read whole across.
static int crops_columns(const TIFFRGBAImage *image) {
    return image->bitspersample == 8 && image->photometric != PHOTOMETRIC_YCBCR;
}

static ci_status tiff_begin(void *state, ci_header *header, uint32_t *first_column, uint32_t *columns,
                            ci_error *err) {
    tiff_draw *draw = state;
    ci_status status = reader_begin(&draw->reader, draw->reader.width, err);
    if (status == CI_OK && !crops_columns(&draw->reader.image)) {
        *first_column = 0;
        *columns = draw->reader.width;
    }
    // Converted on the way in: nothing is left for the cell.
    if (status == CI_OK && draw->reader.converter) memset(&header->tag, 0, sizeof header->tag);
    return status;
}

static void to_sink(void *target, const tiff_reader *reader, const uint32_t *row) {
    const ci_row_sink *sink = target;
    uint8_t *slot = sink->slot(sink->target);
    row_out(reader, row, reader->columns, slot);
    sink->push(sink->target, slot);
}

static ci_status tiff_rows(void *state, uint32_t first_row, uint32_t last_row, uint32_t first_column,
                           uint32_t columns, const ci_row_sink *sink, ci_error *err) {
    tiff_draw *draw = state;
    return read_rows(&draw->reader, first_row, last_row, first_column, columns, to_sink, (void *)sink, err);
}

static void tiff_close(void *state) {
    tiff_draw *draw = state;
    reader_close(&draw->reader);
}

// ---------------------------------------------------------------------------
// The table's entry

// II*\0 (little-endian) or MM\0* (big-endian); BigTIFF's 43 too.
static int tiff_sniff(const uint8_t *data, size_t size) {
    if (size < 4) return 0;
    return (data[0] == 'I' && data[1] == 'I' && (data[2] == 42 || data[2] == 43) && data[3] == 0) ||
           (data[0] == 'M' && data[1] == 'M' && data[2] == 0 && (data[3] == 42 || data[3] == 43));
}

// "LIBTIFF, Version 4.5.0\nCopyright ...": its first line's version.
static void tiff_library(char *out, size_t size) {
    const char *text = TIFFGetVersion(), *version = text ? strstr(text, "Version ") : NULL;
    int length = 0;
    if (version) {
        version += 8;
        while (version[length] && version[length] != '\n') length++;
    }
    snprintf(out, size, "libtiff %.*s", length, version ? version : "");
}

const ci_loader ci_tiff_loader = {
    .format = CI_FORMAT_TIFF,
    .name = "TIFF",
    .title = "TIFF",
    .extensions = "tif tiff",
    .library = tiff_library,
    .smallest_scale = 8,
    .sniff = tiff_sniff,
    .complete = tiff_complete,
    .probe = tiff_probe_source,
    .state_size = sizeof(tiff_draw),
    .open = tiff_open,
    .choose = tiff_choose,
    .start = tiff_start,
    .begin = tiff_begin,
    .rows = tiff_rows,
    .close = tiff_close,
};
