/*
 * test_pycollect.c: ep_collect_python and ep_collect_conda against
 * generated site-packages and conda-meta directories, real interpreters
 * and the cache.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

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

/* --- the collector -------------------------------------------------- */

struct fx {
	struct ep_capture_opts o;
	struct ep_collect c;
	struct ep_err err;
};

static void
fx_init(struct fx *f)
{
	memset(f, 0, sizeof *f);
	f->c.opts = &f->o;
	f->c.m = ep_manifest_new();
}

static void
fx_clear(struct fx *f)
{
	ep_manifest_free(f->c.m);
	ep_strv_clear(&f->c.site_dirs);
	ep_capture_opts_clear(&f->o);
}

static char *
gen(const char *name, int n, int malformed)
{
	char *dir = xasprintf("%s/%s", tmp, name);
	char *cmd = xasprintf(GEN " %s --expect '%s.expect' '%s' %d",
	    malformed ? "--malformed" : "", dir, dir, n);

	run(cmd);
	free(cmd);
	return dir;
}

/* Every line "KEY VALUE" of the generator's expect file is a fact, and
 * there are no other python.pkg facts. */
static void
expect_facts(const struct ep_manifest *m, const char *dir)
{
	char *path = xasprintf("%s.expect", dir), *line = NULL, *sp;
	size_t n = 0, lines = 0, facts = 0;
	const char *key;
	json_t *v;
	FILE *f;

	assert_non_null(f = fopen(path, "r"));
	while (getline(&line, &n, f) > 0) {
		ep_trim(line);
		assert_non_null(sp = strchr(line, ' '));
		*sp = '\0';
		assert_non_null(ep_manifest_get(m, line));
		assert_string_equal(ep_manifest_get(m, line), sp + 1);
		lines++;
	}
	fclose(f);
	json_object_foreach(m->facts, key, v)
		facts += ep_startswith(key, "python.pkg.");
	assert_int_equal(facts, lines);
	free(line);
	free(path);
}

