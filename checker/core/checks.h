/*
 * checks.h: the checks that judge a machine against itself, with no
 * golden (checks.c and its parts), as results (results.h).
 */
#ifndef EP_CHECKS_H
#define EP_CHECKS_H

#include <time.h>

#include "manifest.h"
#include "policy.h"
#include "results.h"

/* The checks that need no golden (checks.c): the CUDA runtime against the
 * driver's minimum, libraries built for a newer cudart than the one they
 * run with, mixed cuDNN sub-library versions, determinism settings that
 * defeat each other.  Results have area "stack" and keys "stack.<check>",
 * waivable by policy like any other. */
void ep_checks_run(struct ep_results *out, const struct ep_manifest *current,
    const struct ep_policy *policy, time_t now);

#endif
