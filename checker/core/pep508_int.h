/*
 * pep508_int.h: what the parts of the PEP 508 reader share, private to
 * them: pep508.c (requirements) uses pep508_marker.c (markers), which
 * uses pep508_tok.c (tokens, quoted strings), which uses pep508_spec.c
 * (version specifiers, names, and the helpers all of them use).
 */
#ifndef EP_PEP508_INT_H
#define EP_PEP508_INT_H

#include <stddef.h>

#include "pep508.h"
#include "vercmp.h"
#include "verrange.h"

enum { OP_LT, OP_LE, OP_EQ, OP_NE, OP_GE, OP_GT, OP_COMPAT, OP_ARB, OP_IN,
    OP_NOTIN };
extern const char *const pep508_op_text[];

struct spec {
	int op;
	char *ver;
};

struct ep_specset {
	struct spec *v;
	size_t n;
	struct ep_verrange *range;	/* every clause but ===; or NULL */
	char *str;			/* str(SpecifierSet) */
};

struct tok {
	const char *s;
	size_t pos, len;
	int depth;
	struct ep_err *err;
};

/* pep508_spec.c: specifiers (and the small helpers every part uses) */
/* c in ASCII lower case, whatever the locale. */
int pep508_lower(int c);
/* a then b, a new string: the specifiers are joined often enough that
 * printf's cost shows. */
char *pep508_cat(const char *a, const char *b);
int pep508_is_sep(int c);
/* 1 if cand is in the one specifier op ver (a version variable of a
 * marker against its string): "===" compares text without regard to
 * case, the others need a PEP 440 version. */
int pep508_spec1_contains(const struct spec *k, const char *cand);
/*
 * The length of packaging's specifier pattern matched at s (NUL-ended),
 * 0 when it does not match: "===" and anything up to a blank, ';' or
 * ')'; "==" and "!=" with a version, a local label or ".*"; "~=" with a
 * release of two or more parts; "<", "<=", ">", ">=" without either.
 * Blanks may follow the operator.
 */
size_t pep508_spec_len(const char *s);
/* Specifier(text) as packaging reads it: the whole (blanks around it
 * aside) must match the pattern; then the operator and the version.
 * 0, or -1 when text is not one. */
int pep508_spec_read(struct spec *out, const char *text);
void pep508_specset_free(struct ep_specset *s);
/* SpecifierSet(text): comma-separated, blanks and empty parts dropped,
 * each a specifier; sorted by their text, the equal ones once, and
 * written back as packaging does. */
int pep508_specset_parse(struct ep_specset **out, const char *text,
    struct ep_err *err);

/* pep508_tok.c: the tokenizer and marker strings */
int pep508_at(const struct tok *t, char c);
/* IDENTIFIER: \b[a-zA-Z0-9][a-zA-Z0-9._-]*\b, the longest that ends on
 * a boundary; its length, or 0. */
size_t pep508_identifier(const struct tok *t);
/* \bword\b at the position: its length, or 0. */
size_t pep508_keyword(const struct tok *t, const char *word);
int pep508_syntax(struct tok *t, const char *expected);
/*
 * The body of a quoted string, as ast.literal_eval reads a Python string
 * literal: the escapes \\ \' \" \a \b \f \n \r \t \v \ooo \xhh \uhhhh
 * \Uhhhhhhhh and a backslash before a line end (which drops both); any
 * other backslash stays as written.  A raw line end, a backslash that
 * would escape the closing quote, a short or out-of-range escape, \N{...}
 * and a NUL character are refused.  A new string, or NULL.
 */
char *pep508_unquote(const char *b, size_t n);
/* WS: [ \t]+ (packaging's blank between tokens: no newline). */
size_t pep508_ws(struct tok *t);

/* pep508_marker.c: markers */
/* _format_marker: parts into o, a nested list in parentheses. */
void pep508_format_marker(struct ep_strv *o, const struct ep_marker *m,
    int first);
/* A marker read at t (after a requirement's ';'), a new one, or NULL
 * with t->err set. */
struct ep_marker *pep508_marker_read(struct tok *t);
char *pep508_strv_join(const struct ep_strv *sv);

#endif