static void
test_collect_sites(void **state)
{
	struct fx f;
	char *a, *b;
	json_t *dup;

	(void)state;
	a = gen("sp-a", 40, 0);
	b = gen("sp-b", 8, 1);
	fx_init(&f);
	ep_strv_push(&f.o.site_dirs, a);
	assert_int_equal(ep_collect_python(&f.c, &f.err), 0);
	expect_facts(f.c.m, a);
	assert_string_equal(ep_manifest_get(f.c.m,
	    "python.pkg.data-tools-pkg4"), "4.4.4");
	assert_string_equal(ep_manifest_get(f.c.m,
	    "python.pkg.legacy-thing-2"), "2.2.2");
	assert_null(ep_manifest_get(f.c.m, "python.version"));
	assert_int_equal(nwarnings(f.c.m), 0);
	assert_int_equal(f.c.site_dirs.n, 1);
	assert_string_equal(f.c.site_dirs.v[0], a);
	fx_clear(&f);

	/* The malformed ones: each is a warning naming its path. */
	fx_init(&f);
	ep_strv_push(&f.o.site_dirs, b);
	assert_int_equal(ep_collect_python(&f.c, &f.err), 0);
	expect_facts(f.c.m, b);
	assert_true(warned(f.c.m, "bad_noversion-1.0.dist-info/METADATA",
	    "no Version field; using \"1.0\" from the directory name"));
	assert_true(warned(f.c.m, "bad_eggnover.egg-info/PKG-INFO",
	    "no Version field (distribution skipped)"));
	/* Debian's dist-info beside an egg-info of one version: one. */
	assert_false(warned(f.c.m, "deb_double", NULL));
	assert_null(json_object_get(json_object_get(json_object_get(
	    f.c.m->meta, "python"), "duplicates"), "deb-double"));
	/* Editable installs: the egg-link's project and its requirements,
	 * direct_url.json's; the egg-links that lead nowhere said. */
	assert_true(warned(f.c.m, "bad_empty.egg-link", "names no directory"));
	assert_true(warned(f.c.m, "bad_gone.egg-link", "No such file"));
	{
		json_t *py = json_object_get(f.c.m->meta, "python");
		json_t *ed = json_object_get(py, "editable");
		char *want = xasprintf("%s/linked_src", b);

		assert_int_equal(json_object_size(ed), 2);
		assert_string_equal(json_string_value(json_object_get(ed,
		    "linked-proj")), want);
		assert_string_equal(json_string_value(json_object_get(ed,
		    "pep660-proj")), "/src/pep660-proj");
		assert_non_null(json_object_get(json_object_get(
		    json_object_get(py, "requires"), "unmet"), "linked-proj"));
		free(want);
	}
	assert_true(warned(f.c.m, "bad_empty-1.0.dist-info/METADATA",
	    "empty"));
	assert_true(warned(f.c.m, "bad_garbage-1.0.dist-info/METADATA",
	    "binary"));
	assert_true(warned(f.c.m, "bad_loop-1.0.dist-info/METADATA",
	    "symbolic links"));
	assert_true(warned(f.c.m, "bad_selflink-1.0.dist-info/METADATA",
	    "symbolic links"));
	assert_true(warned(f.c.m, "bad_isdir-1.0.dist-info/METADATA",
	    "is a directory"));
	assert_true(warned(f.c.m, "bad_fifo-1.0.dist-info/METADATA",
	    "not a regular file"));
	assert_true(warned(f.c.m, "bad_nometa-1.0.dist-info/METADATA",
	    "No such file"));
	assert_true(warned(f.c.m, "bad_badname-1.0.dist-info/METADATA",
	    "invalid Name"));
	assert_true(warned(f.c.m, "bad_noname-2.0.dist-info/METADATA",
	    "from the directory name"));
	assert_true(warned(f.c.m, "Bad_Dup-1.0.dist-info/METADATA (1.0) is "
	    "used", "bad.dup-2.0.dist-info/METADATA (2.0) is shadowed"));
	/* Both in one directory: kept for check, the one recorded first. */
	dup = json_object_get(json_object_get(json_object_get(f.c.m->meta,
	    "python"), "duplicates"), "bad-dup");
	assert_int_equal(json_array_size(dup), 2);
	assert_non_null(strstr(json_string_value(json_object_get(
	    json_array_get(dup, 0), "metadata")),
	    "/Bad_Dup-1.0.dist-info/METADATA"));
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(dup, 0), "version")), "1.0");
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(dup, 1), "version")), "2.0");
	if (access(b, F_OK) == 0 && geteuid() != 0)
		assert_true(warned(f.c.m, "bad_unreadable", "Permission"));
	fx_clear(&f);

	/* Two directories: the first in search order wins; the same
	 * directory given twice is read once. */
	fx_init(&f);
	ep_strv_push(&f.o.site_dirs, b);
	ep_strv_push(&f.o.site_dirs, a);
	ep_strv_push(&f.o.site_dirs, b);
	assert_int_equal(ep_collect_python(&f.c, &f.err), 0);
	assert_int_equal(f.c.site_dirs.n, 2);
	assert_string_equal(ep_manifest_get(f.c.m, "python.pkg.bad-dup"),
	    "1.0");
	fx_clear(&f);
	free(a);
	free(b);
}

static void
test_collect_shadow_across_dirs(void **state)
{
	struct fx f;
	char *a = xasprintf("%s/first", tmp), *b = xasprintf("%s/second", tmp);
	char *cmd;

	(void)state;
	cmd = xasprintf("mkdir -p %s/Same_Pkg-2.0.dist-info "
	    "%s/same.pkg-1.0.dist-info && "
	    "printf 'Name: Same_Pkg\\nVersion: 2.0\\n\\n' "
	    ">%s/Same_Pkg-2.0.dist-info/METADATA && "
	    "printf 'Name: same.pkg\\nVersion: 1.0\\n\\n' "
	    ">%s/same.pkg-1.0.dist-info/METADATA", a, b, a, b);
	run(cmd);
	free(cmd);
	fx_init(&f);
	ep_strv_push(&f.o.site_dirs, a);
	ep_strv_push(&f.o.site_dirs, b);
	assert_int_equal(ep_collect_python(&f.c, &f.err), 0);
	assert_string_equal(ep_manifest_get(f.c.m, "python.pkg.same-pkg"),
	    "2.0");
	assert_true(warned(f.c.m, "first/Same_Pkg-2.0.dist-info/METADATA",
	    "second/same.pkg-1.0.dist-info/METADATA"));
	fx_clear(&f);
	free(a);
	free(b);
}

