/*
 * test_framework_py.c: the framework readers besides build_info.py
 * (collect/framework.h): Python assignments (torch's version.py, jaxlib's
 * version.py), caffe2's build strings (macros.h) and the NVIDIA pins of a
 * METADATA's Requires-Dist, on what the frameworks write and on what they
 * do not.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "framework.h"
#include "manifest.h"
#include "policy.h"
#include "python.h"
#include "strv.h"
#include "xalloc.h"

/* --- Python assignments -------------------------------------------- */

/* As tools/generate_torch_version.py writes it. */
static const char torch_version[] =
    "from typing import Optional\n"
    "\n"
    "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', "
    "'xpu']\n"
    "__version__ = '2.5.1+cu124'\n"
    "debug = False\n"
    "cuda: Optional[str] = '12.4'\n"
    "git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\n"
    "hip: Optional[str] = None\n"
    "xpu: Optional[str] = None\n";

/* jax/version.py as jaxlib's wheel build rewrites it. */
static const char jax_version[] =
    "# This file is included as part of both jax and jaxlib. It is also\n"
    "# eval()-ed by setup.py, so it should not have any dependencies.\n"
    "from __future__ import annotations\n"
    "\n"
    "import datetime\n"
    "import os\n"
    "import pathlib\n"
    "import subprocess\n"
    "\n"
    "_version: str = \"0.6.2\"\n"
    "# The following line is overwritten by build scripts in "
    "distributions &\n"
    "# releases. Do not modify this manually, or jax/jaxlib build will "
    "fail.\n"
    "_release_version: str = '0.6.2'\n"
    "_git_hash: str = '9c5c4c8b3e9f'\n"
    "\n"
    "def _get_version_string() -> str:\n"
    "  # The build/source distribution for jax & jaxlib overwrites "
    "_release_version.\n"
    "  if _release_version is not None:\n"
    "    return _release_version\n"
    "  _version = 'local'\n"
    "  return _version\n"
    "\n"
    "_minimum_jaxlib_version = \"0.6.2\"\n";

static void
assert_py(const char *text, const char *name, const char *want)
{
	char *got = ep_fw_py_assign(text, strlen(text), name);

	if (want == NULL) {
		if (got != NULL)
			fail_msg("%s read as \"%s\" from: %s", name, got, text);
		return;
	}
	if (got == NULL)
		fail_msg("no %s in: %s", name, text);
	assert_string_equal(got, want);
	free(got);
}

static void
test_py_assign_real(void **state)
{
	char *crlf, *o;

	(void)state;
	assert_py(torch_version, "__version__", "2.5.1+cu124");
	assert_py(torch_version, "cuda", "12.4");
	assert_py(torch_version, "hip", "");
	assert_py(torch_version, "xpu", "");
	assert_py(torch_version, "debug", "false");
	assert_py(torch_version, "git_version",
	    "a8d6afb511a69687bbb2b7e88a3cf67917e1697e");
	assert_py(torch_version, "rocm", NULL);
	/* A list is no plain literal. */
	assert_py(torch_version, "__all__", NULL);
	assert_py(jax_version, "_version", "0.6.2");
	assert_py(jax_version, "_release_version", "0.6.2");
	assert_py(jax_version, "_git_hash", "9c5c4c8b3e9f");
	assert_py(jax_version, "_minimum_jaxlib_version", "0.6.2");
	/* Before the wheel build rewrites it. */
	assert_py("_version: str = \"0.6.3\"\n_release_version: str | None "
	    "= None\n", "_release_version", "");
	/* The same files with CRLF line ends. */
	crlf = o = xmalloc(2 * sizeof torch_version);
	for (const char *p = torch_version; *p != '\0'; p++) {
		if (*p == '\n')
			*o++ = '\r';
		*o++ = *p;
	}
	*o = '\0';
	assert_py(crlf, "__version__", "2.5.1+cu124");
	assert_py(crlf, "cuda", "12.4");
	assert_py(crlf, "hip", "");
	assert_py(crlf, "debug", "false");
	free(crlf);
}

