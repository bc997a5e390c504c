/*
 * files.h: reading files safely (whole, within a size cap, only regular
 * files on a real file system, never blocking), a file's identity, paths
 * and folders.  files.c implements it.
 */
#ifndef EP_FILES_H
#define EP_FILES_H

#include <stddef.h>
#include <sys/types.h>

#include "errors.h"

/* Read a whole regular file of at most max bytes into a NUL-terminated
 * buffer (*out, *len) owned by the caller.  A larger file, a directory or
 * an unreadable path is an EP_E_INPUT error naming the path. */
int ep_read_file(char **out, size_t *len, const char *path, size_t max,
    struct ep_err *err);

/* The same from an open descriptor; path names it in messages. */
int ep_read_fd(char **out, size_t *len, int fd, const char *path,
    size_t max, struct ep_err *err);

struct stat;

/* Open path for reading only if it is a regular file on a real file
 * system: never blocking (O_NONBLOCK stays set), never a controlling
 * terminal, and not a FIFO, device, directory, or a file of /proc, /sys
 * and the like, whose "regular" files are not files (reading /proc/kmsg
 * blocks, and as root consumes the kernel's log).  Returns the
 * descriptor with *st filled, or -1 with err (EP_E_INPUT) naming path. */
int ep_open_regular(const char *path, struct stat *st, struct ep_err *err);

/* "a directory", "a FIFO", "a character device", ... for messages. */
const char *ep_mode_kind(mode_t m);

/* ep_read_file for a file found rather than named, such as what a
 * checkout, a site-packages or a cache holds: only a regular file on a
 * real file system (ep_open_regular), so a FIFO or /proc/kmsg planted
 * there cannot hang the run. */
int ep_read_regular(char **out, size_t *len, const char *path, size_t max,
    struct ep_err *err);

/* The pseudo file system fd is on ("proc", "sysfs", ...), or NULL. */
const char *ep_fd_pseudo_fs(int fd);

/* The identity of the file at path, as text ("dev:ino:size:mtime:ctime",
 * nanoseconds included), for cached values that depend on more files than
 * the one they are keyed on; "-" when the file cannot be stat'd.  A new
 * string. */
char *ep_file_identity(const char *path);

/* The directory part of path as a new string: "." when it has no '/',
 * "/" for a file in the root. */
char *ep_path_dir(const char *path);

/* mkdir -p with mode 0755 (or mode, less the umask, for each directory
 * it makes); EP_E_IO on failure. */
int ep_mkdirs(const char *path, struct ep_err *err);
int ep_mkdirs_mode(const char *path, mode_t mode, struct ep_err *err);

#endif
