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
#include <getopt.h>
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
#include "sigkey.h"
#include "store.h"
#include "errors.h"
#include "files.h"
#include "xalloc.h"

static int cmd_verify_exec(const struct ep_cmd *, int, char **);

enum {
	OPT_KEY = 0x780,
	OPT_REQUIRE,
	OPT_SUBJECT,
	OPT_IMAGE,
	OPT_MAX_AGE,
	OPT_PROFILE,
	OPT_STORE,
	OPT_COMMIT,
};

/* At most this many --key, --subject and --image each. */
#define VERIFY_MAX	32

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
"\n"
"  --key PUB.pem        an Ed25519 public key (PEM) the signature may hold\n"
"                       under; repeat it while keys are rotated\n"
"  --require no-fail    PASSED or WARNED: nothing failed or errored,\n"
"                       warned and waived findings allowed, as check's\n"
"                       exit 0 allows them (the default)\n"
"  --require parity     strictly PASSED: nothing failed, warned or was\n"
"                       waived either\n"
"  --max-age DURATION   made at most this long ago: NUMBER and a unit,\n"
"                       s m h d or w (30m, 24h, 7d, 1d12h)\n"
"  --subject DIGEST     a subject must have this digest: sha256:HEX (the\n"
"                       facts' canonical digest, an image) or gitBlob:HEX\n"
"                       (the golden manifest, the policy); repeatable\n"
"  --image REF          the image must be one the check recorded: with\n"
"                       @sha256:, its repository and that digest; without,\n"
"                       by name alone (said on standard error); repeatable\n"
"  --profile P          the golden's profile must be P\n"
"  --store STORE        the golden must come from STORE, as check named it\n"
"                       (credentials left out either way)\n"
"  --golden-commit SHA  the golden must be the one at commit SHA (the full\n"
"                       40 hex digits): a golden reviewed and pinned, not\n"
"                       whatever the store's branch held then\n"
"  -h, --help           show this help\n"
"\n"
"FILE may be - for standard input.  Nothing is fetched: images are\n"
"matched against what the statement records.\n"
"\n"
"Exit codes: 0 verified, 1 a condition failed (no signature holds under\n"
"the keys, a verdict, age, profile, store, golden commit, subject or\n"
"image that does not match), 2 usage or malformed input (an envelope or\n"
"statement that is not one, a key that is not an Ed25519 public key), 3\n"
"the attestation cannot be read.\n",
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

