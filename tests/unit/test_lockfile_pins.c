/*
 * test_lockfile_pins.c: what the lockfile parsers share beneath them
 * (lockfile.c's choice of format, lockfile_pins.c): file names to
 * formats, PEP 503 names and PEP 508 name syntax, URLs without their
 * secrets, the cap on pins and their merging.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lockfile.h"

static void
test_format_of(void **state)
{
	(void)state;
	assert_int_equal(ep_lock_format_of("requirements.txt"),
	    EP_LOCK_REQUIREMENTS);
	assert_int_equal(ep_lock_format_of("a/b/requirements-dev.txt"),
	    EP_LOCK_REQUIREMENTS);
	assert_int_equal(ep_lock_format_of("requirements/prod.txt"),
	    EP_LOCK_OTHER);
	assert_int_equal(ep_lock_format_of("requirements.in"), EP_LOCK_OTHER);
	assert_int_equal(ep_lock_format_of("poetry.lock"), EP_LOCK_POETRY);
	assert_int_equal(ep_lock_format_of("/x/uv.lock"), EP_LOCK_UV);
	assert_int_equal(ep_lock_format_of("Pipfile.lock"), EP_LOCK_PIPFILE);
	assert_int_equal(ep_lock_format_of("Pipfile"), EP_LOCK_OTHER);
	assert_int_equal(ep_lock_format_of("conda-linux-64.lock"),
	    EP_LOCK_CONDA);
	assert_int_equal(ep_lock_format_of("conda-.lock"), EP_LOCK_OTHER);
	assert_int_equal(ep_lock_format_of("conda-lock.yml"),
	    EP_LOCK_CONDA_LOCK);
	assert_int_equal(ep_lock_format_of("gpu.conda-lock.yml"),
	    EP_LOCK_CONDA_LOCK);
	assert_int_equal(ep_lock_format_of("pixi.lock"), EP_LOCK_PIXI);
	assert_int_equal(ep_lock_format_of("pdm.lock"), EP_LOCK_PDM);
	assert_int_equal(ep_lock_format_of("pylock.toml"), EP_LOCK_PYLOCK);
	assert_int_equal(ep_lock_format_of("pylock.gpu.toml"), EP_LOCK_PYLOCK);
	assert_int_equal(ep_lock_format_of("pylock.a.b.toml"), EP_LOCK_OTHER);
	assert_int_equal(ep_lock_format_of("pylock..toml"), EP_LOCK_OTHER);
	assert_int_equal(ep_lock_format_of("env.explicit.txt"), EP_LOCK_CONDA);
	assert_int_equal(ep_lock_format_of("requirements.explicit.txt"),
	    EP_LOCK_CONDA);
	assert_int_equal(ep_lock_format_of("package-lock.json"),
	    EP_LOCK_OTHER);
	assert_string_equal(ep_lock_format_name(EP_LOCK_UV), "uv");
}

/* The format of a file whose name says nothing, from its first-column
 * lines alone. */
