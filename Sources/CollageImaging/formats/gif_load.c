// gif_load.c — GIF through giflib: the loader (GIF is only read).
//
// What is drawn is what a browser shows before the animation starts: the
// first frame, placed on the logical screen (grown to hold the frame when
// the frame reaches past it, as browsers do), with its transparent colour
// and the screen it does not cover as alpha, which the driver blends over
// the background as it does PNG's. The file's background colour index is ignored (browsers ignore it
// too). An animated GIF is a photo of its first frame, like any animation
// the engine reads; the later frames are never read. Local and global colour tables,
// interlaced frames; an index past the colour table is black (giflib does
// not check it). GIF carries no orientation and no colour profile.
//
// What stricter readers refuse and others show is shown (issue #32):
//  - a GIF with no colour table at all (the spec leaves its colours to the
//    reader) is drawn in a grey ramp, black to white, of as many entries as
//    its screen descriptor states: a two-entry picture in black and white;
//  - bytes that begin no block (not an extension, image or trailer) before
//    the first image are skipped, as ImageMagick skips them, looking for
//    the next block;
//  - a first frame whose data ends early (its LZW codes stop, or the file
//    does, before every row) is drawn as far as it goes, the rest of it
//    transparent, as browsers draw a GIF still loading;
//  - a frame whose LZW minimum code size is 9 to 11 (giflib stops at 8, the
//    most a 256-colour table needs; Pillow's issue_2811.gif says 11) is
//    decoded here (lzw_line), codes up to 12 bits as for any GIF, as
//    browsers and Pillow decode it (issue #42).
//
// giflib reads through our callback over the ci_source (the first bytes
// already read, then the open file), so only the first frame is read and
// the file is never held whole. Its reentrant API keeps every state in the
// GifFileType (no globals, errors through the int it returns). There is no
// reduced decode (LZW has none): the frame is decoded whole, as a PNG is,
// and handed to the driver as one image. The pixel limit is checked on the
// screen and the frame's sizes, both in the file's first bytes, before
// anything their size depends on is allocated.
#include "../internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>

// A GIF being read: giflib's handle over the source, and the first frame's
// header once frame_header has read it.
typedef struct {
    ci_source *source;
    size_t at;              // the next byte of source->buffer; past `filled`, the fd
    int read_error;         // errno of a failed read
    GifFileType *gif;
    int transparent;        // the first frame's transparent index, or NO_TRANSPARENT_COLOR
    int screen_entries;     // the colour table size the screen descriptor states (with or without one)
    uint32_t width, height; // the screen, grown to hold the frame
    int cut_short;          // the first frame's data ended before its last row
    uint32_t rows_reached;  // then, of a frame stored in order: the screen's rows above where it ended
    // The last read giflib asked for: how many bytes, how many came, the
    // last of them (the frame's LZW code size, when giflib refuses it).
    int last_wanted, last_got;
    uint8_t last_byte;
    int wide_codes;         // the frame's LZW code size when giflib refused it (9 to 11), else 0
} gif_reader;

static int read_source(GifFileType *gif, GifByteType *bytes, int count) {
    gif_reader *reader = gif->UserData;
    ci_source *source = reader->source;
    if (count <= 0) return 0;
    size_t wanted = (size_t)count, got = 0;
    if (reader->at < source->filled) {
        got = source->filled - reader->at;
        if (got > wanted) got = wanted;
        memcpy(bytes, source->buffer + reader->at, got);
        reader->at += got;
    }
    if (got < wanted && source->fd >= 0) {
        int error = 0;
        got += ci_read_up_to(source->fd, bytes + got, wanted - got, &error);
        if (error) reader->read_error = error;
    }
    reader->last_wanted = count;
    reader->last_got = (int)got;
    if (got > 0) reader->last_byte = bytes[got - 1];
    return (int)got;
}

