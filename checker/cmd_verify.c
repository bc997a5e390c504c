/*
 * cmd_verify.c: `envparity verify FILE --key PUB.pem ...`: the deploy
 * job's side of an attestation that `check --attest` (or `fleet
 * --attest`) wrote.  Exit 0 only when a signature holds under one of the
 * keys, the statement is envparity's, and every condition asked for
 * holds: the verdict (--require), the age (--max-age), the golden it was
 * judged against (--profile, --store, --golden-commit), the subjects and
 * the images.  Otherwise one line says which condition
 * failed.  Offline: nothing is fetched, an image is matched against what
 * the statement records.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "attest.h"
#include "clean.h"
#include "cmd.h"
#include "dsse.h"
#include "image.h"
#include "opt.h"
#include "sigkey.h"
#include "store.h"
#include "errors.h"
#include "files.h"
#include "xalloc.h"

static int cmd_verify_exec(const struct ep_cmd *, int, char **);

/* At most this many --key, --subject and --image each. */
#define VERIFY_MAX	32

/* What the command line says. */
struct verify_opts {
	const char *keypath[VERIFY_MAX];
	const char *subject[VERIFY_MAX];
	const char *image[VERIFY_MAX];
	size_t nkeys, nsubj, nimg;
	const char *require_name;
	int require;
	long long max_age;		/* -1: any */
	const char *profile;
	char *store;			/* redacted; new */
	const char *golden_commit;
};

/* Keep one more of a repeatable option's values. */
static int
verify_more(const char **v, size_t *n, const char *what, const char *arg,
    struct ep_err *err)
{
	if (*n == VERIFY_MAX)
		return ep_err_set(err, EP_E_INPUT, "at most %d %s", VERIFY_MAX,
		    what);
	v[(*n)++] = arg;
	return 0;
}

static int
verify_key(void *field, const char *arg, struct ep_err *err)
{
	struct verify_opts *o = field;

	return verify_more(o->keypath, &o->nkeys, "--key", arg, err);
}

static int
verify_subject(void *field, const char *arg, struct ep_err *err)
{
	struct verify_opts *o = field;
	const char *alg;
	char hex[65], *why;

	if (o->nsubj < VERIFY_MAX &&
	    ep_attest_digest_parse(&alg, hex, arg, err) < 0) {
		why = xstrdup(err->msg);
		ep_err_set(err, EP_E_INPUT, "--subject %s", why);
		free(why);
		return -1;
	}
	return verify_more(o->subject, &o->nsubj, "--subject", arg, err);
}

static int
verify_image(void *field, const char *arg, struct ep_err *err)
{
	struct verify_opts *o = field;
	struct ep_imgref ref;
	char *why;

	if (o->nimg < VERIFY_MAX) {
		if (ep_imgref_parse(&ref, arg, err) < 0) {
			why = xstrdup(err->msg);
			ep_err_set(err, EP_E_INPUT, "--image %s", why);
			free(why);
			return -1;
		}
		ep_imgref_clear(&ref);
	}
	return verify_more(o->image, &o->nimg, "--image", arg, err);
}

static int
verify_require(void *field, const char *arg, struct ep_err *err)
{
	struct verify_opts *o = field;

	if (strcmp(arg, "parity") == 0)
		o->require = EP_REQUIRE_PARITY;
	else if (strcmp(arg, "no-fail") == 0)
		o->require = EP_REQUIRE_NOFAIL;
	else
		return ep_err_set(err, EP_E_INPUT, "--require '%s': parity or "
		    "no-fail", arg);
	o->require_name = arg;
	return 0;
}

static int
verify_max_age(void *field, const char *arg, struct ep_err *err)
{
	return ep_attest_duration(field, arg, err);
}

static int
verify_store(void *field, const char *arg, struct ep_err *err)
{
	char **store = field;

	if (arg[0] == '\0')
		return ep_err_set(err, EP_E_INPUT, "--store is empty");
	free(*store);
	*store = ep_store_redact(arg);
	return 0;
}

static int
verify_commit(void *field, const char *arg, struct ep_err *err)
{
	if (ep_attest_commit_parse(arg, err) < 0)
		return -1;
	*(const char **)field = arg;
	return 0;
}

