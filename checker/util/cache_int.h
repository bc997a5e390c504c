/*
 * cache_int.h: what cache.c (the map: memory, look-ups, load and save)
 * and cache_line.c (the file's text: one entry line read and written, the
 * checksum of the body) share.  Internal to those two files and to the
 * fuzz harness, which writes files that pass the integrity check.
 */
#ifndef EP_CACHE_INT_H
#define EP_CACHE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "cache.h"

struct ep_cache_entry {
	uint64_t dev, ino;
	int64_t size, msec, csec;
	int32_t mnsec, cnsec;
	char *kind;		/* into the file buffer, or owned */
	char *value;		/* likewise */
	uint32_t khash;		/* of kind */
	uint8_t live;		/* 0 once replaced by a later entry */
	uint8_t owned;		/* kind and value were allocated by a put */
};

/* A growing text: the file as it is written. */
struct ep_cache_buf {
	char *p;
	size_t n, cap;
};

/* splitmix64's finalizer: every input bit moves every output bit (the
 * checksum's last step, and the map's slot hash). */
uint64_t ep_cache_mix64(uint64_t x);

/* The checksum the trailer holds, of the len bytes between header and
 * trailer. */
uint64_t ep_cache_checksum(const char *p, size_t len);

/* A kind is one word (no white space or control character), not "end",
 * which would read as the trailer. */
int ep_cache_kind_valid(const char *kind);
uint32_t ep_cache_kind_hash(const char *kind);

/* Parse one entry line (NUL-terminated in place of its newline) into *e;
 * kind and value are cut and unescaped where they lie.  -1 if it is not
 * one. */
int ep_cache_line_parse(struct ep_cache_entry *e, char *p);

/* Append len bytes of s to b; append e as one line, "\\" and "\n"
 * escaped in its value. */
void ep_cache_buf_add(struct ep_cache_buf *b, const char *s, size_t len);
void ep_cache_line_write(struct ep_cache_buf *b,
    const struct ep_cache_entry *e);

#endif