// giflib's error code as our one-line refusal.
static ci_status gif_failure(const gif_reader *reader, int code, const char *name, ci_error *err) {
    if (reader->read_error) return ci_fail(err, CI_ERR_OPEN, "%s: %s", name, strerror(reader->read_error));
    switch (code) {
    case D_GIF_ERR_NOT_ENOUGH_MEM: return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory", name);
    case D_GIF_ERR_NOT_GIF_FILE: return ci_fail_not_image(name, err);
    // giflib says "failed to read" for a file that ends early.
    case D_GIF_ERR_READ_FAILED:
    case D_GIF_ERR_EOF_TOO_SOON: return ci_cut_short(name, "the first frame is incomplete", err);
    default: {
        const char *text = GifErrorString(code);
        return ci_fail(err, CI_ERR_CORRUPT, "%s: broken GIF data (%s)", name, text ? text : "unknown error");
    }
    }
}

static void reader_close(gif_reader *reader) {
    if (reader->gif) {
        int ignored;
        DGifCloseFile(reader->gif, &ignored);
    }
    reader->gif = NULL;
}

// Opens the GIF and reads up to the first frame's descriptor: its
// transparent colour (the graphic control extension before it) and the
// size it is drawn at, checked against the pixel limit. Allocates nothing
// that size decides.
static ci_status reader_open(gif_reader *reader, ci_source *source, const ci_limits *limits, ci_error *err) {
    memset(reader, 0, sizeof *reader);
    reader->source = source;
    reader->transparent = NO_TRANSPARENT_COLOR;
    const char *name = source->name;
    int code = 0;
    reader->gif = DGifOpen(reader, read_source, &code);
    if (!reader->gif) return gif_failure(reader, code, name, err);
    GifFileType *gif = reader->gif;
    // The screen descriptor's flags (byte 10) state the table's size even
    // when their top bit says there is none; giflib keeps it only with one.
    reader->screen_entries = source->filled > 10 ? 2 << (source->buffer[10] & 7) : 256;
    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(gif, &type) != GIF_OK) {
            // A byte that begins no block: giflib has read past it.
            if (gif->Error == D_GIF_ERR_WRONG_RECORD && !reader->read_error) continue;
            return gif_failure(reader, gif->Error, name, err);
        }
        if (type == TERMINATE_RECORD_TYPE) return ci_fail(err, CI_ERR_CORRUPT, "%s: the GIF has no image", name);
        if (type == IMAGE_DESC_RECORD_TYPE) break;
        int function;
        GifByteType *block;
        if (DGifGetExtension(gif, &function, &block) != GIF_OK) return gif_failure(reader, gif->Error, name, err);
        if (function == GRAPHICS_EXT_FUNC_CODE && block) {
            GraphicsControlBlock control;
            if (DGifExtensionToGCB(block[0], block + 1, &control) == GIF_OK)
                reader->transparent = control.TransparentColor;
        }
        while (block)
            if (DGifGetExtensionNext(gif, &block) != GIF_OK) return gif_failure(reader, gif->Error, name, err);
    }
    if (DGifGetImageDesc(gif) != GIF_OK) {
        // giflib has read the descriptor, any colour table and the LZW code
        // size (one byte) when it refuses a size over 8: sizes to 11 are
        // decoded here; its data follows, for lzw_line.
        int code_size = reader->last_byte;
        int read_code_size = gif->Error == D_GIF_ERR_READ_FAILED && !reader->read_error && reader->last_wanted == 1 &&
                             reader->last_got == 1;
        if (!read_code_size || code_size <= 8) return gif_failure(reader, gif->Error, name, err);
        if (code_size > 11)
            return ci_fail(err, CI_ERR_CORRUPT, "%s: broken GIF data (an LZW code size of %d, over 11)", name, code_size);
        reader->wide_codes = code_size;
    }
    const GifImageDesc *frame = &gif->Image;
    if (frame->Width <= 0 || frame->Height <= 0 || frame->Left < 0 || frame->Top < 0)
        return ci_fail(err, CI_ERR_CORRUPT, "%s: the first frame has no pixels", name);
    uint32_t right = (uint32_t)frame->Left + (uint32_t)frame->Width;
    uint32_t bottom = (uint32_t)frame->Top + (uint32_t)frame->Height;
    reader->width = gif->SWidth > 0 && (uint32_t)gif->SWidth > right ? (uint32_t)gif->SWidth : right;
    reader->height = gif->SHeight > 0 && (uint32_t)gif->SHeight > bottom ? (uint32_t)gif->SHeight : bottom;
    return ci_check_pixels(reader->width, reader->height, limits, name, err);
}

