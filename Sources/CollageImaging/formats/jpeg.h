// jpeg.h — what JPEG's loader and saver share: libjpeg's fatal errors,
// turned into a longjmp back to the call that started the work, and its
// message kept for ours.
#ifndef COLLAGE_IMAGING_JPEG_H
#define COLLAGE_IMAGING_JPEG_H

#include <setjmp.h>
#include <stdio.h>  // jpeglib.h needs FILE and size_t declared first

#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr pub;  // first, so libjpeg's pointer is also ours
    jmp_buf jump;
    int truncated;              // the data ended before the header did
    int eof_is_warning;         // past the header: data that ends early is drawn as far as it goes
    int too_many_scans;         // see limit_scans
    // A file cut short past its header (on_emit_message): where its data ran out.
    int eof_seen;               // the data ended (a file cut short, or one missing only its end marker)
    int ran_dry;                // ...while the picture still needed some: rows (or scans) are missing
    int hit_end;                // a Huffman decoder reached the end it was given
    int dry_scan;               // the scan being read then (1: the first)
    JDIMENSION dry_row;         // the row of blocks (iMCU row) being read then
    struct jpeg_progress_mgr progress;
    char reason[JMSG_LENGTH_MAX];
} jpeg_failure;

// Points libjpeg's error manager at ours (jpeg_load.c) and returns it.
struct jpeg_error_mgr *ci_jpeg_failure_init(jpeg_failure *failure);

#endif
