/*
 * test_lockfile_formats.c: the lockfile readers where their owners define
 * the format: TOML's syntax and text rules under poetry.lock and uv.lock,
 * pip's options, encodings, direct references and versions in
 * requirements files, and the UTF-8 and UTF-16/32 text layer beneath
 * both (lockfile_text.c); what the pins of conda-lock.yml, pixi.lock,
 * pylock.toml, pdm.lock and Pipfile.lock apply to, come from and are
 * hashed as.
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
#include "str.h"
#include "errors.h"
#include "xalloc.h"

/* Parse the n bytes at text as format f, merged as the collector merges
 * them; the pins as "name=version " in name order, or the message. */
static char *
parse(enum ep_lock_format f, const char *text, size_t n,
    struct ep_pins *keep)
{
	struct ep_pins p = { 0 };
	struct ep_err err = { 0 };
	char *out, *o;
	size_t len = 1;

	if (ep_lock_parse(&p, f, text, n, "lock", &err) < 0) {
		assert_int_equal(err.kind, EP_E_INPUT);
		assert_int_equal(p.n, 0);
		ep_pins_clear(&p);
		return xasprintf("error: %s", err.msg);
	}
	ep_pins_merge(&p);
	for (size_t i = 0; i < p.n; i++)
		len += strlen(p.v[i].name) + strlen(p.v[i].version) + 2;
	out = o = xmalloc(len);
	*o = '\0';
	for (size_t i = 0; i < p.n; i++)
		o += sprintf(o, "%s=%s ", p.v[i].name, p.v[i].version);
	if (keep != NULL)
		ep_pins_take(keep, &p);
	ep_pins_clear(&p);
	return out;
}

static void
expect(enum ep_lock_format f, const char *text, const char *want)
{
	char *got = parse(f, text, strlen(text), NULL);

	if (strcmp(got, want) != 0)
		fail_msg("%s\n got: %s\nwant: %s", text, got, want);
	free(got);
}

static void
expect_n(enum ep_lock_format f, const char *text, size_t n,
    const char *want)
{
	char *got = parse(f, text, n, NULL);

	if (strcmp(got, want) != 0)
		fail_msg("got: %s\nwant: %s", got, want);
	free(got);
}

static void
test_toml_syntax(void **state)
{
	(void)state;
	/* A date-time with a blank for T, a local one, a time alone. */
	expect(EP_LOCK_POETRY, "[[package]]\nname = \"a\"\nversion = \"1\"\n"
	    "[metadata]\ncreated = 1979-05-27 07:32:00Z\n"
	    "local = 1979-05-27 00:32:00.999\nday = 1979-05-27\n"
	    "t = 07:32:00\nodt = 1979-05-27T07:32:00-07:00\n", "a=1 ");
	/* A blank after a date is not a time when none follows. */
	expect(EP_LOCK_POETRY, "d = 1979-05-27 # a comment\n", "");
	expect(EP_LOCK_POETRY, "d = 1979-05-27 x\n", "error: lock:1: "
	    "expected the end of the line after the value");
	/* TOML 1.1's \xHH. */
	expect(EP_LOCK_POETRY, "[[package]]\nname = \"a\"\nversion = "
	    "\"1.\\x30\"\n", "a=1.0 ");
	expect(EP_LOCK_POETRY, "s = \"\\x3\"\n",
	    "error: lock:1: invalid \\x escape in a string");
	/* A bare value is letters, digits and +-_.: only. */
	expect(EP_LOCK_POETRY, "n = 1\v\n",
	    "error: lock:1: invalid value (a string needs quotes)");
}

