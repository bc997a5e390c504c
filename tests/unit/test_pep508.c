/*
 * test_pep508.c: dependency specifiers and markers (pep508.h) and the
 * PEP 440 normal form (vercmp.h).  The requirement table's answers are
 * pypa/packaging's (26.4.dev0, 053c884: Requirement(), str(), the
 * marker's evaluate() with the environment below and extra "", and
 * SpecifierSet.contains(v, prereleases=True) for each of VERSIONS), got
 * by running packaging on each line: the C reader agreed with it on those
 * and on 500,000 generated and mutated lines (bar the NUL of "\0", which
 * is refused here on purpose: pep508.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pep508.h"
#include "vercmp.h"
#include "errors.h"
#include "xalloc.h"

/* A CPython 3.11.7 on Linux x86_64. */
static const struct ep_markerenv linux311 = { {
	"cpython", "3.11.7", "posix", "x86_64", "CPython", "6.1.0-18-amd64",
	"Linux", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)",
	"3.11.7", "3.11", "linux",
} };

static const char *const versions[] = { "1.0", "2.0rc1", "1.5.post1",
    "3.0+local", "0.9", "1.0.0", "2.0", "1!1.0", "foo", NULL };

/* text; str(Requirement) or NULL when packaging refuses it; its PEP 503
 * name; the marker's value (T, F, E: packaging raises); contains(). */
