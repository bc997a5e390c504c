/*
 * strv.h: a growable vector of owned strings, for lists of names, paths
 * and lines.  util.c implements it.
 */
#ifndef EP_STRV_H
#define EP_STRV_H

#include <stddef.h>

/* A growable NULL-terminated vector of owned strings. */
struct ep_strv {
	char **v;		/* v[n] == NULL */
	size_t n, cap;
};
void ep_strv_push(struct ep_strv *sv, const char *s);	/* copies s */
void ep_strv_push_owned(struct ep_strv *sv, char *s);	/* takes s */
int ep_strv_contains(const struct ep_strv *sv, const char *s);
void ep_strv_sort(struct ep_strv *sv);
void ep_strv_clear(struct ep_strv *sv);

#endif
