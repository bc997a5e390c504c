/*
 * attest.c: writing an attestation: the in-toto Statement of a check or
 * a fleet run, then the DSSE envelope around it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "attest.h"
#include "dsse.h"
#include "hash.h"
#include "version.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

void
ep_attest_git_blob(char hex[41], const char *text, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char head[40];
	int hl = snprintf(head, sizeof head, "blob %zu", n);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	/* The NUL after the header is part of what git hashes. */
	if (ctx == NULL || EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) != 1 ||
	    EVP_DigestUpdate(ctx, head, (size_t)hl + 1) != 1 ||
	    EVP_DigestUpdate(ctx, text, n) != 1 ||
	    EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen != 20) {
		fprintf(stderr, "envparity: OpenSSL cannot compute SHA-1\n");
		abort();
	}
	EVP_MD_CTX_free(ctx);
	for (unsigned i = 0; i < 20; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[40] = '\0';
}

const char *
ep_attest_verdict(const size_t counts[EP_NSTATUS])
{
	if (counts[EP_FAIL] > 0 || counts[EP_ERROR] > 0)
		return "FAILED";
	if (counts[EP_WARN] > 0 || counts[EP_WAIVED] > 0)
		return "WARNED";
	return "PASSED";
}

/* s (NULL: JSON null) as a JSON string, invalid UTF-8 replaced. */
static json_t *
str_new(const char *s)
{
	char *clean;
	json_t *j;

	if (s == NULL)
		return json_null();
	clean = ep_utf8_sanitize(s, strlen(s));
	j = json_string(clean);
	free(clean);
	return j;
}

static void
add_subject(json_t *subjects, const char *name, const char *alg,
    const char *hex)
{
	json_t *s = json_object(), *d = json_object();

	json_object_set_new(d, alg, json_string(hex));
	json_object_set_new(s, "name", str_new(name));
	json_object_set_new(s, "digest", d);
	json_array_append_new(subjects, s);
}

/* "sha256:<64 lowercase hex>" into hex, or 0. */
static int
sha256_of(char hex[65], const char *digest)
{
	if (digest == NULL || strncmp(digest, "sha256:", 7) != 0 ||
	    strlen(digest + 7) != 64 ||
	    strspn(digest + 7, "0123456789abcdef") != 64)
		return 0;
	memcpy(hex, digest + 7, 65);
	return 1;
}

/* The facts of one --image, keyed image.<name>.<what>. */
static const char *
image_fact(const struct ep_manifest *m, const char *name, const char *what)
{
	char *key = xasprintf("image.%s.%s", name, what);
	const char *v = ep_manifest_get(m, key);

	free(key);
	return v;
}

/* A subject for every image.<name>.digest of m, and the predicate's
 * "images": what each resolved to. */
static void
add_images(json_t *subjects, json_t *images, const struct ep_manifest *m)
{
	static const char *const what[][2] = {
		{ "digest", "digest" },
		{ "mediaType", "media_type" },
		{ "platformDigest", "platform_digest" },
		{ "platform", "platform" },
		{ "configDigest", "config_digest" },
	};
	struct ep_strv names = { 0 };
	const char *key;
	json_t *v;
	char hex[65];

	json_object_foreach(m->facts, key, v) {
		size_t n = strlen(key);

		if (n > strlen("image..digest") &&
		    strncmp(key, "image.", 6) == 0 &&
		    strcmp(key + n - 7, ".digest") == 0)
			ep_strv_push_owned(&names, xstrndup(key + 6,
			    n - 6 - 7));
	}
	ep_strv_sort(&names);
	for (size_t i = 0; i < names.n; i++) {
		json_t *o = json_object();

		if (!sha256_of(hex, image_fact(m, names.v[i], "digest")))
			continue;
		add_subject(subjects, names.v[i], "sha256", hex);
		for (size_t k = 0; k < sizeof what / sizeof what[0]; k++)
			json_object_set_new(o, what[k][0], str_new(
			    image_fact(m, names.v[i], what[k][1])));
		json_object_set_new(images, names.v[i], o);
	}
	ep_strv_clear(&names);
}

/* The keys of the results of status s (and t), sorted, at most
 * EP_ATTEST_KEYS_MAX; a fleet's per-node results as "NODE:KEY".  *left
 * gets how many were left out. */
static json_t *
keys_of(const struct ep_results *rs, int s, int t, size_t *left)
{
	struct ep_strv v = { 0 };
	json_t *a = json_array();

	for (size_t i = 0; i < rs->n; i++) {
		const struct ep_result *r = &rs->v[i];

		if (r->status != s && r->status != t)
			continue;
		if (r->node != NULL)
			ep_strv_push_owned(&v, xasprintf("%s:%s", r->node,
			    r->key));
		else
			ep_strv_push(&v, r->key);
	}
	ep_strv_sort(&v);
	for (size_t i = 0; i < v.n && i < EP_ATTEST_KEYS_MAX; i++)
		json_array_append_new(a, str_new(v.v[i]));
	*left = v.n > EP_ATTEST_KEYS_MAX ? v.n - EP_ATTEST_KEYS_MAX : 0;
	ep_strv_clear(&v);
	return a;
}

