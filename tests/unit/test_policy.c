/*
 * test_policy.c: globs, first match wins, the appended defaults, waivers
 * at a fixed date, every malformed policy named with its index and
 * problem, and the schema (tools/validate-json, ajv) agreeing with the
 * parser on the example profile and on malformed policies.
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
#define DAY	((time_t)86400)

static struct ep_policy *
parse_ok(const char *text)
{
	struct ep_policy *p = NULL;
	struct ep_err err = { 0 };

	if (ep_policy_parse(&p, text, strlen(text), "policy.json", &err) < 0)
		fail_msg("%s", err.msg);
	return p;
}

static void
test_glob(void **state)
{
	static const struct {
		const char *pat, *key;
		int match;
	} t[] = {
		{ "*", "", 1 },
		{ "*", "lib.cudnn.version", 1 },
		{ "lib.*.sha256", "lib.cudnn_ops.sha256", 1 },
		{ "lib.*.sha256", "lib.a.b.sha256", 1 },	/* dots */
		{ "lib.*.sha256", "lib.sha256", 0 },
		{ "lib.*.sha256", "lib.cudnn.sha256x", 0 },
		{ "python.pkg.*", "python.pkg.numpy", 1 },
		{ "python.pkg.*", "python.pkgs.numpy", 0 },
		{ "python.pkg.*", "python.pkg.", 1 },
		{ "gpu.?.name", "gpu.0.name", 1 },
		{ "gpu.?.name", "gpu.10.name", 0 },
		{ "gpu.[0-3].name", "gpu.2.name", 1 },
		{ "gpu.[0-3].name", "gpu.4.name", 0 },
		{ "gpu.[!0].cc", "gpu.0.cc", 0 },
		{ "gpu.[^0].cc", "gpu.1.cc", 1 },
		{ "a[]]b", "a]b", 1 },
		{ "a[]]b", "axb", 0 },
		{ "a\\*b", "a*b", 1 },
		{ "a\\*b", "axb", 0 },
		{ "*a*b", "xaxxb", 1 },
		{ "*a*b", "xaxxbx", 0 },
		{ "**.version", "lib.cudnn.version", 1 },
		{ "*.*.*", "a.b", 0 },
		{ "*.*.*", "a.b.c", 1 },
		{ "env.CUDA_*", "env.cuda_visible_devices", 0 }, /* case */
		{ "exact", "exact", 1 },
		{ "exact", "exactly", 0 },
		{ "", "", 1 },
		{ "", "a", 0 },
		{ "lib.[abc", "lib.a", 0 },	/* malformed: nothing */
	};

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (ep_glob_match(t[i].pat, t[i].key) != t[i].match)
			fail_msg("glob '%s' on '%s': want %d", t[i].pat,
			    t[i].key, t[i].match);
}

