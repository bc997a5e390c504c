/*
 * test_policy_merge.c: policies merged from several files (the store
 * root's shared policy.json, a folder's, the profile's own), nearest
 * first, each rule and waiver keeping its origin; waived messages and
 * review keys saying where a waiver came from; and the edits waive and
 * unwaive make (order kept, validated by the parser check uses).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "results.h"
#include "policy.h"

/* 2026-11-22T12:00:00Z */
#define NOV22	((time_t)1795348800)

#define HEAD	"{\"schema\": \"envparity/policy@1\", "

static const char shared[] = HEAD
    "\"rules\": [{\"key\": \"lib.*.path\", \"rule\": \"ignore\"},"
    " {\"key\": \"python.pkg.torch\", \"rule\": \"ignore\"}],"
    " \"waivers\": [{\"key\": \"python.pkg.numpy\", \"reason\": \"shared\","
    " \"owner\": \"plat\", \"expires\": \"2099-12-31\"},"
    " {\"key\": \"lib.x.version\", \"reason\": \"rollout\","
    " \"owner\": \"plat\", \"expires\": \"2099-12-31\"}]}";
static const char folder[] = HEAD
    "\"rules\": [{\"key\": \"os.id\", \"rule\": \"present\"}],"
    " \"waivers\": [{\"key\": \"gpu.0.name\", \"reason\": \"train\","
    " \"owner\": \"t\", \"expires\": \"2099-12-31\"}]}";
static const char own[] = HEAD
    "\"rules\": [{\"key\": \"python.pkg.torch\", \"rule\": \"version\","
    " \"range\": \">=2,<3\"}],"
    " \"waivers\": [{\"key\": \"python.pkg.numpy\", \"reason\": \"mine\","
    " \"owner\": \"me\", \"expires\": \"2020-01-01\"}]}";

static struct ep_policy *
merged(void)
{
	struct ep_policy_layer l[] = {
		{ own, sizeof own - 1, "s#main:train/h100/policy.json",
		    "train/h100/policy.json", EP_SCOPE_PROFILE },
		{ folder, sizeof folder - 1, "s#main:train/policy.json",
		    "train/policy.json", EP_SCOPE_INHERITED },
		{ shared, sizeof shared - 1, "s#main:policy.json",
		    "policy.json", EP_SCOPE_SHARED },
	};
	struct ep_policy *p = NULL;
	struct ep_err err = { 0 };

	if (ep_policy_parse_layers(&p, l, 3, &err) < 0)
		fail_msg("%s", err.msg);
	return p;
}

static void
test_merge_order_and_origin(void **state)
{
	struct ep_policy *p = merged();
	const struct ep_rule *r;
	size_t n;

	(void)state;
	r = ep_policy_rules(p, &n);
	/* The profile's, the folder's, the shared one's (its torch rule
	 * overridden by the profile's), then the defaults. */
	assert_string_equal(r[0].key, "python.pkg.torch");
	assert_int_equal(r[0].scope, EP_SCOPE_PROFILE);
	assert_string_equal(r[0].origin, "train/h100/policy.json");
	assert_string_equal(r[1].key, "os.id");
	assert_int_equal(r[1].scope, EP_SCOPE_INHERITED);
	assert_string_equal(r[1].origin, "train/policy.json");
	assert_string_equal(r[2].key, "lib.*.path");
	assert_int_equal(r[2].scope, EP_SCOPE_SHARED);
	assert_string_equal(r[2].origin, "policy.json");
	assert_string_equal(r[3].key, "meta.*");
	assert_int_equal(r[3].scope, EP_SCOPE_DEFAULT);
	assert_true(r[3].builtin);
	assert_string_equal(r[3].origin, "built-in default");
	for (size_t i = 3; i < n; i++)
		assert_int_equal(r[i].scope, EP_SCOPE_DEFAULT);
	assert_string_equal(r[n - 1].key, "*");

	/* The profile's rule wins on torch; the shared ignore applies
	 * to what the profile does not say. */
	r = ep_policy_match(p, "python.pkg.torch");
	assert_int_equal(r->kind, EP_RULE_VERSION);
	r = ep_policy_match(p, "lib.cudnn.path");
	assert_int_equal(r->kind, EP_RULE_IGNORE);
	assert_int_equal(r->scope, EP_SCOPE_SHARED);
	r = ep_policy_match(p, "lib.cudnn.version");
	assert_true(r->builtin);
	ep_policy_free(p);
}