static void
test_toml_garbage(void **state)
{
	(void)state;
	/* A NUL in a kept value: refused, never "1.26.4". */
	expect(EP_LOCK_UV, "[[package]]\nname = \"numpy\"\n"
	    "version = \"1.26.4\\u0000rc1\"\n",
	    "error: lock:3: \"version\" holds a NUL character");
	expect(EP_LOCK_UV, "[[package]]\nname = \"num\\u0000py\"\n"
	    "version = \"1\"\n", "error: lock:2: \"name\" holds a NUL "
	    "character");
	/* ...and in a value not kept, TOML's own business. */
	expect(EP_LOCK_UV, "[[package]]\nname = \"numpy\"\nversion = \"1\"\n"
	    "note = \"a\\u0000b\"\n", "numpy=1 ");
	/* A key with a NUL is none of the keys kept. */
	expect(EP_LOCK_POETRY, "[[package]]\nname = \"a\"\nversion = \"1\"\n"
	    "\"version\\u0000x\" = \"2\"\n", "a=1 ");
	/* Control characters, raw or escaped. */
	expect(EP_LOCK_POETRY, "[[package]]\nname = \"a\"\n"
	    "version = \"1\x01\"\n",
	    "error: lock:3: control character in a string");
	expect(EP_LOCK_POETRY, "[[package]]\nname = \"a\"\n"
	    "version = '1\x7f'\n",
	    "error: lock:3: control character in a string");
	expect(EP_LOCK_POETRY, "[[package]]\nname = \"a\"\n"
	    "version = \"1\\u001b\"\n",
	    "error: lock:3: \"version\" holds a control character");
	expect(EP_LOCK_POETRY, "# a \x0c comment\n",
	    "error: lock:1: control character in a comment");
	expect(EP_LOCK_POETRY, "# a bare \r in a comment\n",
	    "error: lock:1: control character in a comment");
	expect(EP_LOCK_POETRY, "s = \"\"\"a\rb\"\"\"\n",
	    "error: lock:1: control character in a string");
	/* CRLF stays a line end everywhere. */
	expect(EP_LOCK_POETRY, "# c\r\n[[package]]\r\nname = \"a\" # c\r\n"
	    "version = \"\"\"1\"\"\"\r\ns = \"\"\"x\r\ny\"\"\"\r\n", "a=1 ");
	/* Not UTF-8: a stray byte, an overlong form, a surrogate. */
	expect(EP_LOCK_POETRY, "[[package]]\nname = \"a\"\n"
	    "version = \"1\xff\"\n", "error: lock:3: not UTF-8 text");
	expect(EP_LOCK_POETRY, "a = 1\n# \xc0\xaf\n",
	    "error: lock:2: not UTF-8 text");
	expect(EP_LOCK_POETRY, "a = \"\xed\xa0\x80\"\n",
	    "error: lock:1: not UTF-8 text");
	expect(EP_LOCK_POETRY, "a = \"caf\xc3\xa9 \xe2\x98\x83 "
	    "\xf0\x9f\x90\xb3\"\n", "");
}

static void
test_toml_packages(void **state)
{
	(void)state;
	/* uv's dotted source keys: a local tree, as the inline table. */
	expect(EP_LOCK_UV, "version = 1\n[[package]]\nname = \"me\"\n"
	    "source.editable = \".\"\n[[package]]\nname = \"b\"\n"
	    "version = \"1\"\nsource.registry = \"https://x\"\n", "b=1 ");
	expect(EP_LOCK_UV, "[[package]]\nname = \"b\"\n"
	    "source.registry = \"https://x\"\n",
	    "error: lock:1: [[package]] \"b\" has no version");
	/* A root array of inline tables: the same packages. */
	expect(EP_LOCK_POETRY, "package = [\n  {name = \"A_b\", version = "
	    "\"1\"}, # one\n  {version = \"2\", name = \"c\", extras = {x = "
	    "[\"y\"]}},\n]\n[metadata]\nx = 1\n", "a-b=1 c=2 ");
	expect(EP_LOCK_UV, "package = [{name = \"me\", source = {virtual = "
	    "\".\"}}, {name = \"b\", version = \"1\", source.registry = "
	    "\"r\"}]\n", "b=1 ");
	expect(EP_LOCK_POETRY, "package = [{name = \"a\"}]\n",
	    "error: lock:1: [[package]] \"a\" has no version");
	expect(EP_LOCK_POETRY, "package = [{name = \"a\", version = \"1\", "
	    "version = \"2\"}]\n", "error: lock:1: duplicate key \"version\"");
	expect(EP_LOCK_POETRY, "package = [\"a==1\"]\n", "error: lock:1: "
	    "\"package\" is an array of something else than tables");
	expect(EP_LOCK_POETRY, "package = {name = \"a\"}\n", "error: lock:1: "
	    "\"package\" is neither [[package]] tables nor an array of "
	    "them");
	expect(EP_LOCK_POETRY, "package = [{name = \"a\", version = \"1\"}\n",
	    "error: lock:1: unterminated array");
	expect(EP_LOCK_POETRY, "package = [{name = \"a\", version = \"1\"} "
	    "{}]\n", "error: lock:1: expected ',' or ']' in an array");
	/* Under a table, package is that table's key, not the list. */
	expect(EP_LOCK_POETRY, "[tool]\npackage = \"x\"\n", "");
}

