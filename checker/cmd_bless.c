/*
 * cmd_bless.c: `envparity bless [store options] [-m MESSAGE] [MANIFEST]`:
 * make a manifest (a file, or a fresh capture) the profile's golden one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clean.h"
#include "capture.h"
#include "cmd.h"
#include "results.h"
#include "checks.h"
#include "factdiff.h"
#include "opt.h"
#include "policy.h"
#include "probeopt.h"
#include "resolve.h"
#include "store.h"
#include "storeopt.h"
#include "errors.h"
#include "xalloc.h"
#include "hostname.h"

static int cmd_bless_exec(const struct ep_cmd *, int, char **);

/* What the command line says. */
struct bless_opts {
	struct ep_storeopt sopt;
	struct ep_capture_opts copts;
	struct ep_probeopt popt;
	const char *message;
	int quiet;
	int dry_run;
	int accept_failing;
};

#define BO struct bless_opts
static const struct ep_opt bless_opts[] = {
	EP_OPT_STR("message", 'm', "TEXT", BO, message,
	    "the commit message (default: \"bless PROFILE from\n"
	    "HOST\", HOST from the manifest)"),
	EP_OPT_FLAG("quiet", 'q', BO, quiet,
	    "do not repeat capture warnings on standard error"),
	EP_OPT_FLAG("dry-run", 0, BO, dry_run,
	    "commit nothing: print what the bless would change\n"
	    "against the profile's golden, fact by fact (+\n"
	    "added, - removed, ~ changed), or \"no change\"; the\n"
	    "store is only read (exit 0 either way)"),
	EP_OPT_FLAG("accept-failing", 0, BO, accept_failing,
	    "bless a manifest that fails its own checks (the\n"
	    "checks that need no golden), naming each on\n"
	    "standard error; without it such a bless is refused"),
	EP_OPT_GROUP_NOSTRUCT(ep_og_progress),
	EP_OPT_HELP,
	EP_OPT_GROUP(ep_og_store, BO, sopt, NULL),
	EP_OPT_GROUP(ep_og_capture, BO, copts, NULL),
	EP_OPT_GROUP(ep_og_image, BO, copts.img, NULL),
	EP_OPT_GROUP(ep_og_probe, BO, popt, NULL),
	EP_OPT_END,
};
#undef BO

const struct ep_cmd ep_cmd_bless = {
	.name = "bless",
	.summary = "make a manifest the golden one for a profile",
	.usage =
"usage: envparity bless [store options] [-m MESSAGE] [--dry-run] [-q]\n"
"                       [collector options] [MANIFEST]\n"
"\n"
"Commit MANIFEST (or, without one, a fresh capture of this machine) to the\n"
"store as PROFILE/manifest.json, in canonical form so that git diffs stay\n"
"readable, and push it when the store is remote.  The branch moves by\n"
"compare-and-swap: a bless of another profile that lands first is kept\n"
"and this one is committed on top; a bless of the same profile that lands\n"
"first makes this one fail (exit 3) rather than replace it unseen.  A\n"
"store with a work tree has its branch moved directly; its work tree and\n"
"index are not touched, and a branch checked out there is refused (the\n"
"next commit there would undo the bless).  A manifest that fails its\n"
"own checks (those check runs without a golden: a CUDA runtime newer\n"
"than the driver, mixed cuDNN sub-libraries, ...; not the GPUs' and the\n"
"node's health now) is refused, each failure named, unless\n"
"--accept-failing: a golden that fails itself makes every later check\n"
"meaningless.  The profile's policy applies (a waived check passes).\n"
"\n",
	.opts = bless_opts,
	.footer =
"The author is $ENVPARITY_AUTHOR (\"Name <email>\"), else the CI's user\n"
"($GITHUB_ACTOR, $GITLAB_USER_NAME and $GITLAB_USER_EMAIL), else git\n"
"config's user.name and user.email, else envparity <envparity@HOST>.\n"
"\n"
"Prints \"blessed PROFILE at COMMIT on STORE BRANCH\"; on a remote store\n"
"whose branch was rewritten since the cache saw it (store.history), says\n"
"on standard error, even with -q, that the bless takes that history.\n"
"Exit codes: 0 blessed, 1 the reference workload failed (--runs) or the\n"
"manifest fails its own checks (nothing is committed), 2 usage, a malformed manifest or one larger than the\n"
"store's 64 MiB limit, or a branch checked out in a work tree of the\n"
"store (nothing is committed), 3 the store could not be read or written,\n"
"or a race with a bless of the same profile.\n",
	.max_operands = 1,
	.exec = cmd_bless_exec,
};

