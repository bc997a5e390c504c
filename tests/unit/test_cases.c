/*
 * test_cases.c: the comparison's, the policy's and the globs' decision
 * tables, kept as data (tests/unit/cases/compare.test, policy.test,
 * glob.test) the way jq keeps its tests (tests/jq.test: program, input,
 * expected), so that a case is read, written and reviewed as a few lines
 * of a diff, not as C.  Each block runs the real code: ep_policy_parse
 * (or the defaults), then ep_compare, and every result it gives must be
 * listed, in order, and nothing else; a glob block asks ep_glob_match,
 * ep_glob_names and ep_glob_covers.
 *
 * The format, and its parser, are casefile.h's.
 *
 * Besides the listed lines, every result must keep what ep_compare
 * promises whatever the table says: its message starts with "KEY: ", its
 * expected and actual are the golden's and this machine's values, its
 * area is the key's first segment, and a waiver named in it is the one
 * in its waiver fields.  Each block is a test of its own, named by its
 * file and line (tests/run.sh counts them); a failing one prints the
 * results it expects and the results it got, a file that does not parse
 * fails as one test naming the line.
 *
 * The driver's own tests (a malformed block, a result missing, a result
 * not expected) run it on strings: no broken case is kept in the files.
 * Tests run from the repository root (tests/run.sh), hence the paths.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "casefile.h"
#include "compare.h"
#include "policy.h"
#include "files.h"
#include "keyglob.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

#define COMPARE_CASES	"tests/unit/cases/compare.test"
#define POLICY_CASES	"tests/unit/cases/policy.test"
#define GLOB_CASES	"tests/unit/cases/glob.test"

/* 2026-11-22T12:00:00Z */
#define NOV22	((time_t)1795348800)

/* A manifest of facts (a JSON object of strings, checked by the parser)
 * and of the unavailable areas. */
static struct ep_manifest *
tc_manifest(const char *facts, const char *unavail)
{
	struct ep_manifest *m = ep_manifest_new();
	json_t *o = json_loads(facts, 0, NULL);
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v)
		ep_manifest_set(m, k, json_string_value(v));
	json_decref(o);
	if (unavail != NULL) {
		o = json_loads(unavail, 0, NULL);
		json_object_foreach(o, k, v)
			ep_manifest_unavailable(m, k, "%s", json_string_value(v));
		json_decref(o);
	}
	return m;
}