static void
test_py_assign_forms(void **state)
{
	(void)state;
	/* Annotated, with None, either quote. */
	assert_py("cuda: Optional[str] = '12.4'\n", "cuda", "12.4");
	assert_py("cuda: Optional[str] = None\n", "cuda", "");
	assert_py("cuda:Optional[str]=\"12.4\"\n", "cuda", "12.4");
	assert_py("cuda\t=\t'12.4'\n", "cuda", "12.4");
	assert_py("cuda = True\n", "cuda", "true");
	/* An annotation without a value assigns nothing. */
	assert_py("cuda: Optional[str]\ncuda = '12.1'\n", "cuda", "12.1");
	/* "==" compares; the "=" after it assigns. */
	assert_py("cuda == '11.8'\ncuda = '12.4'\n", "cuda", "12.4");
	assert_py("cuda == '11.8'\n", "cuda", NULL);
	assert_py("cuda += '1'\n", "cuda", NULL);
	/* A name that starts with the name asked for is another name. */
	assert_py("cuda_version = '11.8'\n", "cuda", NULL);
	assert_py("cudart = '11.8'\ncuda = '12.4'\n", "cuda", "12.4");
	assert_py("cuda = '12.4'\ncuda_version = '11.8'\n", "cuda", "12.4");
	assert_py("xcuda = '11.8'\n", "cuda", NULL);
	/* The first assignment. */
	assert_py("cuda = '12.4'\ncuda = '12.6'\n", "cuda", "12.4");
	/* A comment or a ';' ends the statement. */
	assert_py("cuda = '12.4'  # the toolkit\n", "cuda", "12.4");
	assert_py("cuda = '12.4'; hip = None\n", "cuda", "12.4");
	assert_py("cuda = '12.4'", "cuda", "12.4");
	/* What is not a plain literal. */
	assert_py("cuda = get_cuda()\n", "cuda", NULL);
	assert_py("cuda = '12' + '.4'\n", "cuda", NULL);
	assert_py("cuda = '12.4' if x else None\n", "cuda", NULL);
	assert_py("cuda = '12.4'.strip()\n", "cuda", NULL);
	assert_py("cuda = Nonesuch\n", "cuda", NULL);
	assert_py("cuda = Truely\n", "cuda", NULL);
	assert_py("cuda = 12.4\n", "cuda", NULL);
	assert_py("cuda = \n'12.4'\n", "cuda", NULL);
	assert_py("cuda = '12.4\n", "cuda", NULL);
	assert_py("cuda = '12.4", "cuda", NULL);
	assert_py("cuda =", "cuda", NULL);
	assert_py("cuda", "cuda", NULL);
	assert_py("", "cuda", NULL);
	/* Not top-level statements: a docstring's line, a comment, an
	 * indented line. */
	assert_py("\"\"\"\ncuda = '9.0'\n\"\"\"\ncuda = '12.4'\n", "cuda",
	    "12.4");
	assert_py("\"\"\"\ncuda = '9.0'\n\"\"\"\n", "cuda", NULL);
	assert_py("# cuda = '9.0'\n", "cuda", NULL);
	assert_py("if x:\n    cuda = '9.0'\n", "cuda", NULL);
	/* The escapes a version string never holds still read right. */
	assert_py("git_version = 'a\\'b'\n", "git_version", "a'b");
}

/* --- caffe2's build strings ---------------------------------------- */

/* torch/include/caffe2/core/macros.h as CMake configures it. */
static const char macros_h[] =
    "#pragma once\n"
    "\n"
    "// Automatically generated header file for caffe2 macros. These\n"
    "// macros are used to build the Caffe2 binary, and if you are\n"
    "// building a dependent library, they will need to be set as well.\n"
    "\n"
    "#define CAFFE2_VERSION_MAJOR 2\n"
    "\n"
    "#define CAFFE2_BUILD_STRINGS { \\\n"
    "  {\"TORCH_VERSION\", \"2.8.0\"}, \\\n"
    "  {\"CXX_COMPILER\", \"/opt/rh/gcc-toolset-13/root/usr/bin/c++\"}, \\\n"
    "  {\"CUDA_VERSION\", \"12.9\"}, \\\n"
    "  {\"CUDNN_VERSION\", \"9.11.0\"}, \\\n"
    "  {\"USE_CUDNN\", \"1\"}, \\\n"
    "  {\"USE_NCCL\", \"1\"}, \\\n"
    "  {\"USE_ROCM\", \"OFF\"}, \\\n"
    "  {\"COMMIT_SHA\", \"\"}, \\\n"
    "}\n";

