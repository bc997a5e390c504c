/*
 * test_attest_read.c: attestations read back for `envparity verify`
 * (attest_read.c): a statement written, signed, opened and read back
 * field by field, verify's conditions on it (verdict, age, subject,
 * profile), statements that are signed but not ours or not consistent,
 * and what verify types: durations and digests.  The parts others must
 * compute the same way (base64, DSSE, Ed25519, digests) are in
 * test_attest.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest.h"
#include "attestfixture.h"
#include "hash.h"
#include "manifest.h"
#include "sigkey.h"

static void
add(struct ep_results *rs, const char *key, int status, const char *node)
{
	struct ep_result r = { 0 };

	r.key = (char *)key;
	r.status = status;
	r.node = (char *)node;
	ep_results_add(rs, &r);
}

/* A statement written, signed, opened and read back. */
static void
test_statement(void **state)
{
	struct ep_sigkey *a = key(key_a_pem, 1), *pub = key(pub_a_pem, 0);
	struct ep_manifest *m = ep_manifest_new();
	struct ep_results rs = { 0 };
	struct ep_attest_in in = { 0 };
	struct ep_attestation *at = NULL;
	struct ep_err err = { 0 };
	char *env, facts[EP_SHA256_HEX], blob[41];

	(void)state;
	ep_manifest_set(m, "os.id", "debian");
	ep_manifest_set(m, "image.oci:l:v1.digest", "sha256:"
	    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	ep_manifest_set(m, "image.oci:l:v1.platform", "linux/amd64");
	add(&rs, "os.id", EP_PASS, NULL);
	add(&rs, "python.pkg.b", EP_WAIVED, NULL);
	add(&rs, "stack.x", EP_WARN, NULL);
	in.command = "check";
	in.rs = &rs;
	in.current = m;
	in.profile = "train/h100";
	in.store = "https://git.example/golden.git";
	in.ref = "main";
	in.commit = "0123456789012345678901234567890123456789";
	in.golden_text = "{}\n";
	in.golden_name = "train/h100/manifest.json";
	in.host = "node7";
	in.time = 1767225600;	/* 2026-01-01T00:00:00Z */
	assert_int_equal(ep_attest_envelope(&env, &in, a, &err), 0);
	assert_int_equal(ep_attest_open(&at, env, strlen(env), &pub, 1, &err),
	    0);
	assert_string_equal(at->verdict, "WARNED");
	assert_string_equal(at->command, "check");
	assert_string_equal(at->profile, "train/h100");
	assert_string_equal(at->host, "node7");
	assert_string_equal(at->time_text, "2026-01-01T00:00:00Z");
	assert_int_equal(at->time, 1767225600);
	assert_null(at->first_failing);
	assert_int_equal(at->counts[EP_WAIVED], 1);
	assert_int_equal(at->nsubjects, 3);
	ep_manifest_facts_sha256(facts, m);
	assert_string_equal(at->subjects[0].name, "facts:node7");
	assert_string_equal(at->subjects[0].sha256, facts);
	assert_string_equal(at->subjects[1].name, "oci:l:v1");
	assert_int_equal(at->nimages, 1);
	assert_string_equal(at->images[0].digest, "sha256:0123456789abcdef"
	    "0123456789abcdef0123456789abcdef0123456789abcdef");
	ep_attest_git_blob(blob, "{}\n", 3);
	assert_string_equal(at->subjects[2].gitblob, blob);

	/* The conditions. */
	assert_int_equal(ep_attest_require_verdict(at, EP_REQUIRE_NOFAIL,
	    &err), 0);
	assert_int_equal(ep_attest_require_verdict(at, EP_REQUIRE_PARITY,
	    &err), -1);
	assert_int_equal(err.kind, EP_E_DENIED);
	assert_non_null(strstr(err.msg, "verdict WARNED"));
	assert_int_equal(ep_attest_require_age(at, 1767225600 + 3600, 3600,
	    &err), 0);
	assert_int_equal(ep_attest_require_age(at, 1767225600 + 3601, 3600,
	    &err), -1);
	assert_string_equal(err.msg, "made at 2026-01-01T00:00:00Z, 1h 1s ago: "
	    "older than --max-age 1h");
	assert_int_equal(ep_attest_require_age(at, 1767225600 - 301, 3600,
	    &err), -1);
	assert_non_null(strstr(err.msg, "in the future"));
	assert_int_equal(ep_attest_require_subject(at, "sha256", facts, &err),
	    0);
	assert_int_equal(ep_attest_require_subject(at, "gitBlob", blob, &err),
	    0);
	assert_int_equal(ep_attest_require_subject(at, "gitBlob", facts,
	    &err), -1);
	assert_int_equal(ep_attest_require_profile(at, "train/h100", &err), 0);
	assert_int_equal(ep_attest_require_profile(at, "train", &err), -1);
	assert_string_equal(err.msg, "profile train/h100, not train");
	ep_attestation_free(at);
	free(env);

	/* A failure makes it FAILED, with the first failing key. */
	add(&rs, "os.id", EP_FAIL, "n1");
	assert_int_equal(ep_attest_envelope(&env, &in, a, &err), 0);
	assert_int_equal(ep_attest_open(&at, env, strlen(env), &pub, 1, &err),
	    0);
	assert_string_equal(at->verdict, "FAILED");
	assert_string_equal(at->first_failing, "n1:os.id");
	assert_int_equal(ep_attest_require_verdict(at, EP_REQUIRE_NOFAIL,
	    &err), -1);
	assert_string_equal(err.msg, "verdict FAILED (1 failed, 0 errors; "
	    "first n1:os.id): --require no-fail accepts PASSED or WARNED");
	ep_attestation_free(at);
	free(env);
	ep_results_clear(&rs);
	ep_manifest_free(m);
	ep_sigkey_free(a);
	ep_sigkey_free(pub);
}

/* Statements that are signed but not ours, or not consistent. */
static void
test_statement_refused(void **state)
{
	static const char *bad[][2] = {
		{ "", "not JSON" },
		{ "{\"_type\":\"https://in-toto.io/Statement/v0.1\"}",
		    "not an in-toto Statement v1" },
		{ "{\"_type\":\"https://in-toto.io/Statement/v1\","
		    "\"predicateType\":\"https://in-toto.io/attestation/"
		    "test-result/v0.1\"}", "predicateType" },
		{ "{\"_type\":\"https://in-toto.io/Statement/v1\","
		    "\"predicateType\":\"" EP_ATTEST_PREDICATE "\","
		    "\"predicate\":{},\"subject\":[{\"name\":\"x\"}]}",
		    "subject[0] has no digest" },
		{ "{\"_type\":\"https://in-toto.io/Statement/v1\","
		    "\"predicateType\":\"" EP_ATTEST_PREDICATE "\","
		    "\"predicate\":{},\"subject\":[{\"digest\":{\"sha256\":"
		    "\"AB\"}}]}", "sha256 is not 64" },
		{ "{\"_type\":\"https://in-toto.io/Statement/v1\","
		    "\"predicateType\":\"" EP_ATTEST_PREDICATE "\","
		    "\"predicate\":{},\"subject\":[]}", "\"command\" is "
		    "missing" },
	};
	struct ep_attestation *at = NULL;
	struct ep_err err = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(ep_attest_parse(&at, bad[i][0],
		    strlen(bad[i][0]), &err), -1);
		assert_null(at);
		assert_int_equal(err.kind, EP_E_INPUT);
		if (strstr(err.msg, bad[i][1]) == NULL)
			fail_msg("%s: %s (wanted %s)", bad[i][0], err.msg,
			    bad[i][1]);
	}
}

