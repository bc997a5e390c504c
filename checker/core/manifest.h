/*
 * manifest.h: a manifest is a sorted map of facts (dotted key -> string
 * value) plus "meta" (who captured it, when, and what could not be looked
 * at), serialized as {"schema": "envparity/manifest@1", "meta": {...},
 * "facts": {...}} with sorted keys and a two-space indent, so that a
 * blessed manifest diffs cleanly in git.
 *
 * jansson ownership, stated once for the project: json_object_set_new()
 * and json_array_append_new() steal the reference they are given;
 * json_object_get() and json_array_get() borrow.  A json_t returned by an
 * ep_* function through an out-parameter belongs to the caller.
 */
#ifndef EP_MANIFEST_H
#define EP_MANIFEST_H

#include <jansson.h>

#include "errors.h"

#define EP_MANIFEST_SCHEMA "envparity/manifest@1"

/* meta.warnings holds at most this many, each cut to this many bytes,
 * then one "and N more warnings not recorded". */
#define EP_WARNINGS_MAX		200
#define EP_WARNING_BYTES	2048

struct ep_manifest {
	json_t *root;		/* owns facts and meta */
	json_t *facts;		/* borrowed from root */
	json_t *meta;		/* borrowed from root */
	size_t warnings_dropped;	/* past EP_WARNINGS_MAX */
};

struct ep_manifest *ep_manifest_new(void);
void ep_manifest_free(struct ep_manifest *m);	/* accepts NULL */

/* Set a fact.  Bytes that are not valid UTF-8 become U+FFFD; a later set
 * of the same key replaces the value. */
void ep_manifest_set(struct ep_manifest *m, const char *key,
    const char *value);
void ep_manifest_setf(struct ep_manifest *m, const char *key,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The value of a fact, borrowed from m, or NULL. */
const char *ep_manifest_get(const struct ep_manifest *m, const char *key);

/* Append a warning to meta.warnings (capture went on): URLs' userinfo
 * scrubbed, cut to EP_WARNING_BYTES, and past EP_WARNINGS_MAX counted in
 * one final "and N more" entry instead. */
void ep_manifest_warn(struct ep_manifest *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* meta.unavailable.<area> = reason: an area that could not be looked at.
 * The first reason given for an area is kept. */
void ep_manifest_unavailable(struct ep_manifest *m, const char *area,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Set meta.<key> to a string. */
void ep_manifest_meta_set(struct ep_manifest *m, const char *key,
    const char *value);

/* Serialize: sorted keys, two-space indent, trailing newline, and made
 * safe to show in a CI log (ep_json_clean: the same JSON value).  *out is
 * a new string owned by the caller. */
int ep_manifest_dump(char **out, const struct ep_manifest *m,
    struct ep_err *err);

/* Serialize and write to path under outfile.h's rule ("-" is standard
 * output; a link, device or directory is refused with EP_E_INPUT; a
 * failed write is EP_E_IO). */
int ep_manifest_write(const struct ep_manifest *m, const char *path,
    struct ep_err *err);

/* Parse a manifest from text (name says where it came from, for errors).
 * Unknown schema versions, non-object facts and non-string fact values
 * are EP_E_INPUT errors naming the input and the key. */
int ep_manifest_parse(struct ep_manifest **out, const char *text, size_t len,
    const char *name, struct ep_err *err);
int ep_manifest_load(struct ep_manifest **out, const char *path,
    struct ep_err *err);

/* The canonical digest of m's facts, the same for the same facts whatever
 * the host, the time or the meta: lowercase hex SHA-256 of the facts
 * object as `jq -cjS .facts` prints it (keys in byte order, no white
 * space, UTF-8 as it is; escaped: '"' and '\\' with a backslash,
 * \b \f \n \r \t, every other byte below 0x20 and 0x7f as \u00xx in
 * lowercase hex; nothing else), so that anyone recomputes it with
 * `jq -cjS .facts MANIFEST | sha256sum`.  hex holds 64 digits and a
 * NUL (EP_SHA256_HEX). */
void ep_manifest_facts_sha256(char hex[65], const struct ep_manifest *m);

/* How many of m's fact keys the glob (keyglob.h) matches: 0 tells a
 * waiver or a rule that names no fact of m (a typo, most often).  No
 * failure. */
size_t ep_manifest_matching(const struct ep_manifest *m, const char *glob);

/* "jansson 2.14", for `envparity version`. */
const char *ep_manifest_library_version(void);

#endif