/* What a glob can match, from the glob: the edge cases by hand. */
static void
test_glob_covers(void **state)
{
	static const struct {
		const char *pat;
		int names, every, python;	/* python: every "python.X" */
	} t[] = {
		{ "*", 0, 1, 1 },
		{ "**", 0, 1, 1 },
		{ "?*", 0, 1, 1 },
		{ "*?*", 0, 1, 1 },
		{ "*.*", 0, 0, 1 },	/* every key with a dot: every key */
		{ "*.*.*", 0, 0, 0 },	/* by shape: refused all the same */
		{ "[!]]*", 0, 1, 1 },
		{ "*[!]]", 0, 1, 1 },
		{ "[!r]*", 0, 1, 1 },
		{ "[^.]*", 0, 1, 1 },
		{ "[!#]*", 0, 1, 1 },
		{ "[\x01-\xff]*", 0, 1, 1 },	/* a range of every byte */
		{ "[]-~]*", 0, 1, 1 },
		{ "[a-z]*", 0, 1, 1 },	/* a class narrows, names nothing */
		{ "?", 0, 0, 0 },
		{ "python.*", 1, 0, 1 },
		{ "python.?*", 1, 0, 1 },
		{ "python*", 1, 0, 1 },
		{ "p*", 1, 0, 1 },
		{ "*n.*", 1, 0, 1 },
		{ "[p]ython.*", 1, 0, 1 },
		{ "*o*", 1, 0, 1 },
		/* Wide-looking, but not every key of an area. */
		{ "python.pkg.*", 1, 0, 0 },
		{ "*.sha256", 1, 0, 0 },
		{ "lib.*.path", 1, 0, 0 },
		{ "gpu.?.name", 1, 0, 0 },
		{ "*cudnn*", 1, 0, 0 },
		{ "python.[!p]*", 1, 0, 1 },
		{ "python.", 1, 0, 0 },	/* no key is the bare prefix */
		/* Escaped stars are literals. */
		{ "\\*", 1, 0, 0 },
		{ "\\**", 1, 0, 0 },
		{ "*\\*", 1, 0, 0 },
		{ "x\\*y", 1, 0, 0 },
		{ "\\.*", 0, 0, 0 },	/* a literal dot names nothing */
	};

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		if (ep_glob_names(t[i].pat) != t[i].names)
			fail_msg("names %s: %d", t[i].pat, !t[i].names);
		if (ep_glob_covers(t[i].pat, "") != t[i].every)
			fail_msg("covers %s: %d", t[i].pat, !t[i].every);
		if (ep_glob_covers(t[i].pat, "python.") != t[i].python)
			fail_msg("covers python. %s: %d", t[i].pat,
			    !t[i].python);
	}
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

static void bad(const char *body, const char *want);

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
	/* The messages in full, naming the file, the entry and why. */
	bad("\"rules\": [{\"key\": \"*\", \"rule\": \"present\"}]",
	    "policy.json: rules[0] (key \"*\"): rule \"present\" for every key "
	    "lets every drift pass (leaving '*', '?' and [ ] classes aside, "
	    "the key holds nothing but dots): a rule for every key judges as "
	    "strictly as the default (exact, missing fail) or more; name the "
	    "areas to relax (\"stack.*\")");
	bad("\"rules\": [{\"key\": \"*n.*\", \"rule\": \"exact\", "
	    "\"severity\": \"warn\"}]",
	    "policy.json: rules[0] (key \"*n.*\"): severity \"warn\" covers "
	    "every key of areas golden, python without naming it: a rule "
	    "relaxes a whole area only as \"AREA.*\", one area each");
	bad("\"waivers\": [{\"key\": \"lib.*\", \"reason\": \"r\", "
	    "\"owner\": \"o\", \"expires\": \"2027-01-01\"}]",
	    "policy.json: waivers[0] (key \"lib.*\"): a waiver for every key "
	    "of area lib hides every finding there, ones nobody has looked "
	    "at included: name the keys the finding is about "
	    "(python.pkg.numpy, a glob such as lib.*.sha256), or say with a "
	    "rule \"ignore\" for an area (\"stack.*\") that it is not judged");
}

