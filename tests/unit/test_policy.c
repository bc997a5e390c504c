/*
 * test_policy.c: ep_glob_covers against every key of short patterns (a
 * generated matrix) and on a class of every byte, the guard against rules
 * and waivers for every key or every key of an area (a generated matrix),
 * the defaults and waivers as the API returns them, the expiry window,
 * and the schema (tools/validate-json, ajv) agreeing with the parser on
 * the example profile and on malformed policies.  What a policy decides
 * (first match wins, the defaults, severity, waivers at a date and by
 * value) and every malformed policy with its message are data,
 * tests/unit/cases/policy.test, as is the globs' table,
 * tests/unit/cases/glob.test: both run by test_cases.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"
#include "policy.h"
#include "keyglob.h"
#include "testutil.h"

#define SCHEMA		"manifests/policy.schema.json"
#define EXAMPLE		"manifests/examples/default/policy.json"
#define VALIDATE	"tools/validate-json"
#define AJV		"tools/node_modules/.bin/ajv"

/* 2026-11-22T12:00:00Z */
#define NOV22	((time_t)1795348800)

static struct ep_policy *
parse_ok(const char *text)
{
	struct ep_policy *p = NULL;
	struct ep_err err = { 0 };

	if (ep_policy_parse(&p, text, strlen(text), "policy.json", &err) < 0)
		fail_msg("%s", err.msg);
	return p;
}

/* What a glob can match, for a pattern no text file should hold: a class
 * of every byte (the other patterns are cases/glob.test's). */
static void
test_glob_covers(void **state)
{
	(void)state;
	assert_int_equal(ep_glob_names("[\x01-\xff]*"), 0);
	assert_int_equal(ep_glob_covers("[\x01-\xff]*", ""), 1);
	assert_int_equal(ep_glob_covers("[\x01-\xff]*", "python."), 1);
}

/* All w over "ab.z" of 1 to len bytes: does pattern match prefix + w? */
static int
matches_all(const char *pattern, const char *prefix, size_t len)
{
	static const char abc[] = "ab.z";
	char key[32], w[8];
	size_t idx[8];

	for (size_t n = 1; n <= len; n++) {
		memset(idx, 0, sizeof idx);
		for (;;) {
			size_t i;

			for (i = 0; i < n; i++)
				w[i] = abc[idx[i]];
			w[n] = '\0';
			snprintf(key, sizeof key, "%s%s", prefix, w);
			if (!ep_glob_match(pattern, key))
				return 0;
			for (i = 0; i < n && ++idx[i] == 4; i++)
				idx[i] = 0;
			if (i == n)
				break;
		}
	}
	return 1;
}

/* ep_glob_covers against every key up to the length that decides (two
 * more bytes than the pattern has), for every pattern of up to four
 * tokens over "*", "?", "a", "b", "." (no classes: those it widens on
 * purpose). */
static void
test_glob_covers_exhaustive(void **state)
{
	static const char tok[] = "*?ab.";
	static const char *const prefixes[] = { "", "a.", "ab.", "b" };
	char pat[8];
	size_t checked = 0;

	(void)state;
	for (size_t n = 1; n <= 4; n++) {
		size_t total = 1;

		for (size_t i = 0; i < n; i++)
			total *= 5;
		for (size_t c = 0; c < total; c++) {
			size_t x = c;

			for (size_t i = 0; i < n; i++, x /= 5)
				pat[i] = tok[x % 5];
			pat[n] = '\0';
			for (size_t j = 0; j < 4; j++) {
				int want = matches_all(pat, prefixes[j], n + 2);

				if (ep_glob_covers(pat, prefixes[j]) != want)
					fail_msg("covers(\"%s\", \"%s\"): want "
					    "%d", pat, prefixes[j], want);
				checked += want;
			}
		}
	}
	assert_true(checked > 100);	/* and some do cover */
}

/* A waiver, or a rule that lets drift pass, for every key or every key
 * of an area: refused by what the glob is, however it is spelled.  The
 * keys are written as in JSON. */