static void
test_format_sniff(void **state)
{
	static const struct {
		const char *text;
		enum ep_lock_format f;
	} cases[] = {
		{ "\xef\xbb\xbf  {\"default\": {}}", EP_LOCK_PIPFILE },
		{ "# conda\n@EXPLICIT\nhttps://x/a-1-0.conda\n", EP_LOCK_CONDA },
		{ "version: 1\nmetadata: {}\npackage:\n- name: a\n",
		    EP_LOCK_CONDA_LOCK },
		{ "version: 6\nenvironments:\n  default: {}\npackages: []\n",
		    EP_LOCK_PIXI },
		{ "lock-version = \"1.0\"\n[[packages]]\nname = \"a\"\n",
		    EP_LOCK_PYLOCK },
		{ "[metadata]\nlock_version = \"4.4\"\n[[package]]\n",
		    EP_LOCK_PDM },
		{ "version = 1\nrevision = 2\n[[package]]\n", EP_LOCK_UV },
		{ "[[package]]\nname = \"a\"\n[metadata]\nlock-version = "
		    "\"2.0\"\nversion = 1\n", EP_LOCK_POETRY },
		/* Indented keys are not the top level's. */
		{ "x:\n  package:\n  environments:\n", EP_LOCK_OTHER },
		{ "numpy==1.26.4\n", EP_LOCK_OTHER },
		{ "", EP_LOCK_OTHER },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		assert_int_equal(ep_lock_format_sniff(cases[i].text,
		    strlen(cases[i].text)), cases[i].f);
}

static void
test_names_and_urls(void **state)
{
	char *s;

	(void)state;
	s = ep_lock_pep503("Foo__Bar.-baz", 13);
	assert_string_equal(s, "foo-bar-baz");
	free(s);
	s = ep_lock_pep503("PyYAML", 6);
	assert_string_equal(s, "pyyaml");
	free(s);
	assert_true(ep_lock_valid_name("a.b_c-D9", 8));
	assert_true(ep_lock_valid_name("x", 1));
	assert_false(ep_lock_valid_name("-a", 2));
	assert_false(ep_lock_valid_name("a-", 2));
	assert_false(ep_lock_valid_name("a b", 3));
	assert_false(ep_lock_valid_name("", 0));

	s = ep_lock_url_scrub("https://user:pw@host/p/x.whl?sig=1#sha256=ab",
	    44);
	assert_string_equal(s, "https://host/p/x.whl");
	free(s);
	s = ep_lock_url_scrub("git+ssh://git@github.com/o/r.git@v1", 35);
	assert_string_equal(s, "git+ssh://github.com/o/r.git@v1");
	free(s);
	s = ep_lock_url_scrub("https://conda.anaconda.org/t/TOK-1/chan/x", 41);
	assert_string_equal(s, "https://conda.anaconda.org/chan/x");
	free(s);
	/* A password with an unencoded '/', '#' or '?': the userinfo still
	 * goes whole, before the query and fragment are cut. */
	s = ep_lock_url_scrub("https://user:pa/ss@host/simple/x.whl", 36);
	assert_string_equal(s, "https://host/simple/x.whl");
	free(s);
	s = ep_lock_url_scrub("https://user:p#ss@host/x.whl", 28);
	assert_string_equal(s, "https://host/x.whl");
	free(s);
	s = ep_lock_url_scrub("https://u:a/b@c@host/x.whl", 26);
	assert_string_equal(s, "https://host/x.whl");
	free(s);
	/* A port is a port, and a VCS ref's '@' is not userinfo. */
	s = ep_lock_url_scrub("https://host:8443/x@v1", 22);
	assert_string_equal(s, "https://host:8443/x@v1");
	free(s);
	s = ep_lock_url_scrub("https://h/t//t/x", 16);
	assert_string_equal(s, "https://h");
	free(s);
	/* Cutting a token segment cannot join a new userinfo together
	 * ("https:/t/" + "//u:p@h"), and a "://" in the query is not the
	 * authority (found by fuzz_lock_requirements). */
	s = ep_lock_url_scrub("https:/t///u:p@h/x", 18);
	assert_string_equal(s, "https://h/x");
	free(s);
	s = ep_lock_url_scrub("x/?//:///@u:pw@h", 16);
	assert_string_equal(s, "x/");
	free(s);
	s = ep_lock_url_scrub("https://h/x?next=https://v:q@i/", 31);
	assert_string_equal(s, "https://h/x");
	free(s);
}

/* A lockfile gives at most EP_LOCK_PINS_MAX pins; the rest are counted. */
static void
test_pins_cap(void **state)
{
	struct ep_pins p = { 0 }, q = { 0 };

	(void)state;
	for (int i = 0; i < EP_LOCK_PINS_MAX + 5; i++)
		ep_pins_add(&p, "x", "1");
	assert_int_equal(p.n, EP_LOCK_PINS_MAX);
	assert_int_equal(p.dropped, 5);
	ep_pins_add(&q, "y", "2");
	ep_pins_take(&q, &p);
	assert_int_equal(q.n, EP_LOCK_PINS_MAX);
	assert_int_equal(q.dropped, 6);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.dropped, 0);
	ep_pins_clear(&q);
}

static void
test_merge(void **state)
{
	struct ep_pins p = { 0 };

	(void)state;
	ep_pins_add(&p, "b", "2.0");
	ep_pins_add(&p, "a", "1");
	ep_pins_add(&p, "b", "1.0");
	ep_pins_add(&p, "b", "2.0");
	ep_pins_merge(&p);
	assert_int_equal(p.n, 2);
	assert_string_equal(p.v[0].name, "a");
	assert_string_equal(p.v[1].name, "b");
	assert_string_equal(p.v[1].version, "1.0,2.0");
	ep_pins_clear(&p);
	ep_pins_merge(&p);
	assert_int_equal(p.n, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_of),
		cmocka_unit_test(test_format_sniff),
		cmocka_unit_test(test_names_and_urls),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_pins_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
