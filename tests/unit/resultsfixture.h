/*
 * resultsfixture.h: finding a check's result by key, as every unit test
 * of checks, comparisons, probes and workloads does.  Header-only: each
 * test binary is its own program.
 */
#ifndef EP_RESULTSFIXTURE_H
#define EP_RESULTSFIXTURE_H

#include <string.h>

#include "results.h"

#define RSFX_UNUSED __attribute__((unused))

/* The result keyed key, or NULL. */
static RSFX_UNUSED const struct ep_result *
find(const struct ep_results *rs, const char *key)
{
	for (size_t i = 0; i < rs->n; i++)
		if (strcmp(rs->v[i].key, key) == 0)
			return &rs->v[i];
	return NULL;
}

/* The result keyed key; the test fails when there is none. */
static RSFX_UNUSED const struct ep_result *
get(const struct ep_results *rs, const char *key)
{
	const struct ep_result *r = find(rs, key);

	if (r == NULL)
		fail_msg("no result for %s", key);
	return r;
}

#endif
