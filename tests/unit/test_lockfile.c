/*
 * test_lockfile.c: the lockfile parsers on the fixtures written in each
 * tool's own style (tests/fixtures/lockfiles) and on the edge cases:
 * continuations, markers, extras, BOM and CRLF, credentials in URLs, and
 * the line number of every kind of malformed input.  What they share
 * beneath them (the format choice, the pin list, names, URL scrubbing) is
 * test_lockfile_pins.c's.
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
#include "errors.h"
#include "files.h"
#include "str.h"
#include "xalloc.h"

/* Parse text (a C string) as format f; the pins merged as the collector
 * merges them. */
static int
parse(struct ep_pins *p, enum ep_lock_format f, const char *text,
    struct ep_err *err)
{
	int rc;

	memset(err, 0, sizeof *err);
	rc = ep_lock_parse(p, f, text, strlen(text), "lock", err);
	ep_pins_merge(p);
	return rc;
}

static struct ep_pins
parse_ok(enum ep_lock_format f, const char *text)
{
	struct ep_pins p = { 0 };
	struct ep_err err;

	if (parse(&p, f, text, &err) < 0)
		fail_msg("unexpected error: %s", err.msg);
	return p;
}

/* The error message for text, which must fail. */
static char *
parse_fail(enum ep_lock_format f, const char *text)
{
	struct ep_pins p = { 0 };
	struct ep_err err;

	assert_int_equal(parse(&p, f, text, &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_int_equal(p.n, 0);
	ep_pins_clear(&p);
	return xstrdup(err.msg);
}

static void
assert_fails(enum ep_lock_format f, const char *text, const char *msg)
{
	char *got = parse_fail(f, text);

	assert_string_equal(got, msg);
	free(got);
}

static const char *
pin(const struct ep_pins *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->v[i].name, name) == 0)
			return p->v[i].version;
	return NULL;
}

static void
assert_pin(const struct ep_pins *p, const char *name, const char *version)
{
	const char *v = pin(p, name);

	if (v == NULL)
		fail_msg("no pin for %s", name);
	assert_string_equal(v, version);
}

/* No pin may carry anything from a URL's credentials. */
static void
assert_no_secret(const struct ep_pins *p)
{
	for (size_t i = 0; i < p->n; i++) {
		assert_null(strstr(p->v[i].name, "LEAKCANARY"));
		assert_null(strstr(p->v[i].version, "LEAKCANARY"));
		assert_null(strstr(p->v[i].version, "deploy-bot"));
	}
}

/* A fixture file, parsed by the format its name says. */
static struct ep_pins
fixture(const char *rel)
{
	struct ep_pins p = { 0 };
	struct ep_err err = { 0 };
	char *dir = xstrdup(__FILE__), *slash, *path, *buf;
	size_t len;

	/* __FILE__ is tests/unit/test_lockfile.c, relative to the top. */
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	path = xasprintf("%s/../fixtures/lockfiles/%s", slash ? dir : ".", rel);
	if (ep_read_file(&buf, &len, path, EP_LOCK_PARSE_MAX, &err) < 0)
		fail_msg("%s", err.msg);
	if (ep_lock_parse(&p, ep_lock_format_of(path), buf, len, rel,
	    &err) < 0)
		fail_msg("%s", err.msg);
	ep_pins_merge(&p);
	free(buf);
	free(path);
	free(dir);
	return p;
}

static void
test_req_pip_compile(void **state)
{
	struct ep_pins p = fixture("pip-tools/requirements.txt");

	(void)state;
	assert_int_equal(p.n, 38);
	assert_pin(&p, "torch", "2.3.1+cu121");
	assert_pin(&p, "torchvision", "0.18.1+cu121");
	assert_pin(&p, "numpy", "1.26.4");
	assert_pin(&p, "nvidia-cudnn-cu12", "8.9.2.26");
	assert_pin(&p, "typing-extensions", "4.12.2");
	assert_pin(&p, "urllib3", "2.2.2");
	ep_pins_clear(&p);
}