/* The profile's golden as the store holds it, read once for the two
 * uses below: the images a capture carries over, and --dry-run; and the
 * store opened for it, kept for the commit when it is a named store (a
 * remote's fetch is then not repeated: the commit reads the branch head
 * again under its lock anyway). */
struct bless_golden {
	int read;
	struct ep_store *store;
	struct ep_store_info info;
	struct ep_policy *policy;
	char *mtext;
	char *name;		/* STORE#REF:PROFILE/manifest.json */
	struct ep_manifest *golden;	/* NULL: none, or malformed (perr) */
	struct ep_err perr;
};

/* Read it without writing (the default store is not created).  A
 * malformed policy is an error, as for bless itself; a malformed golden
 * is kept in g->perr, for each use to judge. */
static int
golden_read(struct bless_golden *g, const struct ep_store_opts *so,
    const char *profile, struct ep_err *err)
{
	struct ep_store_policies pol = { 0 };
	struct ep_store *s = NULL;
	struct ep_store_opts o = *so;
	char *where = NULL;
	int rc = -1;

	g->read = 1;
	/* The default store is not created to be read; a named one is
	 * never created, read or written. */
	o.create = 0;
	if (ep_store_open(&s, &o, err) < 0 ||
	    ep_store_read(&g->mtext, &pol, &g->info, s, profile, err) < 0)
		goto done;
	where = xasprintf("%s#%s", g->info.store, g->info.ref);
	g->name = xasprintf("%s:%s/manifest.json", where, profile);
	if (ep_store_policy(&g->policy, &pol, where, err) < 0)
		goto done;
	if (g->mtext != NULL)
		(void)ep_manifest_parse(&g->golden, g->mtext,
		    strlen(g->mtext), g->name, &g->perr);
	rc = 0;
	if (so->spec != NULL) {
		g->store = s;
		s = NULL;
	}
done:
	ep_store_policies_clear(&pol);
	ep_store_free(s);
	free(where);
	return rc;
}

static void
golden_clear(struct bless_golden *g)
{
	ep_store_free(g->store);
	ep_store_info_clear(&g->info);
	ep_policy_free(g->policy);
	ep_manifest_free(g->golden);
	free(g->mtext);
	free(g->name);
}

/*
 * A bless that captures without --image keeps the images its golden
 * recorded (meta.images): they are resolved again, as check resolves
 * them (collect_image.c), so that a bless after a driver upgrade does
 * not drop them unseen.  With --image, the images named are the ones
 * blessed.  A malformed golden is what a bless replaces: said, not
 * fatal.
 */
static void
golden_images(struct ep_capture_opts *copts, const struct bless_golden *g)
{
	if (g->perr.msg[0] != '\0')
		ep_cmd_warn("%s; the golden's images are not carried over "
		    "(name them with --image)", g->perr.msg);
	copts->golden = g->golden;
	copts->golden_name = g->name;
	copts->policy = g->policy;
}

/* What bless would change: the golden against m, fact by fact, as log -v
 * prints a commit; nothing is written.  0 whether or not anything
 * differs. */