static void
test_req_options(void **state)
{
	(void)state;
	/* Every option of pip's requirements files, long and short. */
	expect(EP_LOCK_REQUIREMENTS, "-i https://x/simple\n--index-url x\n"
	    "--pypi-url x\n--extra-index-url=x\n--no-index\n-c c.txt\n"
	    "--constraint=c.txt\n-rr.txt\n--requirement r.txt\n"
	    "-e git+https://x#egg=e\n--editable=./e\n-f x\n--find-links x\n"
	    "--no-binary :all:\n--only-binary=:none:\n--prefer-binary\n"
	    "--require-hashes\n--no-require-hashes\n--pre\n"
	    "--all-releases :all:\n--only-final pkg1,pkg2\n"
	    "--trusted-host h:1 --trusted-host=h2\n--use-feature=fast-deps\n"
	    "--hash=sha512:ab\n-C k=v\n--config-settings k=v\n"
	    "a==1 --hash=sha256:ab --hash sha384:cd -C k=v\n", "a=1 ");
	/* Long names cut short where only one starts so. */
	expect(EP_LOCK_REQUIREMENTS, "--extra-index x\n--only-f :all:\n"
	    "a==1\n", "a=1 ");
	expect(EP_LOCK_REQUIREMENTS, "--no- x\n",
	    "error: lock:1: ambiguous option '--no-'");
	expect(EP_LOCK_REQUIREMENTS, "--bogus\n",
	    "error: lock:1: unknown option '--bogus'");
	expect(EP_LOCK_REQUIREMENTS, "-x\n", "error: lock:1: unknown "
	    "option '-x'");
	expect(EP_LOCK_REQUIREMENTS, "a==1 --bogus=https://u:p@h/\n",
	    "error: lock:1: unknown option '--bogus'");
	expect(EP_LOCK_REQUIREMENTS, "--pre=1\n",
	    "error: lock:1: option '--pre' takes no value");
	expect(EP_LOCK_REQUIREMENTS, "--index-url\n",
	    "error: lock:1: option '--index-url' needs a value");
	expect(EP_LOCK_REQUIREMENTS, "a==1 --hash=somehash\n",
	    "error: lock:1: --hash needs ALGO:DIGEST, ALGO one of sha256, "
	    "sha384, sha512");
	expect(EP_LOCK_REQUIREMENTS, "a==1 --hash=md5:ab\n",
	    "error: lock:1: --hash needs ALGO:DIGEST, ALGO one of sha256, "
	    "sha384, sha512");
	/* A value that starts with '-' is still the option's value. */
	expect(EP_LOCK_REQUIREMENTS, "--index-url -weird-\na==1\n", "a=1 ");
	/* Quotes hold blanks, as shlex reads them. */
	expect(EP_LOCK_REQUIREMENTS, "a==1 --config-settings=\"k=a b\" "
	    "--hash='sha256:ab'\n", "a=1 ");
}