// Whether anything of the first frame is transparent: its transparent
// colour, or the screen it does not cover.
static int reader_has_alpha(const gif_reader *reader) {
    const GifImageDesc *frame = &reader->gif->Image;
    return reader->transparent != NO_TRANSPARENT_COLOR || frame->Left > 0 || frame->Top > 0 ||
           (uint32_t)frame->Width < reader->width || (uint32_t)frame->Height < reader->height;
}

// The colours of a GIF with no colour table: a grey ramp of the entries its
// screen descriptor states (2 to 256).
static void grey_ramp(int entries, GifColorType ramp[256]) {
    for (int i = 0; i < entries; i++) {
        GifByteType grey = (GifByteType)((i * 255 + (entries - 1) / 2) / (entries - 1));
        ramp[i] = (GifColorType){grey, grey, grey};
    }
}

// ---------------------------------------------------------------------------
// LZW for code sizes giflib refuses (9 to 11): GIF's variant (codes read
// least significant bit first from a chain of sub-blocks, a clear code and an
// end code after the roots, the code width growing to 12 bits), one line of
// indices at a time.

enum { LZW_CODES = 4096 };

typedef struct {
    gif_reader *reader;
    uint8_t block[255];
    int block_size, block_at;
    int data_ended;          // the terminator (or the file's end) was read
    uint32_t bits;           // bits read and not used, the oldest lowest
    int bit_count;
    int clear, size, next, old, first;
    uint16_t prefix[LZW_CODES];
    uint16_t suffix[LZW_CODES];  // indices to 2047: past the colour table, black
    uint16_t stack[LZW_CODES];   // a code's indices, last first
    int stacked;
    int done;                // the end code was read, or the data ended
} lzw_state;

static void lzw_begin(lzw_state *z, gif_reader *reader) {
    memset(z, 0, sizeof *z);
    z->reader = reader;
    z->clear = 1 << reader->wide_codes;
    z->size = reader->wide_codes + 1;
    z->next = z->clear + 2;
    z->old = -1;
}

// The next byte of the sub-blocks; 0 when they (or the file) end.
static int lzw_byte(lzw_state *z, uint8_t *out) {
    if (z->block_at == z->block_size) {
        uint8_t size = 0;
        if (z->data_ended || read_source(z->reader->gif, &size, 1) != 1 || size == 0) {
            z->data_ended = 1;
            return 0;
        }
        z->block_size = read_source(z->reader->gif, z->block, size);
        z->block_at = 0;
        if (z->block_size < size) z->data_ended = 1;  // the file ends inside the block
        if (z->block_size == 0) return 0;
    }
    *out = z->block[z->block_at++];
    return 1;
}

// The next code, or -1 when the data ends first.
static int lzw_code(lzw_state *z) {
    while (z->bit_count < z->size) {
        uint8_t byte;
        if (!lzw_byte(z, &byte)) return -1;
        z->bits |= (uint32_t)byte << z->bit_count;
        z->bit_count += 8;
    }
    int code = (int)(z->bits & ((1u << z->size) - 1));
    z->bits >>= z->size;
    z->bit_count -= z->size;
    return code;
}

