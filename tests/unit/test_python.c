/*
 * test_python.c: the Python collector: PEP 503 names, METADATA headers,
 * pyvenv.cfg, the interpreter probe (against real scripts and the real
 * python3), and ep_collect_python against generated site-packages and
 * conda-meta directories.
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
#include "python.h"

/* The generator, relative to the repository root the tests run from. */
#define GEN	"tests/fixtures/gen-site-packages.sh"

static char tmp[64];

static int
setup_tmp(void **state)
{
	(void)state;
	return tu_scratch_make(tmp, sizeof tmp, "python");
}

static int
teardown_tmp(void **state)
{
	(void)state;
	return tu_scratch_remove(tmp);
}

static void
write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void
run(const char *cmd)
{
	assert_int_equal(system(cmd), 0);
}

/* 1 if some meta.warnings entry contains every one of the strings. */
static int
warned(const struct ep_manifest *m, const char *a, const char *b)
{
	json_t *w = json_object_get(m->meta, "warnings"), *v;
	size_t i;

	json_array_foreach(w, i, v) {
		const char *s = json_string_value(v);

		if (strstr(s, a) != NULL && (b == NULL || strstr(s, b) != NULL))
			return 1;
	}
	return 0;
}

static size_t
nwarnings(const struct ep_manifest *m)
{
	return json_array_size(json_object_get(m->meta, "warnings"));
}

static const char *
unavailable(const struct ep_manifest *m, const char *area)
{
	return json_string_value(json_object_get(json_object_get(m->meta,
	    "unavailable"), area));
}

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
test_probe_parse(void **state)
{
	struct ep_pyprobe p;
	struct ep_err err = { 0 };
	const char *ok = "hello from sitecustomize\n"
	    "envparity-probe-v1 {\"version\": \"3.11.7\", \"user\": null, "
	    "\"site\": [\"/a\", \"/b\"]}\n";

	(void)state;
	assert_int_equal(ep_pyprobe_parse(&p, ok, strlen(ok), &err), 0);
	assert_string_equal(p.version, "3.11.7");
	assert_null(p.user_site);
	assert_int_equal(p.sites.n, 2);
	assert_string_equal(p.sites.v[1], "/b");
	ep_pyprobe_clear(&p);

	assert_int_equal(ep_pyprobe_parse(&p, "3.11.7\n", 7, &err), -1);
	assert_non_null(strstr(err.msg, "no answer"));
	assert_int_equal(ep_pyprobe_parse(&p, "envparity-probe-v1 {oops",
	    24, &err), -1);
	assert_non_null(strstr(err.msg, "garbled"));
	assert_int_equal(ep_pyprobe_parse(&p, "envparity-probe-v1 "
	    "{\"version\": 3, \"user\": null, \"site\": []}", 56, &err), -1);
	assert_int_equal(ep_pyprobe_parse(&p, "envparity-probe-v1 "
	    "{\"version\": \"3.1\", \"user\": null, \"site\": 1}", 58, &err), -1);
	assert_null(p.version);
}

/* --- interpreters --------------------------------------------------- */

static char *
script(const char *name, const char *body)
{
	char *path = xasprintf("%s/%s", tmp, name);
	char *text = xasprintf("#!/bin/sh\n%s\n", body);

	write_file(path, text, 0755);
	free(text);
	return path;
}