static void
test_first_match_wins(void **state)
{
	struct ep_policy *p = parse_ok("{\"schema\": \"envparity/policy@1\","
	    "\"rules\": ["
	    "{\"key\": \"python.pkg.numpy\", \"rule\": \"ignore\"},"
	    "{\"key\": \"python.pkg.*\", \"rule\": \"version\", "
	    "\"range\": \">=1\", \"missing\": \"skip\", \"reason\": \"r\"},"
	    "{\"key\": \"python.pkg.torch\", \"rule\": \"absent\"},"
	    "{\"key\": \"os.kernel\", \"rule\": \"exact\"}]}");
	const struct ep_rule *r;

	(void)state;
	r = ep_policy_match(p, "python.pkg.numpy");
	assert_int_equal(r->kind, EP_RULE_IGNORE);
	assert_string_equal(r->text, "ignore");
	/* The broader rule came first: torch never reaches "absent". */
	r = ep_policy_match(p, "python.pkg.torch");
	assert_int_equal(r->kind, EP_RULE_VERSION);
	assert_string_equal(r->text, "version >=1");
	assert_int_equal(r->missing, EP_MISSING_SKIP);
	assert_string_equal(r->reason, "r");
	assert_false(r->builtin);
	/* The user's rule comes before the default that ignores it. */
	r = ep_policy_match(p, "os.kernel");
	assert_int_equal(r->kind, EP_RULE_EXACT);
	assert_false(r->builtin);
	/* Keys no user rule names fall to the defaults. */
	r = ep_policy_match(p, "meta.host");
	assert_int_equal(r->kind, EP_RULE_IGNORE);
	assert_true(r->builtin);
	r = ep_policy_match(p, "lib.cudnn.sha256");
	assert_int_equal(r->kind, EP_RULE_EXACT);
	assert_int_equal(r->missing, EP_MISSING_FAIL);
	assert_string_equal(r->key, "lib.*");
	ep_policy_free(p);
}

static void
test_defaults(void **state)
{
	struct ep_policy *p = ep_policy_default();
	const struct ep_rule *r;
	size_t n;

	(void)state;
	r = ep_policy_rules(p, &n);
	assert_int_equal(n, 10);
	assert_string_equal(r[n - 1].key, "*");
	/* A GPU's state now is the health checks', not drift. */
	assert_int_equal(ep_policy_match(p,
	    "gpu.6.remapped_rows_pending")->kind, EP_RULE_IGNORE);
	assert_int_equal(ep_policy_match(p, "gpu.6.name")->kind,
	    EP_RULE_EXACT);
	for (size_t i = 0; i < n; i++)
		assert_true(r[i].builtin);
	assert_int_equal(ep_policy_match(p, "meta.captured_at")->kind,
	    EP_RULE_IGNORE);
	assert_int_equal(ep_policy_match(p, "os.kernel")->kind,
	    EP_RULE_IGNORE);
	assert_int_equal(ep_policy_match(p, "os.id")->kind, EP_RULE_EXACT);
	assert_int_equal(ep_policy_match(p, "cpu.count")->kind,
	    EP_RULE_EXACT);
	assert_string_equal(ep_policy_match(p, "env.OMP_NUM_THREADS")->key,
	    "env.*");
	assert_int_equal(ep_policy_match(p, "env.OMP_NUM_THREADS")->missing,
	    EP_MISSING_FAIL);
	assert_string_equal(ep_policy_match(p, "python.pkg.numpy")->key,
	    "python.pkg.*");
	assert_string_equal(ep_policy_match(p, "gpu.driver.version")->key,
	    "gpu.driver.version");
	assert_string_equal(ep_policy_match(p, "lib.cudnn.path")->text,
	    "exact");
	assert_string_equal(ep_policy_match(p, "probe.cpu.gemm.sha256")->key,
	    "*");
	ep_policy_waivers(p, &n);
	assert_int_equal(n, 0);
	ep_policy_free(p);
	ep_policy_free(NULL);
}