static void
assert_bs(const char *text, const char *name, const char *want)
{
	char *got = ep_fw_build_string(text, strlen(text), name);

	if (want == NULL) {
		if (got != NULL)
			fail_msg("%s read as \"%s\"", name, got);
		return;
	}
	if (got == NULL)
		fail_msg("no %s in: %s", name, text);
	assert_string_equal(got, want);
	free(got);
}

static void
test_build_string(void **state)
{
	static const char with_nul[] = "{\"CUDNN_VERSION\", \"9.1\0.0\"}, \\\n";

	(void)state;
	assert_bs(macros_h, "CUDNN_VERSION", "9.11.0");
	assert_bs(macros_h, "CUDA_VERSION", "12.9");
	assert_bs(macros_h, "TORCH_VERSION", "2.8.0");
	assert_bs(macros_h, "USE_CUDNN", "1");
	assert_bs(macros_h, "CXX_COMPILER",
	    "/opt/rh/gcc-toolset-13/root/usr/bin/c++");
	assert_bs(macros_h, "COMMIT_SHA", "");
	assert_bs(macros_h, "USE_ROCM", "OFF");
	/* A name is matched whole. */
	assert_bs(macros_h, "CUDNN", NULL);
	assert_bs(macros_h, "VERSION", NULL);
	assert_bs("{\"CUDNN_VERSION_MAJOR\", \"9\"}, \\\n{\"CUDNN_VERSION\", "
	    "\"9.1.0\"}, \\\n", "CUDNN_VERSION", "9.1.0");
	assert_bs("{\"CUDNN_VERSION_MAJOR\", \"9\"}\n", "CUDNN_VERSION",
	    NULL);
	assert_bs(macros_h, "HIP_VERSION", NULL);
	/* CRLF, the macro's last line, the end of the text. */
	assert_bs("#define CAFFE2_BUILD_STRINGS { \\\r\n  {\"CUDNN_VERSION\", "
	    "\"9.1.0\"}, \\\r\n}\r\n", "CUDNN_VERSION", "9.1.0");
	assert_bs("{\"CUDNN_VERSION\", \"9.1.0\"}", "CUDNN_VERSION", "9.1.0");
	/* Cut, or running over the line: none. */
	assert_bs("{\"CUDNN_VERSION\", \"9.1.0", "CUDNN_VERSION", NULL);
	assert_bs("{\"CUDNN_VERSION\", \"9.1.0\n\"}", "CUDNN_VERSION", NULL);
	assert_bs("{\"CUDNN_VERSION\", \"", "CUDNN_VERSION", NULL);
	assert_bs("{\"CUDNN_VERSION\", ", "CUDNN_VERSION", NULL);
	assert_bs("{\"CUDNN_VERSION\"", "CUDNN_VERSION", NULL);
	assert_bs("", "CUDNN_VERSION", NULL);
	/* Another spacing than the generator's is not read. */
	assert_bs("{\"CUDNN_VERSION\",\"9.1.0\"}", "CUDNN_VERSION", NULL);
	/* A NUL never cuts a value short: "9.1" is not what it says. */
	assert_null(ep_fw_build_string(with_nul, sizeof with_nul - 1,
	    "CUDNN_VERSION"));
}

/* --- METADATA ------------------------------------------------------ */

static char *
joined(const char *text, size_t len)
{
	struct ep_strv out = { 0 };
	char *s = xstrdup(""), *t;

	ep_fw_requires(&out, text, len);
	for (size_t i = 0; i < out.n; i++) {
		t = xasprintf("%s%s%s", s, i ? "|" : "", out.v[i]);
		free(s);
		s = t;
	}
	ep_strv_clear(&out);
	return s;
}