static void
test_req_text(void **state)
{
	static const char le16[] = "\xff\xfe" "a\0=\0=\0" "1\0\n\0"
	    "b\0=\0=\0" "2\0";
	static const char be32[] = "\0\0\xfe\xff" "\0\0\0a" "\0\0\0=\0\0\0="
	    "\0\0\0" "1";
	static const char pair[] = "\xfe\xff" "\0a\0=\0=\0" "1\0+\xd8\x3d"
	    "\xdc\x33";

	(void)state;
	expect_n(EP_LOCK_REQUIREMENTS, le16, sizeof le16 - 1, "a=1 b=2 ");
	expect_n(EP_LOCK_REQUIREMENTS, be32, sizeof be32 - 1, "a=1 ");
	/* A surrogate pair: U+1F433 in a local label is no version. */
	expect_n(EP_LOCK_REQUIREMENTS, pair, sizeof pair - 1,
	    "a===1+\xf0\x9f\x90\xb3 ");
	/* An odd length, a lone surrogate. */
	expect_n(EP_LOCK_REQUIREMENTS, le16, sizeof le16 - 2,
	    "error: lock:1: not UTF-16 or UTF-32 text after its byte order "
	    "mark");
	expect_n(EP_LOCK_REQUIREMENTS, "\xff\xfe\x00\xd8", 4,
	    "error: lock:1: not UTF-16 or UTF-32 text after its byte order "
	    "mark");
	/* Without a byte order mark, NUL bytes are still no text. */
	expect_n(EP_LOCK_REQUIREMENTS, "a\0=\0", 4,
	    "error: lock:1: NUL byte in a text file");
}

static void
test_req_pins(void **state)
{
	struct ep_pins keep = { 0 };
	char *got;
	const char *text = "a==1.0.org1\nb==1.0.post1\nc===1.0.org1\n"
	    "d==1.*\n";

	(void)state;
	/* The URL of a direct reference ends at the markers' ';'. */
	expect(EP_LOCK_REQUIREMENTS, "x @ https://e.com/x.whl; extra == "
	    "\"e\"\ny@https://e.com/y.whl;python_version>'3'\n",
	    "x=@ https://e.com/x.whl y=@ https://e.com/y.whl ");
	/* A ';' of the URL's own (path parameters) is not the markers':
	 * two wheels, two pins, as packaging reads them. */
	expect(EP_LOCK_REQUIREMENTS, "a @ https://h/a;v=1/a.whl\n"
	    "b @ https://h/a;v=2/b.whl ; python_version >= \"3\"\n"
	    "c @ https://h/c;sys_platform_x/c.whl\n"
	    "d @ https://h/d.whl;(os_name=='nt')\n"
	    "e @ https://h/e.whl;'linux'==sys_platform\n"
	    "f @ https://h/f.whl;os.name=='nt'\n"
	    "g @ https://h/g.whl;\n",
	    "a=@ https://h/a;v=1/a.whl b=@ https://h/a;v=2/b.whl "
	    "c=@ https://h/c;sys_platform_x/c.whl d=@ https://h/d.whl "
	    "e=@ https://h/e.whl f=@ https://h/f.whl g=@ https://h/g.whl ");
	/* ==V with V no PEP 440 version: the specifier, and a warning that
	 * the pins carry to the caller. */
	got = parse(EP_LOCK_REQUIREMENTS, text, strlen(text), &keep);
	assert_string_equal(got, "a===1.0.org1 b=1.0.post1 c=1.0.org1 "
	    "d===1.* ");
	free(got);
	assert_int_equal(keep.warnings.n, 1);
	assert_string_equal(keep.warnings.v[0], "lock:1: a: the version "
	    "after == is not a PEP 440 version; the pin is the specifier as "
	    "written");
	ep_pins_clear(&keep);
	assert_int_equal(keep.warnings.n, 0);
}

