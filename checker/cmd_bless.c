/*
 * cmd_bless.c: `envparity bless [store options] [-m MESSAGE] [MANIFEST]`:
 * make a manifest (a file, or a fresh capture) the profile's golden one.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clean.h"
#include "capture.h"
#include "cmd.h"
#include "progress.h"
#include "compare.h"
#include "probeopt.h"
#include "store.h"
#include "storeopt.h"

static int cmd_bless_exec(const struct ep_cmd *, int, char **);

const struct ep_cmd ep_cmd_bless = {
	.name = "bless",
	.summary = "make a manifest the golden one for a profile",
	.usage =
"usage: envparity bless [store options] [-m MESSAGE] [collector options]\n"
"                       [MANIFEST]\n"
"\n"
"Commit MANIFEST (or, without one, a fresh capture of this machine) to the\n"
"store as PROFILE/manifest.json, in canonical form so that git diffs stay\n"
"readable, and push it when the store is remote.  The branch moves by\n"
"compare-and-swap: a bless of another profile that lands first is kept\n"
"and this one is committed on top; a bless of the same profile that lands\n"
"first makes this one fail (exit 3) rather than replace it unseen.  A\n"
"store with a work tree has its branch moved directly; its work tree and\n"
"index are not touched, and a branch checked out there is refused (the\n"
"next commit there would undo the bless).\n"
"\n"
"  -m, --message TEXT   the commit message (default: \"bless PROFILE from\n"
"                       HOST\", HOST from the manifest)\n"
"  -q, --quiet          do not repeat capture warnings on standard error\n"
EP_PROGRESS_HELP
"  -h, --help           show this help\n"
"\n"
EP_STORE_HELP
"\n"
EP_CAPTURE_HELP
"\n"
EP_IMAGE_HELP
"\n"
EP_PROBE_HELP
"\n"
"The author is $ENVPARITY_AUTHOR (\"Name <email>\"), else the CI's user\n"
"($GITHUB_ACTOR, $GITLAB_USER_NAME and $GITLAB_USER_EMAIL), else git\n"
"config's user.name and user.email, else envparity <envparity@HOST>.\n"
"\n"
"Prints \"blessed PROFILE at COMMIT on STORE BRANCH\".\n"
"Exit codes: 0 blessed, 1 the reference workload failed (--runs; nothing\n"
"is committed), 2 usage, a malformed manifest or one larger than the\n"
"store's 64 MiB limit, or a branch checked out in a work tree of the\n"
"store (nothing is committed), 3 the store could not be read or written,\n"
"or a race with a bless of the same profile.\n",
	.exec = cmd_bless_exec,
};

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

/* The author from the environment, or 0 with *set 0 to let the store use
 * git config.  *buf keeps the strings alive. */
static int
env_author(struct ep_author *a, int *set, char **buf, struct ep_err *err)
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