static void
test_waivers_by_date(void **state)
{
	struct ep_policy *p = parse_ok("{\"schema\": \"envparity/policy@1\","
	    "\"waivers\": ["
	    "{\"key\": \"lib.cudnn.*\", \"reason\": \"old\", \"owner\": \"a\","
	    " \"expires\": \"2026-11-21\"},"
	    "{\"key\": \"lib.cu*\", \"reason\": \"live\", \"owner\": \"b\","
	    " \"expires\": \"2026-11-22\"},"
	    "{\"key\": \"python.pkg.*\", \"reason\": \"gone\", \"owner\": \"c\","
	    " \"expires\": \"2024-02-29\"}]}");
	const struct ep_waiver *w;
	int st = -1;

	(void)state;
	/* A live waiver wins over an earlier expired one. */
	w = ep_policy_waiver(p, "lib.cudnn.version", "1", NOV22, &st);
	assert_non_null(w);
	assert_string_equal(w->reason, "live");
	assert_int_equal(st, EP_WAIVER_LIVE);
	/* The expiry day itself, to its last second (UTC), is live. */
	w = ep_policy_waiver(p, "lib.cublas.version", "1",
	    NOV22 + 12 * 3600 - 1, &st);
	assert_string_equal(w->owner, "b");
	assert_int_equal(st, EP_WAIVER_LIVE);
	/* The next day both have expired: the first is reported. */
	w = ep_policy_waiver(p, "lib.cudnn.version", "1", NOV22 + 12 * 3600,
	    &st);
	assert_string_equal(w->owner, "a");
	assert_int_equal(st, EP_WAIVER_EXPIRED);
	w = ep_policy_waiver(p, "python.pkg.numpy", "1", NOV22, &st);
	assert_string_equal(w->expires, "2024-02-29");
	assert_int_equal(st, EP_WAIVER_EXPIRED);
	assert_null(ep_policy_waiver(p, "gpu.count", "1", NOV22, &st));
	assert_int_equal(st, EP_WAIVER_NONE);
	/* The day before, the first one was live. */
	w = ep_policy_waiver(p, "lib.cudnn.version", "1", NOV22 - DAY, &st);
	assert_string_equal(w->owner, "a");
	assert_int_equal(st, EP_WAIVER_LIVE);
	ep_policy_free(p);
}

/* A waiver may say which value it accepts: the numpy 2 rollout's waiver
 * must not hide a node that went back to 1.26.4. */
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
	    "\"actual\": \"2.11.0+cu130\"},"
	    "{\"key\": \"python.pkg.jax\", \"reason\": \"old\", "
	    "\"owner\": \"c\", \"expires\": \"2020-01-01\", "
	    "\"actual\": \"0.4\"}]}");
	const struct ep_waiver *w;
	int st;

	(void)state;
	w = ep_policy_waiver(p, "python.pkg.numpy", "2.0.1", NOV22, &st);
	assert_int_equal(st, EP_WAIVER_LIVE);
	assert_string_equal(w->accepts, "range >=2,<2.1");
	assert_int_equal(w->index, 0);
	w = ep_policy_waiver(p, "python.pkg.numpy", "1.26.4", NOV22, &st);
	assert_int_equal(st, EP_WAIVER_OTHER_VALUE);
	assert_string_equal(w->owner, "a");
	w = ep_policy_waiver(p, "python.pkg.numpy", NULL, NOV22, &st);
	assert_int_equal(st, EP_WAIVER_OTHER_VALUE);
	w = ep_policy_waiver(p, "python.pkg.torch", "2.11.0+cu130", NOV22, &st);
	assert_int_equal(st, EP_WAIVER_LIVE);
	assert_string_equal(w->accepts, "2.11.0+cu130");
	w = ep_policy_waiver(p, "python.pkg.torch", "2.11.0", NOV22, &st);
	assert_int_equal(st, EP_WAIVER_OTHER_VALUE);
	/* Expired and for another value: nothing to say about it. */
	assert_null(ep_policy_waiver(p, "python.pkg.jax", "0.5", NOV22, &st));
	assert_int_equal(st, EP_WAIVER_NONE);
	w = ep_policy_waiver(p, "python.pkg.jax", "0.4", NOV22, &st);
	assert_int_equal(st, EP_WAIVER_EXPIRED);
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
test_severity(void **state)
{
	struct ep_policy *p = parse_ok("{\"schema\": \"envparity/policy@1\","
	    "\"rules\": [{\"key\": \"python.pkg.*\", \"rule\": \"exact\", "
	    "\"severity\": \"warn\"}]}");

	(void)state;
	assert_int_equal(ep_policy_match(p, "python.pkg.x")->severity,
	    EP_SEVERITY_WARN);
	assert_int_equal(ep_policy_match(p, "lib.x.version")->severity,
	    EP_SEVERITY_FAIL);
	ep_policy_free(p);
}

