/*
 * test_python.c: the Python collector's pure parts: PEP 503 names,
 * METADATA headers, requires.txt, dist-info names and versions,
 * pyvenv.cfg, and the interpreter query's answer.  The interpreters
 * themselves: test_pyinterp.c; the collector: test_pycollect.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"
#include "pyfixture.h"
#include "python.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

/* --- pure functions ------------------------------------------------ */

static void
test_pep503(void **state)
{
	static const char *const cases[][2] = {
		{ "Foo_Bar.baz", "foo-bar-baz" }, { "a--_.b", "a-b" },
		{ "zope.interface", "zope-interface" }, { "PyYAML", "pyyaml" },
		{ "typing_extensions", "typing-extensions" }, { "A", "a" },
		{ "legacy__Thing-7", "legacy-thing-7" },
	};
	char *s;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		s = ep_pep503_normalize(cases[i][0]);
		assert_string_equal(s, cases[i][1]);
		free(s);
	}
	assert_true(ep_pep508_name_valid("numpy"));
	assert_true(ep_pep508_name_valid("a"));
	assert_true(ep_pep508_name_valid("zope.interface"));
	assert_false(ep_pep508_name_valid(""));
	assert_false(ep_pep508_name_valid("not a name!"));
	assert_false(ep_pep508_name_valid("-x"));
	assert_false(ep_pep508_name_valid("x_"));
	assert_false(ep_pep508_name_valid("caf\xc3\xa9"));
	assert_false(ep_pep508_name_valid("a/b"));
}

static void
parse(struct ep_pymeta *m, const char *text, int complete)
{
	ep_pymeta_parse(m, text, strlen(text), complete);
}

static void
test_pymeta(void **state)
{
	struct ep_pymeta m;
	static const char nul[] = "Name: x\nVer\0sion: 1\n\n";

	(void)state;
	parse(&m, "Metadata-Version: 2.1\nName: Foo_Bar\nVersion: 1.2.3\n"
	    "Summary: s\n\nVersion: 9.9.9\nName: body\n", 1);
	assert_string_equal(m.name, "Foo_Bar");
	assert_string_equal(m.version, "1.2.3");	/* not the body's */
	assert_false(m.binary);
	ep_pymeta_clear(&m);

	/* Field names without regard to case; the first one counts;
	 * continuation lines are not fields. */
	parse(&m, "name:  spaced  \nDescription: x\n        Version: 7\n"
	    "VERSION: 2.0\nVersion: 3.0\n", 1);
	assert_string_equal(m.name, "spaced");
	assert_string_equal(m.version, "2.0");
	ep_pymeta_clear(&m);

	/* CRLF, a BOM, no final newline. */
	parse(&m, "\xef\xbb\xbfName: crlf\r\nVersion: 3.0", 1);
	assert_string_equal(m.name, "crlf");
	assert_string_equal(m.version, "3.0");
	ep_pymeta_clear(&m);
	parse(&m, "Name: x\r\n\r\nVersion: 1\r\n", 1);
	assert_null(m.version);
	ep_pymeta_clear(&m);

	/* A buffer cut off mid-line ignores that line. */
	parse(&m, "Name: cut\nVersion: 1.0.0-and-then", 0);
	assert_string_equal(m.name, "cut");
	assert_null(m.version);
	ep_pymeta_clear(&m);

	/* Empty values, nothing at all, binary data. */
	parse(&m, "Name:\nVersion:   \n", 1);
	assert_null(m.name);
	assert_null(m.version);
	ep_pymeta_clear(&m);
	parse(&m, "", 1);
	assert_null(m.name);
	ep_pymeta_clear(&m);
	ep_pymeta_parse(&m, nul, sizeof nul - 1, 1);
	assert_true(m.binary);
	assert_null(m.version);
	ep_pymeta_clear(&m);
	/* NUL bytes without a newline, cut off: still binary. */
	ep_pymeta_parse(&m, nul + 8, 6, 0);
	assert_true(m.binary);
	ep_pymeta_clear(&m);

	/* Every Requires-Dist, as pip takes it: the value stripped, a
	 * continuation after a newline, none from the body. */
	parse(&m, "Name: r\nVersion: 1\nRequires-Dist: numpy (>=1.22)\n"
	    "requires-dist:  typing-extensions ; python_version < \"3.10\" \n"
	    "Requires-Dist:\n  folded>=1\nRequires-Dist: a,\n b\r\n"
	    "Summary: s\nRequires-Dist: pytest ; extra == 'test'\n\n"
	    "Requires-Dist: body\n", 1);
	assert_int_equal(m.requires.n, 5);
	assert_string_equal(m.requires.v[0], "numpy (>=1.22)");
	assert_string_equal(m.requires.v[1],
	    "typing-extensions ; python_version < \"3.10\"");
	assert_string_equal(m.requires.v[2], "folded>=1");
	assert_string_equal(m.requires.v[3], "a,\n b");
	assert_string_equal(m.requires.v[4], "pytest ; extra == 'test'");
	ep_pymeta_clear(&m);
	/* The last header, without a newline; bytes that are not UTF-8. */
	parse(&m, "Requires-Dist: x\xff>=1", 1);
	assert_int_equal(m.requires.n, 1);
	assert_string_equal(m.requires.v[0], "x\xef\xbf\xbd>=1");
	ep_pymeta_clear(&m);
}

