// common.c — errors, safe file reading and allocation limits, shared by
// the loaders and the driver; the libraries opened on first use.
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

ci_status ci_fail(ci_error *err, ci_status status, const char *format, ...) {
    if (err) {
        err->status = status;
        va_list args;
        va_start(args, format);
        vsnprintf(err->message, sizeof err->message, format, args);
        va_end(args);
        // Messages are one line: a decoder's text must not break it.
        for (char *c = err->message; *c; c++)
            if (*c == '\n' || *c == '\r') *c = ' ';
    }
    return status;
}

ci_status ci_open_file(const char *path, int *fd_out, size_t *size_out, ci_error *err) {
    *fd_out = -1;
    *size_out = 0;
    // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return ci_fail(err, CI_ERR_OPEN, "%s: %s", path, strerror(errno));

    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return ci_fail(err, CI_ERR_OPEN, "%s: %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return ci_fail(err, CI_ERR_OPEN, "%s: is a folder, not a photo", path);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return ci_fail(err, CI_ERR_OPEN, "%s: is not a regular file", path);
    }
    if (st.st_size == 0) {
        close(fd);
        return ci_fail(err, CI_ERR_NOT_IMAGE, "%s: is empty", path);
    }
    if ((uint64_t)st.st_size > CI_MAX_FILE_BYTES) {
        close(fd);
        return ci_fail(err, CI_ERR_TOO_LARGE, "%s: file is larger than %zu bytes", path,
                       (size_t)CI_MAX_FILE_BYTES);
    }
    *fd_out = fd;
    *size_out = (size_t)st.st_size;
    return CI_OK;
}

size_t ci_read_up_to(int fd, uint8_t *buffer, size_t capacity, int *error) {
    size_t filled = 0;
    *error = 0;
    while (filled < capacity) {
        ssize_t n = read(fd, buffer + filled, capacity - filled);
        if (n < 0) {
            if (errno == EINTR) continue;
            *error = errno;
            break;
        }
        if (n == 0) break;  // the end (or the file shrank while we read it)
        filled += (size_t)n;
    }
    return filled;
}

ci_status ci_read_file(const char *path, uint8_t **data, size_t *size, ci_error *err) {
    *data = NULL;
    *size = 0;
    int fd;
    size_t capacity;
    ci_status status = ci_open_file(path, &fd, &capacity, err);
    if (status != CI_OK) return status;

    uint8_t *buffer = malloc(capacity);
    if (!buffer) {
        close(fd);
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory reading %zu bytes", path, capacity);
    }
    int error;
    size_t filled = ci_read_up_to(fd, buffer, capacity, &error);
    close(fd);
    if (error) {
        free(buffer);
        return ci_fail(err, CI_ERR_OPEN, "%s: %s", path, strerror(error));
    }
    // A file that shrank while we read it: decode what is there.
    if (filled == 0) {
        free(buffer);
        return ci_fail(err, CI_ERR_NOT_IMAGE, "%s: is empty", path);
    }
    *data = buffer;
    *size = filled;
    return CI_OK;
}

uint64_t ci_max_pixels(const ci_limits *limits) {
    return (limits && limits->max_pixels) ? limits->max_pixels : CI_DEFAULT_MAX_PIXELS;
}

void ci_describe_pixels(uint64_t pixels, uint64_t limit, char *pixels_text, char *limit_text, size_t size) {
    if (!pixels_text || !limit_text || size == 0) return;
    // Under a megapixel, megapixels would read "0.0": count pixels.
    if (limit < 1000000) {
        snprintf(pixels_text, size, "%llu pixels", (unsigned long long)pixels);
        snprintf(limit_text, size, "%llu pixels", (unsigned long long)limit);
        return;
    }
    // Megapixels with the fewest decimals (at least one) that tell the two
    // apart: "100.0 over the limit of 100.0" said nothing; 6 decimals are exact.
    for (int decimals = 1; decimals <= 6; decimals++) {
        snprintf(pixels_text, size, "%.*f megapixels", decimals, pixels / 1e6);
        snprintf(limit_text, size, "%.*f megapixels", decimals, limit / 1e6);
        if (strcmp(pixels_text, limit_text) != 0) return;
    }
}

ci_status ci_check_pixels(uint32_t width, uint32_t height, const ci_limits *limits,
                          const char *name, ci_error *err) {
    if (width == 0 || height == 0)
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: invalid image size %ux%u", name, width, height);
    uint64_t pixels = (uint64_t)width * height;
    uint64_t limit = ci_max_pixels(limits);
    if (pixels > limit) {
        char pixels_text[48], limit_text[48];
        ci_describe_pixels(pixels, limit, pixels_text, limit_text, sizeof pixels_text);
        return ci_fail(err, CI_ERR_TOO_LARGE, "%s: %ux%u is %s, over the limit of %s", name, width,
                       height, pixels_text, limit_text);
    }
    return CI_OK;
}

