/*
 * fuzz_dsse.c: what `envparity verify` reads from a file it was handed:
 * DSSE envelopes (ep_dsse_open through ep_attest_open), the in-toto
 * statement inside (ep_attest_parse), base64 in either alphabet, and the
 * durations and digests verify's options take.  The first byte chooses:
 *
 *   0  an envelope, opened with RFC 8032's TEST 1 and TEST 2 public keys;
 *   1  a statement, read as if its signature had held, then every
 *      condition verify can ask of it;
 *   2  base64 decoded, then encoded and decoded again;
 *   3  a statement signed here with TEST 1's key (ep_dsse_sign), then
 *      opened: it must read as (1) reads it, so that signing and
 *      opening never disagree about a payload;
 *   4  a --max-age duration and a --subject digest.
 *
 * Promises checked: a failure is EP_E_INPUT or EP_E_DENIED with a
 * message; an attestation read has a verdict its counts give, a time,
 * subjects with well-formed digests, and each of its own subjects' and
 * images' digests is found by the conditions; base64 decodes to what
 * encodes back to its canonical form; a duration prints as text that
 * parses to it again.
 */
#include <time.h>

#include "attest.h"
#include "b64.h"
#include "dsse.h"
#include "fuzz.h"
#include "sigkey.h"

static const char key_a_pem[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g\n"
    "-----END PRIVATE KEY-----\n";
static const char pub_a_pem[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n"
    "-----END PUBLIC KEY-----\n";
static const char pub_b_pem[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MCowBQYDK2VwAyEAPUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw=\n"
    "-----END PUBLIC KEY-----\n";

static struct ep_sigkey *priv_a, *keys[2];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct ep_err err = { 0 };

	(void)argc, (void)argv;
	if (ep_sigkey_from_pem(&priv_a, key_a_pem, strlen(key_a_pem), "a",
	    1, &err) < 0 ||
	    ep_sigkey_from_pem(&keys[0], pub_a_pem, strlen(pub_a_pem), "a",
	    0, &err) < 0 ||
	    ep_sigkey_from_pem(&keys[1], pub_b_pem, strlen(pub_b_pem), "b",
	    0, &err) < 0) {
		fprintf(stderr, "fuzz_dsse: %s\n", err.msg);
		abort();
	}
	return 0;
}

static void
failed(const struct ep_err *err)
{
	FZ_CHECK(err->kind == EP_E_INPUT || err->kind == EP_E_DENIED);
	FZ_CHECK(err->msg[0] != '\0');
}

/* What an attestation read promises, and the conditions on it. */
static void
judge(const struct ep_attestation *a)
{
	struct ep_err err = { 0 };
	int rc;

	FZ_CHECK(strcmp(a->verdict, ep_attest_verdict(a->counts)) == 0);
	FZ_CHECK(a->command != NULL && a->host != NULL &&
	    a->time_text != NULL && a->version != NULL);
	for (size_t i = 0; i < a->nsubjects; i++) {
		const struct ep_att_subject *s = &a->subjects[i];

		FZ_CHECK(s->name != NULL);
		if (s->sha256 != NULL) {
			FZ_CHECK(strlen(s->sha256) == 64);
			FZ_CHECK(ep_attest_require_subject(a, "sha256",
			    s->sha256, &err) == 0);
		}
		if (s->gitblob != NULL) {
			FZ_CHECK(strlen(s->gitblob) == 40);
			FZ_CHECK(ep_attest_require_subject(a, "gitBlob",
			    s->gitblob, &err) == 0);
		}
	}
	for (size_t i = 0; i < a->nimages; i++)
		FZ_CHECK(ep_attest_require_subject(a, "sha256",
		    a->images[i].digest + 7, &err) == 0);
	rc = ep_attest_require_verdict(a, EP_REQUIRE_NOFAIL, &err);
	FZ_CHECK((rc == 0) == (strcmp(a->verdict, "FAILED") != 0));
	rc = ep_attest_require_verdict(a, EP_REQUIRE_PARITY, &err);
	FZ_CHECK((rc == 0) == (strcmp(a->verdict, "PASSED") == 0));
	if (rc < 0)
		FZ_CHECK(err.kind == EP_E_DENIED);
	/* At its own time, any age holds. */
	FZ_CHECK(ep_attest_require_age(a, a->time, 1, &err) == 0);
	if (a->time < (time_t)1 << 60)
		FZ_CHECK(ep_attest_require_age(a, a->time + 1000, 10,
		    &err) == -1);
	if (a->profile != NULL)
		FZ_CHECK(ep_attest_require_profile(a, a->profile, &err) == 0);
}

static void
b64_round(const uint8_t *d, size_t n)
{
	struct ep_err err = { 0 };
	unsigned char *out, *again;
	size_t len, len2;
	char *enc;

	if (ep_b64_decode(&out, &len, (const char *)d, n, "fuzz", &err) < 0) {
		FZ_CHECK(out == NULL && err.kind == EP_E_INPUT);
		return;
	}
	FZ_CHECK(len <= n);
	enc = ep_b64_encode(out, len);
	/* The canonical form is the input in the standard alphabet, padded:
	 * the same length once the padding is set aside. */
	while (n > 0 && d[n - 1] == '=')
		n--;
	FZ_CHECK(strlen(enc) >= n && strlen(enc) - n <= 2);
	for (size_t i = 0; i < n; i++) {
		char c = (char)d[i];

		c = c == '-' ? '+' : c == '_' ? '/' : c;
		FZ_CHECK(enc[i] == c);
	}
	FZ_CHECK(ep_b64_decode(&again, &len2, enc, strlen(enc), "again",
	    &err) == 0);
	FZ_CHECK(len2 == len && memcmp(again, out, len) == 0);
	free(again);
	free(enc);
	free(out);
}

static void
options(const uint8_t *d, size_t n)
{
	struct ep_err err = { 0 };
	char *s = fz_cstr(d, n), *t, *u, *p, hex[65];
	const char *q;
	const char *alg;
	long long secs, back;

	if (ep_attest_duration(&secs, s, &err) == 0) {
		FZ_CHECK(secs > 0 && secs <= 100LL * 366 * 86400);
		t = ep_attest_duration_text(secs);
		u = xstrdup(t);
		for (p = u, q = t; *q != '\0'; q++)
			if (*q != ' ')
				*p++ = *q;
		*p = '\0';
		FZ_CHECK(ep_attest_duration(&back, u, &err) == 0);
		FZ_CHECK(back == secs);
		free(u);
		free(t);
	} else
		FZ_CHECK(err.kind == EP_E_INPUT);
	if (ep_attest_digest_parse(&alg, hex, s, &err) == 0)
		FZ_CHECK(strlen(hex) == (strcmp(alg, "sha256") == 0 ? 64u :
		    40u) && strspn(hex, "0123456789abcdef") == strlen(hex));
	free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ep_attestation *a = NULL, *b = NULL;
	struct ep_err err = { 0 }, err2 = { 0 };
	char *env;
	int ra, rb;

	if (size == 0)
		return 0;
	switch (data[0] % 5) {
	case 0:
		if (ep_attest_open(&a, (const char *)data + 1, size - 1, keys,
		    2, &err) < 0) {
			FZ_CHECK(a == NULL);
			failed(&err);
		} else
			judge(a);
		break;
	case 1:
		if (ep_attest_parse(&a, data + 1, size - 1, &err) < 0) {
			FZ_CHECK(a == NULL && err.kind == EP_E_INPUT);
		} else
			judge(a);
		break;
	case 2:
		b64_round(data + 1, size - 1);
		break;
	case 3:
		FZ_CHECK(ep_dsse_sign(&env, EP_DSSE_INTOTO, data + 1,
		    size - 1, priv_a, &err) == 0);
		ra = ep_attest_open(&a, env, strlen(env), keys, 2, &err);
		rb = ep_attest_parse(&b, data + 1, size - 1, &err2);
		FZ_CHECK(ra == rb);
		if (ra == 0) {
			FZ_CHECK(a->key == 0);
			FZ_CHECK(strcmp(a->verdict, b->verdict) == 0 &&
			    a->time == b->time &&
			    a->nsubjects == b->nsubjects);
			judge(a);
		} else
			FZ_CHECK(strcmp(err.msg, err2.msg) == 0);
		free(env);
		break;
	default:
		options(data + 1, size - 1);
		break;
	}
	ep_attestation_free(a);
	ep_attestation_free(b);
	return 0;
}