static void
test_utf8(void **state)
{
	char u[4];

	(void)state;
	assert_int_equal(ep_lock_utf8_len("a", 1), 1);
	assert_int_equal(ep_lock_utf8_len("\xc3\xa9", 2), 2);
	assert_int_equal(ep_lock_utf8_len("\xc3\xa9", 1), 0);
	assert_int_equal(ep_lock_utf8_len("\xe2\x98\x83", 3), 3);
	assert_int_equal(ep_lock_utf8_len("\xf4\x8f\xbf\xbf", 4), 4);
	assert_int_equal(ep_lock_utf8_len("\xf4\x90\x80\x80", 4), 0);
	assert_int_equal(ep_lock_utf8_len("\xc1\xbf", 2), 0);
	assert_int_equal(ep_lock_utf8_len("\xe0\x9f\xbf", 3), 0);
	assert_int_equal(ep_lock_utf8_len("\xed\xbf\xbf", 3), 0);
	assert_int_equal(ep_lock_utf8_len("\x80", 1), 0);
	assert_int_equal(ep_utf8_encode(u, 0x1f433), 4);
	assert_memory_equal(u, "\xf0\x9f\x90\xb3", 4);
	assert_int_equal(ep_utf8_encode(u, 0xe9), 2);
	assert_memory_equal(u, "\xc3\xa9", 2);
}

/* conda-lock.yml and pixi.lock: what each pin applies to, where it comes
 * from (the URL without its token) and its hash. */
static void
test_yaml_where(void **state)
{
	static const char conda_lock[] =
	    "version: 1\nmetadata: {}\npackage:\n"
	    "- name: numpy\n  version: '1.26.4'\n  manager: conda\n"
	    "  platform: linux-64\n  category: gpu\n"
	    "  url: https://conda.anaconda.org/t/SECRET/conda-forge/linux-64/"
	    "numpy-1.26.4-h0_0.conda\n"
	    "  hash: {md5: abc, sha256: def}\n"
	    "- name: Torch_Audio\n  version: 2.3.1\n  manager: pip\n"
	    "  platform: osx-arm64\n  hash: {md5: 0a}\n";
	static const char pixi[] =
	    "version: 6\nenvironments:\n"
	    "  default:\n    packages:\n      linux-64:\n"
	    "      - conda: https://c/linux-64/numpy-1.26.4-h0_0.conda\n"
	    "      - pypi: https://p/x.whl\n"
	    "  cuda:\n    packages:\n      linux-64:\n"
	    "      - conda: https://c/linux-64/numpy-1.26.4-h0_0.conda\n"
	    "      - conda: https://c/linux-64/numpy-1.26.4-h0_0.conda\n"
	    "packages:\n"
	    "- conda: https://c/linux-64/numpy-1.26.4-h0_0.conda\n"
	    "  sha256: 11\n"
	    "- pypi: https://p/x.whl\n  name: X\n  version: '1.0'\n"
	    "- conda: https://c/noarch/unused-2-0.conda\n";
	struct ep_pins p = { 0 };
	struct ep_err err = { 0 };

	(void)state;
	assert_int_equal(ep_lock_parse(&p, EP_LOCK_CONDA_LOCK, conda_lock,
	    sizeof conda_lock - 1, "lock", &err), 0);
	assert_int_equal(p.n, 2);
	assert_string_equal(p.v[0].name, "numpy");
	assert_string_equal(p.v[0].where, "linux-64 gpu");
	assert_string_equal(p.v[0].source, "https://conda.anaconda.org/"
	    "conda-forge/linux-64/numpy-1.26.4-h0_0.conda");
	assert_string_equal(p.v[0].hash, "sha256:def");
	assert_string_equal(p.v[1].name, "torch-audio");
	assert_string_equal(p.v[1].where, "osx-arm64 main");
	assert_null(p.v[1].source);
	assert_string_equal(p.v[1].hash, "md5:0a");
	ep_pins_clear(&p);

	assert_int_equal(ep_lock_parse(&p, EP_LOCK_PIXI, pixi, sizeof pixi - 1,
	    "lock", &err), 0);
	assert_int_equal(p.n, 3);
	assert_string_equal(p.v[0].name, "numpy");
	assert_string_equal(p.v[0].version, "1.26.4");
	assert_string_equal(p.v[0].where, "cuda:linux-64,default:linux-64");
	assert_string_equal(p.v[0].hash, "sha256:11");
	assert_string_equal(p.v[1].name, "x");
	assert_string_equal(p.v[1].where, "default:linux-64");
	assert_string_equal(p.v[1].source, "https://p/x.whl");
	assert_null(p.v[1].hash);
	assert_string_equal(p.v[2].name, "unused");
	assert_null(p.v[2].where);
	ep_pins_clear(&p);
}