static int
cmd_verify_exec(const struct ep_cmd *self, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "key", required_argument, NULL, OPT_KEY },
		{ "require", required_argument, NULL, OPT_REQUIRE },
		{ "subject", required_argument, NULL, OPT_SUBJECT },
		{ "image", required_argument, NULL, OPT_IMAGE },
		{ "max-age", required_argument, NULL, OPT_MAX_AGE },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "store", required_argument, NULL, OPT_STORE },
		{ "golden-commit", required_argument, NULL, OPT_COMMIT },
		{ NULL, 0, NULL, 0 },
	};
	const char *keypath[VERIFY_MAX], *subject[VERIFY_MAX];
	const char *image[VERIFY_MAX], *profile = NULL, *file, *alg;
	const char *golden_commit = NULL;
	char *store = NULL;
	const char *digest, *require_name = "no-fail";
	struct ep_sigkey *keys[VERIFY_MAX] = { NULL };
	struct ep_attestation *a = NULL;
	struct ep_imgref ref;
	struct ep_err err = { 0 };
	size_t nkeys = 0, nsubj = 0, nimg = 0, len;
	long long max_age = -1;
	int c, rc = EP_EXIT_NORUN, require = EP_REQUIRE_NOFAIL, by_name;
	char *text = NULL, hex[65], *ago;
	time_t now = time(NULL);

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_KEY:
		case OPT_SUBJECT:
		case OPT_IMAGE:
			if ((c == OPT_KEY ? nkeys : c == OPT_SUBJECT ? nsubj :
			    nimg) == VERIFY_MAX) {
				rc = ep_cmd_usage_error(self, "at most %d %s",
				    VERIFY_MAX, c == OPT_KEY ? "--key" :
				    c == OPT_SUBJECT ? "--subject" : "--image");
				goto done;
			}
			if (c == OPT_KEY)
				keypath[nkeys++] = optarg;
			else if (c == OPT_SUBJECT) {
				if (ep_attest_digest_parse(&alg, hex, optarg,
				    &err) < 0) {
					rc = ep_cmd_usage_error(self,
					    "--subject %s", err.msg);
					goto done;
				}
				subject[nsubj++] = optarg;
			} else {
				if (ep_imgref_parse(&ref, optarg, &err) < 0) {
					rc = ep_cmd_usage_error(self,
					    "--image %s", err.msg);
					goto done;
				}
				ep_imgref_clear(&ref);
				image[nimg++] = optarg;
			}
			break;
		case OPT_REQUIRE:
			if (strcmp(optarg, "parity") == 0)
				require = EP_REQUIRE_PARITY;
			else if (strcmp(optarg, "no-fail") == 0)
				require = EP_REQUIRE_NOFAIL;
			else {
				rc = ep_cmd_usage_error(self, "--require "
				    "'%s': parity or no-fail", optarg);
				goto done;
			}
			require_name = optarg;
			break;
		case OPT_MAX_AGE:
			if (ep_attest_duration(&max_age, optarg, &err) < 0) {
				rc = ep_cmd_usage_error(self, "%s", err.msg);
				goto done;
			}
			break;
		case OPT_PROFILE:
			profile = optarg;
			break;
		case OPT_STORE:
			if (optarg[0] == '\0') {
				rc = ep_cmd_usage_error(self, "--store is "
				    "empty");
				goto done;
			}
			free(store);
			store = ep_store_redact(optarg);
			break;
		case OPT_COMMIT:
			if (ep_attest_commit_parse(optarg, &err) < 0) {
				rc = ep_cmd_usage_error(self, "%s", err.msg);
				goto done;
			}
			golden_commit = optarg;
			break;
		case 'h':
			fputs(self->usage, stdout);
			rc = EP_EXIT_OK;
			goto done;
		default:
			rc = ep_cmd_bad_option(self, c, longopts, argv);
			goto done;
		}
	}
	if (optind >= argc) {
		rc = ep_cmd_usage_error(self, "name the attestation to "
		    "verify");
		goto done;
	}
	if (argc - optind > 1) {
		rc = ep_cmd_usage_error(self, "unexpected argument '%s' (one "
		    "attestation at a time)", argv[optind + 1]);
		goto done;
	}
	file = argv[optind];
	if (nkeys == 0) {
		rc = ep_cmd_usage_error(self, "--key PUB.pem is required: the "
		    "public key the attestation must be signed with");
		goto done;
	}
	for (size_t i = 0; i < nkeys; i++)
		if (ep_sigkey_load_public(&keys[i], keypath[i], &err) < 0) {
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
	if (ep_attest_open(&a, text, len, keys, nkeys, &err) < 0)
		goto failed;
	/* The conditions, in the order a deploy job cares about them. */
	if (ep_attest_require_verdict(a, require, &err) < 0 ||
	    (max_age >= 0 && ep_attest_require_age(a, now, max_age,
	    &err) < 0) ||
	    (profile != NULL && ep_attest_require_profile(a, profile,
	    &err) < 0) ||
	    (store != NULL && ep_attest_require_store(a, store, &err) < 0) ||
	    (golden_commit != NULL && ep_attest_require_commit(a,
	    golden_commit, &err) < 0))
		goto failed;
	for (size_t i = 0; i < nsubj; i++) {
		(void)ep_attest_digest_parse(&alg, hex, subject[i], &err);
		if (ep_attest_require_subject(a, alg, hex, &err) < 0)
			goto failed;
	}
	for (size_t i = 0; i < nimg; i++) {
		if (image_match(a, image[i], &by_name, &digest, &err) < 0)
			goto failed;
		if (by_name)
			ep_say(stderr, "envparity verify: note: --image %s "
			    "names no digest, so it was matched by name alone "
			    "(the check recorded %s): deploy by digest to be "
			    "sure it is the image checked", image[i], digest);
	}
	ago = ep_attest_duration_text((long long)(now - a->time));
	ep_say(stdout, "envparity verify: OK: %s (--require %s): %s of %s at "
	    "%s (%s%s), profile %s, commit %.12s; signed with %s (keyid "
	    "%.16s)", a->verdict, require_name, a->command, a->host,
	    a->time_text, ago, now >= a->time ? " ago" : " ahead",
	    a->profile ? a->profile : "(none)",
	    a->commit ? a->commit : "(none)",
	    ep_sigkey_name(keys[a->key]), ep_sigkey_id(keys[a->key]));
	free(ago);
	rc = EP_EXIT_OK;
	goto done;
failed:
	ep_say(stderr, "envparity verify: %s: %s", file, err.msg);
	rc = err.kind ? err.kind : EP_EXIT_NORUN;
done:
	for (size_t i = 0; i < nkeys; i++)
		ep_sigkey_free(keys[i]);
	ep_attestation_free(a);
	free(text);
	free(store);
	return rc;
}
