/*
 * imgtar.h: a small reader for the tar files `docker save` and `skopeo
 * copy ... docker-archive:` write (ustar, GNU long names, pax path and
 * size).  One pass over the headers records where each regular file's
 * bytes lie; a member is read later with pread, so layers are skipped,
 * never read into memory.
 */
#ifndef EP_IMGTAR_H
#define EP_IMGTAR_H

#include <stddef.h>
#include <sys/types.h>

#include "errors.h"

struct ep_tar {
	int fd;
	char *path;			/* for messages */
	size_t n;
	struct ep_tar_member {		/* sorted by name */
		char *name;		/* "./" removed */
		off_t off, size;
	} *v;
};

/* Open path and index its members.  Errors (EP_E_INPUT, the message
 * names path): not readable, a bad header checksum, truncated (a member
 * or the end-of-archive blocks missing), an absolute member name or one
 * with a ".." component, the same regular file twice.  Only regular
 * files are indexed; links and directories are skipped. */
int ep_tar_open(struct ep_tar *t, const char *path, struct ep_err *err);
void ep_tar_close(struct ep_tar *t);

/* The member called name ("./" prefixes ignored), or NULL; a binary
 * search. */
const struct ep_tar_member *ep_tar_find(const struct ep_tar *t,
    const char *name);

/* Read member name (at most max bytes) into a new NUL-terminated buffer
 * (*out, *len, owned by the caller).  Missing, larger than max, or a read
 * error: EP_E_INPUT naming the archive and the member. */
int ep_tar_read(const struct ep_tar *t, const char *name, size_t max,
    char **out, size_t *len, struct ep_err *err);

#endif
