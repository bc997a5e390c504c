/*
 * ci.h: telling that this runs in CI, which changes defaults (progress,
 * the cache, a store that must be named).  util.c implements it.
 */
#ifndef EP_CI_H
#define EP_CI_H

/* The name of the environment variable that says this runs in CI ("CI",
 * "GITHUB_ACTIONS", ...; set, not empty, not "false" or "0"), or NULL.
 * Static; only the name, never the value (JENKINS_URL may hold
 * credentials).  The list is docs/ci.md's. */
const char *ep_ci_var(void);

#endif
