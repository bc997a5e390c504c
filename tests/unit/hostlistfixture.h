/*
 * hostlistfixture.h: what the hostlist unit tests share (test_hostlist.c,
 * test_hostlist_compress.c): a cap on names far above any test's list,
 * and a hostlist's expansion as one space-separated string.
 * Header-only: each test binary is its own program.
 */
#ifndef EP_HOSTLISTFIXTURE_H
#define EP_HOSTLISTFIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "errors.h"
#include "strv.h"
#include "xalloc.h"

#define HLFX_UNUSED __attribute__((unused))

#define BIG	1000000

/* The expansion of text as one space-separated string (a new one). */
static HLFX_UNUSED char *
expand_joined(const char *text, size_t max)
{
	struct ep_strv sv = { 0 };
	struct ep_err err = { 0 };
	size_t len = 1;
	char *s;

	if (ep_hostlist_expand(&sv, text, "--expect", max, &err) < 0)
		fail_msg("%s: %s", text, err.msg);
	for (size_t i = 0; i < sv.n; i++)
		len += strlen(sv.v[i]) + 1;
	s = xmalloc(len);
	s[0] = '\0';
	for (size_t i = 0; i < sv.n; i++) {
		if (i > 0)
			strcat(s, " ");
		strcat(s, sv.v[i]);
	}
	ep_strv_clear(&sv);
	return s;
}

#endif
