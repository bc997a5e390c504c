/*
 * checksfixture.h: what the unit tests of the checks that need no golden
 * share (test_checks.c, test_checks_req.c, test_checks_fw*.c): running
 * them at a fixed date under a policy (the defaults when none), and
 * finding a result by key.
 */
#ifndef EP_CHECKSFIXTURE_H
#define EP_CHECKSFIXTURE_H

#include <string.h>

#include "results.h"
#include "resultsfixture.h"
#include "checks.h"
#include "policy.h"

#define CKFX_UNUSED __attribute__((unused))

/* 2026-11-22T12:00:00Z */
#define NOV22	((time_t)1795348800)

/* rs cleared, then ep_checks_run of m under p (NULL: the defaults). */
static CKFX_UNUSED void
run(struct ep_results *rs, const struct ep_manifest *m,
    const struct ep_policy *p)
{
	struct ep_policy *def = NULL;

	ep_results_clear(rs);
	if (p == NULL)
		p = def = ep_policy_default();
	ep_checks_run(rs, m, p, NOV22);
	ep_policy_free(def);
}

static CKFX_UNUSED int
status(const struct ep_results *rs, const char *key)
{
	return get(rs, key)->status;
}

#endif
