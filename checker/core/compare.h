/*
 * compare.h: golden facts against current facts, under a policy, give one
 * result per key (results.h); compare.c decides each key.
 */
#ifndef EP_COMPARE_H
#define EP_COMPARE_H

#include <time.h>

#include "manifest.h"
#include "policy.h"
#include "results.h"

/* Compare every key present on either side under policy (first matching
 * rule wins; waivers applied with today's date from now).  Adds to out.
 * Cannot fail: drift, a key that cannot be judged and a golden that
 * compares nothing are results (EP_FAIL, EP_SKIP, EP_ERROR). */
void ep_compare(struct ep_results *out, const struct ep_manifest *golden,
    const struct ep_manifest *current, const struct ep_policy *policy,
    time_t now);

/* The determinism domain that governs an output hash key (borrowed,
 * static): workload.domain for workload.*, probe.cpu.domain for the
 * probe's cpu backend, probe.domain for the rest (a GPU's own
 * probe.gpu<N>.domain is the caller's to prefer).  The golden and fleet
 * comparisons of such hashes hold only within it. */
const char *ep_compare_domain_key(const char *key);

#endif