/* setuptools' requires.txt as pip turns it into Requires-Dist. */
static void
test_requires_txt(void **state)
{
	static const char txt[] = "pycairo>=1.16.0\n# a comment\n\n"
	    "[:sys_platform == \"win32\"]\npywin32\n[Socks]\nPySocks!=1.5.7\n"
	    "[Test_Extra:python_version < \"3.8\"]\n  importlib-metadata  \n";
	struct ep_strv sv = { 0 };

	(void)state;
	ep_requires_txt_parse(&sv, txt, sizeof txt - 1);
	assert_int_equal(sv.n, 4);
	assert_string_equal(sv.v[0], "pycairo>=1.16.0");
	assert_string_equal(sv.v[1], "pywin32 ; sys_platform == \"win32\"");
	assert_string_equal(sv.v[2], "PySocks!=1.5.7 ; extra == \"socks\"");
	assert_string_equal(sv.v[3], "importlib-metadata ; (python_version < "
	    "\"3.8\") and extra == \"test-extra\"");
	ep_strv_clear(&sv);
}

static void
test_entry_name(void **state)
{
	static const char *const cases[][2] = {
		{ "foo_bar-1.0.dist-info", "foo_bar" },
		{ "Zope.Sample_Lib1-1.1.1-py3.11.egg-info", "Zope.Sample_Lib1" },
		{ "foo.egg-info", "foo" },
		{ "foo.bar.dist-info", "foo.bar" },
	};
	char *s;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		s = ep_pydist_entry_name(cases[i][0]);
		assert_non_null(s);
		assert_string_equal(s, cases[i][1]);
		free(s);
	}
	assert_null(ep_pydist_entry_name("-1.0.dist-info"));
}

/* pip's parse_name_and_version_from_info_directory: the stem's
 * partition("-"), for a dist-info only. */
static void
test_entry_version(void **state)
{
	static const char *const cases[][2] = {
		{ "foo_bar-1.0.dist-info", "1.0" },
		{ "numpy-2.0.0rc1.dist-info", "2.0.0rc1" },
		{ "torch-2.3.0+cu121.dist-info", "2.3.0+cu121" },
		{ "odd-1.0-extra.dist-info", "1.0-extra" },
		{ "foo-1.0.egg-info", NULL },
		{ "Zope.Sample_Lib1-1.1.1-py3.11.egg-info", NULL },
		{ "foo.dist-info", NULL },
		{ "foo-.dist-info", NULL },
		{ "foo-1.0", NULL },
	};
	char *s;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		s = ep_pydist_entry_version(cases[i][0]);
		if (cases[i][1] == NULL)
			assert_null(s);
		else {
			assert_non_null(s);
			assert_string_equal(s, cases[i][1]);
		}
		free(s);
	}
}

static void
test_version_norm(void **state)
{
	static const char *const cases[][2] = {
		{ "3.11.7.final.0", "3.11.7" },
		{ "3.13.0.candidate.1", "3.13.0rc1" },
		{ "3.12.0.beta.4", "3.12.0b4" },
		{ "3.14.0.alpha.2", "3.14.0a2" },
		{ "3.11.7", "3.11.7" }, { " 3.10.12 \n", "3.10.12" },
		{ "3.13.0rc1", "3.13.0rc1" },
	};
	char *s;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		s = ep_python_version_norm(cases[i][0]);
		assert_non_null(s);
		assert_string_equal(s, cases[i][1]);
		free(s);
	}
	assert_null(ep_python_version_norm("3"));
	assert_null(ep_python_version_norm("abc"));
	assert_null(ep_python_version_norm(""));
}