static void
test_duration(void **state)
{
	static const struct { const char *in; long long secs; } ok[] = {
		{ "30m", 1800 }, { "24h", 86400 }, { "7d", 604800 },
		{ "1d12h", 129600 }, { "2w", 1209600 }, { "90s", 90 },
	};
	static const char *bad[] = { "", "7", "d", "7x", "-1h", "1.5h",
	    "7d ", " 7d", "0d", "99999999999999999999d", "36600d1d" };
	struct ep_err err = { 0 };
	long long s;
	char *t;

	(void)state;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		assert_int_equal(ep_attest_duration(&s, ok[i].in, &err), 0);
		assert_int_equal(s, ok[i].secs);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (ep_attest_duration(&s, bad[i], &err) == 0)
			fail_msg("'%s' taken as %lld seconds", bad[i], s);
		assert_int_equal(err.kind, EP_E_INPUT);
	}
	t = ep_attest_duration_text(3 * 86400 + 4 * 3600 + 5);
	assert_string_equal(t, "3d 4h 5s");
	free(t);
	t = ep_attest_duration_text(59);
	assert_string_equal(t, "59s");
	free(t);
}

static void
test_digest_parse(void **state)
{
	struct ep_err err = { 0 };
	const char *alg;
	char hex[65];

	(void)state;
	assert_int_equal(ep_attest_digest_parse(&alg, hex, "sha256:"
	    "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef",
	    &err), 0);
	assert_string_equal(alg, "sha256");
	assert_string_equal(hex, "0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef");
	assert_int_equal(ep_attest_digest_parse(&alg, hex, "gitBlob:"
	    "ce013625030ba8dba906f756967f9e9ca394464a", &err), 0);
	assert_string_equal(alg, "gitBlob");
	assert_int_equal(ep_attest_digest_parse(&alg, hex, "sha256:12", &err),
	    -1);
	assert_int_equal(ep_attest_digest_parse(&alg, hex, "md5:12", &err),
	    -1);
	assert_int_equal(ep_attest_digest_parse(&alg, hex, "gitBlob:"
	    "ce013625030ba8dba906f756967f9e9ca394464g", &err), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statement),
		cmocka_unit_test(test_statement_refused),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_digest_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