#define VO struct verify_opts
static const struct ep_opt verify_opts[] = {
	EP_OPT_CALL("key", 0, "PUB.pem", verify_key,
	    "an Ed25519 public key (PEM) the signature may hold\n"
	    "under; repeat it while keys are rotated"),
	EP_OPT_CALL("require", 0, "no-fail", verify_require,
	    "PASSED or WARNED: nothing failed or errored,\n"
	    "warned and waived findings allowed, as check's\n"
	    "exit 0 allows them (the default)"),
	EP_OPT_TEXT(
"  --require parity     strictly PASSED: nothing failed, warned or was\n"
"                       waived either"),
	EP_OPT_FN("max-age", 0, "DURATION", VO, max_age, verify_max_age,
	    "made at most this long ago: NUMBER and a unit,\n"
	    "s m h d or w (30m, 24h, 7d, 1d12h)"),
	EP_OPT_CALL("subject", 0, "DIGEST", verify_subject,
	    "a subject must have this digest: sha256:HEX (the\n"
	    "facts' canonical digest, an image) or gitBlob:HEX\n"
	    "(the golden manifest, the policy); repeatable"),
	EP_OPT_CALL("image", 0, "REF", verify_image,
	    "the image must be one the check recorded: with\n"
	    "@sha256:, its repository and that digest; without,\n"
	    "by name alone (said on standard error); repeatable"),
	EP_OPT_STR("profile", 0, "P", VO, profile,
	    "the golden's profile must be P"),
	EP_OPT_FN("store", 0, "STORE", VO, store, verify_store,
	    "the golden must come from STORE, as check named it\n"
	    "(credentials left out either way)"),
	EP_OPT_FN("golden-commit", 0, "SHA", VO, golden_commit, verify_commit,
	    "the golden must be the one at commit SHA (the full\n"
	    "40 hex digits): a golden reviewed and pinned, not\n"
	    "whatever the store's branch held then"),
	EP_OPT_HELP,
	EP_OPT_END,
};
#undef VO

const struct ep_cmd ep_cmd_verify = {
	.name = "verify",
	.summary = "check a signed attestation before a deploy",
	.usage =
"usage: envparity verify FILE --key PUB.pem [--key PUB2.pem ...]\n"
"                        [--require parity|no-fail] [--max-age DURATION]\n"
"                        [--subject sha256:HEX] [--image REF] [--profile P]\n"
"                        [--store STORE] [--golden-commit SHA]\n"
"\n"
"Verify an attestation written by `envparity check --attest` (or fleet's):\n"
"a DSSE envelope holding an in-toto Statement v1 of envparity's predicate.\n"
"Exit 0 only if a signature holds under one of the keys and every\n"
"condition asked for holds; otherwise one line says which failed.\n"
"\n",
	.opts = verify_opts,
	.footer =
"FILE may be - for standard input.  Nothing is fetched: images are\n"
"matched against what the statement records.\n"
"\n"
"Exit codes: 0 verified, 1 a condition failed (no signature holds under\n"
"the keys, a verdict, age, profile, store, golden commit, subject or\n"
"image that does not match), 2 usage or malformed input (an envelope or\n"
"statement that is not one, a key that is not an Ed25519 public key), 3\n"
"the attestation cannot be read.\n",
	.max_operands = -1,
	.exec = cmd_verify_exec,
};

/* The attestation's text; any failure to read it is EP_E_IO (exit 3: no
 * proof could be looked at), but one too large to be an envelope is
 * malformed. */
static int
read_attestation(char **text, size_t *len, const char *path,
    struct ep_err *err)
{
	struct stat st;
	int fd, rc;