static void
test_req_handwritten(void **state)
{
	struct ep_pins p = fixture("handwritten/requirements-gpu.txt");

	(void)state;
	assert_pin(&p, "numpy", "1.24.4,1.26.4");
	assert_pin(&p, "torch", "2.3.1,2.3.1+cu121");
	assert_pin(&p, "nvidia-cudnn-cu12", "8.9.2.26");
	assert_pin(&p, "nvidia-cublas-cu12", "12.1.3.1");
	assert_pin(&p, "jinja2", "3.1.4");
	assert_pin(&p, "typing-extensions", "4.12.2");
	assert_pin(&p, "pyyaml", ">=6.0,<7");
	assert_pin(&p, "requests", "~=2.32");
	assert_pin(&p, "filelock", ">=3.13");
	assert_pin(&p, "sympy", "*");
	assert_pin(&p, "triton", "==2.3.*");
	assert_pin(&p, "fsspec", "2024.6.1");
	assert_pin(&p, "internal-utils",
	    "@ git+https://github.com/example-org/internal-utils.git@v0.4.2");
	assert_pin(&p, "flash-attn", "@ https://wheels.internal.example.com/"
	    "flash_attn-2.5.9-cp311-cp311-linux_x86_64.whl");
	/* -e, -r, bare VCS URLs and paths name no version. */
	assert_null(pin(&p, "trainer-cli"));
	assert_null(pin(&p, "bare-vcs"));
	assert_null(pin(&p, "localpkg"));
	assert_int_equal(p.n, 14);
	assert_no_secret(&p);
	ep_pins_clear(&p);
}

static void
test_req_edges(void **state)
{
	struct ep_pins p;

	(void)state;
	/* BOM, CRLF, a continuation at the very end of the file. */
	p = parse_ok(EP_LOCK_REQUIREMENTS, "\xef\xbb\xbfnumpy==1.0 \\\r\n"
	    "    --hash=sha256:ab\r\ntorch==2.0\r\nscipy==1.1 \\");
	assert_int_equal(p.n, 3);
	assert_pin(&p, "numpy", "1.0");
	assert_pin(&p, "torch", "2.0");
	assert_pin(&p, "scipy", "1.1");
	ep_pins_clear(&p);
	/* A comment line ends a continuation and is never one itself. */
	p = parse_ok(EP_LOCK_REQUIREMENTS, "# c \\\nnumpy==1 \\\n"
	    "    # via x \\\nscipy==2\n\n   # indented\n");
	assert_int_equal(p.n, 2);
	assert_pin(&p, "numpy", "1");
	assert_pin(&p, "scipy", "2");
	ep_pins_clear(&p);
	/* Markers without a blank, old-style parentheses, "===". */
	p = parse_ok(EP_LOCK_REQUIREMENTS, "a==1;python_version<'3'\n"
	    "b (==2)\nc===3.0-weird\nd[x] @ https://h/d.whl ; os_name=='nt'\n"
	    "-rother.txt\n-i https://u:p@h/simple\n");
	assert_pin(&p, "a", "1");
	assert_pin(&p, "b", "2");
	assert_pin(&p, "c", "3.0-weird");
	assert_pin(&p, "d", "@ https://h/d.whl");
	ep_pins_clear(&p);
	p = parse_ok(EP_LOCK_REQUIREMENTS, "");
	assert_int_equal(p.n, 0);
	ep_pins_clear(&p);
}

static void
test_req_errors(void **state)
{
	char *msg;

	(void)state;
	assert_fails(EP_LOCK_REQUIREMENTS, "a==1\n\nthis is not a requirement\n",
	    "lock:3: unexpected text after the package name");
	assert_fails(EP_LOCK_REQUIREMENTS, "a==1\n% nope\n",
	    "lock:2: not a requirement (expected NAME[EXTRAS] [SPECIFIER] "
	    "[; MARKERS])");
	/* The line of an error is the first line of its logical line. */
	assert_fails(EP_LOCK_REQUIREMENTS, "a==1 \\\n  --hash=sha256:x\n"
	    "b==1 \\\n  garbage\n",
	    "lock:3: unexpected text after the version specifier");
	assert_fails(EP_LOCK_REQUIREMENTS, "numpy=1.0\n",
	    "lock:1: invalid version operator");
	assert_fails(EP_LOCK_REQUIREMENTS, "\r\n\r\nnumpy==\r\n",
	    "lock:3: missing version after '=='");
	assert_fails(EP_LOCK_REQUIREMENTS, "numpy>=1,\n",
	    "lock:1: expected a version clause after ','");
	assert_fails(EP_LOCK_REQUIREMENTS, "numpy[x==1\n",
	    "lock:1: '[' without ']' in the extras");
	assert_fails(EP_LOCK_REQUIREMENTS, "numpy (>=1\n",
	    "lock:1: missing ')' after the version specifier");
	assert_fails(EP_LOCK_REQUIREMENTS, "numpy @\n",
	    "lock:1: missing URL after '@'");
	assert_fails(EP_LOCK_REQUIREMENTS, "x==1\n-x\n",
	    "lock:2: unknown option '-x'");
	/* The option's value (here a password) is never quoted. */
	msg = parse_fail(EP_LOCK_REQUIREMENTS,
	    "--index-urll=https://u:LEAKCANARY@h/simple\n");
	assert_string_equal(msg, "lock:1: unknown option '--index-urll'");
	free(msg);
}