static const struct {
	const char *text, *str, *norm;
	char eval;
	const char *contains;
} reqs[] = {
	{ "foo",
	    "foo", "foo", 'T', "111111111" },
	{ "Foo_Bar.baz",
	    "Foo_Bar.baz", "foo-bar-baz", 'T', "111111111" },
	{ "foo>=1.0",
	    "foo>=1.0", "foo", 'T', "111101110" },
	{ "foo (>=1.0, <2)",
	    "foo<2,>=1.0", "foo", 'T', "101001000" },
	{ "foo[b,a]>=1, <2 ; os.name==\"posix\" and (python_version<\"3\")",
	    "foo[a,b]<2,>=1; os_name == \"posix\" and python_version < \"3\"", "foo", 'F', "101001000" },
	{ "requests[security, tests]>=2.8.1,==2.8.*;python_version<\"2.7\"",
	    "requests[security,tests]==2.8.*,>=2.8.1; python_version < \"2.7\"", "requests", 'F', "000000000" },
	{ "importlib-metadata; python_version<'3.8'",
	    "importlib-metadata; python_version < \"3.8\"", "importlib-metadata", 'F', "111111111" },
	{ "appdirs>=1.4.4,<2; os_name==\"posix\" and extra==\"testing\"",
	    "appdirs<2,>=1.4.4; os_name == \"posix\" and extra == \"testing\"", "appdirs", 'F', "001000000" },
	{ "mariadb>=1.0.1; extra == \"mariadb_connector\"",
	    "mariadb>=1.0.1; extra == \"mariadb-connector\"", "mariadb", 'F', "011100110" },
	{ "name @ https://example.com/name;v=1.1/?query=foo&bar=baz#blah",
	    "name @ https://example.com/name;v=1.1/?query=foo&bar=baz#blah", "name", 'T', "111111111" },
	{ "name @ file:///absolute/path ; python_version >= \"3\"",
	    "name @ file:///absolute/path ; python_version >= \"3\"", "name", 'T', "111111111" },
	{ "foo @ http://x;python_version<\"3\"",
	    "foo @ http://x;python_version<\"3\"", "foo", 'T', "111111111" },
	{ "foo>=1,",
	    "foo>=1", "foo", 'T', "111101110" },
	{ "foo===arbitrary.string",
	    "foo===arbitrary.string", "foo", 'T', "000000000" },
	{ "foo==1.0.*",
	    "foo==1.0.*", "foo", 'T', "100001000" },
	{ "foo~=1.4.2",
	    "foo~=1.4.2", "foo", 'T', "000000000" },
	{ "foo>=1.0a1,!=1.5.*",
	    "foo!=1.5.*,>=1.0a1", "foo", 'T', "110101110" },
	{ "foo<=1!3.0.0.rc2",
	    "foo<=1!3.0.0.rc2", "foo", 'T', "111111110" },
	{ "foo==1.0+local",
	    "foo==1.0+local", "foo", 'T', "000000000" },
	{ "numpy (>=1.22)",
	    "numpy>=1.22", "numpy", 'T', "010100110" },
	{ "typing-extensions ; python_version < \"3.10\"",
	    "typing-extensions; python_version < \"3.10\"", "typing-extensions", 'F', "111111111" },
	{ "tomli (>=2.0,<3.0) ; python_version < \"3.11\"",
	    "tomli<3.0,>=2.0; python_version < \"3.11\"", "tomli", 'F', "000000100" },
	{ "x ; python_version >= \"3.8\" or extra == \"t\"",
	    "x; python_version >= \"3.8\" or extra == \"t\"", "x", 'T', "111111111" },
	{ "x; \"3\" in python_version",
	    "x; \"3\" in python_version", "x", 'T', "111111111" },
	{ "x; platform_release >= '5'",
	    "x; platform_release >= \"5\"", "x", 'F', "111111111" },
	{ "x; python_full_version > \"3.6.2\"",
	    "x; python_full_version > \"3.6.2\"", "x", 'T', "111111111" },
	{ "x; '2.7.9' < python_full_version",
	    "x; \"2.7.9\" < python_full_version", "x", 'T', "111111111" },
	{ "x; (python_version >= \"3\" and (sys_platform == \"linux\" or sys_platform == \"darwin\"))",
	    "x; python_version >= \"3\" and (sys_platform == \"linux\" or sys_platform == \"darwin\")", "x", 'T', "111111111" },
	{ "x; ((os_name == \"posix\"))",
	    "x; os_name == \"posix\"", "x", 'T', "111111111" },
	{ "x; sys_platform != \"win32\" and platform_machine == \"x86_64\"",
	    "x; sys_platform != \"win32\" and platform_machine == \"x86_64\"", "x", 'T', "111111111" },
	{ "x; platform_python_implementation == \"CPython\" and implementation_name == \"cpython\"",
	    "x; platform_python_implementation == \"CPython\" and implementation_name == \"cpython\"", "x", 'T', "111111111" },
	{ "x; python_implementation == \"CPython\"",
	    "x; platform_python_implementation == \"CPython\"", "x", 'T', "111111111" },
	{ "x; os_name in \"posix nt\"",
	    "x; os_name in \"posix nt\"", "x", 'T', "111111111" },
	{ "x; \"linux\" not in sys_platform",
	    "x; \"linux\" not in sys_platform", "x", 'F', "111111111" },
	{ "x; a\"b' == os_name", NULL, NULL, 0, NULL },
	{ "x; os_name == \"\\x70osix\"",
	    "x; os_name == \"posix\"", "x", 'T', "111111111" },
	{ "x; os_name == \"\\160osix\"",
	    "x; os_name == \"posix\"", "x", 'T', "111111111" },
	{ "x; python_version ~= \"3.9\"",
	    "x; python_version ~= \"3.9\"", "x", 'T', "111111111" },
	{ "x; python_version === \"3.11\"",
	    "x; python_version === \"3.11\"", "x", 'T', "111111111" },
	{ "x; implementation_version ~= \"3.11.0\"",
	    "x; implementation_version ~= \"3.11.0\"", "x", 'T', "111111111" },
	{ "x; platform_system <= \"Linux\"",
	    "x; platform_system <= \"Linux\"", "x", 'T', "111111111" },
	{ "x; platform_system < \"Zzz\"",
	    "x; platform_system < \"Zzz\"", "x", 'F', "111111111" },
	{ "x; os_name ~= \"posix\"",
	    "x; os_name ~= \"posix\"", "x", 'E', "111111111" },
	{ "x; os_name === \"posix\"",
	    "x; os_name === \"posix\"", "x", 'E', "111111111" },
	{ "x; extras == \"a\"",
	    "x; extras == \"a\"", "x", 'E', "111111111" },
	{ "foo~=1", NULL, NULL, 0, NULL },
	{ "foo>=1.0+local", NULL, NULL, 0, NULL },
	{ "foo>=1.*", NULL, NULL, 0, NULL },
	{ "foo==1.0a1.*", NULL, NULL, 0, NULL },
	{ "foo>=1 <2", NULL, NULL, 0, NULL },
	{ "foo>=1,,<2", NULL, NULL, 0, NULL },
	{ "foo[a b]", NULL, NULL, 0, NULL },
	{ "foo[a,]", NULL, NULL, 0, NULL },
	{ "foo ; ", NULL, NULL, 0, NULL },
	{ "foo;python_version", NULL, NULL, 0, NULL },
	{ "foo==1.0 bar", NULL, NULL, 0, NULL },
	{ "foo @", NULL, NULL, 0, NULL },
	{ "foo @ http://x bar", NULL, NULL, 0, NULL },
	{ "-foo", NULL, NULL, 0, NULL },
	{ "foo (>=1.0", NULL, NULL, 0, NULL },
	{ "x; os_name == \"posix\" or", NULL, NULL, 0, NULL },
	{ "x; os_name == \"C:\\\"", NULL, NULL, 0, NULL },
	{ "x; os_name == \"\\N{DASH}\"", NULL, NULL, 0, NULL },
	{ "x; (python_version == \"2.7\" and os_name == \"linux\"", NULL, NULL, 0, NULL },
	{ "x; notavariable == \"1\"", NULL, NULL, 0, NULL },
	{ "x; python_version notin \"3\"", NULL, NULL, 0, NULL },
	{ "x; os_name==\"posix\"and python_version>\"3\"",
	    "x; os_name == \"posix\" and python_version > \"3\"", "x", 'T', "111111111" },
	{ "x; os_name==\"posix\"andpython_version>\"3\"", NULL, NULL, 0, NULL },
};