	*text = NULL;
	if (strcmp(path, "-") == 0) {
		if (ep_read_fd(text, len, 0, "standard input", EP_DSSE_MAX,
		    err) == 0)
			return 0;
		/* Too large is what was sent, not a failure to read it. */
		if (strstr(err->msg, "too large") == NULL)
			err->kind = EP_E_IO;
		return -1;
	}
	if ((fd = ep_open_regular(path, &st, err)) < 0) {
		err->kind = EP_E_IO;
		return -1;
	}
	if ((unsigned long long)st.st_size > EP_DSSE_MAX) {
		close(fd);
		return ep_err_set(err, EP_E_INPUT, "%s: not a DSSE envelope: "
		    "larger than %u bytes", path, EP_DSSE_MAX);
	}
	rc = ep_read_fd(text, len, fd, path, EP_DSSE_MAX, err);
	close(fd);
	if (rc < 0)
		err->kind = EP_E_IO;
	return rc;
}

/* The recorded image names, for a message: "a, b, c" (at most five). */
static char *
image_names(const struct ep_attestation *a)
{
	char *s, *t;

	if (a->nimages == 0)
		return xstrdup("none");
	s = xstrdup("");
	for (size_t i = 0; i < a->nimages && i < 5; i++) {
		t = xasprintf("%s%s%s", s, i ? ", " : "", a->images[i].name);
		free(s);
		s = t;
	}
	if (a->nimages > 5) {
		t = xasprintf("%s and %zu more", s, a->nimages - 5);
		free(s);
		s = t;
	}
	return s;
}

/* Whether two parsed references name one repository: the same registry
 * and repository, or the same local layout or archive. */
static int
same_repository(const struct ep_imgref *x, const struct ep_imgref *y)
{
	if (x->kind != y->kind)
		return 0;
	if (x->kind == EP_IMG_REGISTRY)
		return strcmp(x->registry, y->registry) == 0 &&
		    strcmp(x->repository, y->repository) == 0;
	return strcmp(x->path, y->path) == 0;
}

/* --image text against what a records: 0 when it matches (*by_name set
 * when only the name could be), else -1 with err (EP_E_DENIED). */
static int
image_match(const struct ep_attestation *a, const char *text, int *by_name,
    const char **digest, struct ep_err *err)
{
	struct ep_imgref want = { 0 }, have;
	struct ep_err ignored = { 0 };
	const char *other = NULL, *other_name = NULL;
	char *names;
	int rc = -1;

	*by_name = 0;
	*digest = NULL;
	if (ep_imgref_parse(&want, text, err) < 0)
		return -1;
	for (size_t i = 0; i < a->nimages && rc < 0; i++) {
		if (want.digest == NULL) {
			if (strcmp(a->images[i].name, want.name) == 0) {
				*by_name = 1;
				*digest = a->images[i].digest;
				rc = 0;
			}
			continue;
		}
		if (ep_imgref_parse(&have, a->images[i].name, &ignored) < 0)
			continue;
		if (same_repository(&want, &have)) {
			if (strcmp(a->images[i].digest, want.digest) == 0) {
				*digest = a->images[i].digest;
				rc = 0;
			} else if (other == NULL) {
				other = a->images[i].digest;
				other_name = a->images[i].name;
			}
		}
		ep_imgref_clear(&have);
	}
	if (rc < 0) {
		names = image_names(a);
		if (other != NULL)
			ep_err_set(err, EP_E_DENIED, "image %s: the check "
			    "recorded %s for %s, not %s", want.name, other,
			    other_name, want.digest);
		else if (want.digest != NULL)
			ep_err_set(err, EP_E_DENIED, "image %s: the check "
			    "recorded no image of that repository (images "
			    "recorded: %s)", want.name, names);
		else
			ep_err_set(err, EP_E_DENIED, "image %s: not an image "
			    "the check recorded (images recorded: %s)",
			    want.name, names);
		free(names);
	}
	ep_imgref_clear(&want);
	return rc;
}

/* The conditions, in the order a deploy job cares about them: -1 with
 * err naming the first that fails. */
