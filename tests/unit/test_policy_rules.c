/*
 * test_policy_rules.c: the rule edits `envparity policy add` and `policy
 * remove` make to a policy file (a new rule first in its file, the same
 * key replaced where it stands, every other member kept in its order,
 * the result parsed by the parser check uses) and the rules they refuse,
 * each with the message a user reads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "policy.h"

static const char cur[] = "{\n  \"schema\": \"envparity/policy@1\",\n"
    "  \"description\": \"gpu nodes\",\n  \"rules\": [\n    {\n"
    "      \"key\": \"lib.*\",\n      \"rule\": \"exact\"\n    }\n  ],\n"
    "  \"waivers\": [\n    {\n      \"key\": \"a\",\n"
    "      \"reason\": \"r\",\n      \"owner\": \"o\",\n"
    "      \"expires\": \"2099-01-01\"\n    }\n  ]\n}\n";

/* The key of rule i of policy text s (a new string). */
static char *
rule_key(const char *s, size_t i)
{
	json_t *j = json_loads(s, 0, NULL);
	const char *k = json_string_value(json_object_get(json_array_get(
	    json_object_get(j, "rules"), i), "key"));
	char *out = k != NULL ? strdup(k) : NULL;

	json_decref(j);
	return out;
}

static size_t
nrules(const char *s)
{
	json_t *j = json_loads(s, 0, NULL);
	size_t n = json_array_size(json_object_get(j, "rules"));

	json_decref(j);
	return n;
}

