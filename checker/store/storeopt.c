/*
 * storeopt.c: the store options shared by check, bless, diff and log,
 * their environment defaults, the profile-name rule, and what the
 * commands say about a store beyond its golden: that CI must name one,
 * that its branch was rewritten, and that a bless or a waive took that
 * rewritten history.
 */
#include "progress.h"
#include "storeopt.h"
#include "ci.h"
#include "errors.h"
#include "str.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

static const char *
env_default(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && v[0] != '\0' ? v : NULL;
}

int
ep_profile_check(const char *name, struct ep_err *err)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/";
	const char *seg, *end;
	size_t n, depth = 0;

	/* A profile is a folder of the store's tree, nested or not
	 * ("train/h100"): it must not climb out of it, hide itself, or
	 * collide with the files a folder holds. */
	if (name == NULL || name[0] == '\0')
		return ep_err_set(err, EP_E_INPUT, "profile name is empty");
	if (strlen(name) > 128)
		return ep_err_set(err, EP_E_INPUT,
		    "profile '%.40s...': longer than 128 characters", name);
	if (strspn(name, ok) != strlen(name))
		return ep_err_set(err, EP_E_INPUT, "profile '%s': only "
		    "letters, digits, '.', '_', '-' and '/' between folders "
		    "are allowed", name);
	if (name[0] == '/')
		return ep_err_set(err, EP_E_INPUT, "profile '%s': must not "
		    "start with '/' (a profile is a folder of the store, not "
		    "an absolute path)", name);
	for (seg = name;; seg = end + 1) {
		end = strchr(seg, '/');
		n = end != NULL ? (size_t)(end - seg) : strlen(seg);
		if (n == 0)
			return ep_err_set(err, EP_E_INPUT, "profile '%s': an "
			    "empty folder name (\"//\" or a trailing '/')",
			    name);
		if (seg[0] == '.' || memmem(seg, n, "..", 2) != NULL)
			return ep_err_set(err, EP_E_INPUT, "profile '%s': a "
			    "folder name must not start with '.' or contain "
			    "'..'", name);
		if ((n == 13 && strncmp(seg, "manifest.json", n) == 0) ||
		    (n == 11 && strncmp(seg, "policy.json", n) == 0))
			return ep_err_set(err, EP_E_INPUT, "profile '%s': "
			    "'%.*s' is a file of every profile, not a folder",
			    name, (int)n, seg);
		if (++depth > EP_PROFILE_MAX_DEPTH)
			return ep_err_set(err, EP_E_INPUT, "profile '%s': "
			    "deeper than %d folders", name,
			    EP_PROFILE_MAX_DEPTH);
		if (end == NULL)
			break;
	}
	return 0;
}

int
ep_storeopt_resolve(struct ep_store_opts *so, const char **profile,
    const struct ep_storeopt *o, struct ep_err *err)
{
	const char *p;

	memset(so, 0, sizeof *so);
	so->spec = o->store != NULL ? o->store : ep_store_env_spec();
	so->ref = o->ref;
	p = o->profile != NULL ? o->profile : env_default("ENVPARITY_PROFILE");
	if (p == NULL)
		p = "default";
	if (ep_profile_check(p, err) < 0)
		return -1;
	*profile = p;
	return 0;
}

/* Append " opt 'value'" to *cmd, quoted for a POSIX shell if needed. */
static void
append_arg(char **cmd, const char *opt, const char *value)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-";
	char *q, *o, *next;

	if (value[0] != '\0' && strspn(value, safe) == strlen(value))
		q = xstrdup(value);
	else {
		q = o = xmalloc(strlen(value) * 4 + 3);
		*o++ = '\'';
		for (const char *p = value; *p != '\0'; p++) {
			if (*p == '\'') {
				memcpy(o, "'\\''", 4);
				o += 4;
			} else
				*o++ = *p;
		}
		*o++ = '\'';
		*o = '\0';
	}
	next = xasprintf("%s %s %s", *cmd, opt, q);
	free(*cmd);
	free(q);
	*cmd = next;
}

char *
ep_storeopt_bless_hint(const struct ep_store_opts *so, const char *profile)
{
	char *cmd = xstrdup("envparity bless"), *spec;

	if (so->spec != NULL) {
		spec = ep_store_redact(so->spec);
		append_arg(&cmd, "--store", spec);
		free(spec);
	}
	if (so->ref != NULL)
		append_arg(&cmd, "--ref", so->ref);
	if (strcmp(profile, "default") != 0)
		append_arg(&cmd, "--profile", profile);
	return cmd;
}

/* "CI is set" when this runs in CI (ci.h's ep_ci_var: only the
 * name is shown, a value such as JENKINS_URL may hold credentials), or
 * NULL. */
static char *
in_ci(void)
{
	const char *v = ep_ci_var();

	return v != NULL ? xasprintf("%s is set", v) : NULL;
}

int
ep_storeopt_require_named(const struct ep_store_opts *so,
    struct ep_err *err)
{
	char *ci;