static int
dry_run_bless(const struct ep_cmd *self, const struct bless_golden *g,
    const char *profile, const struct ep_manifest *m, const char *text)
{
	const struct ep_store_info *info = &g->info;
	const struct ep_manifest *golden = g->golden;
	struct ep_factdiff d = { 0 };
	struct ep_err err = { 0 };
	int rc = EP_EXIT_OK;

	if (g->perr.msg[0] != '\0')
		return ep_cmd_fail(self, &g->perr);
	/* What the bless would take besides the manifest, said as the bless
	 * itself would say it. */
	if (info->rewritten[0] != '\0')
		ep_say(stderr, "envparity bless: branch %s of %s was rewritten: "
		    "the cache last saw %.12s, and %.12s does not descend from "
		    "it; a bless would take the rewritten history as it is, and "
		    "store.history would no longer be reported", info->ref,
		    info->store, info->rewritten, info->commit);
	ep_factdiff_compute(&d, golden, m);
	if (golden != NULL && strcmp(g->mtext, text) == 0)
		ep_say(stdout, "no change: %s on %s %s (commit %.12s) already "
		    "holds this manifest; nothing would be blessed", profile,
		    info->store, info->ref, info->commit);
	else if (golden != NULL && d.added.n + d.removed.n + d.changed.n == 0)
		ep_say(stdout, "no change in facts: %s on %s %s (commit "
		    "%.12s); only the manifest's meta differs (a bless would "
		    "still commit it)", profile, info->store, info->ref,
		    info->commit);
	else
		ep_say(stdout, "would bless %s on %s %s: +%zu -%zu ~%zu "
		    "against %s%.12s", profile, info->store, info->ref,
		    d.added.n, d.removed.n, d.changed.n, golden != NULL ?
		    "commit " : "no golden yet", golden != NULL ?
		    info->commit : "");
	for (size_t i = 0; i < d.added.n; i++)
		ep_say(stdout, "    + %s = %s", d.added.v[i],
		    ep_manifest_get(m, d.added.v[i]));
	for (size_t i = 0; i < d.removed.n; i++)
		ep_say(stdout, "    - %s (was %s)", d.removed.v[i],
		    ep_manifest_get(golden, d.removed.v[i]));
	for (size_t i = 0; i < d.changed.n; i++)
		ep_say(stdout, "    ~ %s: %s -> %s", d.changed.v[i],
		    ep_manifest_get(golden, d.changed.v[i]),
		    ep_manifest_get(m, d.changed.v[i]));
	if (fflush(stdout) == EOF) {
		ep_err_set(&err, EP_E_IO, "standard output: write failed");
		rc = ep_cmd_fail(self, &err);
	}
	ep_factdiff_clear(&d);
	return rc;
}

/*
 * The manifest to bless: MANIFEST, or a capture of this machine (with
 * the golden's images carried over unless --image names others),
 * validated before the store is written (a bad manifest commits
 * nothing).  With --runs the golden records the reference workload's
 * hashes and determinism domain; a machine whose runs differ or whose
 * known answers are wrong is no golden, so nothing is blessed.  0, or
 * the exit code, printed.
 */
static int
bless_manifest(const struct ep_cmd *self, struct ep_manifest **m,
    struct bless_golden *g, struct bless_opts *o, const char *file,
    const struct ep_resolved *r)
{
	struct ep_results prs = { 0 };
	struct ep_err err = { 0 };
	int rc = EP_EXIT_OK;

	if (file == NULL) {
		/* The golden's images, and the policy's workloads, which a
		 * golden records as check runs them. */
		if (!g->read && golden_read(g, &r->so, r->profile, &err) < 0)
			return ep_cmd_fail(self, &err);
		if (o->copts.images.n == 0)
			golden_images(&o->copts, g);
		/* What the policy adds to a capture ("capture"). */
		o->copts.policy = g->policy;
		o->copts.policy_capture = r->so.spec != NULL;
		ep_probeopt_policy(&o->popt, &prs, g->policy,
		    r->so.spec != NULL);
	}
	if (file != NULL ? ep_manifest_load(m, file, &err) < 0 :
	    ep_capture(m, &o->copts, &err) < 0)
		goto fail;
	if (file != NULL)
		return EP_EXIT_OK;
	for (size_t i = 0; i < prs.n; i++)
		if (prs.v[i].status == EP_SKIP)
			ep_cmd_warn("%s", prs.v[i].message);
	if (ep_probeopt_run(&prs, *m, &o->popt, &err) < 0)
		rc = ep_cmd_fail(self, &err);
	else if (ep_results_exit(&prs) != EP_EXIT_OK) {
		for (size_t i = 0; i < prs.n; i++)
			if (prs.v[i].status == EP_FAIL ||
			    prs.v[i].status == EP_ERROR)
				ep_say(stderr, "envparity bless: %s",
				    prs.v[i].message);
		ep_say(stderr, "envparity bless: not blessed: the reference "
		    "workload failed on this machine");
		rc = EP_EXIT_DRIFT;
	} else if (!o->quiet)
		ep_cmd_echo_meta(*m);
	ep_results_clear(&prs);
	return rc;
fail:
	ep_results_clear(&prs);
	return ep_cmd_fail(self, &err);
}