static void
test_collect_bad_input(void **state)
{
	struct fx f;
	char *file = xasprintf("%s/plain", tmp);

	(void)state;
	fx_init(&f);
	ep_strv_push(&f.o.site_dirs, "/no/such/site-packages");
	assert_int_equal(ep_collect_python(&f.c, &f.err), -1);
	assert_int_equal(f.err.kind, EP_E_INPUT);
	assert_string_equal(f.err.msg, "site-packages /no/such/site-packages:"
	    " No such file or directory");
	fx_clear(&f);

	write_file(file, "x", 0644);
	fx_init(&f);
	ep_strv_push(&f.o.site_dirs, file);
	assert_int_equal(ep_collect_python(&f.c, &f.err), -1);
	assert_non_null(strstr(f.err.msg, "not a directory"));
	fx_clear(&f);

	fx_init(&f);
	f.o.python = "/no/such/python3";
	assert_int_equal(ep_collect_python(&f.c, &f.err), -1);
	assert_int_equal(f.err.kind, EP_E_INPUT);
	assert_string_equal(f.err.msg, "python: /no/such/python3: not found");
	fx_clear(&f);

	fx_init(&f);
	f.o.conda_prefix = tmp;		/* a directory, but no conda-meta */
	assert_int_equal(ep_collect_conda(&f.c, &f.err), -1);
	assert_int_equal(f.err.kind, EP_E_INPUT);
	assert_non_null(strstr(f.err.msg, "no conda-meta"));
	assert_non_null(strstr(f.err.msg, tmp));
	fx_clear(&f);
	free(file);
}

static void
test_collect_interpreters(void **state)
{
	struct fx f;
	char *root, *exe, *saved_path = NULL, *empty, *site, *version, *fake;
	const char *p;

	(void)state;
	/* A broken interpreter: unavailable with the reason, not an
	 * error, and explicit site-packages are still read. */
	exe = script("broken-python", "echo 'Fatal Python error: init' >&2; "
	    "exit 1");
	fx_init(&f);
	f.o.python = exe;
	assert_int_equal(ep_collect_python(&f.c, &f.err), 0);
	assert_non_null(p = unavailable(f.c.m, "python"));
	assert_non_null(strstr(p, "Fatal Python error: init"));
	assert_null(ep_manifest_get(f.c.m, "python.version"));
	fx_clear(&f);
	free(exe);

	/* $VIRTUAL_ENV: its interpreter asked (as the binary it is), not
	 * its pyvenv.cfg's version. */
	if ((root = real_venv("active", "", "version = 3.99.1\n")) == NULL)
		skip();
	version = python3_version();
	site = venv_site(root);
	exe = xasprintf("mkdir -p %s/Venv_Pkg-0.1.dist-info && printf "
	    "'Name: Venv_Pkg\\nVersion: 0.1\\n' >%s/Venv_Pkg-0.1.dist-info/"
	    "METADATA", site, site);
	run(exe);
	free(exe);
	setenv("VIRTUAL_ENV", root, 1);
	fx_init(&f);
	assert_int_equal(ep_collect_python(&f.c, &f.err), 0);
	assert_string_equal(ep_manifest_get(f.c.m, "python.version"),
	    version);
	assert_string_equal(ep_manifest_get(f.c.m, "python.pkg.venv-pkg"),
	    "0.1");
	assert_null(unavailable(f.c.m, "python"));
	assert_string_equal(f.c.site_dirs.v[0], site);
	fx_clear(&f);

	/* --python naming that venv's interpreter, and --site-packages:
	 * the version from the interpreter, the packages from the
	 * directory. */
	fx_init(&f);
	exe = xasprintf("%s/bin/python", root);
	f.o.python = exe;
	ep_strv_push(&f.o.site_dirs, tmp);
	assert_int_equal(ep_collect_python(&f.c, &f.err), 0);
	assert_string_equal(ep_manifest_get(f.c.m, "python.version"),
	    version);
	assert_null(ep_manifest_get(f.c.m, "python.pkg.venv-pkg"));
	fx_clear(&f);
	free(exe);
	free(site);
	free(version);

	/* A venv whose python is a script: unavailable, saying so, no
	 * python.version; its one site-packages still read. */
	fake = fake_venv("scripted", "");
	exe = xasprintf("mkdir -p %s/lib/python3.99/site-packages/"
	    "Venv_Pkg-0.2.dist-info && printf 'Name: Venv_Pkg\\nVersion: "
	    "0.2\\n' >%s/lib/python3.99/site-packages/Venv_Pkg-0.2.dist-info/"
	    "METADATA", fake, fake);
	run(exe);
	free(exe);
	fx_init(&f);
	exe = xasprintf("%s/bin/python", fake);
	f.o.python = exe;
	assert_int_equal(ep_collect_python(&f.c, &f.err), 0);
	assert_non_null(p = unavailable(f.c.m, "python"));
	assert_non_null(strstr(p, "a script (#!), not an interpreter"));
	assert_null(ep_manifest_get(f.c.m, "python.version"));
	assert_string_equal(ep_manifest_get(f.c.m, "python.pkg.venv-pkg"),
	    "0.2");
	assert_true(warned(f.c.m, "read without an interpreter", NULL));
	fx_clear(&f);
	free(exe);
	free(fake);

	/* $VIRTUAL_ENV without pyvenv.cfg, and no python3 on PATH. */
	setenv("VIRTUAL_ENV", tmp, 1);
	if ((p = getenv("PATH")) != NULL)
		saved_path = xstrdup(p);
	empty = xasprintf("%s/emptybin", tmp);
	assert_int_equal(mkdir(empty, 0755), 0);
	setenv("PATH", empty, 1);
	fx_init(&f);
	assert_int_equal(ep_collect_python(&f.c, &f.err), 0);
	assert_true(warned(f.c.m, tmp, "has no pyvenv.cfg"));
	assert_non_null(p = unavailable(f.c.m, "python"));
	assert_string_equal(p, "python3 not found on PATH");
	fx_clear(&f);
	unsetenv("VIRTUAL_ENV");
	if (saved_path != NULL)
		setenv("PATH", saved_path, 1);
	free(saved_path);
	free(empty);
	free(root);
}