static void
test_pyvenv_parse(void **state)
{
	/* What python3 -m venv writes. */
	static const char venv[] =
	    "home = /usr/bin\n"
	    "include-system-site-packages = false\n"
	    "version = 3.11.2\n"
	    "executable = /usr/bin/python3.11\n"
	    "command = /usr/bin/python3 -m venv /tmp/v\n";
	/* What virtualenv writes: its own version in another key. */
	static const char virtualenv[] =
	    "home = /opt/py/bin\n"
	    "implementation = CPython\n"
	    "version_info = 3.12.1.final.0\n"
	    "virtualenv = 20.25.0\n"
	    "Include-System-Site-Packages = True\n"
	    "base-prefix = /opt/py\n"
	    "base-executable = /opt/py/bin/python3.12\n";
	struct ep_pyvenv v;

	(void)state;
	ep_pyvenv_parse(&v, venv, sizeof venv - 1);
	assert_string_equal(v.home, "/usr/bin");
	assert_string_equal(v.version, "3.11.2");
	assert_string_equal(v.executable, "/usr/bin/python3.11");
	assert_false(v.system_site);
	ep_pyvenv_clear(&v);

	ep_pyvenv_parse(&v, virtualenv, sizeof virtualenv - 1);
	assert_string_equal(v.home, "/opt/py/bin");
	assert_string_equal(v.version, "3.12.1");
	assert_string_equal(v.executable, "/opt/py/bin/python3.12");
	assert_true(v.system_site);
	ep_pyvenv_clear(&v);

	ep_pyvenv_parse(&v, "garbage\n= x\n", 12);
	assert_null(v.home);
	assert_null(v.version);
	assert_null(v.executable);
	ep_pyvenv_clear(&v);
}

static void
test_query_parse(void **state)
{
	struct ep_pyquery p;
	struct ep_err err = { 0 };
	const char *ok = "hello from sitecustomize\n"
	    "envparity-probe-v1 {\"version\": \"3.11.7\", \"user\": null, "
	    "\"site\": [\"/a\", \"/b\"]}\n";
	const char *mk = "envparity-probe-v1 {\"version\": \"3.11.7\", "
	    "\"user\": null, \"site\": [], \"markers\": {\"os_name\": "
	    "\"posix\", \"python_version\": \"3.11\", \"unknown\": 1}}\n";
	const char *bad;

	(void)state;
	assert_int_equal(ep_pyquery_parse(&p, ok, strlen(ok), &err), 0);
	assert_string_equal(p.version, "3.11.7");
	assert_null(p.user_site);
	assert_int_equal(p.sites.n, 2);
	assert_string_equal(p.sites.v[1], "/b");
	assert_null(p.markers[EP_MV_OS_NAME]);
	ep_pyquery_clear(&p);

	/* The marker environment: strings where given, others unknown. */
	assert_int_equal(ep_pyquery_parse(&p, mk, strlen(mk), &err), 0);
	assert_string_equal(p.markers[EP_MV_OS_NAME], "posix");
	assert_string_equal(p.markers[EP_MV_PYTHON_VERSION], "3.11");
	assert_null(p.markers[EP_MV_SYS_PLATFORM]);
	ep_pyquery_clear(&p);
	bad = "envparity-probe-v1 {\"version\": \"3.1\", \"user\": null, "
	    "\"site\": [], \"markers\": {\"os_name\": 1}}";
	assert_int_equal(ep_pyquery_parse(&p, bad, strlen(bad), &err), -1);
	assert_non_null(strstr(err.msg, "bad marker os_name"));

	assert_int_equal(ep_pyquery_parse(&p, "3.11.7\n", 7, &err), -1);
	assert_non_null(strstr(err.msg, "no answer"));
	assert_int_equal(ep_pyquery_parse(&p, "envparity-probe-v1 {oops",
	    24, &err), -1);
	assert_non_null(strstr(err.msg, "garbled"));
	assert_int_equal(ep_pyquery_parse(&p, "envparity-probe-v1 "
	    "{\"version\": 3, \"user\": null, \"site\": []}", 56, &err), -1);
	assert_int_equal(ep_pyquery_parse(&p, "envparity-probe-v1 "
	    "{\"version\": \"3.1\", \"user\": null, \"site\": 1}", 58, &err), -1);
	assert_null(p.version);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pep503),
		cmocka_unit_test(test_pymeta),
		cmocka_unit_test(test_requires_txt),
		cmocka_unit_test(test_entry_name),
		cmocka_unit_test(test_entry_version),
		cmocka_unit_test(test_version_norm),
		cmocka_unit_test(test_pyvenv_parse),
		cmocka_unit_test(test_query_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
