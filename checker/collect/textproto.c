/*
 * textproto.c: the protobuf text format without a schema (textproto.h):
 * a recursive descent over the specification's grammar, on the tokens
 * of textproto_lex.c:
 *
 *   Message      = { Field } ;
 *   Field        = IDENT [ ":" ] ( MessageValue | MessageList ) [ ";" | "," ]
 *                | IDENT ":" ( ScalarValue | ScalarList ) [ ";" | "," ] ;
 *   MessageValue = "{" Message "}" | "<" Message ">" ;
 *   MessageList  = "[" [ MessageValue { "," MessageValue } ] "]" ;
 *   ScalarList   = "[" [ ScalarValue { "," ScalarValue } ] "]" ;
 *   ScalarValue  = STRING { STRING } | [ "-" ] ( FLOAT | INTEGER )
 *                | IDENT | "-" ( "inf" | "infinity" | "nan" ) ;
 *
 * "- 2" is a negative two: '-' is a token, and white space or a comment
 * may follow it.  The recursion is bounded by EP_TP_DEPTH_MAX.
 */
#include "textproto_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "xalloc.h"

static struct ep_tp_field *
add_field(struct ep_tp_msg *m, const char *name, unsigned line, int listed)
{
	struct ep_tp_field *f;

	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 8;
		m->v = xreallocarray(m->v, m->cap, sizeof *m->v);
	}
	f = &m->v[m->n++];
	memset(f, 0, sizeof *f);
	f->name = xstrdup(name);
	f->line = line;
	f->listed = listed;
	return f;
}

static int parse_fields(struct tp *s, struct ep_tp_msg *m, int depth,
    char close, unsigned open_line);

/* A message value, its '{' or '<' the current token. */
static int
parse_message(struct tp *s, struct ep_tp_field *f, int depth)
{
	char close = s->c == '{' ? '}' : '>';

	if (depth >= EP_TP_DEPTH_MAX)
		return tp_fail(s, s->tline, "messages nested more than 100 deep");
	f->kind = EP_TP_MSG;
	f->msg = xcalloc(1, sizeof *f->msg);
	return parse_fields(s, f->msg, depth + 1, close, s->tline);
}

/* A scalar value starting at the current token, into f. */
static int
parse_scalar(struct tp *s, struct ep_tp_field *f)
{
	char *neg;

	f->line = s->tline;
	if (s->t == T_STR) {
		char *buf = NULL;
		size_t n = 0;

		for (;;) {
			buf = xrealloc(buf, n + s->len + 1);
			memcpy(buf + n, s->text, s->len + 1);
			n += s->len;
			if (tp_peek(s) < 0) {
				free(buf);
				return -1;
			}
			if (s->t != T_STR)
				break;
			s->peeked = 0;
		}
		f->kind = EP_TP_STR;
		f->value = buf;
		f->len = n;
		return 0;
	}
	if (tp_is_punct(s, '-')) {
		if (tp_next(s) < 0)
			return -1;
		if (s->t == T_INT) {
			if (strlen(s->text) > 19 || (strlen(s->text) == 19 &&
			    strcmp(s->text, "9223372036854775808") > 0))
				return tp_fail(s, s->tline, "an integer beyond 64 "
				    "bits");
			f->kind = EP_TP_INT;
			f->value = strcmp(s->text, "0") == 0 ? xstrdup("0") :
			    xasprintf("-%s", s->text);
		} else if (s->t == T_FLOAT || (s->t == T_IDENT &&
		    (strcasecmp(s->text, "inf") == 0 ||
		    strcasecmp(s->text, "infinity") == 0 ||
		    strcasecmp(s->text, "nan") == 0))) {
			f->kind = s->t == T_FLOAT ? EP_TP_FLOAT : EP_TP_IDENT;
			f->value = xasprintf("-%s", s->text);
		} else
			return tp_fail(s, s->tline, "'-' not before a number, "
			    "inf or nan");
		f->len = strlen(f->value);
		return 0;
	}
	if (s->t != T_INT && s->t != T_FLOAT && s->t != T_IDENT)
		return tp_fail(s, s->tline, "expected a value");
	f->kind = s->t == T_INT ? EP_TP_INT : s->t == T_FLOAT ? EP_TP_FLOAT :
	    EP_TP_IDENT;
	neg = s->text;
	s->text = NULL;
	f->value = neg;
	f->len = strlen(neg);
	return 0;
}

/* A "[...]" list of field name, its '[' the current token; colon: the
 * name was followed by ':' (a list of scalars needs it). */
