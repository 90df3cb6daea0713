#define _GNU_SOURCE
#include "collage_system.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int csys_open_tmpfile(const char *directory, unsigned int mode) {
    return open(directory, O_TMPFILE | O_WRONLY | O_CLOEXEC, (mode_t)mode);
}

int csys_link_fd(int fd, const char *path) {
    // linkat(AT_EMPTY_PATH) needs a capability; the /proc link does not.
    char source[64];
    snprintf(source, sizeof source, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, source, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}