static void
test_req_nul_inline(void **state)
{
	struct ep_pins p = { 0 };
	struct ep_err err = { 0 };

	(void)state;
	/* strlen() would stop at the NUL: pass the length. */
	assert_int_equal(ep_lock_parse_requirements(&p, "x==1\nab\0c\n", 10,
	    "r.txt", &err), -1);
	assert_string_equal(err.msg, "r.txt:2: NUL byte in a text file");
	assert_int_equal(p.n, 0);
}

static void
test_poetry(void **state)
{
	const char *const files[] = { "poetry-2.0/poetry.lock",
	    "poetry-2.1/poetry.lock", NULL };

	(void)state;
	for (size_t i = 0; files[i] != NULL; i++) {
		struct ep_pins p = fixture(files[i]);

		/* 38 from PyPI and the PyTorch index, one from git; the
		 * names under [package.dependencies] are not packages. */
		assert_int_equal(p.n, 39);
		assert_pin(&p, "torch", "2.3.1+cu121");
		assert_pin(&p, "nvidia-nccl-cu12", "2.20.5");
		assert_pin(&p, "nvidia-cudnn-cu12", "8.9.2.26");
		assert_pin(&p, "markupsafe", "2.1.5");
		assert_pin(&p, "internal-utils", "0.4.2");
		assert_no_secret(&p);
		ep_pins_clear(&p);
	}
}

static void
test_uv(void **state)
{
	struct ep_pins p = fixture("uv/uv.lock");

	(void)state;
	/* torch is locked twice (a fork per platform); the project and
	 * the virtual workspace member have no version. */
	assert_int_equal(p.n, 38);
	assert_pin(&p, "torch", "2.3.1,2.3.1+cu121");
	assert_pin(&p, "nvidia-cublas-cu12", "12.1.3.1");
	assert_pin(&p, "numpy", "1.26.4");
	assert_null(pin(&p, "trainer"));
	assert_null(pin(&p, "trainer-tools"));
	ep_pins_clear(&p);
}

static void
test_toml_syntax(void **state)
{
	struct ep_pins p;

	(void)state;
	p = parse_ok(EP_LOCK_POETRY, "\xef\xbb\xbf# c\r\n"
	    "title = \"\"\"\r\nmulti \"quoted\" \\\r\n   line\"\"\"\r\n"
	    "lit = '''x\ny'''\nq = \"\"\"a\"\"\"\"\"\n"
	    "[[package]]\r\n"
	    "\"name\" = \"Nu\\u006dPy\"  # trailing comment\r\n"
	    "version = '1.26.4'\r\n"
	    "files = [  # comment\n  [1, 2,],\n  {a = 1, b = {c = \"]\"}},\n"
	    "  \"#not a comment\",\n]\n"
	    "flag = true\nsize = 1_024\nwhen = 2024-06-01T00:00:00Z\n"
	    "[package.dependencies]\nversion = \"9\"\nname = \"dep\"\n"
	    "[[package.wheels]]\nname = \"w\"\n"
	    "[[package]]\nname = 'Other_Pkg'\nversion = \"2\"\n"
	    "[metadata]\nlock-version = \"2.1\"\n");
	assert_int_equal(p.n, 2);
	assert_pin(&p, "numpy", "1.26.4");
	assert_pin(&p, "other-pkg", "2");
	ep_pins_clear(&p);

	/* uv: a workspace member with a dynamic version is skipped. */
	p = parse_ok(EP_LOCK_UV, "version = 1\n[[package]]\nname = \"me\"\n"
	    "source = { editable = \".\" }\n[[package]]\nname = \"b\"\n"
	    "version = \"1\"\nsource = { registry = \"https://x\" }\n");
	assert_int_equal(p.n, 1);
	assert_pin(&p, "b", "1");
	ep_pins_clear(&p);
}

