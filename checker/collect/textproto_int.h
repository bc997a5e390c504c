/*
 * textproto_int.h: what textproto.c (the grammar) and textproto_lex.c
 * (the tokens) share: the reader's state and the tokenizer's calls.
 * Nothing outside these two files includes it.
 */
#ifndef EP_TEXTPROTO_INT_H
#define EP_TEXTPROTO_INT_H

#include "textproto.h"

enum tok {
	T_EOF, T_IDENT, T_INT, T_FLOAT, T_STR, T_PUNCT,
};

/* The reader's state: the text left, and the current token. */
struct tp {
	const char *p, *end;	/* the text not yet tokenized */
	const char *name;	/* for messages */
	unsigned line;		/* of p */
	struct ep_err *err;

	/* The current token (after tp_next), owned by the state. */
	enum tok t;
	char c;			/* T_PUNCT */
	char *text;		/* T_IDENT, T_INT (decimal), T_FLOAT, T_STR
				   (unescaped, len bytes) */
	size_t len;
	unsigned tline;		/* where it starts */
	int peeked;		/* tp_peek read it; tp_next returns it */
};

/* "name:LINE: what" into s->err; returns -1. */
int tp_fail(struct tp *s, unsigned line, const char *what);

/* The next token into s (or the one peeked at); -1 on a token the
 * specification refuses. */
int tp_next(struct tp *s);

/* The next token without consuming it: s->peeked is set, and the next
 * tp_next returns it. */
int tp_peek(struct tp *s);

/* 1 when the current token is the punctuation c. */
int tp_is_punct(const struct tp *s, char c);

/* The whole text is UTF-8 without a NUL (escapes may still make
 * either); -1 naming the line otherwise. */
int tp_check_text(struct tp *s);

#endif