static void
assert_requires(const char *text, const char *want)
{
	char *got = joined(text, strlen(text));

	assert_string_equal(got, want);
	free(got);
}

static void
test_requires(void **state)
{
	static const char torch_meta[] =
	    "Metadata-Version: 2.1\n"
	    "Name: torch\n"
	    "Version: 2.6.0\n"
	    "Requires-Python: >=3.9.0\n"
	    "Requires-Dist: filelock\n"
	    "Requires-Dist: nvidia-cudnn-cu12==9.1.0.70; platform_system == "
	    "\"Linux\" and platform_machine == \"x86_64\"\n"
	    "Requires-Dist: opt-einsum>=3.3; extra == \"opt-einsum\"\n"
	    "Provides-Extra: opt-einsum\n"
	    "\n"
	    "PyTorch is a Python package\n"
	    "Requires-Dist: not-a-header==1\n";
	static const char with_nul[] = "Requires-Dist: a==1\n"
	    "Requires-Dist: nvidia-cudnn-cu12==9.1\0.0.70\n"
	    "Requires-Dist: b==2\n";
	char *got;

	(void)state;
	assert_requires(torch_meta, "filelock|nvidia-cudnn-cu12==9.1.0.70; "
	    "platform_system == \"Linux\" and platform_machine == \"x86_64\"|"
	    "opt-einsum>=3.3; extra == \"opt-einsum\"");
	/* The field name in any case; white space after the colon. */
	assert_requires("requires-dist: a\nREQUIRES-DIST:\tb\n"
	    "Requires-Dist:c\nRequires-Distx: d\nX-Requires-Dist: e\n",
	    "a|b|c");
	/* CRLF, the blank line too. */
	assert_requires("Name: x\r\nRequires-Dist: a==1\r\nRequires-Dist: "
	    "b (>=2)\r\n\r\nRequires-Dist: body\r\n", "a==1|b (>=2)");
	/* No final newline; a field with no value. */
	assert_requires("Requires-Dist:\nRequires-Dist: a", "a");
	assert_requires("\nRequires-Dist: a\n", "");
	assert_requires("", "");
	/* A NUL ends the headers, as ep_pymeta_parse reads them: no value
	 * is cut short at it. */
	got = joined(with_nul, sizeof with_nul - 1);
	assert_string_equal(got, "a==1");
	free(got);
}

struct req {
	const char *value;
	int rc;
	const char *name, *spec, *extra;
};