/* A policy that must not parse, and the message it must give. */
static void
bad(const char *body, const char *want)
{
	char *text = xasprintf("{\"schema\": \"envparity/policy@1\"%s%s}",
	    *body ? ", " : "", body);
	struct ep_policy *p = (struct ep_policy *)1;
	struct ep_err err = { 0 };

	if (ep_policy_parse(&p, text, strlen(text), "policy.json", &err) == 0)
		fail_msg("parsed: %s", text);
	assert_null(p);
	assert_int_equal(err.kind, EP_E_INPUT);
	if (strcmp(err.msg, want) != 0)
		fail_msg("%s\n got: %s\nwant: %s", text, err.msg, want);
	free(text);
}

#define R3	"\"rules\": [{\"key\": \"a\", \"rule\": \"exact\"}, " \
		"{\"key\": \"b\", \"rule\": \"ignore\"}, " \
		"{\"key\": \"c\", \"rule\": \"present\"}, "

static void
test_malformed(void **state)
{
	(void)state;
	bad(R3 "{\"key\": \"d\", \"rule\": \"exactly\"}]",
	    "policy.json: rules[3] (key \"d\"): unknown rule \"exactly\" (one of exact, "
	    "ignore, version, present, absent)");
	bad("\"rules\": [{\"key\": \"gpu.driver.version\", "
	    "\"rule\": \"version\"}]",
	    "policy.json: rules[0] (key \"gpu.driver.version\"): rule \"version\" needs a \"range\" (such "
	    "as \">=580.65,<590\")");
	bad("\"rules\": [{\"key\": \"a\", \"rule\": \"version\", "
	    "\"range\": \">=580.65,x590\"}]",
	    "policy.json: rules[0] (key \"a\"): range \">=580.65,x590\": clause \"x590\": "
	    "no operator (one of ==, !=, <, <=, >, >=, ~=, ===)");
	bad("\"rules\": [{\"key\": \"a\", \"rule\": \"exact\", "
	    "\"range\": \">=1\"}]",
	    "policy.json: rules[0] (key \"a\"): \"range\" goes only with rule \"version\"");
	bad("\"rules\": [{\"key\": \"lib.[abc\", \"rule\": \"exact\"}]",
	    "policy.json: rules[0] (key \"lib.[abc\"): the key has a '[' class that is "
	    "not closed");
	bad("\"rules\": [{\"key\": \"a\\\\\", \"rule\": \"exact\"}]",
	    "policy.json: rules[0] (key \"a\\\"): the key ends in a lone '\\'");
	bad("\"rules\": [{\"key\": \"\", \"rule\": \"exact\"}]",
	    "policy.json: rules[0]: \"key\" is empty");
	bad("\"rules\": [{\"rule\": \"exact\"}]",
	    "policy.json: rules[0]: no \"key\"");
	bad("\"rules\": [{\"key\": \"a\"}]",
	    "policy.json: rules[0] (key \"a\"): no \"rule\"");
	bad("\"rules\": [{\"key\": 7, \"rule\": \"exact\"}]",
	    "policy.json: rules[0]: \"key\" is not a string");
	bad("\"rules\": [{\"key\": \"a\", \"rule\": \"exact\", "
	    "\"expires\": \"2027-01-01\"}]",
	    "policy.json: rules[0]: unknown field \"expires\"");
	bad("\"rules\": [{\"key\": \"a\", \"rule\": \"present\", "
	    "\"missing\": \"fail\"}]",
	    "policy.json: rules[0] (key \"a\"): \"missing\" does not apply to rule "
	    "\"present\"");
	bad("\"rules\": [{\"key\": \"a\", \"rule\": \"exact\", "
	    "\"missing\": \"warn\"}]",
	    "policy.json: rules[0] (key \"a\"): unknown missing \"warn\" (one of fail, "
	    "skip, ignore)");
	bad("\"rules\": [\"a\"]", "policy.json: rules[0]: not an object");
	bad("\"rules\": {}", "policy.json: \"rules\" is not an array");
	bad("\"waivers\": 3", "policy.json: \"waivers\" is not an array");
	bad("\"waiver\": []", "policy.json: unknown field \"waiver\"");
	bad("\"waivers\": [{\"key\": \"a\", \"reason\": \"r\", "
	    "\"expires\": \"2027-01-01\"}]",
	    "policy.json: waivers[0] (key \"a\"): no \"owner\"");
	bad("\"waivers\": [{\"key\": \"a\", \"owner\": \"o\", "
	    "\"expires\": \"2027-01-01\"}]",
	    "policy.json: waivers[0] (key \"a\"): no \"reason\"");
	bad("\"waivers\": [{\"key\": \"a\", \"reason\": \"r\", "
	    "\"owner\": \"o\"}]",
	    "policy.json: waivers[0] (key \"a\"): no \"expires\"");
	bad("\"waivers\": [{\"key\": \"a\", \"reason\": \"r\", "
	    "\"owner\": \"o\", \"expires\": \"2026-02-29\"}]",
	    "policy.json: waivers[0] (key \"a\"): expires \"2026-02-29\" is not a date "
	    "(YYYY-MM-DD)");
	bad("\"waivers\": [{\"key\": \"a\", \"reason\": \"r\", "
	    "\"owner\": \"o\", \"expires\": \"2026-13-01\"}]",
	    "policy.json: waivers[0] (key \"a\"): expires \"2026-13-01\" is not a date "
	    "(YYYY-MM-DD)");
	bad("\"waivers\": [{\"key\": \"a\", \"reason\": \"r\", "
	    "\"owner\": \"o\", \"expires\": \"31/12/2026\"}]",
	    "policy.json: waivers[0] (key \"a\"): expires \"31/12/2026\" is not a date "
	    "(YYYY-MM-DD)");
	bad("\"waivers\": [{\"key\": \"a\", \"reason\": \"\", "
	    "\"owner\": \"o\", \"expires\": \"2027-01-01\"}]",
	    "policy.json: waivers[0] (key \"a\"): \"reason\" is empty");
	/* A range is comma-separated clauses; anything else used to keep
	 * its first clause only (numpy 2.0.0 passed ">1.0 <2"). */
	bad("\"rules\": [{\"key\": \"python.pkg.numpy\", \"rule\": "
	    "\"version\", \"range\": \">1.0 <2\"}]",
	    "policy.json: rules[0] (key \"python.pkg.numpy\"): range \">1.0 "
	    "<2\": clause \">1.0 <2\": \"1.0 <2\" is not one version (clauses "
	    "are separated by commas, all must hold: \">=1.26,<2\")");
	bad("\"rules\": [{\"key\": \"a\", \"rule\": \"version\", "
	    "\"range\": \">=1.26;<2\"}]",
	    "policy.json: rules[0] (key \"a\"): range \">=1.26;<2\": clause "
	    "\">=1.26;<2\": \"1.26;<2\" is not one version (clauses are "
	    "separated by commas, all must hold: \">=1.26,<2\")");
	bad("\"rules\": [{\"key\": \"a\", \"rule\": \"version\", "
	    "\"range\": \"> 1.0 and < 2\"}]",
	    "policy.json: rules[0] (key \"a\"): range \"> 1.0 and < 2\": "
	    "clause \"> 1.0 and < 2\": \"1.0 and < 2\" is not one version "
	    "(clauses are separated by commas, all must hold: \">=1.26,<2\")");
	bad("\"rules\": [{\"key\": \"a\", \"rule\": \"version\", "
	    "\"range\": \">=1.26 || <1\"}]",
	    "policy.json: rules[0] (key \"a\"): range \">=1.26 || <1\": "
	    "clause \">=1.26 || <1\": \"1.26 || <1\" is not one version "
	    "(clauses are separated by commas, all must hold: \">=1.26,<2\")");
	bad("\"rules\": [{\"key\": \"a\", \"rule\": \"exact\", "
	    "\"severity\": \"info\"}]",
	    "policy.json: rules[0] (key \"a\"): unknown severity \"info\" "
	    "(fail or warn)");
	bad("\"rules\": [{\"key\": \"a\", \"rule\": \"ignore\", "
	    "\"severity\": \"warn\"}]",
	    "policy.json: rules[0] (key \"a\"): \"severity\" does not apply "
	    "to rule \"ignore\"");
	/* A waiver for every key is an ignore rule no report shows (the
	 * guard's other cases: test_wide). */
	bad("\"waivers\": [{\"key\": \"*\", \"reason\": \"r\", "
	    "\"owner\": \"o\", \"expires\": \"2027-01-01\"}]",
	    "policy.json: waivers[0] (key \"*\"): a waiver for every key "
	    "hides every finding (leaving '*', '?' and [ ] classes aside, the "
	    "key holds nothing but dots: it picks keys by their shape, not by "
	    "name): name the keys the finding is about");
	bad("\"waivers\": [{\"key\": \"a\", \"reason\": \"r\", "
	    "\"owner\": \"o\", \"expires\": \"2027-01-01\", \"actual\": "
	    "\"2\", \"range\": \">=2\"}]",
	    "policy.json: waivers[0] (key \"a\"): \"actual\" and \"range\" "
	    "together: give the one value or the range it accepts");
	bad("\"waivers\": [{\"key\": \"a\", \"reason\": \"r\", "
	    "\"owner\": \"o\", \"expires\": \"2027-01-01\", \"range\": "
	    "\">=2 <3\"}]",
	    "policy.json: waivers[0] (key \"a\"): range \">=2 <3\": clause "
	    "\">=2 <3\": \"2 <3\" is not one version (clauses are separated "
	    "by commas, all must hold: \">=1.26,<2\")");
	bad("\"rules\": [], \"rules\": []",
	    "policy.json: line 1 column 53: duplicate object key near "
	    "'\"rules\"'");
}