static void
test_requirements(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof reqs / sizeof reqs[0]; i++) {
		struct ep_err err = { 0 };
		struct ep_req r;
		char *s;
		int v;

		if (reqs[i].str == NULL) {
			if (ep_req_parse(&r, reqs[i].text, &err) == 0)
				fail_msg("accepted: %s", reqs[i].text);
			assert_int_equal(err.kind, EP_E_INPUT);
			assert_non_null(strstr(err.msg, "column"));
			assert_null(r.name);
			continue;
		}
		if (ep_req_parse(&r, reqs[i].text, &err) < 0)
			fail_msg("refused: %s: %s", reqs[i].text, err.msg);
		s = ep_req_str(&r);
		assert_string_equal(s, reqs[i].str);
		free(s);
		assert_string_equal(r.norm, reqs[i].norm);
		v = r.marker == NULL ? EP_MARKER_TRUE :
		    ep_marker_eval(r.marker, &linux311, &err);
		if (reqs[i].eval != (v < 0 ? 'E' : v == EP_MARKER_TRUE ? 'T' :
		    v == EP_MARKER_FALSE ? 'F' : '?'))
			fail_msg("%s: marker gave %d, packaging %c",
			    reqs[i].text, v, reqs[i].eval);
		for (size_t k = 0; versions[k] != NULL; k++)
			if (ep_req_contains(&r, versions[k]) !=
			    reqs[i].contains[k] - '0')
				fail_msg("%s: contains(%s) is not %c",
				    reqs[i].text, versions[k],
				    reqs[i].contains[k]);
		ep_req_clear(&r);
	}
}

