/*
 * testutil.h: what the unit tests share: a scratch directory for a test
 * binary, made under /tmp with symlinks resolved (as the collectors see
 * real paths) and removed afterwards.  Header-only: each test binary is
 * its own program.
 */
#ifndef EP_TESTUTIL_H
#define EP_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* Make /tmp/ep-<name>.XXXXXX into dir (size n); 0 ok, -1 on failure. */
static inline int
tu_scratch_make(char *dir, size_t n, const char *name)
{
	char tmpl[128], *real;
	int rc = -1;

	snprintf(tmpl, sizeof tmpl, "/tmp/ep-%s.XXXXXX", name);
	if (mkdtemp(tmpl) == NULL || (real = realpath(tmpl, NULL)) == NULL)
		return -1;
	if (strlen(real) < n) {
		strcpy(dir, real);
		rc = 0;
	}
	free(real);
	return rc;
}

/* Remove dir and everything in it; 0 ok, -1 on failure. */
static inline int
tu_scratch_remove(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	int rc = system(cmd);

	free(cmd);
	return rc == 0 ? 0 : -1;
}

#endif