/* What stack.requires reports, judged at capture and kept in
 * meta.python: the findings (a requires.txt read where PKG-INFO has
 * none; false markers, the extra-only ones among them, left out), the
 * counts, and the marker environment they were judged under. */
static json_t *
finding(const struct ep_manifest *m, const char *dist, size_t i)
{
	return json_array_get(json_object_get(json_object_get(json_object_get(
	    json_object_get(m->meta, "python"), "requires"), "unmet"), dist),
	    i);
}

static const char *
str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void
test_collect_requires(void **state)
{
	struct fx f;
	char *dir = xasprintf("%s/req-site", tmp), *cmd, *root, *exe, *site;
	json_t *py, *r;

	(void)state;
	cmd = xasprintf("mkdir -p %s/Req_A-1.0.dist-info "
	    "%s/Egg_X-2.0-py3.11.egg-info %s/plain-1.0.dist-info && "
	    "printf 'Name: Req_A\\nVersion: 1.0\\nRequires-Dist: plain (>=1)\\n"
	    "Requires-Dist: c ; sys_platform == \"win32\"\\n"
	    "Requires-Dist: d ; extra == \"x\"\\n"
	    "Requires-Dist: e ; sys_platform == \"linux\"\\n"
	    "Requires-Dist: f>>1\\n"
	    "Requires-Dist: g ; python_version >= \"3.10\"\\n"
	    "Requires-Dist: Egg-X (>=3)\\n\\n' "
	    ">%s/Req_A-1.0.dist-info/METADATA && "
	    "printf 'Name: Egg_X\\nVersion: 2.0\\n\\n' "
	    ">%s/Egg_X-2.0-py3.11.egg-info/PKG-INFO && "
	    "printf 'h>=2\\n\\n[test]\\npytest\\n' "
	    ">%s/Egg_X-2.0-py3.11.egg-info/requires.txt && "
	    "printf 'Name: plain\\nVersion: 1.0\\n\\n' "
	    ">%s/plain-1.0.dist-info/METADATA", dir, dir, dir, dir, dir, dir,
	    dir);
	run(cmd);
	free(cmd);

	/* --site-packages alone: no interpreter, uname's part known. */
	fx_init(&f);
	ep_strv_push(&f.o.site_dirs, dir);
	assert_int_equal(ep_collect_python(&f.c, &f.err), 0);
	py = json_object_get(f.c.m->meta, "python");
	assert_string_equal(str(py, "markers_from"), EP_MARKERS_UNAME);
	assert_string_equal(str(json_object_get(py, "markers"),
	    "sys_platform"), "linux");
	assert_null(json_object_get(json_object_get(py, "markers"),
	    "python_version"));
	r = json_object_get(py, "requires");
	assert_int_equal(json_integer_value(json_object_get(r,
	    "distributions")), 3);
	/* Req_A's but c and d, and Egg_X's h. */
	assert_int_equal(json_integer_value(json_object_get(r,
	    "requirements")), 6);
	assert_int_equal(json_object_size(json_object_get(r, "unmet")), 2);
	assert_string_equal(str(finding(f.c.m, "req-a", 0), "kind"),
	    "conflict");
	assert_string_equal(str(finding(f.c.m, "req-a", 0), "requirement"),
	    "Egg-X>=3");
	assert_string_equal(str(finding(f.c.m, "req-a", 0), "installed"),
	    "2.0");
	assert_string_equal(str(finding(f.c.m, "req-a", 1), "kind"),
	    "missing");
	assert_string_equal(str(finding(f.c.m, "req-a", 1), "name"), "e");
	assert_string_equal(str(finding(f.c.m, "req-a", 2), "kind"),
	    "invalid");
	assert_string_equal(str(finding(f.c.m, "req-a", 2), "requirement"),
	    "f>>1");
	assert_string_equal(str(finding(f.c.m, "req-a", 3), "name"), "g");
	assert_string_equal(str(finding(f.c.m, "req-a", 3), "unknown"),
	    "python_version is not known here");
	assert_null(finding(f.c.m, "req-a", 4));
	assert_string_equal(str(finding(f.c.m, "egg-x", 0), "name"), "h");
	assert_null(finding(f.c.m, "egg-x", 1));
	fx_clear(&f);

	/* A venv: its interpreter asked, python_version is known. */
	if ((root = real_venv("req-venv", "", "")) == NULL)
		skip();
	site = venv_site(root);
	cmd = xasprintf("cp -r %s/Req_A-1.0.dist-info %s/", dir, site);
	run(cmd);
	free(cmd);
	free(site);
	exe = xasprintf("%s/bin/python", root);
	fx_init(&f);
	f.o.python = exe;
	assert_int_equal(ep_collect_python(&f.c, &f.err), 0);
	py = json_object_get(f.c.m->meta, "python");
	assert_string_equal(str(py, "markers_from"), EP_MARKERS_RUN);
	assert_non_null(str(json_object_get(py, "markers"),
	    "python_version"));
	/* plain and Egg-X are not in this venv; g is now known missing. */
	assert_string_equal(str(finding(f.c.m, "req-a", 0), "name"), "egg-x");
	assert_string_equal(str(finding(f.c.m, "req-a", 3), "name"), "g");
	assert_null(json_object_get(finding(f.c.m, "req-a", 3), "unknown"));
	fx_clear(&f);

	/* No interpreter could be asked and no directory named: no
	 * meta.python, so the check says why it could not run. */
	fx_init(&f);
	f.o.python = "/bin/false";
	assert_int_equal(ep_collect_python(&f.c, &f.err), 0);
	assert_non_null(unavailable(f.c.m, "python"));
	assert_null(json_object_get(f.c.m->meta, "python"));
	fx_clear(&f);
	free(root);
	free(exe);
	free(dir);
}