static void
test_which(void **state)
{
	struct ep_err err = { 0 };
	char *exe, *path, *dir = xasprintf("%s/bin", tmp);
	const char *old = getenv("PATH");
	char *saved = old != NULL ? xstrdup(old) : NULL;

	(void)state;
	assert_int_equal(mkdir(dir, 0755), 0);
	path = xasprintf("%s/mypython", dir);
	write_file(path, "#!/bin/sh\n", 0755);
	assert_int_equal(ep_pyinterp_which(&exe, path, &err), 0);
	assert_string_equal(exe, path);
	free(exe);

	setenv("PATH", dir, 1);
	assert_int_equal(ep_pyinterp_which(&exe, "mypython", &err), 0);
	assert_string_equal(exe, path);
	free(exe);
	assert_int_equal(ep_pyinterp_which(&exe, "nosuchpython", &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_string_equal(err.msg, "python: nosuchpython: not found on "
	    "PATH");
	if (saved != NULL)
		setenv("PATH", saved, 1);
	free(saved);

	assert_int_equal(ep_pyinterp_which(&exe, "/no/such/python", &err),
	    -1);
	assert_string_equal(err.msg, "python: /no/such/python: not found");
	assert_int_equal(ep_pyinterp_which(&exe, dir, &err), -1);
	assert_non_null(strstr(err.msg, "is a directory"));
	assert_int_equal(chmod(path, 0644), 0);
	/* Root may execute nothing without an x bit either. */
	assert_int_equal(ep_pyinterp_which(&exe, path, &err), -1);
	assert_non_null(strstr(err.msg, "not executable"));
	free(path);
	free(dir);
}

static void
test_probe_real(void **state)
{
	struct ep_err err = { 0 };
	struct ep_pyprobe p;
	char *exe, *cmd, *want = NULL;
	size_t n = 0;
	FILE *f;

	(void)state;
	if (ep_pyinterp_which(&exe, "python3", &err) < 0)
		skip();
	assert_int_equal(ep_pyprobe_run(&p, exe, EP_PYTHON_TIMEOUT_MS, &err),
	    0);
	cmd = xasprintf("'%s' -c 'import sys; print(sys.version.split()[0])'",
	    exe);
	assert_non_null(f = popen(cmd, "r"));
	assert_true(getline(&want, &n, f) > 0);
	pclose(f);
	ep_trim(want);
	assert_string_equal(p.version, want);
	assert_true(p.sites.n > 0);
	ep_pyprobe_clear(&p);
	free(want);
	free(cmd);
	free(exe);
}

static void
test_probe_failures(void **state)
{
	struct ep_err err = { 0 };
	struct ep_pyprobe p;
	char *exe;

	(void)state;
	exe = script("hang", "sleep 30");
	assert_int_equal(ep_pyprobe_run(&p, exe, 300, &err), -1);
	assert_int_equal(err.kind, EP_E_IO);
	assert_non_null(strstr(err.msg, "no answer after 300 ms"));
	free(exe);

	/* A shim that leaves a child holding the pipe: killed too. */
	exe = script("forks", "sleep 30 & wait");
	assert_int_equal(ep_pyprobe_run(&p, exe, 300, &err), -1);
	assert_non_null(strstr(err.msg, "no answer after"));
	free(exe);

	exe = script("crash", "kill -SEGV $$");
	assert_int_equal(ep_pyprobe_run(&p, exe, 5000, &err), -1);
	assert_non_null(strstr(err.msg, "killed by signal 11"));
	assert_non_null(strstr(err.msg, exe));
	free(exe);

	exe = script("fails", "echo 'Traceback:' >&2; "
	    "echo 'ImportError: no site' >&2; exit 3");
	assert_int_equal(ep_pyprobe_run(&p, exe, 5000, &err), -1);
	assert_non_null(strstr(err.msg, "exited with status 3: "
	    "ImportError: no site"));
	free(exe);

	exe = script("garbage", "echo 'Python 3.11.7'");
	assert_int_equal(ep_pyprobe_run(&p, exe, 5000, &err), -1);
	assert_non_null(strstr(err.msg, "no answer in its output"));
	free(exe);

	exe = script("chatty", "head -c 1000000 /dev/zero");
	assert_int_equal(ep_pyprobe_run(&p, exe, 5000, &err), -1);
	assert_non_null(strstr(err.msg, "bytes of output; killed"));
	free(exe);

	exe = xasprintf("%s/nothing", tmp);
	assert_int_equal(ep_pyprobe_run(&p, exe, 5000, &err), -1);
	assert_non_null(strstr(err.msg, "cannot run"));
	free(exe);
}

/* A venv whose bin/python fails if run: resolve must only read it. */
static char *
fake_venv(const char *name, const char *cfg_extra)
{
	char *root = xasprintf("%s/%s", tmp, name), *p, *cfg;

	p = xasprintf("mkdir -p '%s/bin' '%s/lib/python3.99/site-packages'",
	    root, root);
	run(p);
	free(p);
	p = xasprintf("%s/bin/python", root);
	write_file(p, "#!/bin/sh\necho ran >&2; exit 1\n", 0755);
	free(p);
	p = xasprintf("%s/pyvenv.cfg", root);
	cfg = xasprintf("home = /nowhere\nversion = 3.99.1\n%s", cfg_extra);
	write_file(p, cfg, 0644);
	free(cfg);
	free(p);
	return root;
}

static void
test_resolve_venv(void **state)
{
	struct ep_err err = { 0 };
	struct ep_pyenv e;
	char *root, *exe, *site, *base, *extra;

	(void)state;
	root = fake_venv("venv", "");
	exe = xasprintf("%s/bin/python", root);
	/* pyvenv.cfg one level up from bin/python, or beside it. */
	assert_non_null(site = ep_pyvenv_root(exe));
	assert_string_equal(site, root);
	free(site);
	base = xasprintf("%s/pyvenv.cfg", tmp);
	write_file(base, "version = 3.1.2\n", 0644);
	free(base);
	base = xasprintf("%s/python", tmp);
	assert_non_null(site = ep_pyvenv_root(base));
	assert_string_equal(site, tmp);
	free(site);
	free(base);
	assert_null(ep_pyvenv_root("/no/such/dir/bin/python"));
	site = xasprintf("%s/lib/python3.99/site-packages", root);
	assert_int_equal(ep_pyinterp_resolve(&e, exe, NULL, 5000, &err), 0);
	assert_string_equal(e.version, "3.99.1");
	assert_int_equal(e.sites.n, 1);
	assert_string_equal(e.sites.v[0], site);
	assert_null(e.warning);
	ep_pyenv_clear(&e);
	free(exe);
	free(root);

	/* include-system-site-packages: the venv's own packages, then the
	 * base interpreter's user site and site-packages. */
	base = script("base-python", "echo 'envparity-probe-v1 {\"version\":"
	    " \"3.99.1\", \"user\": \"/u/site\", \"site\": [\"/b1\", "
	    "\"/b2\"]}'");
	extra = xasprintf("include-system-site-packages = true\n"
	    "executable = %s\n", base);
	root = fake_venv("venv-sys", extra);
	exe = xasprintf("%s/bin/python", root);
	assert_int_equal(ep_pyinterp_resolve(&e, exe, NULL, 5000, &err), 0);
	assert_int_equal(e.sites.n, 4);
	assert_non_null(strstr(e.sites.v[0], "venv-sys/lib/python3.99"));
	assert_string_equal(e.sites.v[1], "/u/site");
	assert_string_equal(e.sites.v[2], "/b1");
	assert_string_equal(e.sites.v[3], "/b2");
	ep_pyenv_clear(&e);
	free(exe);
	free(root);
	free(extra);
	free(base);

	/* A base interpreter that cannot be found: a warning, not a
	 * failure; the venv's own packages still count. */
	root = fake_venv("venv-nobase", "include-system-site-packages = true\n");
	exe = xasprintf("%s/bin/python", root);
	assert_int_equal(ep_pyinterp_resolve(&e, exe, NULL, 5000, &err), 0);
	assert_int_equal(e.sites.n, 1);
	assert_non_null(e.warning);
	assert_non_null(strstr(e.warning, "pyvenv.cfg includes the system"));
	ep_pyenv_clear(&e);
	free(exe);
	free(root);
	free(site);
}

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
	    "no Version"));
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
	char *root, *exe, *saved_path = NULL, *empty;
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

	/* $VIRTUAL_ENV: read, not run (its bin/python would fail). */
	root = fake_venv("active", "");
	exe = xasprintf("mkdir -p %s/lib/python3.99/site-packages/"
	    "Venv_Pkg-0.1.dist-info && printf 'Name: Venv_Pkg\\nVersion: "
	    "0.1\\n' >%s/lib/python3.99/site-packages/Venv_Pkg-0.1.dist-info/"
	    "METADATA", root, root);
	run(exe);
	free(exe);
	setenv("VIRTUAL_ENV", root, 1);
	fx_init(&f);
	assert_int_equal(ep_collect_python(&f.c, &f.err), 0);
	assert_string_equal(ep_manifest_get(f.c.m, "python.version"),
	    "3.99.1");
	assert_string_equal(ep_manifest_get(f.c.m, "python.pkg.venv-pkg"),
	    "0.1");
	assert_null(unavailable(f.c.m, "python"));
	assert_int_equal(f.c.site_dirs.n, 1);
	fx_clear(&f);

	/* --python naming that venv's interpreter, and --site-packages:
	 * the version from the venv, the packages from the directory. */
	fx_init(&f);
	exe = xasprintf("%s/bin/python", root);
	f.o.python = exe;
	ep_strv_push(&f.o.site_dirs, tmp);
	assert_int_equal(ep_collect_python(&f.c, &f.err), 0);
	assert_string_equal(ep_manifest_get(f.c.m, "python.version"),
	    "3.99.1");
	assert_null(ep_manifest_get(f.c.m, "python.pkg.venv-pkg"));
	fx_clear(&f);
	free(exe);

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
		cmocka_unit_test(test_pep503),
		cmocka_unit_test(test_pymeta),
		cmocka_unit_test(test_entry_name),
		cmocka_unit_test(test_version_norm),
		cmocka_unit_test(test_pyvenv_parse),
		cmocka_unit_test(test_probe_parse),
		cmocka_unit_test_setup_teardown(test_which, setup_tmp,
		    teardown_tmp),
		cmocka_unit_test(test_probe_real),
		cmocka_unit_test_setup_teardown(test_probe_failures, setup_tmp,
		    teardown_tmp),
		cmocka_unit_test_setup_teardown(test_resolve_venv, setup_tmp,
		    teardown_tmp),
		cmocka_unit_test_setup_teardown(test_collect_sites, setup_tmp,
		    teardown_tmp),
		cmocka_unit_test_setup_teardown(test_collect_shadow_across_dirs,
		    setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_collect_bad_input,
		    setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_collect_interpreters,
		    setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_collect_conda, setup_tmp,
		    teardown_tmp),
		cmocka_unit_test(test_collect_cached),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
