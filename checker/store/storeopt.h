/*
 * storeopt.h: the store options that check, bless, diff and log share
 * (--store, --ref, --profile), their environment defaults
 * (ENVPARITY_STORE, ENVPARITY_PROFILE), and the rule for profile names.
 * The command layer parses the options (optgroups.c) into a struct
 * ep_storeopt.
 */
#ifndef EP_STOREOPT_H
#define EP_STOREOPT_H

#include <time.h>

#include "results.h"
#include "policy.h"
#include "store.h"
#include "errors.h"

/* What the command line said; NULL where it said nothing.  The strings
 * are borrowed from argv. */
struct ep_storeopt {
	const char *store;
	const char *ref;
	const char *profile;
};

/* Fill *so (create left 0) and *profile from o, falling back to
 * $ENVPARITY_STORE and $ENVPARITY_PROFILE (empty counts as unset), then
 * "default".  The strings are borrowed from o or the environment.  A bad
 * profile name is EP_E_INPUT. */
int ep_storeopt_resolve(struct ep_store_opts *so, const char **profile,
    const struct ep_storeopt *o, struct ep_err *err);

/* A profile name is a folder of the store, nested or not ("gpu",
 * "train/h100"): folder names [A-Za-z0-9._-]+ joined by '/', none
 * starting with '.', containing "..", or named manifest.json or
 * policy.json; no empty folder ("a//b", "a/"), no leading '/', at most
 * EP_PROFILE_MAX_DEPTH folders and 128 bytes.  0 if valid; else
 * EP_E_INPUT naming it. */
int ep_profile_check(const char *name, struct ep_err *err);

/* The command that would bless a golden manifest for this store, ref and
 * profile ("envparity bless --store URL --profile gpu"), naming only what
 * differs from the defaults, shell-quoted, credentials removed: for the
 * "no golden manifest" messages of check, diff and log.  A new string. */
char *ep_storeopt_bless_hint(const struct ep_store_opts *so,
    const char *profile);

/* The author of a commit (bless, waive, unwaive) from the environment:
 * $ENVPARITY_AUTHOR ("Name <email>"; malformed: EP_E_INPUT), else the
 * CI's user ($GITHUB_ACTOR, $GITLAB_USER_NAME and $GITLAB_USER_EMAIL);
 * else 0 with *set 0, letting the store use git config.  *buf (new)
 * keeps a's strings alive. */
int ep_storeopt_author(struct ep_author *a, int *set, char **buf,
    struct ep_err *err);

/* In CI (CI set and not "false" or "0", GITHUB_ACTIONS or GITLAB_CI
 * set) the implicit default store is never used: .envparity/store in the
 * checkout is whatever the change under test committed there, its own
 * golden and policy included.  0 when so names a store or this is not
 * CI; else EP_E_INPUT naming the variable and the fix (--store or
 * ENVPARITY_STORE; --store .envparity/store for a golden kept in the
 * repository). */
int ep_storeopt_require_named(const struct ep_store_opts *so,
    struct ep_err *err);

/* The result of a rewritten branch (info->rewritten set): a failure
 * naming the commit the cache saw last and the one the branch holds now.
 * Only the profile's policy as it stood at the commit seen last
 * (info->seen_policy) may ignore or waive it; policy, read from the
 * rewritten branch, cannot (the message says so when it tried).  A
 * trusted policy that no longer parses decides nothing: the failure
 * stands, saying why.  Adds nothing when the branch was not rewritten. */
void ep_storeopt_history(struct ep_results *rs,
    const struct ep_store_info *info, const struct ep_policy *policy,
    time_t now);

/* After a bless, waive or unwaive on s: when it took the branch's
 * rewritten history (ep_store_history_taken), the line that says so,
 * naming the commit the cache saw last and the rewritten head, as
 * store.history named them (new; the caller prints it on standard error,
 * -q or not); else NULL. */
char *ep_storeopt_history_taken(const struct ep_store *s,
    const struct ep_store_info *info);

#endif