// Pushes the indices of the next code onto the stack; 0 at the end of the
// data (its end code, its end, or a code that cannot be: the rest is not drawn).
static int lzw_decode(lzw_state *z) {
    for (;;) {
        int code = lzw_code(z);
        if (code < 0 || code == z->clear + 1) return 0;
        if (code == z->clear) {
            z->size = z->reader->wide_codes + 1;
            z->next = z->clear + 2;
            z->old = -1;
            continue;
        }
        if (z->old < 0) {
            if (code > z->clear) return 0;
            z->stack[z->stacked++] = (uint16_t)code;  // a root: the index itself
            z->old = z->first = code;
            return 1;
        }
        int in = code;
        if (code > z->next || (code == z->next && z->next >= LZW_CODES)) return 0;
        if (code == z->next) {  // the code being defined: the last string and its first index
            z->stack[z->stacked++] = (uint16_t)z->first;
            code = z->old;
        }
        while (code > z->clear) {
            if (z->stacked >= LZW_CODES) return 0;
            z->stack[z->stacked++] = z->suffix[code];
            code = z->prefix[code];
        }
        if (z->stacked >= LZW_CODES) return 0;
        z->first = code;
        z->stack[z->stacked++] = (uint16_t)code;
        if (z->next < LZW_CODES) {
            z->prefix[z->next] = (uint16_t)z->old;
            z->suffix[z->next] = (uint16_t)z->first;
            z->next++;
            if (z->next == 1 << z->size && z->size < 12) z->size++;
        }
        z->old = in;
        return 1;
    }
}

// One line of `width` indices; 0 when the data ends before it is whole.
static int lzw_line(lzw_state *z, uint16_t *line, int width) {
    for (int x = 0; x < width; x++) {
        if (z->stacked == 0 && (z->done || !lzw_decode(z))) {
            z->done = 1;
            return 0;
        }
        line[x] = z->stack[--z->stacked];
    }
    return 1;
}

// The first frame into `image` (reader->width x height, RGBA), what is
// transparent as transparent black. Rows the frame's data stops before
// stay transparent (reader->cut_short says so).
static ci_status reader_pixels(gif_reader *reader, ci_image *image, ci_error *err) {
    GifFileType *gif = reader->gif;
    const GifImageDesc *frame = &gif->Image;
    const ColorMapObject *map = frame->ColorMap ? frame->ColorMap : gif->SColorMap;
    GifColorType ramp[256];
    const GifColorType *colours = map ? map->Colors : ramp;
    const int colour_count = map ? map->ColorCount : reader->screen_entries;
    if (!map) grey_ramp(colour_count, ramp);
    const char *name = reader->source->name;
    for (uint32_t y = 0; y < image->height; y++) memset(image->pixels + (size_t)y * image->stride, 0, (size_t)image->width * 4);
    // Indices as giflib gives them (8 bits), widened, or as lzw_line gives them.
    GifPixelType *bytes = malloc((size_t)frame->Width);
    uint16_t *line = malloc((size_t)frame->Width * sizeof *line);
    lzw_state *lzw = reader->wide_codes ? malloc(sizeof *lzw) : NULL;
    if (!bytes || !line || (reader->wide_codes && !lzw)) {
        free(bytes);
        free(line);
        free(lzw);
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory", name);
    }
    if (lzw) lzw_begin(lzw, reader);
    // Interlaced frames store every 8th row from 0, every 8th from 4, every
    // 4th from 2, then every 2nd from 1.
    static const int first[4] = {0, 4, 2, 1}, step[4] = {8, 8, 4, 2};
    int passes = frame->Interlace ? 4 : 1;
    ci_status status = CI_OK;
    for (int pass = 0; pass < passes && status == CI_OK; pass++) {
        int y = frame->Interlace ? first[pass] : 0, dy = frame->Interlace ? step[pass] : 1;
        for (; y < frame->Height; y += dy) {
            int whole = lzw ? lzw_line(lzw, line, frame->Width) : DGifGetLine(gif, bytes, frame->Width) == GIF_OK;
            if (whole && !lzw)
                for (int x = 0; x < frame->Width; x++) line[x] = bytes[x];
            if (!whole) {
                // Data that ends early: what came is drawn. A read that
                // failed is the file's failure.
                if (reader->read_error) status = gif_failure(reader, gif->Error, name, err);
                reader->cut_short = 1;
                reader->rows_reached = (uint32_t)(frame->Top + y);
                passes = 0;
                break;
            }
            uint8_t *out = image->pixels + (size_t)(frame->Top + y) * image->stride + (size_t)frame->Left * 4;
            for (int x = 0; x < frame->Width; x++, out += 4) {
                if (line[x] == reader->transparent) continue;
                static const GifColorType black = {0, 0, 0};
                const GifColorType *colour = line[x] < colour_count ? &colours[line[x]] : &black;
                out[0] = colour->Red;
                out[1] = colour->Green;
                out[2] = colour->Blue;
                out[3] = 255;
            }
        }
    }
    free(bytes);
    free(line);
    free(lzw);
    return status;
}