static int
parse_list(struct tp *s, struct ep_tp_msg *m, const char *name, int colon,
    int depth)
{
	int msgs = -1;		/* unknown until the first element */
	unsigned open = s->tline;
	struct ep_tp_field *f;

	if (tp_peek(s) < 0)
		return -1;
	if (tp_is_punct(s, ']')) {
		s->peeked = 0;
		return 0;
	}
	for (;;) {
		if (tp_next(s) < 0)
			return -1;
		if (s->t == T_EOF)
			return tp_fail(s, open, "a '[' that is not closed");
		if (msgs < 0)
			msgs = tp_is_punct(s, '{') || tp_is_punct(s, '<');
		if (msgs && !(tp_is_punct(s, '{') || tp_is_punct(s, '<')))
			return tp_fail(s, s->tline, "a list of messages holds "
			    "something else");
		if (!msgs && !colon)
			return ep_err_set(s->err, EP_E_INPUT, "%s:%u: field "
			    "'%.100s': a list of values needs ':' after the "
			    "name", s->name, s->tline, name);
		f = add_field(m, name, s->tline, 1);
		if ((msgs ? parse_message(s, f, depth) :
		    parse_scalar(s, f)) < 0)
			return -1;
		if (tp_next(s) < 0)
			return -1;
		if (tp_is_punct(s, ']'))
			return 0;
		if (!tp_is_punct(s, ','))
			return tp_fail(s, s->tline, "expected ',' or ']' in a "
			    "list");
	}
}

/* Fields until close (or the end of the text when close is 0). */
static int
parse_fields(struct tp *s, struct ep_tp_msg *m, int depth, char close,
    unsigned open_line)
{
	struct ep_tp_field *f;
	char *name = NULL;
	int colon, rc = -1;

	for (;;) {
		free(name);
		name = NULL;
		if (tp_next(s) < 0)
			goto done;
		if (s->t == T_EOF) {
			if (close == 0)
				break;
			rc = ep_err_set(s->err, EP_E_INPUT, "%s:%u: the "
			    "message opened here is not closed with '%c'",
			    s->name, open_line, close);
			goto done;
		}
		if (close != 0 && tp_is_punct(s, close))
			break;
		if (tp_is_punct(s, '[')) {
			rc = tp_fail(s, s->tline, "extension and Any field "
			    "names ([...]) are not read");
			goto done;
		}
		if (s->t != T_IDENT) {
			rc = tp_fail(s, s->tline, "expected a field name");
			goto done;
		}
		name = s->text;
		s->text = NULL;
		if (tp_next(s) < 0)
			goto done;
		colon = tp_is_punct(s, ':');
		if (colon && tp_next(s) < 0)
			goto done;
		if (tp_is_punct(s, '{') || tp_is_punct(s, '<')) {
			f = add_field(m, name, s->tline, 0);
			if (parse_message(s, f, depth) < 0)
				goto done;
		} else if (tp_is_punct(s, '[')) {
			if (parse_list(s, m, name, colon, depth) < 0)
				goto done;
		} else if (!colon) {
			rc = ep_err_set(s->err, EP_E_INPUT, "%s:%u: field "
			    "'%.100s': expected ':' or '{'", s->name, s->tline,
			    name);
			goto done;
		} else {
			f = add_field(m, name, s->tline, 0);
			if (parse_scalar(s, f) < 0)
				goto done;
		}
		if (tp_peek(s) < 0)
			goto done;
		if (tp_is_punct(s, ';') || tp_is_punct(s, ','))
			s->peeked = 0;
	}
	rc = 0;
done:
	free(name);
	return rc;
}

static void
tp_clear(struct ep_tp_msg *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].name);
		free(m->v[i].value);
		ep_textproto_free(m->v[i].msg);
	}
	free(m->v);
}

void
ep_textproto_free(struct ep_tp_msg *m)
{
	if (m == NULL)
		return;
	tp_clear(m);
	free(m);
}

const struct ep_tp_field *
ep_textproto_get(const struct ep_tp_msg *m, const char *name)
{
	for (size_t i = 0; m != NULL && i < m->n; i++)
		if (strcmp(m->v[i].name, name) == 0)
			return &m->v[i];
	return NULL;
}

int
ep_textproto_parse(struct ep_tp_msg **out, const char *text, size_t len,
    const char *name, struct ep_err *err)
{
	struct tp s = { .p = text, .end = text + len, .name = name,
	    .line = 1, .err = err };
	struct ep_tp_msg *m = xcalloc(1, sizeof *m);
	int rc;

	*out = NULL;
	rc = tp_check_text(&s);
	if (rc == 0)
		rc = parse_fields(&s, m, 0, 0, 1);
	free(s.text);
	if (rc < 0) {
		ep_textproto_free(m);
		return -1;
	}
	*out = m;
	return 0;
}
