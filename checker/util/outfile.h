/*
 * outfile.h: the one rule for every file envparity writes (manifests,
 * reports, cache entries; attestations later).
 *
 *  - "-" (and "/dev/stdout", "/dev/stderr"), where the caller allows it,
 *    is written through to that stream;
 *  - an absent path or a regular file is replaced atomically: a new file
 *    beside it (O_EXCL, never through a link), written, fsync'ed, renamed
 *    over the path, and the directory fsync'ed;
 *  - a symbolic link at the path is never followed and never replaced:
 *    refused (another user's link in /tmp, or one a pull request
 *    committed, must not aim envparity at a file of its choosing); a
 *    relative path is not written through a folder that is a link either
 *    (the current directory is the checkout); an absolute one is the
 *    user's to name;
 *  - the null device (character device 1:3, /dev/null, whatever its
 *    name) is written through, as "-" is to standard output: opened
 *    without following a link, checked again once open, never
 *    replaced, renamed over or synced;
 *  - a directory, any other device, a FIFO or a socket is refused:
 *    renaming over a device as root would replace it, and opening one
 *    may act (a watchdog) or writing it destroy (memory, a disk); a FIFO
 *    would block until a reader comes;
 *  - a file protected with ep_out_protect (the signing key) is refused,
 *    whatever the path names it by: the same path, another one through a
 *    link to its folder, or a hard link (the same device and inode).
 * Refusals are EP_E_INPUT (exit 2); a write that fails (no directory, a
 * full disk, no permission) is EP_E_IO (exit 3) and leaves the path as
 * it was and no temporary file.  New files get mode 0644 (0600 with
 * EP_OUT_PRIVATE), less the umask; a replaced file keeps its mode, never
 * wider than that.
 */
#ifndef EP_OUTFILE_H
#define EP_OUTFILE_H

#include <stddef.h>

#include "errors.h"

struct stat;

#define EP_OUT_STDOUT	0x1	/* "-", /dev/stdout, /dev/stderr allowed */
#define EP_OUT_PRIVATE	0x2	/* 0600: store data, the cache */
#define EP_OUT_NOSYNC	0x4	/* no fsync: entries checked when read */

/* From now on, for the rest of the run, the file st describes is no
 * output: every output path that leads to it (ep_out_check, ep_out_write)
 * is refused with EP_E_INPUT, "PATH: refused: that is WHAT; no output
 * ever replaces it", before anything is written.  what names the file
 * ("the signing key (--sign-key key.pem)"; copied).  A process-wide rule,
 * set before the outputs are checked: a key must survive a mistyped
 * --json as surely as a device survives --json /dev/null. */
void ep_out_protect(const struct stat *st, const char *what);

/* Where the protected file st describes lies: path, a name of it (made
 * absolute and resolved here; "/proc/self/fd/N" for a descriptor), so
 * that ep_out_protected_within can tell a folder that holds it.  A path
 * that cannot be resolved adds nothing (the file itself stays known by
 * st). */
void ep_out_protect_path(const struct stat *st, const char *path);

/* The what of a protected file that st (a folder, or a file) is, or
 * holds beneath it by the name ep_out_protect_path resolved; NULL when
 * none.  A helper's Landlock rules never take such a tree (childland.c).
 * Borrowed. */
const char *ep_out_protected_within(const struct stat *st);

/* 0 when st is no protected file; else -1 with err as above, naming
 * path.  For a writer that opens its file itself (a report appended to). */
int ep_out_protected(const struct stat *st, const char *path,
    struct ep_err *err);

/* 1 (standard output), 2 (standard error) when path names a stream and
 * flags allow it, else 0. */
int ep_out_stream(const char *path, int flags);

/* Whether path can take an output under the rule above, without writing
 * anything: commands check their output paths before doing the work. */
int ep_out_check(const char *path, int flags, struct ep_err *err);

/* Write len bytes of data to path under the rule above. */
int ep_out_write(const char *path, const void *data, size_t len, int flags,
    struct ep_err *err);

/* 1 when a and b (both accepted by ep_out_check) name the same output:
 * the same stream, the same file, or the same name in the same
 * directory; never for the null device, which takes any number. */
int ep_out_same(const char *a, const char *b, int flags);

/* Write data to path atomically under the rule above (a regular file
 * or a new path is replaced by a rename; the null device is written
 * through; a link, another device, a FIFO or a directory is refused with
 * EP_E_INPUT); on any failure path is
 * untouched, no temporary file is left, and err names the path. */
int ep_write_atomic(const char *path, const void *data, size_t len,
    struct ep_err *err);

/* The same, mode 0600 and without the fsync, for cache entries that are
 * checked when read (hashed against their name): a crash may lose one,
 * and a reader then discards it, so durability is not worth a disk flush
 * per entry. */
int ep_write_cache(const char *path, const void *data, size_t len,
    struct ep_err *err);

#endif