// ---------------------------------------------------------------------------
// Probe

static ci_status gif_probe(ci_source *source, ci_photo_info *info, ci_error *err) {
    memset(info, 0, sizeof *info);
    // Probing allocates nothing the size decides: no limit yet (the draw's).
    ci_limits unlimited = {UINT64_MAX};
    gif_reader reader;
    ci_status status = reader_open(&reader, source, &unlimited, err);
    if (status == CI_OK) {
        info->format = CI_FORMAT_GIF;
        info->width = info->display_width = reader.width;
        info->height = info->display_height = reader.height;
        info->orientation = 1;
        info->has_alpha = reader_has_alpha(&reader);
    }
    reader_close(&reader);
    return status;
}

// ---------------------------------------------------------------------------
// The loader: the first frame decoded whole, handed to the driver as one
// image (GIF has no reduced decode and no orientation), RGBA.

typedef struct {
    const ci_draw_request *request;
    gif_reader reader;
    ci_image photo;
    int cut_short;
    int interlaced;         // cut short, an interlaced frame has rows missing all the way down
    double drawn_share;     // cut short in order: the share of the screen's rows reached, from the top
} gif_draw;

static ci_status gif_open(void *state, ci_source *source, const ci_draw_request *request, ci_header *header,
                          ci_error *err) {
    gif_draw *draw = state;
    draw->request = request;
    ci_status status = reader_open(&draw->reader, source, request->limits, err);
    if (status != CI_OK) return status;
    header->width = header->display_width = draw->reader.width;
    header->height = header->display_height = draw->reader.height;
    header->orientation = 1;
    header->scales = CI_SCALES_FULL;
    return CI_OK;
}

static ci_status gif_start(void *state, ci_scale *scale, ci_header *header, uint32_t *width,
                           uint32_t *height, ci_image **whole, ci_error *err) {
    gif_draw *draw = state;
    gif_reader *reader = &draw->reader;
    ci_status status = ci_image_alloc(&draw->photo, reader->width, reader->height, 4, draw->request->limits,
                                      reader->source->name, err);
    if (status == CI_OK) status = reader_pixels(reader, &draw->photo, err);
    header->has_alpha = reader_has_alpha(reader) || reader->cut_short;
    draw->cut_short = reader->cut_short;
    draw->interlaced = reader->gif->Image.Interlace;
    draw->drawn_share = reader->height ? (double)reader->rows_reached / reader->height : 0;
    reader_close(reader);
    if (status != CI_OK) return status;
    *width = draw->photo.width;
    *height = draw->photo.height;
    *whole = &draw->photo;
    return CI_OK;
}

// A first frame cut short is drawn as far as it goes, and said at add and
// save as a JPEG cut short is: how much of it came (issue #42: it was said
// as corrupt data). An interlaced frame cut short has rows missing all the
// way down (every eighth, then every fourth...): that is said as corrupt
// data, parts missing, since no share from the top describes it.
static int gif_corrupt_data(const void *state) { return ((const gif_draw *)state)->cut_short; }