/* pylock.toml's marker and index, pdm.lock's marker, Pipfile.lock's
 * category, index and hash: kept with each pin. */
static void
test_where_toml_pipfile(void **state)
{
	static const char pylock[] =
	    "lock-version = \"1.0\"\n[[packages]]\nname = \"Colorama\"\n"
	    "version = \"0.4.6\"\nmarker = \"sys_platform == 'win32'\"\n"
	    "index = \"https://u:p@pypi.example/simple?x=1\"\n"
	    "wheels = [{ url = \"https://w/c.whl\", hashes = { sha256 = \"0\" } }]\n"
	    "[[packages]]\nname = \"b\"\nversion = \"1\"\n"
	    "[packages.tool.x]\nmarker = \"not this\"\n";
	static const char pdm[] =
	    "[metadata]\nlock_version = \"4.4\"\n[[package]]\nname = \"a\"\n"
	    "version = \"1\"\nmarker = \"python_version < '3.12'\"\n"
	    "index = \"not pdm's\"\n";
	static const char pipfile[] =
	    "{\"_meta\": {}, \"default\": {}, \"gpu\": {\"torch\": "
	    "{\"hashes\": [\"sha256:aa\", \"sha256:bb\"], \"index\": "
	    "\"pytorch\", \"version\": \"==2.3.1\", \"markers\": "
	    "\"sys_platform == 'linux'\"}}}";
	/* poetry 2: groups and markers; poetry 1: category, optional. */
	static const char poetry[] =
	    "[[package]]\nname = \"a\"\nversion = \"1\"\n"
	    "groups = [\"main\", \"dev\"]\nmarkers = \"os_name == 'nt'\"\n\n"
	    "[[package]]\nname = \"b\"\nversion = \"1\"\n"
	    "category = \"dev\"\noptional = true\n";
	struct ep_pins p = { 0 };
	struct ep_err err = { 0 };

	(void)state;
	assert_int_equal(ep_lock_parse(&p, EP_LOCK_PYLOCK, pylock,
	    sizeof pylock - 1, "lock", &err), 0);
	assert_int_equal(p.n, 2);
	assert_string_equal(p.v[0].name, "colorama");
	assert_string_equal(p.v[0].where, "sys_platform == 'win32'");
	assert_string_equal(p.v[0].source, "https://pypi.example/simple");
	assert_null(p.v[1].where);
	assert_null(p.v[1].source);
	ep_pins_clear(&p);
	assert_int_equal(ep_lock_parse(&p, EP_LOCK_PDM, pdm, sizeof pdm - 1,
	    "lock", &err), 0);
	assert_int_equal(p.n, 1);
	assert_string_equal(p.v[0].where, "python_version < '3.12'");
	assert_null(p.v[0].source);
	ep_pins_clear(&p);
	assert_int_equal(ep_lock_parse(&p, EP_LOCK_PIPFILE, pipfile,
	    sizeof pipfile - 1, "lock", &err), 0);
	assert_int_equal(p.n, 1);
	assert_string_equal(p.v[0].group, "gpu");
	assert_string_equal(p.v[0].where, "sys_platform == 'linux'");
	assert_string_equal(p.v[0].source, "pytorch");
	assert_string_equal(p.v[0].hash, "sha256:aa");
	ep_pins_clear(&p);
	assert_int_equal(ep_lock_parse(&p, EP_LOCK_POETRY, poetry,
	    sizeof poetry - 1, "lock", &err), 0);
	assert_int_equal(p.n, 2);
	assert_string_equal(p.v[0].group, "main,dev");
	assert_string_equal(p.v[0].where, "os_name == 'nt'");
	assert_string_equal(p.v[1].group, "dev optional");
	assert_null(p.v[1].where);
	ep_pins_clear(&p);
}