/* Whether a check's result is about the stack the golden records, not
 * the GPUs' or the node's health at the moment of the capture (a busy
 * GPU is no property of a golden). */
static int
judges_stack(const char *key)
{
	return strncmp(key, "stack.gpu.", 10) != 0 &&
	    strncmp(key, "stack.node.", 11) != 0;
}

/* The manifest against its own checks (the ones that need no golden)
 * under the profile's policy: 0 when none fails; otherwise each failure
 * said on standard error, and then, without --accept-failing, the exit
 * code (nothing is blessed), with it 0 and a warning. */
static int
self_checks(const struct bless_golden *g, const struct ep_manifest *m,
    int accept)
{
	struct ep_results rs = { 0 };
	struct ep_policy *def = NULL;
	const struct ep_policy *p = g->policy;
	size_t nfail = 0;

	if (p == NULL)
		p = def = ep_policy_default();
	ep_checks_run(&rs, m, p, time(NULL));
	for (size_t i = 0; i < rs.n; i++)
		if ((rs.v[i].status == EP_FAIL || rs.v[i].status == EP_ERROR) &&
		    judges_stack(rs.v[i].key)) {
			ep_say(stderr, "envparity bless: %s %s", rs.v[i].status ==
			    EP_FAIL ? "FAIL" : "ERROR", rs.v[i].message);
			nfail++;
		}
	ep_results_clear(&rs);
	ep_policy_free(def);
	if (nfail == 0)
		return EP_EXIT_OK;
	if (accept) {
		ep_say(stderr, "envparity bless: warning: blessed with %zu "
		    "failing check%s of its own (--accept-failing): check fails "
		    "them on every machine that matches this golden", nfail,
		    nfail == 1 ? "" : "s");
		return EP_EXIT_OK;
	}
	ep_say(stderr, "envparity bless: not blessed: the manifest fails %zu "
	    "of its own checks, and a golden that fails itself makes every "
	    "later check meaningless; mend the machine, waive the check in "
	    "the profile's policy, or bless with --accept-failing", nfail);
	return EP_EXIT_DRIFT;
}

/* "bless PROFILE from HOST", HOST the manifest's (one line: the host is
 * the manifest's word).  New. */
static char *
bless_message(const struct ep_manifest *m, const char *profile)
{
	char hostbuf[256] = "", *line, *msg;
	const char *host;

	host = json_string_value(json_object_get(m->meta, "host"));
	if (host == NULL || host[0] == '\0') {
		ep_hostname(hostbuf, sizeof hostbuf);
		host = hostbuf;
	}
	line = xasprintf("bless %s from %s", profile, host);
	msg = ep_line_clean(line);
	free(line);
	return msg;
}

/* Commit text to the store (the one golden_read kept, or opened now,
 * the default one created), and say so. */
