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
    struct jpeg_progress_mgr progress;
    char reason[JMSG_LENGTH_MAX];
} jpeg_failure;

// Points libjpeg's error manager at ours (jpeg_load.c) and returns it.
struct jpeg_error_mgr *ci_jpeg_failure_init(jpeg_failure *failure);

#endif