static void
test_wide(void **state)
{
	static const char *const every[] = { "*", "?*", "*.*", "**", "*?*",
	    "[!]]*", "*[!]]", "[!r]*", "[^.]*", "[!#]*", "[\\u0001-\\u00ff]*",
	    "*.*.*", "[a-z]*.*" };
	static const char *const area[] = { "python.*", "p*", "*n.*",
	    "[p]ython.*", "python*", "stack.*", "gpu.[0-9]*", "newarea.*" };
	static const char *const narrow[] = { "python.pkg.*", "*.sha256",
	    "lib.*.path", "gpu.?.name", "*cudnn*", "x\\\\*y", "\\\\**",
	    "stack.cudart_minor.*", "env.CUDA_*", "store.history" };
	static const char *const relaxing[] = {
	    "\"rule\": \"ignore\"", "\"rule\": \"present\"",
	    "\"rule\": \"version\", \"range\": \">=0\"",
	    "\"rule\": \"exact\", \"severity\": \"warn\"",
	    "\"rule\": \"exact\", \"missing\": \"skip\"",
	    "\"rule\": \"exact\", \"missing\": \"ignore\"",
	    "\"rule\": \"absent\", \"severity\": \"warn\"" };
	static const char *const strict[] = { "\"rule\": \"exact\"",
	    "\"rule\": \"exact\", \"missing\": \"fail\", \"severity\": "
	    "\"fail\"", "\"rule\": \"absent\"" };
	struct ep_policy *p;
	struct ep_err err;
	char *text;

	(void)state;
#define TRY(fmt, ...) (text = xasprintf("{\"schema\": \"envparity/"	\
	"policy@1\", " fmt "}", __VA_ARGS__), memset(&err, 0, sizeof err), \
	p = NULL, ep_policy_parse(&p, text, strlen(text), "p.json", &err))
#define WAIVER	"\"waivers\": [{\"key\": \"%s\", \"reason\": \"r\", "	\
	"\"owner\": \"o\", \"expires\": \"2099-01-01\"}]"
#define RULE	"\"rules\": [{\"key\": \"%s\", %s}]"
	for (size_t i = 0; i < sizeof every / sizeof every[0]; i++) {
		const char *k = every[i];

		if (TRY(WAIVER, k) == 0 || strstr(err.msg,
		    "a waiver for every key hides") == NULL)
			fail_msg("waiver %s: %s", k, err.msg);
		free(text);
		for (size_t j = 0; j < sizeof relaxing / sizeof *relaxing;
		    j++) {
			if (TRY(RULE, k, relaxing[j]) == 0 ||
			    strstr(err.msg, "for every key lets every drift "
			    "pass") == NULL)
				fail_msg("rule %s %s: %s", k, relaxing[j],
				    err.msg);
			free(text);
		}
		for (size_t j = 0; j < sizeof strict / sizeof *strict; j++) {
			if (TRY(RULE, k, strict[j]) < 0)
				fail_msg("rule %s %s: %s", k, strict[j],
				    err.msg);
			ep_policy_free(p);
			free(text);
		}
	}
	for (size_t i = 0; i < sizeof area / sizeof area[0]; i++) {
		int named = strchr(area[i], '.') != NULL &&
		    strcspn(area[i], "*?[") > strcspn(area[i], ".");

		if (TRY(WAIVER, area[i]) == 0 || strstr(err.msg,
		    "a waiver for every key of area") == NULL)
			fail_msg("waiver %s: %s", area[i], err.msg);
		free(text);
		/* A rule relaxes an area it names ("stack.*"), not one it
		 * reaches sideways ("*n.*"). */
		for (size_t j = 0; j < sizeof relaxing / sizeof *relaxing;
		    j++) {
			int rc = TRY(RULE, area[i], relaxing[j]);

			if (named ? rc < 0 : rc == 0 || strstr(err.msg,
			    "without naming it") == NULL)
				fail_msg("rule %s %s: %d %s", area[i],
				    relaxing[j], rc, err.msg);
			ep_policy_free(p);
			free(text);
		}
	}
	for (size_t i = 0; i < sizeof narrow / sizeof narrow[0]; i++) {
		const char *k = narrow[i];

		if (TRY(WAIVER, k) < 0)
			fail_msg("waiver %s: %s", narrow[i], err.msg);
		ep_policy_free(p);
		free(text);
		for (size_t j = 0; j < sizeof relaxing / sizeof *relaxing;
		    j++) {
			if (TRY(RULE, k, relaxing[j]) < 0)
				fail_msg("rule %s %s: %s", narrow[i],
				    relaxing[j], err.msg);
			ep_policy_free(p);
			free(text);
		}
	}
#undef TRY
#undef WAIVER
#undef RULE
}

/* The defaults as a list: which rule of theirs matches a key (what each
 * decides is policy.test's "defaults" case). */