static void
test_merge_waivers(void **state)
{
	struct ep_policy *p = merged();
	const struct ep_waiver *w;
	size_t n;
	int st;

	(void)state;
	w = ep_policy_waivers(p, &n);
	/* numpy: the profile's (expired) replaces the shared one (live),
	 * so the shared one does not waive it behind the profile's back. */
	assert_int_equal(n, 3);
	assert_string_equal(w[0].key, "python.pkg.numpy");
	assert_string_equal(w[0].owner, "me");
	assert_int_equal(w[0].scope, EP_SCOPE_PROFILE);
	assert_int_equal(w[0].seq, 0);
	assert_string_equal(w[1].key, "gpu.0.name");
	assert_int_equal(w[1].scope, EP_SCOPE_INHERITED);
	assert_string_equal(w[2].key, "lib.x.version");
	assert_int_equal(w[2].scope, EP_SCOPE_SHARED);
	assert_int_equal(w[2].index, 1);	/* its place in its file */
	assert_int_equal(w[2].seq, 2);
	w = ep_policy_waiver(p, "python.pkg.numpy", "2.0", NOV22, &st);
	assert_int_equal(st, EP_WAIVER_EXPIRED);
	assert_string_equal(w->owner, "me");
	w = ep_policy_waiver(p, "lib.x.version", "2", NOV22, &st);
	assert_int_equal(st, EP_WAIVER_LIVE);
	assert_string_equal(w->origin, "policy.json");
	assert_int_equal(ep_policy_waiver_expired(&ep_policy_waivers(p,
	    &n)[0], NOV22), 1);
	ep_policy_free(p);
}

static void
test_merge_messages(void **state)
{
	struct ep_policy *p = merged();
	struct ep_results rs = { 0 };
	struct ep_result r = { 0 };

	(void)state;
	r.status = EP_FAIL;
	r.key = "lib.x.version";
	r.actual = "2";
	r.message = "lib.x.version: expected 1, got 2";
	ep_results_add(&rs, &r);
	r.key = "gpu.0.name";
	r.actual = "B";
	r.message = "gpu.0.name: expected A, got B";
	ep_results_add(&rs, &r);
	ep_results_waive(&rs, 0, p, NOV22);
	assert_int_equal(rs.v[0].status, EP_WAIVED);
	assert_string_equal(rs.v[0].message, "lib.x.version: expected 1, "
	    "got 2; waived (shared policy) by plat until 2099-12-31: "
	    "rollout");
	assert_int_equal(rs.v[0].waiver, 3);
	assert_string_equal(rs.v[1].message, "gpu.0.name: expected A, got "
	    "B; waived (train/policy.json) by t until 2099-12-31: train");
	/* The one waiver nothing used is named by its file. */
	ep_waivers_review(&rs, p, NOV22, 0);
	assert_int_equal(rs.n, 3);
	assert_string_equal(rs.v[2].key, "policy.waivers[0]");
	ep_results_clear(&rs);

	r.key = "x";
	r.actual = "1";
	r.message = "x";
	ep_results_add(&rs, &r);
	ep_waivers_review(&rs, p, NOV22, 0);
	assert_int_equal(rs.n, 4);
	assert_string_equal(rs.v[2].key, "train/policy.waivers[0]");
	assert_string_equal(rs.v[3].key, "shared.policy.waivers[1]");
	ep_results_clear(&rs);
	ep_policy_free(p);
}