static void
test_toml_errors(void **state)
{
	char deep[300];

	(void)state;
	assert_fails(EP_LOCK_POETRY, "[[package]]\nname = \"numpy\n"
	    "version = \"1.0\"\n", "lock:2: unterminated string");
	assert_fails(EP_LOCK_POETRY, "x = 1\n\ndesc = \"\"\"never\nends\n",
	    "lock:3: unterminated string");
	assert_fails(EP_LOCK_POETRY, "[[package]]\nname = \"a\"\nversion = \"1\""
	    "\n\n[[package]]\nname = \"numpy\"\n\n[package.extras]\n",
	    "lock:5: [[package]] \"numpy\" has no version");
	assert_fails(EP_LOCK_POETRY, "[[package]]\nversion = \"1\"\n",
	    "lock:1: [[package]] without a name");
	assert_fails(EP_LOCK_UV, "[[package]]\nname = \"a\"\n"
	    "source = { registry = \"https://x\" }\n",
	    "lock:1: [[package]] \"a\" has no version");
	assert_fails(EP_LOCK_POETRY, "[[package]]\nname \"a\"\n",
	    "lock:2: expected '=' after a key");
	assert_fails(EP_LOCK_POETRY, "a = 1\nfiles = [\n  1,\n",
	    "lock:2: unterminated array");
	assert_fails(EP_LOCK_POETRY, "files = [1 2]\n",
	    "lock:1: expected ',' or ']' in an array");
	assert_fails(EP_LOCK_POETRY, "[[package]\nname = \"a\"\n",
	    "lock:1: unterminated table header");
	assert_fails(EP_LOCK_POETRY, "[[package]]\nname = numpy\n",
	    "lock:2: invalid value (a string needs quotes)");
	assert_fails(EP_LOCK_POETRY, "[[package]]\nname = \"a\"\nversion = 1.0\n",
	    "lock:3: \"version\" is not a string");
	assert_fails(EP_LOCK_POETRY, "[[package]]\nname = \"a\"\nname = \"b\"\n",
	    "lock:3: duplicate key \"name\"");
	assert_fails(EP_LOCK_POETRY, "[[package]]\nname = \"a\" version\n",
	    "lock:2: expected the end of the line after the value");
	assert_fails(EP_LOCK_POETRY, "[[package]]\nname = \"a b\"\n"
	    "version = \"1\"\n",
	    "lock:1: [[package]] name is not a valid package name");
	assert_fails(EP_LOCK_POETRY, "s = \"bad \\q escape\"\n",
	    "lock:1: invalid escape in a string");
	memset(deep, '[', sizeof deep - 1);
	deep[0] = 'x';
	deep[1] = '=';
	deep[sizeof deep - 1] = '\0';
	assert_fails(EP_LOCK_POETRY, deep, "lock:1: values nested too deeply");
}

static void
test_pipfile(void **state)
{
	struct ep_pins p = fixture("pipenv/Pipfile.lock");

	(void)state;
	/* 38 default, 4 develop of which packaging repeats; the git and
	 * editable entries have no version. */
	assert_int_equal(p.n, 41);
	assert_pin(&p, "torch", "2.3.1+cu121");
	assert_pin(&p, "nvidia-cudnn-cu12", "8.9.2.26");
	assert_pin(&p, "pytest", "8.2.2");
	assert_pin(&p, "packaging", "24.1");
	assert_null(pin(&p, "internal-utils"));
	assert_null(pin(&p, "trainer"));
	assert_no_secret(&p);
	ep_pins_clear(&p);

	p = parse_ok(EP_LOCK_PIPFILE, "\xef\xbb\xbf{\"default\": {\"Py_YAML\": "
	    "{\"version\": \"==6.0.1\"}, \"x\": {\"version\": \"*\"}}}\r\n");
	assert_pin(&p, "py-yaml", "6.0.1");
	assert_pin(&p, "x", "*");
	ep_pins_clear(&p);
}