static void
test_defaults(void **state)
{
	struct ep_policy *p = ep_policy_default();
	const struct ep_rule *r;
	size_t n;

	(void)state;
	r = ep_policy_rules(p, &n);
	assert_int_equal(n, 12);
	assert_string_equal(r[n - 1].key, "*");
	for (size_t i = 0; i < n; i++)
		assert_true(r[i].builtin);
	assert_string_equal(ep_policy_match(p, "env.OMP_NUM_THREADS")->key,
	    "env.*");
	assert_int_equal(ep_policy_match(p, "env.OMP_NUM_THREADS")->missing,
	    EP_MISSING_FAIL);
	assert_string_equal(ep_policy_match(p, "python.pkg.numpy")->key,
	    "python.pkg.*");
	assert_string_equal(ep_policy_match(p, "gpu.driver.version")->key,
	    "gpu.driver.version");
	assert_string_equal(ep_policy_match(p, "lib.cudnn.sha256")->key,
	    "lib.*");
	assert_string_equal(ep_policy_match(p, "probe.cpu.gemm.sha256")->key,
	    "*");
	assert_string_equal(ep_policy_match(p, "node.net.eno1.speed")->key,
	    "node.net.*.speed");
	assert_int_equal(ep_policy_match(p, "node.net.eno1.speed")->severity,
	    EP_SEVERITY_WARN);
	assert_string_equal(ep_policy_match(p, "node.net.eno1.mtu")->key,
	    "node.*");
	assert_int_equal(ep_policy_match(p, "node.rdma.mlx5_0.port1.rate")->kind,
	    EP_RULE_EXACT);
	ep_policy_waivers(p, &n);
	assert_int_equal(n, 0);
	ep_policy_free(p);
	ep_policy_free(NULL);
}

/* A waiver that says which value it accepts: what ep_policy_waiver
 * returns about it (what it decides is policy.test's "Waivers by value"
 * cases). */
static void
test_waiver_values(void **state)
{
	struct ep_policy *p = parse_ok("{\"schema\": \"envparity/policy@1\","
	    "\"waivers\": ["
	    "{\"key\": \"python.pkg.numpy\", \"reason\": \"rollout\", "
	    "\"owner\": \"a\", \"expires\": \"2099-01-01\", "
	    "\"range\": \">=2,<2.1\"},"
	    "{\"key\": \"python.pkg.torch\", \"reason\": \"pinned\", "
	    "\"owner\": \"b\", \"expires\": \"2099-01-01\", "
	    "\"actual\": \"2.11.0+cu130\"}]}");
	const struct ep_waiver *w;
	int st;

	(void)state;
	w = ep_policy_waiver(p, "python.pkg.numpy", "2.0.1", NOV22, &st);
	assert_int_equal(st, EP_WAIVER_LIVE);
	assert_string_equal(w->accepts, "range >=2,<2.1");
	assert_int_equal(w->index, 0);
	w = ep_policy_waiver(p, "python.pkg.torch", "2.11.0+cu130", NOV22, &st);
	assert_int_equal(st, EP_WAIVER_LIVE);
	assert_string_equal(w->accepts, "2.11.0+cu130");
	assert_int_equal(w->index, 1);
	ep_policy_free(p);
}

static void
test_waiver_expiry_window(void **state)
{
	struct ep_policy *p = parse_ok("{\"schema\": \"envparity/policy@1\","
	    "\"waivers\": ["
	    "{\"key\": \"a\", \"reason\": \"r\", \"owner\": \"o\", "
	    "\"expires\": \"2026-12-06\"},"
	    "{\"key\": \"b\", \"reason\": \"r\", \"owner\": \"o\", "
	    "\"expires\": \"2026-11-22\"},"
	    "{\"key\": \"c\", \"reason\": \"r\", \"owner\": \"o\", "
	    "\"expires\": \"2026-11-21\"}]}");
	size_t n;
	const struct ep_waiver *w = ep_policy_waivers(p, &n);
	int left;

	(void)state;
	assert_int_equal(n, 3);
	assert_true(ep_waiver_expires_within(&w[0], NOV22, 14, &left));
	assert_int_equal(left, 14);
	assert_false(ep_waiver_expires_within(&w[0], NOV22, 13, &left));
	assert_true(ep_waiver_expires_within(&w[1], NOV22, 14, &left));
	assert_int_equal(left, 0);
	/* An expired one is not "expiring": its failures say it expired. */
	assert_false(ep_waiver_expires_within(&w[2], NOV22, 14, &left));
	ep_policy_free(p);
}