static void
test_merge_errors(void **state)
{
	struct ep_policy_layer l[] = {
		{ own, sizeof own - 1, "s#main:p/policy.json",
		    "p/policy.json", EP_SCOPE_PROFILE },
		{ "{\"schema\": \"envparity/policy@1\", \"waivers\": "
		    "[{\"key\": \"a\"}]}", 0, "s#main:policy.json",
		    "policy.json", EP_SCOPE_SHARED },
	};
	struct ep_policy *p = NULL;
	struct ep_err err = { 0 };

	(void)state;
	l[1].len = strlen(l[1].text);
	assert_int_equal(ep_policy_parse_layers(&p, l, 2, &err), -1);
	assert_null(p);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_non_null(strstr(err.msg, "s#main:policy.json: waivers[0]"));
	/* No file at all: the defaults. */
	assert_int_equal(ep_policy_parse_layers(&p, NULL, 0, &err), 0);
	assert_true(ep_policy_match(p, "x")->builtin);
	ep_policy_free(p);
}

static void
test_waiver_edit(void **state)
{
	static const char cur[] = "{\n  \"schema\": \"envparity/policy@1\",\n"
	    "  \"description\": \"gpu nodes\",\n  \"rules\": [\n    {\n"
	    "      \"rule\": \"ignore\",\n      \"key\": \"os.kernel\"\n    }\n"
	    "  ],\n  \"waivers\": [\n    {\n      \"key\": \"a\",\n"
	    "      \"reason\": \"r\",\n      \"owner\": \"o\",\n"
	    "      \"expires\": \"2020-01-01\"\n    }\n  ]\n}\n";
	struct ep_waiver_spec w = { "lib.*.sha256", "rebuilt", "ml",
	    "2026-11-22", NULL };
	struct ep_err err = { 0 };
	char *out = NULL, *out2 = NULL, *out3 = NULL;
	json_t *j;

	(void)state;
	assert_int_equal(ep_policy_waiver_set(&out, cur, "p.json", &w, NOV22,
	    &err), 0);
	/* Everything kept in its order, the new waiver last. */
	assert_non_null(strstr(out, "\"description\": \"gpu nodes\",\n"
	    "  \"rules\": [\n    {\n      \"rule\": \"ignore\",\n"
	    "      \"key\": \"os.kernel\""));
	j = json_loads(out, 0, NULL);
	assert_int_equal(json_array_size(json_object_get(j, "waivers")), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    json_object_get(j, "waivers"), 1), "key")), "lib.*.sha256");
	json_decref(j);
	assert_int_equal(out[strlen(out) - 1], '\n');

	/* The same key again: replaced where it stands. */
	w.key = "a";
	w.actual = "2.0";
	assert_int_equal(ep_policy_waiver_set(&out2, out, "p.json", &w, NOV22,
	    &err), 0);
	j = json_loads(out2, 0, NULL);
	assert_int_equal(json_array_size(json_object_get(j, "waivers")), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    json_object_get(j, "waivers"), 0), "actual")), "2.0");
	json_decref(j);

	/* Removed; a key with no waiver is an error. */
	assert_int_equal(ep_policy_waiver_remove(&out3, out2, "p.json", "a",
	    &err), 0);
	assert_null(strstr(out3, "\"key\": \"a\""));
	free(out3);
	out3 = NULL;
	assert_int_equal(ep_policy_waiver_remove(&out3, out2, "p.json",
	    "nope", &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_non_null(strstr(err.msg, "no waiver for 'nope'"));
	assert_null(out3);
	assert_int_equal(ep_policy_waiver_remove(&out3, NULL, "p.json", "a",
	    &err), -1);

	/* From nothing: a new policy with its schema. */
	free(out);
	assert_int_equal(ep_policy_waiver_set(&out, NULL, "p.json", &w, NOV22,
	    &err), 0);
	assert_non_null(strstr(out, "\"schema\": \"envparity/policy@1\""));
	free(out);
	free(out2);
}

static void
test_waiver_refused(void **state)
{
	static const struct {
		struct ep_waiver_spec w;
		const char *msg;
	} bad[] = {
		{ { "a", "r", "o", "2026-11-21", NULL }, "already past" },
		{ { "a", "r", "o", "2026-02-30", NULL }, "not a date" },
		{ { "a", "r", "o", "tomorrow", NULL }, "not a date" },
		{ { "a", "", "o", "2099-01-01", NULL }, "--reason is empty" },
		{ { "a", "  ", "o", "2099-01-01", NULL }, "--reason is empty" },
		{ { "a", "r", "", "2099-01-01", NULL }, "--owner is empty" },
		{ { "", "r", "o", "2099-01-01", NULL }, "the key is empty" },
		{ { "a b", "r", "o", "2099-01-01", NULL }, "no blanks" },
		{ { "lib.[x", "r", "o", "2099-01-01", NULL }, "not a fact key" },
		{ { "a", "r", "o", "2099-01-01", "" }, "--actual is empty" },
		/* Not UTF-8: jansson takes no such string, and a field
		 * dropped would widen the waiver (no "actual": any value). */
		{ { "a", "r", "o", "2099-01-01", "2.\xff" },
		    "--actual is not UTF-8" },
		{ { "a", "r\xc0", "o", "2099-01-01", NULL },
		    "--reason is not UTF-8" },
		{ { "a", "r", "\xed\xa0\x80", "2099-01-01", NULL },
		    "--owner is not UTF-8" },
		{ { "lib.\xff", "r", "o", "2099-01-01", NULL },
		    "is not UTF-8" },
	};
	struct ep_err err = { 0 };
	char *out = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(&err, 0, sizeof err);
		assert_int_equal(ep_policy_waiver_set(&out, NULL, "p.json",
		    &bad[i].w, NOV22, &err), -1);
		assert_null(out);
		assert_int_equal(err.kind, EP_E_INPUT);
		if (strstr(err.msg, bad[i].msg) == NULL)
			fail_msg("case %zu: %s", i, err.msg);
	}
	/* A waiver for every key: the parser's rule, kept. */
	{
		struct ep_waiver_spec w = { "*", "r", "o", "2099-01-01",
		    NULL };

		assert_int_equal(ep_policy_waiver_set(&out, NULL, "p.json", &w,
		    NOV22, &err), -1);
		assert_non_null(strstr(err.msg, "a waiver for every key"));
	}
	/* A file check would refuse is not edited. */
	{
		struct ep_waiver_spec w = { "a", "r", "o", "2099-01-01",
		    NULL };

		assert_int_equal(ep_policy_waiver_set(&out, HEAD "\"rules\": "
		    "[{\"key\": \"a\", \"rule\": \"bogus\"}]}", "p.json", &w,
		    NOV22, &err), -1);
		assert_non_null(strstr(err.msg, "unknown rule"));
	}
}