static int
bless_commit(const struct ep_cmd *self, struct bless_golden *g,
    struct ep_resolved *r, const char *text, const char *message,
    const struct ep_author *author)
{
	struct ep_store_info info = { 0 };
	struct ep_err err = { 0 };
	char commit[41], *taken = NULL;
	int rc = EP_EXIT_OK;

	r->so.create = r->so.spec == NULL;
	if (g->store != NULL) {
		r->store = g->store;
		g->store = NULL;
	} else if (ep_store_open(&r->store, &r->so, &err) < 0)
		return ep_cmd_fail(self, &err);
	if (ep_store_policy_valid(r->store, r->profile, &err) < 0 ||
	    ep_store_bless(commit, r->store, r->profile, text, message,
	    author, &err) < 0)
		return ep_cmd_fail(self, &err);
	ep_store_describe(&info, r->store);
	/* Taking a rewritten history is said where -q still speaks. */
	if ((taken = ep_storeopt_history_taken(r->store, &info)) != NULL)
		ep_say(stderr, "envparity bless: %s", taken);
	ep_say(stdout, "blessed %s at %s on %s %s", r->profile, commit,
	    info.store, info.ref);
	if (fflush(stdout) == EOF) {
		ep_err_set(&err, EP_E_IO, "standard output: write failed");
		rc = ep_cmd_fail(self, &err);
	}
	ep_store_info_clear(&info);
	free(taken);
	return rc;
}

static int
cmd_bless_exec(const struct ep_cmd *self, int argc, char **argv)
{
	struct bless_opts o = { 0 };
	struct ep_need need = { .what = EP_NEED_STORE, .sopt = &o.sopt };
	struct ep_cmd_args args;
	struct ep_resolved r = { 0 };
	struct ep_author author = { 0 };
	struct ep_manifest *m = NULL;
	struct bless_golden g = { 0 };
	struct ep_err err = { 0 };
	const char *file;
	char *text = NULL, *msg = NULL, *abuf = NULL;
	int have_author, rc;

	ep_probeopt_init(&o.popt, 0);
	ep_imgopt_init(&o.copts.img);
	if (ep_opt_parse(&args, &rc, self, &o, argc, argv) < 0)
		goto done;
	file = args.n > 0 ? args.v[0] : NULL;
	if (file != NULL && (args.groups & (EP_OG_CAPTURE | EP_OG_IMAGE |
	    EP_OG_PROBE))) {
		rc = ep_cmd_usage_error(self, "collector options apply only "
		    "when bless captures (no MANIFEST); so do --runs and the "
		    "other probe options");
		goto done;
	}
	if ((rc = ep_cmd_message_check(self, o.message)) != 0)
		goto done;
	if (ep_resolve_store(&r, &need, &err) < 0 ||
	    ep_storeopt_author(&author, &have_author, &abuf, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if ((rc = bless_manifest(self, &m, &g, &o, file, &r)) != 0)
		goto done;
	/* One size limit with check, which could not read a larger one. */
	if (ep_manifest_dump(&text, m, &err) < 0 ||
	    ep_store_check_size(strlen(text), file != NULL ? file :
	    "the captured manifest", &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (o.message == NULL)
		o.message = msg = bless_message(m, r.profile);
	/* Judged under the profile's policy, read (once) for it. */
	if (!o.dry_run && !g.read && golden_read(&g, &r.so, r.profile,
	    &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (!o.dry_run && (rc = self_checks(&g, m, o.accept_failing)) != 0)
		goto done;
	if (o.dry_run) {
		if (!g.read && golden_read(&g, &r.so, r.profile, &err) < 0)
			rc = ep_cmd_fail(self, &err);
		else
			rc = dry_run_bless(self, &g, r.profile, m, text);
		goto done;
	}
	rc = bless_commit(self, &g, &r, text, o.message,
	    have_author ? &author : NULL);
done:
	ep_resolved_clear(&r);
	ep_manifest_free(m);
	golden_clear(&g);
	ep_capture_opts_clear(&o.copts);
	ep_probeopt_clear(&o.popt);
	free(text);
	free(msg);
	free(abuf);
	return rc;
}