	if (so->spec != NULL || (ci = in_ci()) == NULL)
		return 0;
	ep_err_set(err, EP_E_INPUT, "no store named, and in CI (%.40s) the "
	    "default .envparity/store is not used, since the change under "
	    "test could have committed its own golden there: name the store "
	    "with --store or ENVPARITY_STORE (--store .envparity/store for a "
	    "golden kept in this repository)", ci);
	free(ci);
	return -1;
}

void
ep_storeopt_history(struct ep_results *rs, const struct ep_store_info *info,
    const struct ep_policy *policy, time_t now)
{
	const struct ep_rule *rule;
	const struct ep_policy *trusted = info->seen_policy;
	struct ep_policy *defaults = NULL;
	struct ep_result r = { 0 }, *last;
	const char *why = info->seen_policy_error;
	char *msg, *t;
	int st, tried;

	if (info->rewritten[0] == '\0')
		return;
	/* No policy from then (none read, or one that no longer parses):
	 * the defaults, which neither ignore nor waive it. */
	if (trusted == NULL)
		trusted = defaults = ep_policy_default();
	rule = ep_policy_match(trusted, "store.history");
	if (rule->kind == EP_RULE_IGNORE) {
		ep_policy_free(defaults);
		return;
	}
	/* What the rewritten branch's own policy says is said, not done. */
	tried = policy != NULL && (ep_policy_match(policy,
	    "store.history")->kind == EP_RULE_IGNORE || (ep_policy_waiver(policy,
	    "store.history", info->commit, now, &st) != NULL &&
	    st == EP_WAIVER_LIVE));
	msg = xasprintf("store.history: branch %s of %s was rewritten: the "
	    "cache last saw %.12s, and %.12s does not descend from it%s%.*s%s%s",
	    info->ref, info->store, info->rewritten, info->commit, tried ?
	    "; the rewritten branch's policy cannot ignore or waive this, "
	    "only the policy as it stood at " : "", tried ? 12 : 0,
	    info->rewritten, why != NULL ? "; the policy as it stood then "
	    "does not parse, so nothing may ignore or waive this: " : "",
	    why != NULL ? why : "");
	r.key = "store.history";
	r.status = EP_FAIL;
	r.expected = (char *)info->rewritten;
	r.actual = (char *)info->commit;
	r.rule = (char *)rule->text;
	r.message = msg;
	ep_results_add(rs, &r);
	free(msg);
	if (why == NULL) {
		ep_results_waive(rs, rs->n - 1, trusted, now);
		last = &rs->v[rs->n - 1];
		if (last->waiver != 0) {
			/* Its index is into that policy, not the run's. */
			last->waiver = 0;
			t = xasprintf("%s (the policy at %.12s)", last->message,
			    info->rewritten);
			free(last->message);
			last->message = t;
		}
	}
	ep_policy_free(defaults);
}

char *
ep_storeopt_history_taken(const struct ep_store *s,
    const struct ep_store_info *info)
{
	char seen[41], head[41];

	if (!ep_store_history_taken(seen, head, s))
		return NULL;
	/* In store.history's words, so that the two are found together. */
	if (head[0] == '\0')
		return xasprintf("branch %s of %s was rewritten: the cache last "
		    "saw %.12s, and the branch was deleted since; this took the "
		    "new history, and store.history is no longer reported",
		    info->ref, info->store, seen);
	return xasprintf("branch %s of %s was rewritten: the cache last saw "
	    "%.12s, and %.12s does not descend from it; this took the "
	    "rewritten history as it is, and store.history is no longer "
	    "reported", info->ref, info->store, seen, head);
}

/* "Name <email>" into its parts (pointers into buf, which is modified). */
static int
parse_author(struct ep_author *a, char *buf)
{
	char *lt = strchr(buf, '<'), *gt;

	if (lt == NULL || (gt = strchr(lt, '>')) == NULL || gt[1] != '\0' ||
	    gt == lt + 1)
		return -1;
	*gt = '\0';
	a->email = lt + 1;
	*lt = '\0';
	a->name = ep_trim(buf);
	return a->name[0] != '\0' && strchr(a->email, '<') == NULL ? 0 : -1;
}

int
ep_storeopt_author(struct ep_author *a, int *set, char **buf,
    struct ep_err *err)
{
	const char *v;

	*set = 0;
	if ((v = getenv("ENVPARITY_AUTHOR")) != NULL && v[0] != '\0') {
		*buf = xstrdup(v);
		if (parse_author(a, *buf) < 0)
			return ep_err_set(err, EP_E_INPUT, "ENVPARITY_AUTHOR "
			    "'%s': expected \"Name <email>\"", v);
		*set = 1;
	} else if ((v = getenv("GITHUB_ACTOR")) != NULL && v[0] != '\0') {
		*buf = xasprintf("%s <%s@users.noreply.github.com>", v, v);
		if (parse_author(a, *buf) == 0)
			*set = 1;
	} else if ((v = getenv("GITLAB_USER_NAME")) != NULL && v[0] != '\0' &&
	    getenv("GITLAB_USER_EMAIL") != NULL &&
	    getenv("GITLAB_USER_EMAIL")[0] != '\0') {
		*buf = xasprintf("%s <%s>", v, getenv("GITLAB_USER_EMAIL"));
		if (parse_author(a, *buf) == 0)
			*set = 1;
	}
	return 0;
}
