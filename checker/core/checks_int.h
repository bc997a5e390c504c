/*
 * checks_int.h: the checks that need no golden, split by concern:
 * checks.c (the CUDA stack, determinism), checks_fw.c (what the
 * frameworks were built for), checks_req.c (what pip check finds, and
 * distributions installed twice),
 * checks_lock.c (the environment against its own lockfiles),
 * checks_gpu.c (each GPU's health), checks_node.c (the node's facts
 * against each other),
 * checks_util.c (what they share).
 */
#ifndef EP_CHECKS_INT_H
#define EP_CHECKS_INT_H

#include "results.h"

struct checks {
	struct ep_results *out;
	const struct ep_manifest *m;
	const struct ep_policy *policy;
};

/* Add a result keyed key (area "stack") unless the policy ignores the
 * key; takes message. */
void ep_checks_add(struct checks *k, const char *key, int status,
    const char *rule, const char *expected, const char *actual,
    char *message);

/* A fact of the manifest checked, borrowed, or NULL. */
const char *ep_checks_get(struct checks *k, const char *key);

/* meta.unavailable.<area>, borrowed, or NULL. */
const char *ep_checks_unavailable(struct checks *k, const char *area);

/* Why there is no fact key: the area's unavailable reason if any.  A new
 * string. */
char *ep_checks_no_fact(struct checks *k, const char *key,
    const char *area);

/* stack.framework.*: checks_fw.c. */
void ep_checks_framework(struct checks *k);

/* stack.requires.*: checks_req.c. */
void ep_checks_requires(struct checks *k);

/* stack.duplicate.*: a distribution twice in one site-packages (meta.
 * python.duplicates), checks_req.c. */
void ep_checks_duplicates(struct checks *k);

/* stack.lock.*: the installed packages against each lockfile's pins
 * (meta.lock): checks_lock.c. */
void ep_checks_lock(struct checks *k);

/* stack.gpu.*: each GPU's health at capture (meta.gpu): checks_gpu.c. */
void ep_checks_gpu(struct checks *k);

/* stack.node.*: the node's facts against each other: checks_node.c. */
void ep_checks_node(struct checks *k);

#endif