static void
test_requirement(void **state)
{
	static const struct req t[] = {
		/* torch's pins, TF's and-cuda pins, JAX's ranges. */
		{ "nvidia-cudnn-cu12==9.1.0.70; platform_system == \"Linux\" "
		  "and platform_machine == \"x86_64\"", 0, "nvidia-cudnn-cu12",
		  "==9.1.0.70", NULL },
		{ "nvidia-cudnn-cu12==8.9.4.25; extra == \"and-cuda\"", 0,
		  "nvidia-cudnn-cu12", "==8.9.4.25", "and-cuda" },
		{ "nvidia-cudnn-cu12 (>=9.8,<10.0); extra == 'with-cuda'", 0,
		  "nvidia-cudnn-cu12", ">=9.8,<10.0", "with-cuda" },
		{ "nvidia-cudnn-cu12>=9.8,<10.0 ; extra == 'with-cuda'", 0,
		  "nvidia-cudnn-cu12", ">=9.8,<10.0", "with-cuda" },
		{ "nvidia-cudnn-cu12 == 9.1.0.70", 0, "nvidia-cudnn-cu12",
		  "==9.1.0.70", NULL },
		{ "  nvidia-nccl-cu12 ( >= 2.18.1 , < 3 )", 0,
		  "nvidia-nccl-cu12", ">=2.18.1,<3", NULL },
		{ "\tnvidia-nccl-cu12\t==2.21.5\t;\textra == 'x'", 0,
		  "nvidia-nccl-cu12", "==2.21.5", "x" },
		/* A marker's other variables, the extra among them. */
		{ "numpy<2.0.0,>=1.23.5; python_version >= \"3.9\"", 0,
		  "numpy", "<2.0.0,>=1.23.5", NULL },
		{ "opt-einsum>=3.3; python_version >= '3.9' and extra == "
		  "\"opt-einsum\"", 0, "opt-einsum", ">=3.3", "opt-einsum" },
		{ "x>=1;extra=='a'", 0, "x", ">=1", "a" },
		{ "x>=1; extra == 'a", 0, "x", ">=1", NULL },
		/* Extras of the requirement itself. */
		{ "jax-cuda12-plugin[with-cuda]<=0.6.2,>=0.6.2; extra == "
		  "\"cuda12\"", 0, "jax-cuda12-plugin", "<=0.6.2,>=0.6.2",
		  "cuda12" },
		{ "jax-cuda12-plugin [with_cuda, other] (==0.6.2)", 0,
		  "jax-cuda12-plugin", "==0.6.2", NULL },
		/* Names normalized (PEP 503). */
		{ "Nvidia_CuDNN.cu12>=9", 0, "nvidia-cudnn-cu12", ">=9", NULL },
		{ "filelock", 0, "filelock", "", NULL },
		{ "typing-extensions>=4.10.0", 0, "typing-extensions",
		  ">=4.10.0", NULL },
		{ "x~=1.4.5", 0, "x", "~=1.4.5", NULL },
		/* A URL names an artifact, no version: spec "" (and nothing
		 * of the URL, which may hold credentials, is kept); its
		 * marker still counts, after the white space PEP 508 asks
		 * for; a ';' inside the URL is the URL's. */
		{ "nvidia-cudnn-cu12 @ https://example.com/nvidia_cudnn_cu12-"
		  "9.1.0.70-py3-none-manylinux2014_x86_64.whl ; extra == "
		  "'with-cuda'", 0, "nvidia-cudnn-cu12", "", "with-cuda" },
		{ "pkg@https://user:token@example.com/p;v=1/pkg-1.0.whl", 0,
		  "pkg", "", NULL },
		{ "pkg[extra] @ file:///tmp/pkg-1.0.whl ; extra == \"x\"", 0,
		  "pkg", "", "x" },
		{ "pkg\t@\tfile:///tmp/pkg-1.0.whl", 0, "pkg", "", NULL },
		/* What has no valid name. */
		{ "", -1, NULL, NULL, NULL },
		{ "   ", -1, NULL, NULL, NULL },
		{ "-nvidia==1", -1, NULL, NULL, NULL },
		{ "nvidia-==1", -1, NULL, NULL, NULL },
		{ "_x==1", -1, NULL, NULL, NULL },
		{ ".x", -1, NULL, NULL, NULL },
		{ "(>=1)", -1, NULL, NULL, NULL },
		{ ">=1", -1, NULL, NULL, NULL },
		{ "; extra == 'x'", -1, NULL, NULL, NULL },
		{ "@ https://example.com/x.whl", -1, NULL, NULL, NULL },
		{ "\xc3\xa9t\xc3\xa9==1", -1, NULL, NULL, NULL },
	};
	char *name, *spec, *extra;

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		int rc = ep_fw_requirement(&name, &spec, &extra, t[i].value);

		if (rc != t[i].rc)
			fail_msg("\"%s\": %d", t[i].value, rc);
		if (rc < 0) {
			assert_null(name);
			assert_null(spec);
			assert_null(extra);
			continue;
		}
		assert_string_equal(name, t[i].name);
		if (strcmp(spec, t[i].spec) != 0)
			fail_msg("\"%s\": spec \"%s\"", t[i].value, spec);
		if (t[i].extra == NULL && extra != NULL)
			fail_msg("\"%s\": extra \"%s\"", t[i].value, extra);
		if (t[i].extra != NULL)
			assert_string_equal(extra, t[i].extra);
		free(name);
		free(spec);
		free(extra);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_py_assign_real),
		cmocka_unit_test(test_py_assign_forms),
		cmocka_unit_test(test_build_string),
		cmocka_unit_test(test_requires),
		cmocka_unit_test(test_requirement),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