static void
test_load_example(void **state)
{
	struct ep_policy *p;
	struct ep_err err = { 0 };
	const struct ep_rule *r;
	const struct ep_waiver *w;
	size_t n;
	int kinds = 0, expired;

	(void)state;
	if (ep_policy_load(&p, EXAMPLE, &err) < 0)
		fail_msg("%s", err.msg);
	/* The example uses every rule kind and a waiver. */
	r = ep_policy_rules(p, &n);
	for (size_t i = 0; i < n; i++)
		if (!r[i].builtin)
			kinds |= 1 << r[i].kind;
	assert_int_equal(kinds, (1 << EP_RULE_EXACT) | (1 << EP_RULE_IGNORE) |
	    (1 << EP_RULE_VERSION) | (1 << EP_RULE_PRESENT) |
	    (1 << EP_RULE_ABSENT));
	assert_string_equal(ep_policy_match(p, "gpu.driver.version")->text,
	    "version >=580.65,<590");
	w = ep_policy_waiver(p, "stack.cudart_minor.cudnn_graph", "13.1",
	    NOV22, &expired);
	assert_non_null(w);
	assert_int_equal(expired, EP_WAIVER_LIVE);
	ep_policy_free(p);

	assert_int_equal(ep_policy_load(&p, "no/such/policy.json", &err), -1);
	assert_null(p);
	assert_non_null(strstr(err.msg, "no/such/policy.json"));
}

/* Run tools/validate-json on path; its exit status. */
static int
validate(const char *path)
{
	char *cmd = xasprintf(VALIDATE " " SCHEMA " '%s' >/dev/null 2>&1",
	    path);
	int rc = system(cmd);

	free(cmd);
	return rc;
}

static void
test_schema(void **state)
{
	/* Each is refused by ep_policy_parse too (cases/policy.test). */
	static const char *const invalid[] = {
		"{\"schema\": \"envparity/policy@1\", \"rules\": [{\"key\": "
		    "\"a\", \"rule\": \"exactly\"}]}",
		"{\"schema\": \"envparity/policy@1\", \"rules\": [{\"key\": "
		    "\"a\", \"rule\": \"version\"}]}",
		"{\"schema\": \"envparity/policy@1\", \"rules\": [{\"key\": "
		    "\"a\", \"rule\": \"exact\", \"range\": \">=1\"}]}",
		"{\"schema\": \"envparity/policy@1\", \"rules\": [{\"key\": "
		    "\"a\", \"rule\": \"version\", \"range\": \"x590\"}]}",
		"{\"schema\": \"envparity/policy@1\", \"rules\": [{\"key\": "
		    "\"a\", \"rule\": \"absent\", \"missing\": \"skip\"}]}",
		"{\"schema\": \"envparity/policy@1\", \"waivers\": [{\"key\": "
		    "\"a\", \"reason\": \"r\", \"owner\": \"o\", "
		    "\"expires\": \"2026-02-30\"}]}",
		"{\"schema\": \"envparity/policy@1\", \"waivers\": [{\"key\": "
		    "\"a\", \"reason\": \"r\", \"expires\": \"2026-02-20\"}]}",
		"{\"schema\": \"envparity/policy@2\"}",
	};
	char dir[256];

	(void)state;
	if (access(AJV, X_OK) != 0)
		skip();		/* tools/deps.sh test installs it */
	assert_int_equal(validate(EXAMPLE), 0);
	assert_int_equal(tu_scratch_make(dir, sizeof dir, "policy"), 0);
	for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
		char *path = xasprintf("%s/bad%zu.json", dir, i);
		struct ep_policy *p;
		struct ep_err err = { 0 };

		assert_int_equal(ep_write_atomic(path, invalid[i],
		    strlen(invalid[i]), &err), 0);
		if (validate(path) == 0)
			fail_msg("schema accepts %s", invalid[i]);
		assert_int_equal(ep_policy_load(&p, path, &err), -1);
		free(path);
	}
	assert_int_equal(tu_scratch_remove(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glob_covers),
		cmocka_unit_test(test_glob_covers_exhaustive),
		cmocka_unit_test(test_wide),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_waiver_values),
		cmocka_unit_test(test_waiver_expiry_window),
		cmocka_unit_test(test_load_example),
		cmocka_unit_test(test_schema),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