/* pylock.toml's and pdm.lock's first hash, wherever the file writes
 * it (inline wheels and sdist, [[packages.wheels]] and [packages.sdist]
 * subtables, pdm's files), and pdm.lock's groups. */
static void
test_hashes_groups(void **state)
{
	static const char pylock[] =
	    "lock-version = \"1.0\"\n[[packages]]\nname = \"a\"\nversion = \"1\"\n"
	    "sdist = { url = \"https://h/deadbeefdeadbeefdeadbeefdeadbeef.tar.gz\", "
	    "size = 10, hashes = { sha256 = \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" } }\n"
	    "wheels = [{ url = \"https://h/a.whl\", hashes = { sha256 = \"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\" } }]\n"
	    "[[packages]]\nname = \"b\"\nversion = \"1\"\n"
	    "[[packages.wheels]]\nurl = \"https://h/b.whl\"\n"
	    "hashes = { sha512 = \"cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc\" }\n"
	    "[[packages]]\nname = \"c\"\nversion = \"1\"\n"
	    "[packages.sdist]\nname = \"c-1.tar.gz\"\nhashes = {sha256=\"dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd\"}\n"
	    "[[packages]]\nname = \"d\"\nversion = \"1\"\n"
	    "wheels = [{ url = \"https://h/d.whl\", hashes = { sha256 = \"0\" } }]\n";
	static const char pdm[] =
	    "[metadata]\nlock_version = \"4.4\"\n[[package]]\nname = \"a\"\n"
	    "version = \"1\"\ngroups = [\"default\", \"dev\"]\nfiles = [\n"
	    "    {file = \"a-1.whl\", hash = \"sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\"},\n"
	    "    {file = \"a-1.tar.gz\", hash = \"sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"},\n]\n"
	    "[[package]]\nname = \"b\"\nversion = \"1\"\nfiles = []\n";
	struct ep_pins p = { 0 };
	struct ep_err err = { 0 };

	(void)state;
	assert_int_equal(ep_lock_parse(&p, EP_LOCK_PYLOCK, pylock,
	    sizeof pylock - 1, "lock", &err), 0);
	assert_int_equal(p.n, 4);
	assert_string_equal(p.v[0].hash, "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	assert_string_equal(p.v[1].hash, "sha512:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc");
	assert_string_equal(p.v[2].hash, "sha256:dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd");
	assert_null(p.v[3].hash);
	ep_pins_clear(&p);
	assert_int_equal(ep_lock_parse(&p, EP_LOCK_PDM, pdm, sizeof pdm - 1,
	    "lock", &err), 0);
	assert_int_equal(p.n, 2);
	assert_string_equal(p.v[0].hash, "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	assert_string_equal(p.v[0].group, "default,dev");
	assert_null(p.v[1].hash);
	assert_null(p.v[1].group);
	ep_pins_clear(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_toml_syntax),
		cmocka_unit_test(test_yaml_where),
		cmocka_unit_test(test_where_toml_pipfile),
		cmocka_unit_test(test_hashes_groups),
		cmocka_unit_test(test_toml_garbage),
		cmocka_unit_test(test_toml_packages),
		cmocka_unit_test(test_req_options),
		cmocka_unit_test(test_req_text),
		cmocka_unit_test(test_req_pins),
		cmocka_unit_test(test_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