static void
test_pipfile_errors(void **state)
{
	char *msg;

	(void)state;
	msg = parse_fail(EP_LOCK_PIPFILE, "{\n  \"default\": {,\n}\n");
	assert_true(ep_startswith(msg, "lock:2: not valid JSON: "));
	free(msg);
	/* jansson quotes the token it stopped at; we do not. */
	msg = parse_fail(EP_LOCK_PIPFILE, "{\"_meta\": {\"sources\": [{\"url\": "
	    "https://u:LEAKCANARY@h/simple}]}}");
	assert_null(strstr(msg, "LEAKCANARY"));
	assert_true(ep_startswith(msg, "lock:1: not valid JSON: "));
	free(msg);
	assert_fails(EP_LOCK_PIPFILE, "[1]",
	    "lock:1: not a Pipfile.lock (the top level is not an object)");
	assert_fails(EP_LOCK_PIPFILE, "{\"_meta\": {}}",
	    "lock:1: not a Pipfile.lock (no \"default\" or \"develop\" "
	    "section)");
	assert_fails(EP_LOCK_PIPFILE, "{\"default\": []}",
	    "lock: \"default\" is not an object");
	assert_fails(EP_LOCK_PIPFILE, "{\"develop\": {\"a\": 1}}",
	    "lock: develop.a is not an object");
	assert_fails(EP_LOCK_PIPFILE, "{\"default\": {\"a\": {\"version\": 1}}}",
	    "lock: default.a.version is not a string");
	assert_fails(EP_LOCK_PIPFILE, "{\"default\": {\"a b\": {}}}",
	    "lock: \"default\" has a key that is not a package name");
	assert_fails(EP_LOCK_PIPFILE, "", "lock:1: not valid JSON: "
	    "'[' or '{' expected");
}

static void
test_conda(void **state)
{
	struct ep_pins p = fixture("conda-lock/conda-linux-64.lock");

	(void)state;
	assert_int_equal(p.n, 32);
	/* conda names are kept as written, underscores and dots too. */
	assert_pin(&p, "_libgcc_mutex", "0.1");
	assert_pin(&p, "python_abi", "3.11");
	assert_pin(&p, "backports.zoneinfo", "0.2.1");
	assert_pin(&p, "libgcc-ng", "14.1.0");
	assert_pin(&p, "pytorch", "2.3.1");
	assert_pin(&p, "cuda-cudart", "12.1.105");
	assert_pin(&p, "cudnn", "8.9.7.29");
	assert_pin(&p, "trainer-data", "2024.07.1");
	assert_no_secret(&p);
	ep_pins_clear(&p);

	p = fixture("conda/env.explicit.txt");
	assert_int_equal(p.n, 13);
	assert_pin(&p, "tqdm", "4.66.4");
	assert_no_secret(&p);
	ep_pins_clear(&p);

	p = parse_ok(EP_LOCK_CONDA, "\xef\xbb\xbf# platform: linux-64\r\n"
	    "@EXPLICIT\r\n\r\nhttps://h/c/linux-64/pytorch-2.3.1%2Bcu121-py_0"
	    ".conda#sha256:ab\r\n/opt/pkgs/zlib-1.3.1-h4ab18f5_1.tar.bz2\r\n");
	assert_int_equal(p.n, 2);
	assert_pin(&p, "pytorch", "2.3.1+cu121");
	assert_pin(&p, "zlib", "1.3.1");
	ep_pins_clear(&p);
}

static void
test_conda_errors(void **state)
{
	(void)state;
	assert_fails(EP_LOCK_CONDA, "# c\nhttps://h/a-1-0.conda\n@EXPLICIT\n",
	    "lock:2: expected the @EXPLICIT line before any package");
	assert_fails(EP_LOCK_CONDA, "# only comments\n# here\n",
	    "lock:2: no @EXPLICIT line: not a conda explicit lockfile");
	assert_fails(EP_LOCK_CONDA, "@EXPLICIT\nhttps://h/a-1-0.conda\n"
	    "https://u:LEAKCANARY@h/a-1-0.whl\n",
	    "lock:3: not a conda package URL (expected "
	    ".../NAME-VERSION-BUILD.conda or .tar.bz2)");
	assert_fails(EP_LOCK_CONDA, "@EXPLICIT\nhttps://h/a-1.conda\n",
	    "lock:2: package file name is not NAME-VERSION-BUILD");
	assert_fails(EP_LOCK_CONDA, "@EXPLICIT\nhttps://h/-1-0.conda\n",
	    "lock:2: package file name is not NAME-VERSION-BUILD");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_req_pip_compile),
		cmocka_unit_test(test_req_handwritten),
		cmocka_unit_test(test_req_edges),
		cmocka_unit_test(test_req_errors),
		cmocka_unit_test(test_req_nul_inline),
		cmocka_unit_test(test_poetry),
		cmocka_unit_test(test_uv),
		cmocka_unit_test(test_toml_syntax),
		cmocka_unit_test(test_toml_errors),
		cmocka_unit_test(test_pipfile),
		cmocka_unit_test(test_pipfile_errors),
		cmocka_unit_test(test_conda),
		cmocka_unit_test(test_conda_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