static int
verify_conditions(const struct ep_attestation *a,
    const struct verify_opts *o, time_t now, struct ep_err *err)
{
	const char *alg, *digest;
	char hex[65];
	int by_name;

	if (ep_attest_require_verdict(a, o->require, err) < 0 ||
	    (o->max_age >= 0 && ep_attest_require_age(a, now, o->max_age,
	    err) < 0) ||
	    (o->profile != NULL && ep_attest_require_profile(a, o->profile,
	    err) < 0) ||
	    (o->store != NULL && ep_attest_require_store(a, o->store,
	    err) < 0) ||
	    (o->golden_commit != NULL && ep_attest_require_commit(a,
	    o->golden_commit, err) < 0))
		return -1;
	for (size_t i = 0; i < o->nsubj; i++) {
		(void)ep_attest_digest_parse(&alg, hex, o->subject[i], err);
		if (ep_attest_require_subject(a, alg, hex, err) < 0)
			return -1;
	}
	for (size_t i = 0; i < o->nimg; i++) {
		if (image_match(a, o->image[i], &by_name, &digest, err) < 0)
			return -1;
		if (by_name)
			ep_say(stderr, "envparity verify: note: --image %s "
			    "names no digest, so it was matched by name alone "
			    "(the check recorded %s): deploy by digest to be "
			    "sure it is the image checked", o->image[i], digest);
	}
	return 0;
}

/* FILE and a --key: 0, or the usage error's exit code, printed. */
static int
verify_usage(const struct ep_cmd *self, const struct verify_opts *o,
    const struct ep_cmd_args *args)
{
	if (args->n == 0)
		return ep_cmd_usage_error(self, "name the attestation to "
		    "verify");
	if (args->n > 1)
		return ep_cmd_usage_error(self, "unexpected argument '%s' (one "
		    "attestation at a time)", args->v[1]);
	if (o->nkeys == 0)
		return ep_cmd_usage_error(self, "--key PUB.pem is required: the "
		    "public key the attestation must be signed with");
	return 0;
}

static int
cmd_verify_exec(const struct ep_cmd *self, int argc, char **argv)
{
	struct verify_opts o = { .require_name = "no-fail",
	    .require = EP_REQUIRE_NOFAIL, .max_age = -1 };
	struct ep_sigkey *keys[VERIFY_MAX] = { NULL };
	struct ep_attestation *a = NULL;
	struct ep_cmd_args args;
	struct ep_err err = { 0 };
	const char *file;
	char *text = NULL, *ago;
	size_t len;
	int rc;
	time_t now = time(NULL);

	if (ep_opt_parse(&args, &rc, self, &o, argc, argv) < 0 ||
	    (rc = verify_usage(self, &o, &args)) != 0)
		goto done;
	file = args.v[0];
	for (size_t i = 0; i < o.nkeys; i++)
		if (ep_sigkey_load_public(&keys[i], o.keypath[i], &err) < 0) {
			rc = ep_cmd_fail(self, &err);
			goto done;
		}
	if (read_attestation(&text, &len, file, &err) < 0) {
		if (err.kind == EP_E_IO)
			ep_say(stderr, "envparity verify: cannot read the "
			    "attestation: %s", err.msg);
		else
			ep_say(stderr, "envparity verify: %s", err.msg);
		rc = err.kind;
		goto done;
	}
	if (ep_attest_open(&a, text, len, keys, o.nkeys, &err) < 0 ||
	    verify_conditions(a, &o, now, &err) < 0) {
		ep_say(stderr, "envparity verify: %s: %s", file, err.msg);
		rc = err.kind ? err.kind : EP_EXIT_NORUN;
		goto done;
	}
	ago = ep_attest_duration_text((long long)(now - a->time));
	ep_say(stdout, "envparity verify: OK: %s (--require %s): %s of %s at "
	    "%s (%s%s), profile %s, commit %.12s; signed with %s (keyid "
	    "%.16s)", a->verdict, o.require_name, a->command, a->host,
	    a->time_text, ago, now >= a->time ? " ago" : " ahead",
	    a->profile ? a->profile : "(none)",
	    a->commit ? a->commit : "(none)",
	    ep_sigkey_name(keys[a->key]), ep_sigkey_id(keys[a->key]));
	free(ago);
	rc = EP_EXIT_OK;
done:
	for (size_t i = 0; i < o.nkeys; i++)
		ep_sigkey_free(keys[i]);
	ep_attestation_free(a);
	free(text);
	free(o.store);
	return rc;
}
