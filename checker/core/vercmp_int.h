/*
 * vercmp_int.h: what vercmp.c (versions) and verrange.c (ranges) share,
 * private to them: a version parsed into spans of the string it was read
 * from, and the comparisons on it.
 */
#ifndef EP_VERCMP_INT_H
#define EP_VERCMP_INT_H

#include "vercmp.h"

#define MAXREL 32		/* release components; more is not a version */

/* n bytes at p, in the string a version was parsed from. */
struct ep_verspan {
	const char *p;
	size_t n;
};

enum { PRE_NONE, PRE_A, PRE_B, PRE_RC };

struct ep_ver {
	struct ep_verspan epoch;
	struct ep_verspan rel[MAXREL];
	size_t nrel;
	int pre;		/* PRE_* */
	struct ep_verspan pre_n;
	int post;
	struct ep_verspan post_n;
	int dev;
	struct ep_verspan dev_n;
	struct ep_verspan local;	/* after '+', or the opaque tail;
					   n 0: none */
	int opaque;		/* local is an opaque tail, not PEP 440 */
};

/* Parse s (blanks around it stripped) into v; 0, or -1 if s is not a
 * version.  v points into s. */
int ep_ver_parse(struct ep_ver *v, const char *s);

/* <0, 0, >0: a before, equal to, after b; ignore_local leaves the local
 * labels out. */
int ep_ver_cmp(const struct ep_ver *a, const struct ep_ver *b,
    int ignore_local);

/* The same for epoch and release alone, the shorter padded with zeros. */
int ep_ver_release_cmp(const struct ep_ver *a, const struct ep_ver *b);

/* Two runs of digits as numbers, of any length. */
int ep_ver_num_cmp(struct ep_verspan a, struct ep_verspan b);

/* Match one of words (ASCII lowercase, read case-insensitively) at *pp,
 * in list order: its index, *pp moved past it; -1 if none. */
int ep_ver_word(const char **pp, const char *const *words);

#endif