/* The parts pip check reads. */
static void
test_parts(void **state)
{
	struct ep_err err = { 0 };
	struct ep_req r;

	(void)state;
	assert_int_equal(ep_req_parse(&r, "Foo.Bar [X, y] (>=1.0, <2) ; "
	    "python_version < \"3.10\"", &err), 0);
	assert_string_equal(r.name, "Foo.Bar");
	assert_string_equal(r.norm, "foo-bar");
	assert_int_equal(r.extras.n, 2);
	assert_string_equal(r.extras.v[0], "X");
	assert_string_equal(r.extras.v[1], "y");
	assert_null(r.url);
	assert_string_equal(ep_req_specifier(&r), "<2,>=1.0");
	assert_non_null(r.marker);
	ep_req_clear(&r);

	assert_int_equal(ep_req_parse(&r, "pkg @ git+https://h/r.git@v1",
	    &err), 0);
	assert_string_equal(r.url, "git+https://h/r.git@v1");
	assert_string_equal(ep_req_specifier(&r), "");
	assert_true(ep_req_contains(&r, "0.0.1"));
	ep_req_clear(&r);

	/* Sorted by their text, equal ones once (~= counts trailing
	 * zeros, === and .* compare as written), as str(SpecifierSet). */
	{
		static const char *const sets[][2] = {
			{ "a>=1.0.0,>=1.0", "a>=1.0" },
			{ "a~=1.0,~=1.0.0", "a~=1.0,~=1.0.0" },
			{ "a==1.0.*,==1.0.0.*", "a==1.0.*,==1.0.0.*" },
			{ "a== 1.0,==1", "a==1" },
			{ "a>=0,>=0.0", "a>=0" },
			{ "Fo=== and,=====5.0", "Fo=====5.0,===and" },
		};
		char *str;

		for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
			assert_int_equal(ep_req_parse(&r, sets[i][0], &err), 0);
			str = ep_req_str(&r);
			assert_string_equal(str, sets[i][1]);
			free(str);
			ep_req_clear(&r);
		}
	}

	/* A trailing newline is not part of a requirement (pip strips the
	 * metadata value first). */
	assert_int_equal(ep_req_parse(&r, "foo>=1\n", &err), -1);
	assert_int_equal(ep_req_parse(&r, "", &err), -1);
	assert_int_equal(ep_req_parse(&r, "foo>=1 \t", &err), 0);
	ep_req_clear(&r);
}

/* pip check asks contains(version, prereleases=True): pre-releases are
 * in, a version that is not PEP 440 is in nothing but === of its text,
 * and === compares the version's normal form, as pip holds a Version. */
static void
test_contains(void **state)
{
	static const struct {
		const char *req, *version;
		int in;
	} cases[] = {
		{ "a>=2", "2.1rc1", 1 }, { "a>=2", "2.0rc1", 0 },
		{ "a<2", "2.0rc1", 0 }, { "a<2", "1.9.post1", 1 },
		{ "a>1.0", "1.0.post1", 0 }, { "a==1.0", "1.0+cu121", 1 },
		{ "a==1.0+cu121", "1.0", 0 }, { "a~=1.4.2", "1.4.9", 1 },
		{ "a~=1.4.2", "1.5", 0 }, { "a!=1.5.*", "1.5.3", 0 },
		{ "a!=1.5.*", "1.6", 1 }, { "a>=1", "6.1.0-18-amd64", 0 },
		{ "a===1.0", "1.0", 1 }, { "a===1.0", "1.0.0", 0 },
		{ "a===1.0rc1", "1.0-RC1", 1 }, { "a===foo", "FOO", 1 },
		{ "a===foo,>=1", "foo", 0 }, { "a", "anything at all", 1 },
		{ "a>=v1.0,<2", "V1.5", 1 }, { "a==1!2.0", "2.0", 0 },
	};
	struct ep_req r;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(ep_req_parse(&r, cases[i].req, NULL), 0);
		if (ep_req_contains(&r, cases[i].version) != cases[i].in)
			fail_msg("%s contains %s: not %d", cases[i].req,
			    cases[i].version, cases[i].in);
		ep_req_clear(&r);
	}
}