static int
cmd_bless_exec(const struct ep_cmd *self, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "message", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		EP_STORE_LONGOPTS,
		EP_CAPTURE_LONGOPTS,
		EP_IMAGE_LONGOPTS,
		EP_PROBE_LONGOPTS,
		EP_PROGRESS_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct ep_capture_opts copts = { 0 };
	struct ep_probeopt popt;
	struct ep_results prs = { 0 };
	struct ep_storeopt sopt = { 0 };
	struct ep_store_opts so;
	struct ep_store_info info = { 0 };
	struct ep_author author = { 0 };
	struct ep_manifest *m = NULL;
	struct ep_store *s = NULL;
	struct ep_err err = { 0 };
	const char *message = NULL, *profile, *file = NULL, *host;
	char *text = NULL, *msg = NULL, *abuf = NULL, commit[41];
	char hostbuf[256] = "";
	int c, v, quiet = 0, captured_opts = 0, have_author, rc = EP_EXIT_OK;

	ep_probeopt_init(&popt);
	ep_imgopt_init(&copts.img);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:qh", longopts, NULL)) != -1) {
		if (ep_progress_opt(c))
			continue;
		if (ep_store_opt(&sopt, c, optarg))
			continue;
		if (ep_capture_opt(&copts, c, optarg)) {
			captured_opts = 1;
			continue;
		}
		if ((v = ep_image_opt(&copts.img, c, optarg, &err)) != 0 ||
		    (v = ep_probe_opt(&popt, c, optarg, &err)) != 0) {
			if (v < 0) {
				rc = ep_cmd_usage_error(self, "%s", err.msg);
				goto done;
			}
			captured_opts = 1;
			continue;
		}
		switch (c) {
		case 'm':
			message = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(self->usage, stdout);
			goto done;
		default:
			rc = ep_cmd_bad_option(self, c, longopts, argv);
			goto done;
		}
	}
	if (argc - optind > 1) {
		rc = ep_cmd_usage_error(self, "unexpected argument '%s'",
		    argv[optind + 1]);
		goto done;
	}
	if (optind < argc)
		file = argv[optind];
	if (file != NULL && captured_opts) {
		rc = ep_cmd_usage_error(self, "collector options apply only "
		    "when bless captures (no MANIFEST); so do --runs and the "
		    "other probe options");
		goto done;
	}
	if (message != NULL &&
	    strspn(message, " \t\r\n") == strlen(message)) {
		rc = ep_cmd_usage_error(self, "the message is empty");
		goto done;
	}
	if (ep_storeopt_resolve(&so, &profile, &sopt, &err) < 0 ||
	    env_author(&author, &have_author, &abuf, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}

	/* Validated before the store is touched: a bad manifest commits
	 * nothing. */
	if (file != NULL ? ep_manifest_load(&m, file, &err) < 0 :
	    ep_capture(&m, &copts, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	/*
	 * With --runs the golden records the reference workload's hashes
	 * and determinism domain; a machine whose runs differ or whose known
	 * answers are wrong is no golden, so nothing is blessed.
	 */
	if (file == NULL) {
		if (ep_probeopt_run(&prs, m, &popt, &err) < 0) {
			rc = ep_cmd_fail(self, &err);
			goto done;
		}
		if (ep_results_exit(&prs) != EP_EXIT_OK) {
			for (size_t i = 0; i < prs.n; i++)
				if (prs.v[i].status == EP_FAIL ||
				    prs.v[i].status == EP_ERROR)
					ep_say(stderr, "envparity bless: %s",
					    prs.v[i].message);
			ep_say(stderr, "envparity bless: not blessed: the "
			    "reference workload failed on this machine");
			rc = EP_EXIT_DRIFT;
			goto done;
		}
	}
	if (file == NULL && !quiet)
		ep_cmd_echo_meta(m);
	/* One size limit with check, which could not read a larger one. */
	if (ep_manifest_dump(&text, m, &err) < 0 ||
	    ep_store_check_size(strlen(text), file != NULL ? file :
	    "the captured manifest", &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (message == NULL) {
		host = json_string_value(json_object_get(m->meta, "host"));
		if (host == NULL || host[0] == '\0') {
			if (gethostname(hostbuf, sizeof hostbuf - 1) < 0)
				strcpy(hostbuf, "unknown");
			host = hostbuf;
		}
		msg = xasprintf("bless %s from %s", profile, host);
		message = msg;
	}

	so.create = so.spec == NULL;
	if (ep_store_open(&s, &so, &err) < 0 ||
	    ep_store_policy_valid(s, profile, &err) < 0 ||
	    ep_store_bless(commit, s, profile, text, message,
	    have_author ? &author : NULL, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	ep_store_describe(&info, s);
	ep_say(stdout, "blessed %s at %s on %s %s", profile, commit,
	    info.store, info.ref);
	if (fflush(stdout) == EOF) {
		ep_err_set(&err, EP_E_IO, "standard output: write failed");
		rc = ep_cmd_fail(self, &err);
	}
done:
	ep_store_info_clear(&info);
	ep_store_free(s);
	ep_manifest_free(m);
	ep_capture_opts_clear(&copts);
	ep_results_clear(&prs);
	free(text);
	free(msg);
	free(abuf);
	return rc;
}