static void
test_collect_conda(void **state)
{
	struct fx f;
	char *env = xasprintf("%s/conda", tmp), *cmd;
	const char *p;

	(void)state;
	cmd = xasprintf("mkdir -p %s/conda-meta && cd %s/conda-meta && "
	    "printf '{\"build\": \"py311h64a7726_0\", \"build_number\": 0, "
	    "\"files\": [\"lib/x.so\"], \"name\": \"numpy\", \"version\": "
	    "\"1.26.4\"}' >numpy-1.26.4-py311h64a7726_0.json && "
	    "printf '{\"build\": \"cuda120_py311h1e2bd0f_300\", \"name\": "
	    "\"pytorch\", \"version\": \"2.1.2\"}' "
	    ">pytorch-2.1.2-cuda120_py311h1e2bd0f_300.json && "
	    "printf '{\"build\": \"conda_forge\", \"name\": \"_libgcc_mutex\", "
	    "\"version\": \"0.1\"}' >_libgcc_mutex-0.1-conda_forge.json && "
	    "printf '{\"name\": \"broken\", \"version\": ' "
	    ">broken-1.0-0.json && "
	    "printf '{\"name\": \"noversion\"}' >noversion-1.0-0.json && "
	    "printf 'cmd: conda create\\n' >history", env, env);
	run(cmd);
	free(cmd);

	fx_init(&f);
	f.o.conda_prefix = env;
	ep_strv_push(&f.o.site_dirs, tmp);
	assert_int_equal(ep_collect_conda(&f.c, &f.err), 0);
	assert_string_equal(ep_manifest_get(f.c.m, "conda.pkg.numpy"),
	    "1.26.4");
	assert_string_equal(ep_manifest_get(f.c.m, "conda.build.numpy"),
	    "py311h64a7726_0");
	assert_string_equal(ep_manifest_get(f.c.m, "conda.build.pytorch"),
	    "cuda120_py311h1e2bd0f_300");
	assert_string_equal(ep_manifest_get(f.c.m, "conda.pkg._libgcc_mutex"),
	    "0.1");
	assert_null(ep_manifest_get(f.c.m, "conda.pkg.broken"));
	assert_true(warned(f.c.m, "conda-meta/broken-1.0-0.json",
	    "malformed JSON"));
	assert_true(warned(f.c.m, "conda-meta/noversion-1.0-0.json", NULL));
	fx_clear(&f);

	/* $CONDA_PREFIX: used when set; unusable is unavailable. */
	setenv("CONDA_PREFIX", env, 1);
	fx_init(&f);
	ep_strv_push(&f.o.site_dirs, tmp);
	assert_int_equal(ep_collect_conda(&f.c, &f.err), 0);
	assert_string_equal(ep_manifest_get(f.c.m, "conda.pkg.pytorch"),
	    "2.1.2");
	fx_clear(&f);
	setenv("CONDA_PREFIX", "/no/such/env", 1);
	fx_init(&f);
	ep_strv_push(&f.o.site_dirs, tmp);
	assert_int_equal(ep_collect_conda(&f.c, &f.err), 0);
	assert_non_null(p = unavailable(f.c.m, "conda"));
	assert_non_null(strstr(p, "/no/such/env"));
	fx_clear(&f);
	unsetenv("CONDA_PREFIX");
	free(env);
}

