/*
 * factdiff.h: which facts differ between two manifests, by key: what
 * `log` counts per commit.  (The policy-aware comparison is compare.h;
 * this one knows no rules and gives no verdicts.)
 */
#ifndef EP_FACTDIFF_H
#define EP_FACTDIFF_H

#include "manifest.h"
#include "strv.h"

struct ep_factdiff {
	struct ep_strv added;	/* keys only the new manifest has */
	struct ep_strv removed;	/* keys only the old one has */
	struct ep_strv changed;	/* keys both have, values differing */
};

/* Fill d (zeroed by the caller) with the sorted keys; either manifest may
 * be NULL, meaning no facts at all. */
void ep_factdiff_compute(struct ep_factdiff *d, const struct ep_manifest *old,
    const struct ep_manifest *new_);
void ep_factdiff_clear(struct ep_factdiff *d);

#endif