/* Evaluate marker against env: 'T', 'F', 'U' or 'E'. */
static char
eval(const char *marker, const struct ep_markerenv *env, char *why,
    size_t n)
{
	struct ep_err err = { 0 };
	struct ep_marker *m;
	int v;

	if (ep_marker_parse(&m, marker, &err) < 0)
		fail_msg("%s: %s", marker, err.msg);
	v = ep_marker_eval(m, env, &err);
	ep_marker_free(m);
	if (why != NULL)
		snprintf(why, n, "%s", err.msg);
	return v < 0 ? 'E' : v == EP_MARKER_TRUE ? 'T' : v ==
	    EP_MARKER_FALSE ? 'F' : 'U';
}

/* A capture that could not ask the interpreter knows only uname's part:
 * the answer is unknown only where the known values do not decide it. */
static void
test_unknown(void **state)
{
	struct ep_markerenv env = linux311;
	char why[1024];

	(void)state;
	env.v[EP_MV_PYTHON_VERSION] = NULL;
	env.v[EP_MV_PYTHON_FULL_VERSION] = NULL;
	env.v[EP_MV_IMPLEMENTATION_NAME] = NULL;
	assert_int_equal(eval("python_version < \"3.10\"", &env, why,
	    sizeof why), 'U');
	assert_string_equal(why, "python_version is not known here");
	assert_int_equal(eval("python_version < \"3.10\" and sys_platform == "
	    "\"win32\"", &env, NULL, 0), 'F');
	assert_int_equal(eval("python_version < \"3.10\" or sys_platform == "
	    "\"linux\"", &env, NULL, 0), 'T');
	assert_int_equal(eval("python_version < \"3.10\" or sys_platform == "
	    "\"win32\"", &env, NULL, 0), 'U');
	assert_int_equal(eval("extra == \"test\" and python_version < \"3\"",
	    &env, NULL, 0), 'F');
	/* "<" on a string variable is false whatever its value... */
	assert_int_equal(eval("implementation_name < \"z\"", &env, NULL, 0),
	    'F');
	/* ...and "~=" undefined on one, known or not. */
	assert_int_equal(eval("implementation_name ~= \"cpython\"", &env, why,
	    sizeof why), 'E');
	assert_string_equal(why, "'~=' is undefined on implementation_name");
	/* An error anywhere is an error, as packaging evaluates it all. */
	assert_int_equal(eval("os_name == \"posix\" or os_name === \"x\"",
	    &linux311, NULL, 0), 'E');
	assert_int_equal(eval("os_name == python_version", &linux311, why,
	    sizeof why), 'E');
	assert_string_equal(why, "a marker compares two variables");
	assert_int_equal(eval("\"a\" == \"a\"", &linux311, NULL, 0), 'E');
	assert_int_equal(eval("\"x\" in extras", &linux311, why, sizeof why),
	    'E');
	assert_string_equal(why, "extras has no value in distribution "
	    "metadata");
}

/* The version variables compare by PEP 440 where "op value" is a
 * specifier, pre-releases included; an untagged build's "3.13.0+" is
 * mended into a local label. */
static void
test_versions_in_markers(void **state)
{
	struct ep_markerenv env = linux311;

	(void)state;
	env.v[EP_MV_PYTHON_FULL_VERSION] = "3.13.0rc1";
	assert_int_equal(eval("python_full_version >= \"3.12\"", &env, NULL,
	    0), 'T');
	assert_int_equal(eval("python_full_version < \"3.13\"", &env, NULL,
	    0), 'F');
	assert_int_equal(eval("python_version == \"3.11.*\"", &env, NULL, 0),
	    'T');
	assert_int_equal(eval("\"3.9\" < python_version", &env, NULL, 0),
	    'T');
	env.v[EP_MV_PYTHON_FULL_VERSION] = "3.13.0+";
	assert_int_equal(eval("python_full_version == \"3.13.0\"", &env, NULL,
	    0), 'T');
	assert_int_equal(eval("python_full_version === \"3.13.0+local\"",
	    &env, NULL, 0), 'T');
	/* Not a specifier ("dog"): strings, where "<" is false. */
	assert_int_equal(eval("python_version < \"dog\"", &env, NULL, 0),
	    'F');
	assert_int_equal(eval("python_version >= \"3.11\"", &env, NULL, 0),
	    'T');
}