static int
tc_same(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* What every result of ep_compare keeps, whatever the table says: NULL,
 * or what it broke. */
static const char *
tc_promise(const struct ep_result *r, const struct ep_manifest *g,
    const struct ep_manifest *c)
{
	char *area = ep_result_area(r->key);
	int area_ok = r->area != NULL && strcmp(r->area, area) == 0;

	free(area);
	if (r->message == NULL || !ep_startswith(r->message, r->key) ||
	    !ep_startswith(r->message + strlen(r->key), ": "))
		return "its message does not start with its key";
	if (!area_ok)
		return "its area is not its key's first segment";
	if (!tc_same(r->expected, ep_manifest_get(g, r->key)) ||
	    !tc_same(r->actual, ep_manifest_get(c, r->key)))
		return "its expected or actual is not the fact's value";
	if (r->status == EP_WAIVED && r->waiver_owner == NULL)
		return "it is waived by no waiver";
	if (r->waiver_owner != NULL && (strstr(r->message, r->waiver_owner) ==
	    NULL || strstr(r->message, r->waiver_expires) == NULL ||
	    strstr(r->message, r->waiver_reason) == NULL))
		return "its message does not name its waiver";
	return NULL;
}

/* Append the line that fmt makes, and a newline, to *report (a new
 * string when NULL). */
static void
tc_say(char **report, const char *fmt, ...)
{
	va_list ap;
	char *line, *s;

	va_start(ap, fmt);
	line = xvasprintf(fmt, ap);
	va_end(ap);
	s = xasprintf("%s%s\n", *report != NULL ? *report : "", line);
	free(line);
	free(*report);
	*report = s;
}

/* A refused block: the policy must not parse, with that very message. */
static int
tc_run_refused(const struct tc_case *k, const char *file, char **report)
{
	struct ep_policy *p = NULL;
	struct ep_err err = { 0 };

	if (ep_policy_parse(&p, k->policy, strlen(k->policy), "policy.json",
	    &err) == 0) {
		ep_policy_free(p);
		tc_say(report, "%s:%d: the policy parsed; expected refused: %s",
		    file, k->line, k->refused);
		return -1;
	}
	if (strcmp(err.msg, k->refused) == 0 && err.kind == EP_E_INPUT &&
	    p == NULL)
		return 0;
	tc_say(report, "%s:%d: the policy was refused otherwise", file,
	    k->line);
	tc_say(report, "  expected: %s", k->refused);
	tc_say(report, "  actual:   %s", err.msg);
	return -1;
}

/* One question to a glob (casefile.h: tc_glob_question): NULL when the
 * glob answers it as the line says, else what it answered. */
static const char *
tc_glob_answer(const char *glob, const char *q)
{
	const char *arg;
	char *prefix;
	int want, got;

	if (ep_startswith(q, "match:") || ep_startswith(q, "no match:")) {
		arg = strchr(q, ':') + 1;
		arg += strspn(arg, " \t");
		want = *q == 'm';
		got = ep_glob_match(glob, arg);
		return got == want ? NULL : got ? "it matches" :
		    "it does not match";
	}
	want = ep_endswith(q, ": yes");
	if (ep_startswith(q, "names: ")) {
		got = ep_glob_names(glob);
		return got == want ? NULL : got ? "names: yes" : "names: no";
	}
	prefix = xstrndup(q + 7, (size_t)(strrchr(q, ':') - (q + 7)));
	got = ep_glob_covers(glob, strcmp(prefix, "every key") == 0 ? "" :
	    prefix);
	free(prefix);
	return got == want ? NULL : got ? "it covers" : "it does not cover";
}

/* A glob block: every question answered as it says. */
static int
tc_run_glob(const struct tc_case *k, const char *file, char **report)
{
	int rc = 0;

	for (size_t i = 0; i < k->ask.n; i++) {
		const char *q = strchr(k->ask.v[i], '\t') + 1, *got;

		if ((got = tc_glob_answer(k->glob, q)) == NULL)
			continue;
		tc_say(report, "%s:%d: glob \"%s\", %s: %s", file,
		    atoi(k->ask.v[i]), k->glob, q, got);
		rc = -1;
	}
	return rc;
}

/*
 * Run one block: 0 when ep_compare gives exactly the lines it lists, in
 * that order, each result keeping tc_promise; -1 with *report (a new
 * string, lines appended) saying where, what was expected and what came.
 */
static int
tc_run(const struct tc_case *k, const char *file, char **report)
{
	struct ep_manifest *g = NULL, *c = NULL;
	struct ep_policy *p = NULL;
	struct ep_results rs = { 0 };
	struct ep_strv got = { 0 };
	struct ep_err err = { 0 };
	time_t now = NOV22;
	int rc = -1, same;

	if (k->refused != NULL)
		return tc_run_refused(k, file, report);
	if (k->glob != NULL)
		return tc_run_glob(k, file, report);
	if (k->now != NULL)
		(void)tc_time(&now, k->now);	/* checked when parsed */
	if (strcmp(k->policy, "-") == 0)
		p = ep_policy_default();
	else if (ep_policy_parse(&p, k->policy, strlen(k->policy),
	    "policy.json", &err) < 0) {
		tc_say(report, "%s:%d: the policy is refused: %s", file,
		    k->line, err.msg);
		goto done;
	}
	g = tc_manifest(k->golden, k->golden_unavail);
	c = tc_manifest(k->current, k->current_unavail);
	ep_compare(&rs, g, c, p, now);
	for (size_t i = 0; i < rs.n; i++) {
		const struct ep_result *r = &rs.v[i];
		const char *broken = tc_promise(r, g, c);

		ep_strv_push_owned(&got, xasprintf("%s [%s] %s",
		    ep_status_name(r->status), r->rule ? r->rule : "",
		    r->message ? r->message : ""));
		if (broken != NULL) {
			tc_say(report, "%s:%d: the result for %s breaks a "
			    "promise: %s", file, k->line, r->key, broken);
			goto done;
		}
	}
	same = got.n == k->want.n;
	for (size_t i = 0; same && i < got.n; i++)
		same = strcmp(got.v[i], k->want.v[i]) == 0;
	if (same) {
		rc = 0;
		goto done;
	}
	tc_say(report, "%s:%d: the results differ", file, k->line);
	tc_say(report, "  expected:");
	for (size_t i = 0; i < k->want.n; i++)
		tc_say(report, "  %c %s", ep_strv_contains(&got,
		    k->want.v[i]) ? ' ' : '-', k->want.v[i]);
	tc_say(report, "  actual:");
	for (size_t i = 0; i < got.n; i++)
		tc_say(report, "  %c %s", ep_strv_contains(&k->want,
		    got.v[i]) ? ' ' : '+', got.v[i]);
done:
	ep_strv_clear(&got);
	ep_results_clear(&rs);
	ep_policy_free(p);
	ep_manifest_free(g);
	ep_manifest_free(c);
	return rc;
}

/* One test of the run: a case of a file, or a file that could not be
 * read or parsed (error). */
struct tc_entry {
	const char *file;
	const struct tc_case *k;
	char *name;		/* "FILE:LINE", or FILE */
	char *error;
};

static void
test_case(void **state)
{
	const struct tc_entry *e = *state;
	char *report = NULL;

	if (e->error != NULL)
		fail_msg("%s", e->error);
	if (tc_run(e->k, e->file, &report) < 0) {
		print_error("%s", report);
		free(report);
		fail_msg("%s:%d: the case failed", e->file, e->k->line);
	}
}

/*
 * The case files, parsed into f[], one entry each case (or one that fails
 * for a file that does not parse, or holds no case) appended to *e (n
 * of them).
 */
static void
tc_load(struct tc_file f[], const char *const files[], size_t nfiles,
    struct tc_entry **e, size_t *n)
{
	for (size_t i = 0; i < nfiles; i++) {
		struct ep_err err = { 0 };
		char *text = NULL, *error = NULL;
		size_t len;

		memset(&f[i], 0, sizeof f[i]);
		if (ep_read_file(&text, &len, files[i], 1 << 20, &err) < 0 ||
		    tc_parse(&f[i], text, files[i], &err) < 0)
			error = xstrdup(err.msg);
		else if (f[i].n == 0)
			error = xasprintf("%s: no case", files[i]);
		free(text);
		*e = xreallocarray(*e, *n + f[i].n + 1, sizeof **e);
		if (error != NULL) {
			(*e)[(*n)++] = (struct tc_entry){ files[i], NULL,
			    xstrdup(files[i]), error };
			continue;
		}
		for (size_t j = 0; j < f[i].n; j++)
			(*e)[(*n)++] = (struct tc_entry){ files[i], &f[i].v[j],
			    xasprintf("%s:%d", files[i], f[i].v[j].line), NULL };
	}
}

/* The driver itself, on strings. */

/* A case of compare.test as it is: it must pass, so that the broken
 * copies below fail for what was broken and nothing else. */
#define GOOD_CASE							\
	"# exact: a changed value fails, naming both\n"			\
	"golden:  {\"python.pkg.numpy\": \"2.5.2\", \"os.id\": \"debian\"}\n" \
	"current: {\"python.pkg.numpy\": \"2.0.0\", \"os.id\": \"debian\"}\n" \
	"policy:  -\n"							\
	"pass [exact] os.id: debian\n"					\
	"fail [exact] python.pkg.numpy: expected 2.5.2, got 2.0.0\n"

/* Parse text (which must parse) and run its blocks; how many failed, and
 * the report in *report. */
static size_t
run_text(const char *text, char **report)
{
	struct tc_file f;
	struct ep_err err = { 0 };
	size_t failed = 0;

	if (tc_parse(&f, text, "t.test", &err) < 0)
		fail_msg("%s", err.msg);
	for (size_t i = 0; i < f.n; i++)
		failed += tc_run(&f.v[i], "t.test", report) < 0;
	tc_file_free(&f);
	return failed;
}

/* text must not parse, with want as the message. */
static void
malformed(const char *text, const char *want)
{
	struct tc_file f;
	struct ep_err err = { 0 };

	if (tc_parse(&f, text, "t.test", &err) == 0) {
		tc_file_free(&f);
		fail_msg("parsed: %s", text);
	}
	assert_int_equal(f.n, 0);
	if (strncmp(err.msg, want, strlen(want)) != 0)
		fail_msg("got: %s\nwant: %s...", err.msg, want);
}

static void
test_driver_good(void **state)
{
	char *report = NULL;

	(void)state;
	assert_int_equal(run_text(GOOD_CASE "\n\n# and another\n" GOOD_CASE,
	    &report), 0);
	assert_null(report);
	/* A policy over two lines, and the same result without its line
	 * break: a continued line is joined with a newline. */
	assert_int_equal(run_text("policy: {\"schema\": \"envparity/policy@1\","
	    "\n \"rules\": [,]}\nrefused: policy.json: line 2 column 12: "
	    "unexpected token near ','\n", &report), 0);
	assert_null(report);
}

static void
test_driver_malformed(void **state)
{
	(void)state;
	malformed(GOOD_CASE "\n" GOOD_CASE "pass os.id: debian\n",
	    "t.test:14: neither a field");
	malformed(GOOD_CASE "curent: {}\n", "t.test:7: neither a field");
	malformed(GOOD_CASE "golden: {}\n",
	    "t.test:7: the field is given twice");
	malformed("\n# no policy\ngolden: {}\ncurrent: {}\n"
	    "pass [exact] a: 1\n", "t.test:3: the block has no \"policy:\"");
	malformed("golden: {}\npolicy: -\npass [exact] a: 1\n",
	    "t.test:1: the block needs \"golden:\" and \"current:\"");
	malformed("golden: {}\ncurrent: {}\npolicy: -\n",
	    "t.test:1: the block expects no result");
	malformed("golden: {\"a\": 1}\ncurrent: {}\npolicy: -\n"
	    "pass [exact] a: 1\n", "t.test:1: facts or unavailable areas: "
	    "the value of \"a\" is not a string");
	malformed("golden: [\"a\"]\ncurrent: {}\npolicy: -\n"
	    "pass [exact] a: 1\n", "t.test:1: facts or unavailable areas: "
	    "not a JSON object");
	malformed("golden: {}\ncurrent: {\"a\": \"1\", \"a\": \"2\"}\n"
	    "policy: -\npass [exact] a: 1\n", "t.test:1: facts or unavailable "
	    "areas: not JSON: duplicate object key");
	malformed("golden: {}\ncurrent: {}\ncurrent.unavailable: {\"gpu\"}\n"
	    "policy: -\npass [exact] a: 1\n", "t.test:1: facts or unavailable "
	    "areas: not JSON: ");
	malformed(GOOD_CASE "now: 2026-11-22\n",
	    "t.test:7: \"2026-11-22\" is not a time");
	malformed(GOOD_CASE "now: 2026-02-30T12:00:00Z\n",
	    "t.test:7: \"2026-02-30T12:00:00Z\" is not a time");
	malformed(" {}\n", "t.test:1: a continued line continues no field");
	malformed("policy: {}\nrefused: x\npass [exact] a: 1\n",
	    "t.test:1: a \"refused:\" block has only");
	malformed("glob: a*\nmatch: ab\npolicy: -\n",
	    "t.test:1: a glob block has one \"glob:\" line");
	malformed("\nmatch: ab\n", "t.test:2: a glob block has one");
	malformed("glob: a*\n", "t.test:1: a glob block has one");
	malformed("glob: a*\nnames: maybe\n", "t.test:2: neither a field");
}

/* A result the block expects is not produced, or one is produced that
 * it does not expect: the case fails, and says which. */
static void
test_driver_mismatch(void **state)
{
	char *report = NULL;

	(void)state;
	/* Expected, not produced. */
	assert_int_equal(run_text(GOOD_CASE "pass [exact] os.kernel: 6.1\n",
	    &report), 1);
	assert_non_null(strstr(report, "t.test:2: the results differ"));
	assert_non_null(strstr(report, "  - pass [exact] os.kernel: 6.1\n"));
	assert_null(strstr(report, "  + "));
	free(report);
	report = NULL;

	/* Produced, not expected: the same case without its last line. */
	assert_int_equal(run_text("golden:  {\"a\": \"1\", \"b\": \"2\"}\n"
	    "current: {\"a\": \"1\", \"b\": \"3\"}\npolicy: -\n"
	    "pass [exact] a: 1\n", &report), 1);
	assert_non_null(strstr(report, "t.test:1: the results differ"));
	assert_non_null(strstr(report,
	    "  + fail [exact] b: expected 2, got 3\n"));
	assert_null(strstr(report, "  - "));
	free(report);
	report = NULL;

	/* Another message, another status, another rule, another order. */
	assert_int_equal(run_text(
	    "golden: {\"a\": \"1\", \"b\": \"2\"}\n"
	    "current: {\"a\": \"1\", \"b\": \"3\"}\npolicy: -\n"
	    "pass [exact] a: 1\nfail [exact] b: expected 2, got 4\n\n"
	    "golden: {\"a\": \"1\"}\ncurrent: {\"a\": \"2\"}\npolicy: -\n"
	    "warn [exact] a: expected 1, got 2\n\n"
	    "golden: {\"a\": \"1\"}\ncurrent: {\"a\": \"2\"}\npolicy: -\n"
	    "fail [version] a: expected 1, got 2\n\n"
	    "golden: {\"a\": \"1\", \"b\": \"2\"}\n"
	    "current: {\"a\": \"1\", \"b\": \"2\"}\npolicy: -\n"
	    "pass [exact] b: 2\npass [exact] a: 1\n", &report), 4);
	assert_non_null(strstr(report, "t.test:1: the results differ"));
	assert_non_null(strstr(report, "t.test:7: the results differ"));
	assert_non_null(strstr(report, "t.test:12: the results differ"));
	assert_non_null(strstr(report, "t.test:17: the results differ"));
	free(report);
	report = NULL;

	/* A policy that should be refused parses; one that should parse is
	 * refused; one refused for another reason. */
	assert_int_equal(run_text("policy: {\"schema\": \"envparity/policy@1\"}"
	    "\nrefused: x\n\n"
	    "golden: {\"a\": \"1\"}\ncurrent: {\"a\": \"1\"}\npolicy: {}\n"
	    "pass [exact] a: 1\n\n"
	    "policy: {}\nrefused: policy.json: not a JSON object\n",
	    &report), 3);
	assert_non_null(strstr(report, "t.test:1: the policy parsed"));
	assert_non_null(strstr(report, "t.test:4: the policy is refused: "
	    "policy.json: no \"schema\""));
	assert_non_null(strstr(report, "t.test:9: the policy was refused "
	    "otherwise"));
	free(report);
	report = NULL;

	/* A glob that answers otherwise, each question named by its line. */
	assert_int_equal(run_text("glob: lib.*.sha256\nmatch: lib.a.sha256\n"
	    "match: lib.sha256\nno match: lib.a.b.sha256\nnames: no\n"
	    "covers every key: yes\ncovers lib.: no\n", &report), 1);
	assert_string_equal(report,
	    "t.test:3: glob \"lib.*.sha256\", match: lib.sha256: it does not "
	    "match\n"
	    "t.test:4: glob \"lib.*.sha256\", no match: lib.a.b.sha256: it "
	    "matches\n"
	    "t.test:5: glob \"lib.*.sha256\", names: no: names: yes\n"
	    "t.test:6: glob \"lib.*.sha256\", covers every key: yes: it does "
	    "not cover\n");
	free(report);
}

/* What every result keeps, checked on results made by hand: each broken
 * promise is caught. */
static void
test_driver_promise(void **state)
{
	struct ep_manifest *g = ep_manifest_new(), *c = ep_manifest_new();
	struct ep_result r = { 0 };

	(void)state;
	ep_manifest_set(g, "os.id", "ubuntu");
	ep_manifest_set(c, "os.id", "debian");
	r.key = "os.id";
	r.area = "os";
	r.expected = "ubuntu";
	r.actual = "debian";
	r.status = EP_FAIL;
	r.message = "os.id: expected ubuntu, got debian";
	assert_null(tc_promise(&r, g, c));
	r.message = "os.idx: expected ubuntu, got debian";
	assert_string_equal(tc_promise(&r, g, c),
	    "its message does not start with its key");
	r.message = "os.id: expected ubuntu, got debian";
	r.area = "o";
	assert_string_equal(tc_promise(&r, g, c),
	    "its area is not its key's first segment");
	r.area = "os";
	r.actual = NULL;
	assert_string_equal(tc_promise(&r, g, c),
	    "its expected or actual is not the fact's value");
	r.actual = "debian";
	r.status = EP_WAIVED;
	assert_string_equal(tc_promise(&r, g, c), "it is waived by no waiver");
	r.waiver_owner = "ana";
	r.waiver_expires = "2026-11-22";
	r.waiver_reason = "NEP 50";
	assert_string_equal(tc_promise(&r, g, c),
	    "its message does not name its waiver");
	r.message = "os.id: expected ubuntu, got debian; waived by ana until "
	    "2026-11-22: NEP 50";
	assert_null(tc_promise(&r, g, c));
	ep_manifest_free(g);
	ep_manifest_free(c);
}

/* The driver's own tests, then one test each case of the case files
 * (its name: the file and the line its block starts at). */
int
main(void)
{
	static const struct CMUnitTest driver[] = {
		cmocka_unit_test(test_driver_good),
		cmocka_unit_test(test_driver_malformed),
		cmocka_unit_test(test_driver_mismatch),
		cmocka_unit_test(test_driver_promise),
	};
	static const char *const files[] = { COMPARE_CASES, POLICY_CASES,
	    GLOB_CASES };
	const size_t nd = sizeof driver / sizeof driver[0];
	const size_t nf = sizeof files / sizeof files[0];
	struct tc_file f[sizeof files / sizeof files[0]];
	struct tc_entry *e = NULL;
	struct CMUnitTest *t;
	size_t n = 0;
	int rc;

	tc_load(f, files, nf, &e, &n);
	t = xcalloc(nd + n, sizeof *t);
	memcpy(t, driver, sizeof driver);
	for (size_t i = 0; i < n; i++) {
		t[nd + i].name = e[i].name;
		t[nd + i].test_func = test_case;
		t[nd + i].initial_state = &e[i];
	}
	rc = _cmocka_run_group_tests("test_cases", t, nd + n, NULL, NULL);
	for (size_t i = 0; i < n; i++) {
		free(e[i].name);
		free(e[i].error);
	}
	for (size_t i = 0; i < nf; i++)
		tc_file_free(&f[i]);
	free(e);
	free(t);
	return rc;
}
