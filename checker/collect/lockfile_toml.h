/*
 * lockfile_toml.h: the TOML syntax under poetry.lock and uv.lock, shared by
 * lockfile_tomlsyn.c (reading it: blanks, comments, strings, keys, values)
 * and lockfile_toml.c (the [[package]] tables kept from it).  Private to
 * those two files.
 *
 * Every function that can fail returns -1 with t->err set to
 * "NAME:LINE: problem" (ep_toml_fail), 0 otherwise.
 */
#ifndef EP_LOCKFILE_TOML_H
#define EP_LOCKFILE_TOML_H

#include "lockfile.h"

/* A document being read: t->p moves from the start to t->end. */
struct ep_toml {
	const char *p, *end;
	unsigned line;
	const char *name;
	struct ep_err *err;
	int nul;		/* the last string read holds a NUL */
	int root;		/* no table header yet */
};

int ep_toml_fail(struct ep_toml *t, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* 1 if the next byte is c. */
int ep_toml_at(const struct ep_toml *t, char c);

/* Blanks (space and tab) on this line. */
void ep_toml_blank(struct ep_toml *t);

/* Blanks, comments and line ends: between top-level lines and inside
 * arrays and inline tables. */
int ep_toml_space(struct ep_toml *t);

/* What may follow a header or a key/value pair on its line: blanks, a
 * comment, the line end. */
int ep_toml_eol(struct ep_toml *t);

/* A key, dotted or not; its segments go to segs.  A quoted segment holding
 * a NUL is marked (a 0x7f byte first) so that it equals no key a caller
 * looks for: "name\u0000x" is not name. */
int ep_toml_key(struct ep_toml *t, struct ep_strv *segs);

/* Any value: a string's decoded value goes to *str when str is not NULL
 * (t->nul says whether it holds a NUL); *flag is set when the value is an
 * inline table with one of keys (a NULL-terminated list) as a key.
 * depth counts the arrays and inline tables around it. */
int ep_toml_value(struct ep_toml *t, char **str, const char *const *keys,
    int *flag, int depth);

/* KEY = VALUE: the key's segments into segs, the value as ep_toml_value
 * reads it. */
int ep_toml_pair(struct ep_toml *t, struct ep_strv *segs, char **str,
    const char *const *keys, int *flag);

/* poetry 2's per-group markers = { main = "A", dev = "B" }, the value
 * text [v, e) (already read as TOML): "(A) or (B)", a new string; NULL
 * when it is no such table or a group has no marker (the package applies
 * everywhere for that group). */
char *ep_toml_markers_or(const char *v, const char *e);

/* A poetry.lock dependency's value text [v, e) (already read as TOML):
 * "*", { version = ..., markers = "M", optional = true }, or an array of
 * such tables (one per constraint).  *marker: a new string, M (several
 * joined as "(M1) or (M2)"), or NULL when it holds everywhere (a string,
 * or a constraint without a marker); *optional: 1 when every constraint
 * is optional (only an extra asks for it).  -1 when it is none of these
 * (then *marker is NULL). */
int ep_toml_edge(char **marker, int *optional, const char *v,
    const char *e);

/* The whole of [t->p, t->end) is UTF-8, as TOML requires. */
int ep_toml_utf8(struct ep_toml *t);

#endif