static ci_cut gif_cut_short(const void *state, double *drawn_share) {
    const gif_draw *draw = state;
    *drawn_share = draw->drawn_share;
    return draw->cut_short && !draw->interlaced ? CI_CUT_ROWS_EMPTY : CI_CUT_NONE;
}

static void gif_close(void *state) {
    gif_draw *draw = state;
    reader_close(&draw->reader);
    ci_image_free(&draw->photo);
}

// ---------------------------------------------------------------------------
// Is the file whole? The blocks walked to the trailer (0x3B): the screen
// descriptor and its colour table, then extensions and images, each a chain
// of length-prefixed sub-blocks ending in an empty one. Every frame is
// walked, so a GIF cut in a later frame is refused too, as a viewer playing
// it would find. A file that ends inside the first frame's data is not
// refused: it is drawn as far as its data goes, and said to be cut short
// with how much came (issue #42: other readers draw it).

static int skip_sub_blocks(ci_walker *w) {
    for (;;) {
        uint8_t length;
        if (!ci_walk_byte(w, &length)) return 0;
        if (length == 0) return 1;
        if (!ci_walk_skip(w, length)) return 0;
    }
}

// A colour table of 2^(n+1) entries follows when the flags' top bit is set.
static int skip_colour_table(ci_walker *w, uint8_t flags) {
    return !(flags & 0x80) || ci_walk_skip(w, 3u << ((flags & 7) + 1));
}

static ci_status gif_walk(ci_walker *w, const char *name, ci_error *err) {
    int frames = 0;
    uint8_t screen[13];  // signature and logical screen descriptor
    for (int i = 0; i < 13; i++)
        if (!ci_walk_byte(w, &screen[i])) return ci_cut_short(name, "no trailer", err);
    if (!skip_colour_table(w, screen[10])) return ci_cut_short(name, "no trailer", err);
    for (;;) {
        uint8_t kind;
        if (!ci_walk_byte(w, &kind)) return ci_cut_short(name, "no trailer", err);
        if (kind == 0x3B) return CI_OK;
        if (kind == 0x21) {  // an extension: its label, then sub-blocks
            if (!ci_walk_skip(w, 1) || !skip_sub_blocks(w)) return ci_cut_short(name, "no trailer", err);
        } else if (kind == 0x2C) {  // an image: descriptor, colour table, LZW code size, sub-blocks
            uint8_t descriptor[9];
            for (int i = 0; i < 9; i++)
                if (!ci_walk_byte(w, &descriptor[i])) return ci_cut_short(name, "no trailer", err);
            if (!skip_colour_table(w, descriptor[8]) || !ci_walk_skip(w, 1))
                return ci_cut_short(name, "no trailer", err);
            if (!skip_sub_blocks(w)) return frames == 0 ? CI_OK : ci_cut_short(name, "no trailer", err);
            frames++;
        }
        // Any other byte begins no block: skipped, as the decode skips it.
    }
}

static ci_status gif_complete(int fd, const char *name, ci_error *err) {
    return ci_walk_file(fd, gif_walk, name, err);
}

// giflib has no run-time version function: its headers' version (Debian's
// libgif7 is giflib 5).
static void gif_library(char *out, size_t size) {
    snprintf(out, size, "giflib %d.%d.%d", GIFLIB_MAJOR, GIFLIB_MINOR, GIFLIB_RELEASE);
}

static int gif_sniff(const uint8_t *data, size_t size) {
    return size >= 6 && (memcmp(data, "GIF87a", 6) == 0 || memcmp(data, "GIF89a", 6) == 0);
}

const ci_loader ci_gif_loader = {
    .format = CI_FORMAT_GIF,
    .name = "GIF",
    .title = "GIF",
    .extensions = "gif",
    .library = gif_library,
    .smallest_scale = 8,
    .sniff = gif_sniff,
    .complete = gif_complete,
    .probe = gif_probe,
    .state_size = sizeof(gif_draw),
    .open = gif_open,
    .start = gif_start,
    .corrupt_data = gif_corrupt_data,
    .cut_short = gif_cut_short,
    .close = gif_close,
};