static json_t *
predicate(const struct ep_attest_in *in, json_t *images)
{
	json_t *p = json_object(), *c = json_object(), *om = json_object();
	size_t counts[EP_NSTATUS], left;
	char when[32];
	struct tm tm;

	ep_results_count(in->rs, counts);
	json_object_set_new(p, "command", json_string(in->command));
	json_object_set_new(p, "verdict",
	    json_string(ep_attest_verdict(counts)));
	json_object_set_new(p, "exitStatus",
	    json_integer(ep_results_exit(in->rs)));
	for (int s = 0; s < EP_NSTATUS; s++)
		json_object_set_new(c, ep_status_name(s),
		    json_integer((json_int_t)counts[s]));
	json_object_set_new(p, "counts", c);
	json_object_set_new(p, "failing", keys_of(in->rs, EP_FAIL, EP_ERROR,
	    &left));
	json_object_set_new(om, "failing", json_integer((json_int_t)left));
	json_object_set_new(p, "warned", keys_of(in->rs, EP_WARN, EP_WARN,
	    &left));
	json_object_set_new(om, "warned", json_integer((json_int_t)left));
	json_object_set_new(p, "waived", keys_of(in->rs, EP_WAIVED,
	    EP_WAIVED, &left));
	json_object_set_new(om, "waived", json_integer((json_int_t)left));
	json_object_set_new(p, "omitted", om);
	json_object_set_new(p, "profile", str_new(in->profile));
	json_object_set_new(p, "store", str_new(in->store));
	json_object_set_new(p, "ref", str_new(in->ref));
	json_object_set_new(p, "commit", str_new(in->commit));
	json_object_set_new(p, "images", images);
	if (in->fleet != NULL) {
		const struct ep_fleet_view *v = in->fleet;
		json_t *n = json_object();

		json_object_set_new(n, "reported",
		    json_integer((json_int_t)v->nreported));
		json_object_set_new(n, "missing",
		    json_integer((json_int_t)v->nmissing));
		json_object_set_new(n, "unreadable",
		    json_integer((json_int_t)v->nerror));
		json_object_set_new(n, "odd", json_integer((json_int_t)v->nodd));
		json_object_set_new(n, "expected", str_new(v->expect));
		json_object_set_new(p, "nodes", n);
	}
	json_object_set_new(p, "host", str_new(in->host));
	gmtime_r(&in->time, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_set_new(p, "time", json_string(when));
	json_object_set_new(p, "envparityVersion", json_string(EP_VERSION));
	return p;
}

int
ep_attest_statement(char **out, size_t *len, const struct ep_attest_in *in,
    struct ep_err *err)
{
	json_t *st = json_object(), *subjects = json_array();
	json_t *images = json_object();
	char hex[EP_SHA256_HEX], blob[41], *name;

	*out = NULL;
	*len = 0;
	if (in->current != NULL) {
		ep_manifest_facts_sha256(hex, in->current);
		name = xasprintf("facts:%s", in->host);
		add_subject(subjects, name, "sha256", hex);
		free(name);
		add_images(subjects, images, in->current);
	}
	if (in->fleet != NULL)
		for (size_t i = 0; i < in->fleet->nnodes; i++) {
			const struct ep_fleet_node *nd = &in->fleet->nodes[i];

			if (nd->state != EP_NODE_OK || !nd->facts_sha256[0])
				continue;
			name = xasprintf("facts:%s", nd->name);
			add_subject(subjects, name, "sha256",
			    nd->facts_sha256);
			free(name);
		}
	if (in->golden_text != NULL) {
		ep_attest_git_blob(blob, in->golden_text,
		    strlen(in->golden_text));
		add_subject(subjects, in->golden_name, "gitBlob", blob);
	}
	if (in->policy_text != NULL) {
		ep_attest_git_blob(blob, in->policy_text,
		    strlen(in->policy_text));
		add_subject(subjects, in->policy_name, "gitBlob", blob);
	}
	for (size_t i = 0; i < in->nmore_policies; i++) {
		ep_attest_git_blob(blob, in->more_policy_texts[i],
		    strlen(in->more_policy_texts[i]));
		add_subject(subjects, in->more_policy_names[i], "gitBlob",
		    blob);
	}
	json_object_set_new(st, "_type", json_string(EP_INTOTO_STATEMENT));
	json_object_set_new(st, "subject", subjects);
	json_object_set_new(st, "predicateType",
	    json_string(EP_ATTEST_PREDICATE));
	json_object_set_new(st, "predicate", predicate(in, images));
	*out = json_dumps(st, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(st);
	if (*out == NULL)
		return ep_err_set(err, EP_E_IO, "cannot serialize the "
		    "statement");
	*len = strlen(*out);
	return 0;
}

int
ep_attest_envelope(char **out, const struct ep_attest_in *in,
    const struct ep_sigkey *key, struct ep_err *err)
{
	char *st;
	size_t n;
	int rc;

	*out = NULL;
	if (ep_attest_statement(&st, &n, in, err) < 0)
		return -1;
	rc = ep_dsse_sign(out, EP_DSSE_INTOTO, st, n, key, err);
	free(st);
	return rc;
}
