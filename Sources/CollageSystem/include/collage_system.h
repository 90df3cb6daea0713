// collage_system.h — the Linux calls Swift's Glibc module does not import
// (O_TMPFILE is a compound macro), wrapped as plain functions.
#ifndef COLLAGE_SYSTEM_H
#define COLLAGE_SYSTEM_H

// Opens an unnamed file in `directory` for writing (O_TMPFILE): it has no
// name until csys_link_fd gives it one, so no reader ever sees it half
// written and a crash leaves nothing behind. Returns -1 with errno set
// (EOPNOTSUPP, EISDIR or EINVAL where the file system lacks O_TMPFILE).
int csys_open_tmpfile(const char *directory, unsigned int mode);

// Gives the unnamed file `fd` the name `path`; fails with EEXIST if the
// name is taken (link never replaces a file).
int csys_link_fd(int fd, const char *path);

#endif