static void
test_malformed_top(void **state)
{
	static const struct {
		const char *text, *want;
	} t[] = {
		{ "[]", "policy.json: not a JSON object" },
		{ "{}", "policy.json: no \"schema\" string (expected "
		    "\"envparity/policy@1\")" },
		{ "{\"schema\": \"envparity/policy@2\"}", "policy.json: schema "
		    "\"envparity/policy@2\" is not envparity/policy@1" },
		{ "{\"schema\": \"envparity/policy@1\",\n \"rules\": [,]}",
		    "policy.json: line 2 column 12: unexpected token near "
		    "','" },
		{ "", "policy.json: line 1 column 0: '[' or '{' expected near "
		    "end of file" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct ep_policy *p;
		struct ep_err err = { 0 };

		assert_int_equal(ep_policy_parse(&p, t[i].text,
		    strlen(t[i].text), "policy.json", &err), -1);
		assert_int_equal(err.kind, EP_E_INPUT);
		if (strcmp(err.msg, t[i].want) != 0)
			fail_msg("got: %s\nwant: %s", err.msg, t[i].want);
	}
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
	/* Each is rejected by ep_policy_parse too (test_malformed). */
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
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_glob_covers),
		cmocka_unit_test(test_glob_covers_exhaustive),
		cmocka_unit_test(test_wide),
		cmocka_unit_test(test_first_match_wins),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_waivers_by_date),
		cmocka_unit_test(test_waiver_values),
		cmocka_unit_test(test_waiver_expiry_window),
		cmocka_unit_test(test_severity),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_malformed_top),
		cmocka_unit_test(test_load_example),
		cmocka_unit_test(test_schema),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
