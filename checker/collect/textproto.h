/*
 * textproto.h: a reader for the protobuf text format (Triton's
 * config.pbtxt, TF Serving's model config and batching parameters),
 * written to protobuf.dev's "Text Format Language Specification" without
 * a schema: it yields a tree of fields, each a scalar or a message, in
 * the order written.  What the specification refuses is refused here,
 * with the line; nothing is returned for a file that is not read whole.
 *
 * Without a schema some choices the specification leaves to the field's
 * type are made by the text itself: after a name and an optional ':', a
 * '{' or '<' opens a message, a '[' a list (its first element says of
 * what), anything else is a scalar, which must follow a ':'.  Integers
 * (decimal, octal 0..., hex 0x...; a '-' before them is a token of its
 * own) are kept as their decimal value and must fit in 64 bits; floats are
 * kept as written; identifiers (enum values, true, false, inf, nan) as
 * written; strings unescaped (adjacent strings joined).  Extension and
 * Any names ("[ext.name]", "[type.googleapis.com/...]") are refused: no
 * serving configuration uses them.  Messages nest at most 100 deep, as
 * protobuf's own parsers allow.
 *
 * Nothing here touches the file system; errors are EP_E_INPUT with the
 * message "NAME:LINE: problem", NAME being what the caller passed.  A
 * message names fields, never quotes a value (a configuration may hold a
 * secret).
 */
#ifndef EP_TEXTPROTO_H
#define EP_TEXTPROTO_H

#include <stddef.h>

#include "errors.h"

#define EP_TP_DEPTH_MAX	100

enum ep_tp_kind {
	EP_TP_MSG,		/* a nested message: msg */
	EP_TP_STR,		/* a string: value, len (may hold NUL) */
	EP_TP_INT,		/* an integer, in decimal ("-5", "64") */
	EP_TP_FLOAT,		/* a float as written ("0.5", "-1e3f") */
	EP_TP_IDENT,		/* an identifier ("KIND_GPU", "true", "-inf") */
};

struct ep_tp_msg;

struct ep_tp_field {
	char *name;
	enum ep_tp_kind kind;
	char *value;		/* scalars: NUL-terminated, len bytes */
	size_t len;
	struct ep_tp_msg *msg;	/* EP_TP_MSG */
	unsigned line;		/* where the value starts */
	int listed;		/* written inside "[...]" */
};

/* The fields of one message, in the order written; a repeated field is
 * one entry per value (of a list too), under the same name. */
struct ep_tp_msg {
	struct ep_tp_field *v;
	size_t n, cap;
};

/* Parse text[0..len) (need not be NUL-terminated).  On success *out is a
 * new tree the caller frees with ep_textproto_free.  On failure *out is
 * NULL and err holds "name:LINE: problem" (EP_E_INPUT): a syntax error, a
 * NUL byte or invalid UTF-8 outside an escape, an integer beyond 64 bits,
 * an unknown escape, a nesting deeper than EP_TP_DEPTH_MAX. */
int ep_textproto_parse(struct ep_tp_msg **out, const char *text, size_t len,
    const char *name, struct ep_err *err);

/* Frees m and everything in it; NULL is fine. */
void ep_textproto_free(struct ep_tp_msg *m);

/* The first field called name in m, or NULL; borrowed. */
const struct ep_tp_field *ep_textproto_get(const struct ep_tp_msg *m,
    const char *name);

#endif
