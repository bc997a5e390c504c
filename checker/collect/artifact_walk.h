/*
 * artifact_walk.h: the walk of a directory artifact (artifact_walk.c),
 * private to collect_artifact.c.
 */
#ifndef EP_ARTIFACT_WALK_H
#define EP_ARTIFACT_WALK_H

#include <sys/stat.h>

#include "errors.h"
#include "strv.h"

/*
 * The files of the directory arg (st its stat(2)), depth first, each
 * directory's entries in byte order.  On success names[i] is a file's
 * "./REL" and paths[i] what to hash for it (DIR/REL, or the real path a
 * link inside was checked to reach, so that the hasher follows no
 * link); both are the caller's, emptied with ep_strv_clear.  At most
 * max files and max directories.  A refused entry (a link that is
 * absolute, leaves, dangles or loops; more than 40 links on the way to
 * an entry; a tree more than 1024 directories deep; a FIFO, device or
 * socket), a directory that cannot be listed and a limit passed fail
 * with EP_E_INPUT, one message naming arg and the entry; names and paths
 * are then left untouched.
 */
int ep_artifact_walk(struct ep_strv *names, struct ep_strv *paths,
    const char *arg, const struct stat *st, size_t max, struct ep_err *err);

#endif