static void
test_marker_str(void **state)
{
	static const char *const cases[][2] = {
		{ "python_version == '2.7'", "python_version == \"2.7\"" },
		{ "(python_version == \"2.7\")", "python_version == \"2.7\"" },
		{ "python_version == \"2.7\" and (sys_platform == \"win32\" or "
		    "sys_platform == \"linux\")", "python_version == \"2.7\" "
		    "and (sys_platform == \"win32\" or sys_platform == "
		    "\"linux\")" },
		{ "'a\" == os_name or python_version >= \"0\" or \"b' == "
		    "os_name", "'a\" == os_name or python_version >= \"0\" or "
		    "\"b' == os_name" },
		{ "extra == 'Different.punctuation..is...equal'",
		    "extra == \"different-punctuation-is-equal\"" },
		{ "platform.machine=='x86_64'",
		    "platform_machine == \"x86_64\"" },
	};
	struct ep_marker *m;
	char *s;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(ep_marker_parse(&m, cases[i][0], NULL), 0);
		s = ep_marker_str(m);
		assert_string_equal(s, cases[i][1]);
		free(s);
		ep_marker_free(m);
	}
}

/* Bounded however the text nests: an error, not a deep recursion. */
static void
test_nesting(void **state)
{
	struct ep_err err = { 0 };
	struct ep_marker *m;
	char *text = xcalloc(1, 200000 * 2 + 64), *p = text;

	(void)state;
	for (int i = 0; i < 200000; i++)
		*p++ = '(';
	strcpy(p, "os_name == \"posix\"");
	assert_int_equal(ep_marker_parse(&m, text, &err), -1);
	assert_non_null(strstr(err.msg, "nested too deeply"));
	free(text);
	assert_int_equal(ep_marker_parse(&m, "((((os_name == 'posix'))))",
	    NULL), 0);
	assert_int_equal(eval("((((os_name == 'posix'))))", &linux311, NULL,
	    0), 'T');
	ep_marker_free(m);
}

static void
test_norm(void **state)
{
	static const char *const cases[][2] = {
		{ "1.0", "1.0" }, { "v01.02", "1.2" }, { "1.0-RC1", "1.0rc1" },
		{ "1.0alpha", "1.0a0" }, { "1.0.c2", "1.0rc2" },
		{ "1.0-1", "1.0.post1" }, { "1.0r", "1.0.post0" },
		{ "1.0.dev", "1.0.dev0" }, { "0!1.0", "1.0" },
		{ "2!1.0", "2!1.0" }, { "1.0+Ubuntu-1", "1.0+ubuntu.1" },
		{ "1.0+abc.007", "1.0+abc.7" }, { "1.0+x007", "1.0+x007" },
		{ " 1.0\n", "1.0" }, { "1.0.0", "1.0.0" },
		{ "1.0a1.post2.dev3", "1.0a1.post2.dev3" },
	};
	char *s;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		s = ep_version_pep440_norm(cases[i][0]);
		assert_non_null(s);
		assert_string_equal(s, cases[i][1]);
		free(s);
	}
	assert_null(ep_version_pep440_norm("6.1.0-18-amd64"));
	assert_null(ep_version_pep440_norm("foo"));
	assert_null(ep_version_pep440_norm(""));
}

static void
test_names(void **state)
{
	char *s;

	(void)state;
	s = ep_pep503_normalize("Foo__Bar..baz-_-Q");
	assert_string_equal(s, "foo-bar-baz-q");
	free(s);
	assert_true(ep_pep508_name_valid("zope.interface"));
	assert_false(ep_pep508_name_valid("x_"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requirements),
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_contains),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_versions_in_markers),
		cmocka_unit_test(test_marker_str),
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_norm),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