ci_status ci_image_alloc(ci_image *image, uint32_t width, uint32_t height, int channels,
                         const ci_limits *limits, const char *name, ci_error *err) {
    memset(image, 0, sizeof *image);
    if (width == 0 || height == 0 || (channels != 1 && channels != 3 && channels != 4))
        return ci_fail(err, CI_ERR_INVALID_ARGUMENT, "%s: invalid image size %ux%u", name, width, height);
    ci_status status = ci_check_pixels(width, height, limits, name, err);
    if (status != CI_OK) return status;
    uint64_t stride = (uint64_t)width * (uint64_t)channels;
    uint64_t bytes = stride * height;
    if (bytes > SIZE_MAX) return ci_fail(err, CI_ERR_TOO_LARGE, "%s: image too large", name);
    image->pixels = malloc((size_t)bytes);
    if (!image->pixels)
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory for a %ux%u image", name, width, height);
    image->width = width;
    image->height = height;
    image->stride = (size_t)stride;
    image->channels = channels;
    return CI_OK;
}

void ci_image_free(ci_image *image) {
    if (!image) return;
    free(image->pixels);
    memset(image, 0, sizeof *image);
}

void ci_buffer_free(uint8_t *buffer) { free(buffer); }

int ci_growing_append(ci_growing_buffer *buffer, const void *bytes, size_t size) {
    if (size > SIZE_MAX - buffer->size) return 0;
    if (buffer->size + size > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 64 * 1024;
        while (capacity < buffer->size + size) capacity = capacity > SIZE_MAX / 2 ? SIZE_MAX : capacity * 2;
        uint8_t *grown = realloc(buffer->data, capacity);
        if (!grown) return 0;
        buffer->data = grown;
        buffer->capacity = capacity;
    }
    if (size) memcpy(buffer->data + buffer->size, bytes, size);
    buffer->size += size;
    return 1;
}

void ci_oriented_size(int orientation, uint32_t width, uint32_t height,
                      uint32_t *out_width, uint32_t *out_height) {
    // Orientations 5-8 transpose the image.
    int transposed = orientation >= 5 && orientation <= 8;
    *out_width = transposed ? height : width;
    *out_height = transposed ? width : height;
}

ci_status ci_open_prefix(const char *path, int *fd_out, size_t *file_size_out, uint8_t **buffer_out,
                         size_t *capacity_out, size_t *filled_out, ci_error *err) {
    *fd_out = -1;
    *file_size_out = 0;
    *buffer_out = NULL;
    *capacity_out = 0;
    *filled_out = 0;
    int fd;
    size_t file_size;
    ci_status status = ci_open_file(path, &fd, &file_size, err);
    if (status != CI_OK) return status;
    size_t capacity = file_size < CI_READ_BUFFER_BYTES ? (file_size < 16 ? 16 : file_size)
                                                       : CI_READ_BUFFER_BYTES;
    uint8_t *buffer = malloc(capacity);
    if (!buffer) {
        close(fd);
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory reading the file", path);
    }
    int error;
    size_t filled = ci_read_up_to(fd, buffer, capacity, &error);
    if (error || filled == 0) {
        free(buffer);
        close(fd);
        return error ? ci_fail(err, CI_ERR_OPEN, "%s: %s", path, strerror(error))
                     : ci_fail(err, CI_ERR_NOT_IMAGE, "%s: is empty", path);
    }
    *fd_out = fd;
    *file_size_out = file_size;
    *buffer_out = buffer;
    *capacity_out = capacity;
    *filled_out = filled;
    return CI_OK;
}

ci_status ci_read_rest(int fd, uint8_t **buffer, size_t *filled, size_t file_size,
                       const char *path, ci_error *err) {
    uint8_t *whole = realloc(*buffer, file_size);
    if (!whole)
        return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory reading %zu bytes", path, file_size);
    *buffer = whole;
    int error;
    *filled += ci_read_up_to(fd, whole + *filled, file_size - *filled, &error);
    if (error) return ci_fail(err, CI_ERR_OPEN, "%s: %s", path, strerror(error));
    return CI_OK;
}

ci_source ci_source_memory(const uint8_t *data, size_t size, const char *name) {
    ci_source source;
    memset(&source, 0, sizeof source);
    source.name = name;
    source.fd = -1;
    source.file_size = size;
    // Never written through: a memory source is complete, so nothing grows it.
    source.buffer = (uint8_t *)data;
    source.capacity = source.filled = size;
    return source;
}

ci_status ci_source_read_all(ci_source *source, ci_error *err) {
    if (source->fd < 0 || source->filled >= source->file_size) return CI_OK;
    ci_status status = ci_read_rest(source->fd, &source->buffer, &source->filled,
                                    source->file_size, source->name, err);
    if (source->buffer && status == CI_OK) source->capacity = source->file_size;
    return status;
}

// dlopen with RTLD_NODELETE loads a library once, on first use; each call
// still opens and closes its own reference, so no state of ours outlives
// the call (the loader keeps the library).
const char *ci_libraries_open(const ci_library *libraries, size_t count) {
    for (size_t i = 0; i < count; i++) *libraries[i].handle = NULL;
    for (size_t i = 0; i < count; i++) {
        *libraries[i].handle = dlopen(libraries[i].soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (!*libraries[i].handle) {
            ci_libraries_close(libraries, i);
            return libraries[i].soname;
        }
    }
    return NULL;
}

void ci_libraries_close(const ci_library *libraries, size_t count) {
    for (size_t i = count; i-- > 0;) {
        if (*libraries[i].handle) dlclose(*libraries[i].handle);
        *libraries[i].handle = NULL;
    }
}

void *ci_library_symbol(void *handle, const char *symbol) {
    return dlsym(handle, symbol);
}
