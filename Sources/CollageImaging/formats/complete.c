// complete.c — is a photo file whole? A cheap structural walk, for `add`:
// the reader each format's walk (its loader's `complete`) goes through.
//
// A file cut short (a copy interrupted, a download stopped) probes fine, since
// its header is intact, and only fails when the collage is saved. These walks
// find the end marker the way a decoder would, without decoding: PNG chunks
// and GIF blocks are skipped by their lengths. They stop at the end marker,
// so data appended after it is never read. A few milliseconds for a
// 12-megapixel photo in the page cache. Written by hand because libpng and
// giflib offer no such check short of decoding every pixel; each walk is in
// its loader's file. JPEG has none that refuses: a JPEG cut short is drawn
// as far as it goes (issue #32). Its walk (jpeg_load.c) only tells whether
// the file is plainly whole, so that `add` draws small only the JPEGs whose
// draw has something to say that a walk can see (issue #42).
#include "../internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// A forward reader over fd with one buffer.
struct ci_walker {
    int fd;
    size_t filled, at;
    int eof, error;
    uint8_t buffer[65536];
};
typedef ci_walker walker;

static int fill(walker *w) {
    if (w->at < w->filled) return 1;
    if (w->eof) return 0;
    w->filled = ci_read_up_to(w->fd, w->buffer, sizeof w->buffer, &w->error);
    w->at = 0;
    if (w->filled < sizeof w->buffer) w->eof = 1;
    return w->filled > 0;
}

int ci_walk_byte(walker *w, uint8_t *byte) {
    if (!fill(w)) return 0;
    *byte = w->buffer[w->at++];
    return 1;
}

int ci_walk_skip(walker *w, uint64_t count) {
    while (count > 0) {
        if (!fill(w)) return 0;
        size_t here = w->filled - w->at;
        if (here > count) here = (size_t)count;
        w->at += here;
        count -= here;
    }
    return 1;
}

int ci_walk_find_ff(walker *w) {
    for (;;) {
        if (!fill(w)) return 0;
        uint8_t *found = memchr(w->buffer + w->at, 0xFF, w->filled - w->at);
        if (found) {
            w->at = (size_t)(found - w->buffer) + 1;
            return 1;
        }
        w->at = w->filled;
    }
}

ci_status ci_cut_short(const char *name, const char *what, ci_error *err) {
    return ci_fail(err, CI_ERR_CORRUPT, "%s: the file is cut short (%s)", name, what);
}

ci_status ci_walk_file(int fd, ci_status (*walk)(ci_walker *walker, const char *name, ci_error *err),
                       const char *name, ci_error *err) {
    walker *w = malloc(sizeof *w);
    if (!w) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory", name);
    memset(w, 0, offsetof(walker, buffer));  // every field but the buffer
    w->fd = fd;
    ci_status status = walk(w, name, err);
    if (status == CI_ERR_CORRUPT && w->error)
        status = ci_fail(err, CI_ERR_OPEN, "%s: %s", name, strerror(w->error));
    free(w);
    return status;
}