static void
test_policy_json(void **state)
{
	struct ep_policy *p = merged();
	struct ep_err err = { 0 };
	const char *head[] = { "profile", "train/h100", "commit", NULL, NULL };
	char *out = NULL;
	json_t *j, *r;

	(void)state;
	assert_int_equal(ep_policy_json(&out, p, NOV22, head, &err), 0);
	j = json_loads(out, 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "profile")),
	    "train/h100");
	assert_null(json_object_get(j, "commit"));
	r = json_array_get(json_object_get(j, "rules"), 0);
	assert_string_equal(json_string_value(json_object_get(r, "rule")),
	    "version");
	assert_string_equal(json_string_value(json_object_get(r, "range")),
	    ">=2,<3");
	assert_string_equal(json_string_value(json_object_get(r, "scope")),
	    "profile");
	r = json_array_get(json_object_get(j, "rules"), 2);
	assert_string_equal(json_string_value(json_object_get(r, "origin")),
	    "policy.json");
	assert_string_equal(json_string_value(json_object_get(r, "scope")),
	    "shared");
	r = json_array_get(json_object_get(j, "waivers"), 0);
	assert_true(json_is_true(json_object_get(r, "expired")));
	r = json_array_get(json_object_get(j, "waivers"), 2);
	assert_true(json_is_false(json_object_get(r, "expired")));
	json_decref(j);
	free(out);
	ep_policy_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_order_and_origin),
		cmocka_unit_test(test_merge_waivers),
		cmocka_unit_test(test_merge_messages),
		cmocka_unit_test(test_merge_errors),
		cmocka_unit_test(test_waiver_edit),
		cmocka_unit_test(test_waiver_refused),
		cmocka_unit_test(test_policy_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