/* The collector with the cache: a second run through the same cache
 * gives the same facts (whether or not the cache could keep them). */
static void
test_collect_cached(void **state)
{
	struct fx f;
	struct ep_cache *cache = ep_cache_open(NULL);
	char *exe = NULL, *v1 = NULL;
	struct ep_err err = { 0 };

	(void)state;
	if (ep_pyinterp_which(&exe, "python3", &err) < 0)
		skip();
	for (int i = 0; i < 2; i++) {
		fx_init(&f);
		f.o.python = exe;
		f.c.cache = cache;
		assert_int_equal(ep_collect_python(&f.c, &f.err), 0);
		assert_null(unavailable(f.c.m, "python"));
		if (i == 0)
			v1 = xstrdup(ep_manifest_get(f.c.m, "python.version"));
		else
			assert_string_equal(ep_manifest_get(f.c.m,
			    "python.version"), v1);
		fx_clear(&f);
	}
	ep_cache_free(cache);
	free(v1);
	free(exe);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_collect_sites, setup_tmp,
		    teardown_tmp),
		cmocka_unit_test_setup_teardown(test_collect_shadow_across_dirs,
		    setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_collect_bad_input,
		    setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_collect_interpreters,
		    setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_collect_requires,
		    setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_collect_conda, setup_tmp,
		    teardown_tmp),
		cmocka_unit_test(test_collect_cached),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
