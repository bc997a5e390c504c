/*
 * hash.h: SHA-256 of files and buffers through OpenSSL's EVP interface.
 * The only module that includes OpenSSL headers.
 */
#ifndef EP_HASH_H
#define EP_HASH_H

#include <stddef.h>

#include "cache.h"
#include "errors.h"

#define EP_SHA256_HEX 65	/* 64 hex digits and a NUL */

/* One file to hash; filled in by ep_hash_files(). */
struct ep_hash_job {
	const char *path;		/* in: borrowed */
	char hex[EP_SHA256_HEX];	/* out: lowercase hex, "" on failure */
	char *error;			/* out: owned message naming the path,
					   NULL on success */
	int cached;			/* out: 1 if the cache answered */
};

struct ep_hash_stats {
	size_t files;		/* jobs given */
	size_t cached;		/* answered by the cache */
	unsigned long long bytes;	/* bytes read and hashed */
};

/* Hash every job: cache lookups first (cache may be NULL), then the misses
 * on nthreads workers (0 = the online CPU count), largest files first so
 * that the workers finish together.  A job that fails (unreadable, not a
 * regular file) gets an error and the others go on; the call itself only
 * fails if it cannot start.  The job's error is freed by
 * ep_hash_jobs_clear().
 *
 * Paths are followed (stat, then open): callers name and resolve them.
 * Jobs that reach one file (same device and inode) read it once;
 * stats->bytes counts the bytes actually read.  A hash is stored in the
 * cache (kind "sha256") only if the file looked the same before and after
 * it was read.  A job's error reads "PATH: reason" ("PATH: not a regular
 * file" for a directory, fifo or device, which are never opened for
 * reading). */
int ep_hash_files(struct ep_hash_job *jobs, size_t n, struct ep_cache *cache,
    unsigned nthreads, struct ep_hash_stats *stats, struct ep_err *err);
void ep_hash_jobs_clear(struct ep_hash_job *jobs, size_t n);

/* SHA-256 of one file (no cache). */
int ep_hash_file(char hex[EP_SHA256_HEX], const char *path,
    struct ep_err *err);

/* SHA-256 of a buffer. */
void ep_hash_buf(char hex[EP_SHA256_HEX], const void *data, size_t len);

/* "OpenSSL 3.0.x ..." for `envparity version`. */
const char *ep_hash_library_version(void);

#endif
