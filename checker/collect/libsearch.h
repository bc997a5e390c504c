/*
 * libsearch.h: find a shared library the way a user's program would, by
 * looking through an ordered list of places (directories and the dynamic
 * loader's cache), and read /etc/ld.so.cache, without loading anything.
 *
 * Nothing here calls dlopen: finding a library must stay cheap and safe,
 * because loading one runs its constructors (dynload.h does that, in a
 * child process).
 */
#ifndef EP_LIBSEARCH_H
#define EP_LIBSEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "errors.h"
#include "strv.h"

/* Where glibc's loader keeps its cache. */
#define EP_LDCACHE_PATH	"/etc/ld.so.cache"

/* One entry of the loader's cache: a soname and the file it maps to. */
struct ep_ldcache_entry {
	const char *key;	/* "libcudnn.so.9", borrowed from the cache */
	const char *value;	/* "/usr/lib/x86_64-linux-gnu/libcudnn.so.9" */
	int32_t flags;		/* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64, ... */
	uint64_t hwcap;
};

struct ep_ldcache {
	struct ep_ldcache_entry *v;
	size_t n;
	char *data;		/* the file's bytes; entries point into it */
};

/* Parse the "glibc-ld.so.cache1.1" format (also when it follows the old
 * "ld.so-1.7.0" table, as glibc before 2.32 wrote it).  buf is copied;
 * name says where it came from, for errors.  A cache in the old format
 * only, a truncated one, or any offset or count that points outside the
 * buffer is an EP_E_INPUT error naming the input; out is then empty. */
int ep_ldcache_parse(struct ep_ldcache *out, const void *buf, size_t len,
    const char *name, struct ep_err *err);

/* Read and parse the cache at path (normally "/etc/ld.so.cache"). */
int ep_ldcache_load(struct ep_ldcache *out, const char *path,
    struct ep_err *err);

void ep_ldcache_clear(struct ep_ldcache *c);

/* 1 if an entry's flags say it is for this process's ABI (a 64-bit x86
 * program cannot use the i386 libraries the cache also lists). */
int ep_ldcache_entry_usable(const struct ep_ldcache_entry *e);

/* Where a library may be looked for, in order. */
enum ep_libsrc_kind {
	EP_LIBSRC_DIR,
	EP_LIBSRC_LDCACHE,
};

struct ep_libsrc {
	int kind;		/* enum ep_libsrc_kind */
	char *dir;		/* EP_LIBSRC_DIR: the directory */
	const char *origin;	/* "--lib-path", "LD_LIBRARY_PATH", ... */
	struct ep_strv names;	/* the directory's entries, read once */
	int listed;		/* names has been read */
};

struct ep_libsearch {
	struct ep_libsrc *src;
	size_t n, cap;
	struct ep_ldcache cache;
	char *cache_path;	/* NULL until a cache source is added */
	int cache_state;	/* 0 not read, 1 parsed, -1 unusable */
	char *cache_error;	/* why the cache was unusable, or NULL */
};

/* Add a directory (copied; an empty string or a duplicate is ignored). */
void ep_libsearch_add_dir(struct ep_libsearch *s, const char *dir,
    const char *origin);

/* Add every absolute directory of a colon-separated list such as
 * LD_LIBRARY_PATH (NULL is fine); relative and empty elements, which name
 * the current directory (in CI the checkout), are skipped. */
void ep_libsearch_add_pathlist(struct ep_libsearch *s, const char *list,
    const char *origin);

/* Add the loader's cache file; it is read on first use.  An unreadable or
 * malformed cache is skipped (cache_error says why), never an error. */
void ep_libsearch_add_ldcache(struct ep_libsearch *s, const char *path);

/* Add site/nvidia/<x>/lib for every <x>, in name order: where NVIDIA's
 * wheels (and PyTorch's dependencies) install the CUDA libraries.  One
 * that resolves outside site (a link) is left out, and so is a library
 * there whose real file is in another folder. */
void ep_libsearch_add_site(struct ep_libsearch *s, const char *site);

void ep_libsearch_clear(struct ep_libsearch *s);

/* A library found. */
struct ep_libfound {
	char *path;		/* as found, e.g. DIR/libcudnn.so.9 */
	char *real;		/* realpath(path): the file that would load */
	const char *origin;	/* borrowed from the source */
};

void ep_libfound_clear(struct ep_libfound *f);

/* Find lib<stem>.so.<N>[.<M>...]: the first source, in order, that has
 * one wins; within a source the highest version wins, and on a tie the
 * shortest name (the soname the loader asks for).  Only when no source
 * has a versioned file is a plain lib<stem>.so taken.  Files in a
 * directory named "stubs" (or resolving into one) and names that do not
 * resolve to a regular file are skipped.  Returns 1 and fills *out (owned
 * by the caller) when found, 0 when not. */
int ep_libsearch_find(struct ep_libfound *out, struct ep_libsearch *s,
    const char *stem);

/* Find a file by its exact name (a soname such as "libnvidia-ml.so.1"),
 * with the same order and stub rule.  Returns 1 when found, 0 when not. */
int ep_libsearch_find_exact(struct ep_libfound *out, struct ep_libsearch *s,
    const char *name);

/* Whether name matches lib<stem>.so.<N>[.<M>...]; when it does and nums
 * is not NULL, the version numbers go to nums[0..max) and their count
 * (up to max) to *count.  Returns 1 for a match, 0 otherwise. */
int ep_libsearch_match(const char *name, const char *stem, unsigned *nums,
    size_t max, size_t *count);

/* 1 if some component of path is "stubs". */
int ep_libsearch_in_stubs(const char *path);

#endif
