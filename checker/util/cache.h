/*
 * cache.h: a persistent map from a file's identity to a value computed
 * from it (its SHA-256, a library's reported versions), so that a
 * re-capture of an unchanged machine recomputes nothing.
 *
 * The identity is (device, inode, size, mtime ns, ctime ns) plus a "kind"
 * naming what the value is.  Any change to the file changes its ctime, so
 * a changed file always misses.  Entries for files modified too recently
 * to be told apart from a later change within the same timestamp tick are
 * not stored (git's "racily clean" rule).
 *
 * Not thread-safe: look up and store from one thread.
 */
#ifndef EP_CACHE_H
#define EP_CACHE_H

#include <sys/stat.h>

#include "errors.h"

struct ep_cache;

/* Load the cache file at path.  A missing, unreadable or corrupt file is
 * an empty cache (never an error): the cache only ever saves time.
 * (path NULL: a cache in memory only, which ep_cache_save never writes.)
 * The caller owns the result and frees it with ep_cache_free(). */
struct ep_cache *ep_cache_open(const char *path);

/* The value stored for (kind, st), borrowed from the cache, or NULL. */
const char *ep_cache_get(struct ep_cache *c, const char *kind,
    const struct stat *st);

/* Store value for (kind, st); ignored when st is too recent to trust
 * (mtime or ctime within 2 seconds of now).  kind is one word without
 * white space ("sha256"; "end" is reserved); value is any string of at
 * most 16 KiB, copied.  A new value for the same kind, device and inode
 * replaces the old one.  Invalid kinds and longer values are ignored. */
void ep_cache_put(struct ep_cache *c, const char *kind,
    const struct stat *st, const char *value);

/* Write the cache back atomically if it changed, creating its directory
 * then (EP_E_IO on failure; callers usually turn that into a warning).
 * Beyond 100,000 entries the oldest stored are dropped. */
int ep_cache_save(struct ep_cache *c, struct ep_err *err);

void ep_cache_free(struct ep_cache *c);	/* accepts NULL */

#endif