static void
test_rule_add_replace_remove(void **state)
{
	struct ep_rule_spec r = { "lib.*.path", "ignore", NULL, NULL, NULL,
	    "venvs live in different places" };
	struct ep_err err = { 0 };
	struct ep_policy *p = NULL;
	char *out = NULL, *out2 = NULL, *out3 = NULL, *k;
	int replaced = -1;

	(void)state;
	assert_int_equal(ep_policy_rule_set(&out, cur, "p.json", &r,
	    &replaced, &err), 0);
	assert_int_equal(replaced, 0);
	/* First in its file, so it decides lib.x.path before lib.*. */
	assert_int_equal(nrules(out), 2);
	k = rule_key(out, 0);
	assert_string_equal(k, "lib.*.path");
	free(k);
	assert_int_equal(ep_policy_parse(&p, out, strlen(out), "p.json",
	    &err), 0);
	assert_int_equal(ep_policy_match(p, "lib.x.path")->kind,
	    EP_RULE_IGNORE);
	assert_string_equal(ep_policy_match(p, "lib.x.path")->reason,
	    "venvs live in different places");
	ep_policy_free(p);
	/* The other members kept, in their order. */
	assert_non_null(strstr(out, "\"description\": \"gpu nodes\""));
	assert_non_null(strstr(out, "\"waivers\""));
	assert_true(strstr(out, "\"description\"") < strstr(out, "\"rules\""));
	assert_int_equal(out[strlen(out) - 1], '\n');

	/* The same key again: replaced where it stands. */
	r.key = "lib.*";
	r.rule = "version";
	r.range = ">=13,<14";
	r.severity = "warn";
	r.reason = NULL;
	assert_int_equal(ep_policy_rule_set(&out2, out, "p.json", &r,
	    &replaced, &err), 0);
	assert_int_equal(replaced, 1);
	assert_int_equal(nrules(out2), 2);
	k = rule_key(out2, 1);
	assert_string_equal(k, "lib.*");
	free(k);
	assert_non_null(strstr(out2, "\"range\": \">=13,<14\""));
	assert_non_null(strstr(out2, "\"severity\": \"warn\""));

	/* Removed by its key as written; another key is an error. */
	assert_int_equal(ep_policy_rule_remove(&out3, out2, "p.json",
	    "lib.*.path", &err), 0);
	assert_int_equal(nrules(out3), 1);
	assert_null(strstr(out3, "lib.*.path"));
	free(out3);
	out3 = NULL;
	assert_int_equal(ep_policy_rule_remove(&out3, out2, "p.json",
	    "lib.x.path", &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_string_equal(err.msg, "p.json: no rule for 'lib.x.path' (the "
	    "key must be written as the rule names it: `envparity policy` "
	    "lists them)");
	assert_null(out3);
	assert_int_equal(ep_policy_rule_remove(&out3, NULL, "p.json", "a",
	    &err), -1);
	assert_non_null(strstr(err.msg, "no such file"));

	/* From nothing: a new policy with its schema. */
	free(out);
	r.key = "os.id";
	r.rule = "present";
	r.range = NULL;
	r.severity = NULL;
	assert_int_equal(ep_policy_rule_set(&out, NULL, "p.json", &r,
	    &replaced, &err), 0);
	assert_non_null(strstr(out, "\"schema\": \"envparity/policy@1\""));
	assert_int_equal(nrules(out), 1);
	free(out);
	free(out2);
}

static void
test_rule_refused(void **state)
{
	static const struct {
		struct ep_rule_spec r;
		const char *msg;
	} bad[] = {
		{ { "a", "exactly", NULL, NULL, NULL, NULL },
		    "unknown rule 'exactly' (one of exact, ignore, version, "
		    "present, absent)" },
		{ { "a", "", NULL, NULL, NULL, NULL }, "unknown rule ''" },
		{ { "a", "version", NULL, NULL, NULL, NULL },
		    "rule for 'a': rule \"version\" needs a \"range\" (such as "
		    "\">=580.65,<590\")" },
		{ { "a", "exact", ">=1", NULL, NULL, NULL },
		    "rule for 'a': \"range\" goes only with rule \"version\"" },
		{ { "a", "version", "=>1", NULL, NULL, NULL }, "rule for 'a': " },
		{ { "a", "exact", NULL, "maybe", NULL, NULL },
		    "unknown missing \"maybe\" (one of fail, skip, ignore)" },
		{ { "a", "present", NULL, "skip", NULL, NULL },
		    "\"missing\" does not apply to rule \"present\"" },
		{ { "a", "exact", NULL, NULL, "error", NULL },
		    "unknown severity \"error\" (fail or warn)" },
		{ { "a", "ignore", NULL, NULL, "warn", NULL },
		    "\"severity\" does not apply to rule \"ignore\"" },
		{ { "lib.[x", "exact", NULL, NULL, NULL, NULL },
		    "rule for 'lib.[x': the key " },
		/* A rule that lets drift pass may not cover an area it
		 * does not name. */
		{ { "p*", "ignore", NULL, NULL, NULL, NULL },
		    "rule for 'p*': rule \"ignore\" covers every key of areas " },
		{ { "*", "ignore", NULL, NULL, NULL, NULL }, "rule for '*': " },
		{ { "", "exact", NULL, NULL, NULL, NULL }, "the key is empty" },
		{ { "a b", "exact", NULL, NULL, NULL, NULL }, "no blanks" },
		{ { "a", "exact", NULL, NULL, NULL, " " }, "--reason is empty" },
		{ { "a", "exact", NULL, NULL, NULL, "r\xff" }, "not UTF-8" },
	};
	struct ep_err err = { 0 };
	char *out = NULL;
	int replaced;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(&err, 0, sizeof err);
		if (ep_policy_rule_check(&bad[i].r, &err) != -1)
			fail_msg("rule %zu accepted", i);
		assert_int_equal(err.kind, EP_E_INPUT);
		if (strstr(err.msg, bad[i].msg) == NULL)
			fail_msg("rule %zu: '%s' lacks '%s'", i, err.msg,
			    bad[i].msg);
		/* Nothing is written for it. */
		assert_int_equal(ep_policy_rule_set(&out, cur, "p.json",
		    &bad[i].r, &replaced, &err), -1);
		assert_null(out);
	}
	/* A policy file check would refuse is mended by hand, not edited. */
	{
		struct ep_rule_spec ok = { "a", "exact", NULL, NULL, NULL,
		    NULL };

		assert_int_equal(ep_policy_rule_set(&out, "{\"schema\": 1}",
		    "p.json", &ok, &replaced, &err), -1);
		assert_non_null(strstr(err.msg, "p.json: "));
		assert_null(out);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_add_replace_remove),
		cmocka_unit_test(test_rule_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
