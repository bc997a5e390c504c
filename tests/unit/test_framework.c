/*
 * test_framework.c: the framework readers (collect/framework.h) on the
 * formats TensorFlow's, PyTorch's and JAX's generators write (as
 * shared/research/frameworks.md quotes them) and on what they do not
 * write.  The checks on what they read are test_checks_fw.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "framework.h"
#include "manifest.h"
#include "policy.h"
#include "python.h"

/* --- build_info.py ------------------------------------------------- */

/* As tensorflow/tools/build_info/gen_build_info.py writes it (2.10 and
 * later), with the values NGC's TF 2.12 container reports. */
static const char tf_ordered[] =
    "# Copyright 2023 The TensorFlow Authors. All Rights Reserved.\n"
    "#\n"
    "# Licensed under the Apache License, Version 2.0 (the \"License\");\n"
    "# ==============================================================\n"
    "\"\"\"Auto-generated module providing information about the build.\"\"\"\n"
    "import collections\n"
    "\n"
    "build_info = collections.OrderedDict([('cpu_compiler', "
    "'/opt/rh/devtoolset-9/root/usr/bin/gcc'), ('cuda_compute_capabilities',"
    " ['sm_52', 'sm_60', 'sm_61', 'sm_70', 'sm_75', 'sm_80', 'sm_86', "
    "'compute_90']), ('cuda_version', '12.1'), ('cudnn_version', '8'), "
    "('is_cuda_build', True), ('is_rocm_build', False), "
    "('is_tensorrt_build', True)])\n";

/* The older generator's plain dict (a Linux build of that time, with
 * nccl_version and tensorrt_version; Python 2 imports first). */
static const char tf_plain[] =
    "\"\"\"Auto-generated module providing information about the build.\"\"\"\n"
    "from __future__ import absolute_import\n"
    "from __future__ import division\n"
    "from __future__ import print_function\n"
    "\n"
    "build_info = {'cuda_version': '10.1', 'cudnn_version': '7', "
    "'nccl_version': '2', 'tensorrt_version': '6', "
    "'cuda_compute_capabilities': ['sm_35', 'sm_37', 'sm_52', 'sm_60', "
    "'sm_61', 'compute_70'], 'is_rocm_build': False, "
    "'is_cuda_build': True}\n";

/* The Windows builds' plain dict, with the DLL names. */
static const char tf_plain_win[] =
    "build_info = {'cuda_version': '64_101', 'cudnn_version': '64_7', "
    "'cuda_compute_capabilities': ['sm_35', 'compute_70'], "
    "'cpu_compiler': 'C:/Program Files (x86)/Microsoft Visual Studio/"
    "2019/Community/VC/Tools/MSVC/14.26.28801/bin/HostX64/x64/cl.exe', "
    "'is_rocm_build': False, 'is_cuda_build': True, "
    "'msvcp_dll_names': 'msvcp140.dll,msvcp140_1.dll', "
    "'nvcuda_dll_name': 'nvcuda.dll', 'cudart_dll_name': 'cudart64_101.dll',"
    " 'cudnn_dll_name': 'cudnn64_7.dll'}\n";

/* A pushed sentinel pair, so that "nothing added" is seen. */
static void
seed(struct ep_strv *k, struct ep_strv *v)
{
	ep_strv_push(k, "sentinel");
	ep_strv_push(v, "sentinel");
}

static const char *
val(const struct ep_strv *k, const struct ep_strv *v, const char *key)
{
	for (size_t i = 0; i < k->n; i++)
		if (strcmp(k->v[i], key) == 0)
			return v->v[i];
	return NULL;
}

/* The build_info of text (a C string), as "k=v;k=v"; NULL when the
 * reader refuses it (and then it must have added nothing). */
static char *
bi(const char *text)
{
	struct ep_strv k = { 0 }, v = { 0 };
	char *out = NULL, *t;

	seed(&k, &v);
	if (ep_fw_build_info_parse(&k, &v, text, strlen(text)) < 0) {
		assert_int_equal(k.n, 1);
		assert_int_equal(v.n, 1);
		goto done;
	}
	assert_int_equal(k.n, v.n);
	out = xstrdup("");
	for (size_t i = 1; i < k.n; i++) {
		t = xasprintf("%s%s%s=%s", out, i > 1 ? ";" : "", k.v[i],
		    v.v[i]);
		free(out);
		out = t;
	}
done:
	ep_strv_clear(&k);
	ep_strv_clear(&v);
	return out;
}

static void
assert_bi(const char *text, const char *want)
{
	char *got = bi(text);

	if (want == NULL) {
		if (got != NULL)
			fail_msg("read %s from: %s", got, text);
		return;
	}
	if (got == NULL)
		fail_msg("refused: %s", text);
	assert_string_equal(got, want);
	free(got);
}

static void
test_build_info_ordered_dict(void **state)
{
	struct ep_strv k = { 0 }, v = { 0 };

	(void)state;
	seed(&k, &v);
	assert_int_equal(ep_fw_build_info_parse(&k, &v, tf_ordered,
	    strlen(tf_ordered)), 0);
	assert_int_equal(k.n, 8);
	assert_int_equal(v.n, 8);
	/* Appended, in file order. */
	assert_string_equal(k.v[0], "sentinel");
	assert_string_equal(k.v[1], "cpu_compiler");
	assert_string_equal(k.v[7], "is_tensorrt_build");
	assert_string_equal(val(&k, &v, "cpu_compiler"),
	    "/opt/rh/devtoolset-9/root/usr/bin/gcc");
	assert_string_equal(val(&k, &v, "cuda_compute_capabilities"),
	    "sm_52,sm_60,sm_61,sm_70,sm_75,sm_80,sm_86,compute_90");
	assert_string_equal(val(&k, &v, "cuda_version"), "12.1");
	assert_string_equal(val(&k, &v, "cudnn_version"), "8");
	assert_string_equal(val(&k, &v, "is_cuda_build"), "true");
	assert_string_equal(val(&k, &v, "is_rocm_build"), "false");
	assert_string_equal(val(&k, &v, "is_tensorrt_build"), "true");
	ep_strv_clear(&k);
	ep_strv_clear(&v);

	/* A CPU wheel: no CUDA keys; "OrderedDict" imported by name; the
	 * hermetic-CUDA builds' full redist version. */
	assert_bi("import collections\n\nbuild_info = collections."
	    "OrderedDict([('cpu_compiler', 'clang 18'), ('is_cuda_build', "
	    "False), ('is_rocm_build', False), ('is_tensorrt_build', False)])"
	    "\n", "cpu_compiler=clang 18;is_cuda_build=false;"
	    "is_rocm_build=false;is_tensorrt_build=false");
	assert_bi("from collections import OrderedDict\nbuild_info = "
	    "OrderedDict([('cuda_version', '12.5.1'), ('cudnn_version', '9')])",
	    "cuda_version=12.5.1;cudnn_version=9");
	/* An empty literal is a literal. */
	assert_bi("build_info = {}\n", "");
	assert_bi("build_info = collections.OrderedDict([])\n", "");
}

static void
test_build_info_plain_dict(void **state)
{
	struct ep_strv k = { 0 }, v = { 0 };

	(void)state;
	assert_bi(tf_plain, "cuda_version=10.1;cudnn_version=7;"
	    "nccl_version=2;tensorrt_version=6;cuda_compute_capabilities="
	    "sm_35,sm_37,sm_52,sm_60,sm_61,compute_70;is_rocm_build=false;"
	    "is_cuda_build=true");
	assert_int_equal(ep_fw_build_info_parse(&k, &v, tf_plain_win,
	    strlen(tf_plain_win)), 0);
	assert_int_equal(k.n, 10);
	assert_string_equal(val(&k, &v, "cpu_compiler"), "C:/Program Files "
	    "(x86)/Microsoft Visual Studio/2019/Community/VC/Tools/MSVC/"
	    "14.26.28801/bin/HostX64/x64/cl.exe");
	assert_string_equal(val(&k, &v, "msvcp_dll_names"),
	    "msvcp140.dll,msvcp140_1.dll");
	assert_string_equal(val(&k, &v, "cuda_version"), "64_101");
	ep_strv_clear(&k);
	ep_strv_clear(&v);
}

static void
test_build_info_syntax(void **state)
{
	(void)state;
	/* Double quotes, either kind inside the other, escapes. */
	assert_bi("build_info = {\"cuda_version\": \"12.2\", 'a': \"it's\", "
	    "'b': 'say \"x\"', 'c': 'it\\'s', 'd': \"q\\\"q\", 'e': 'a\\\\b', "
	    "'f': 'l1\\nl2\\tt'}", "cuda_version=12.2;a=it's;b=say \"x\";"
	    "c=it's;d=q\"q;e=a\\b;f=l1\nl2\tt");
	/* Comments and line breaks anywhere white space may go; a '#'
	 * inside a string is no comment. */
	assert_bi("build_info = collections.OrderedDict([  # generated\n"
	    "    ('cuda_version', '12.2'),  # the toolkit\n"
	    "    # ('cudnn_version', '7'),\n"
	    "    ('cuda_compute_capabilities', [\n"
	    "        'sm_70',  # Volta\n"
	    "        'compute_80',\n"
	    "    ]),\n"
	    "    ('tag', '#1'),\n"
	    "])\n", "cuda_version=12.2;cuda_compute_capabilities=sm_70,"
	    "compute_80;tag=#1");
	/* Trailing commas: in the dict, the OrderedDict's list, a pair's
	 * tuple, a value's list. */
	assert_bi("build_info = {'a': 'x', 'b': ['y', 'z',],}",
	    "a=x;b=y,z");
	assert_bi("build_info = collections.OrderedDict([('a', 'x'), "
	    "('b', 'y'),])", "a=x;b=y");
	assert_bi("build_info = collections.OrderedDict([('a', 'x',), "
	    "('b', 'y')])", "a=x;b=y");
	/* None, numbers, an empty list, a tuple for a list. */
	assert_bi("build_info = {'a': None, 'b': 12, 'c': -1.5, 'd': [], "
	    "'e': ('x', 'y')}", "a=;b=12;c=-1.5;d=;e=x,y");
	/* "==" is a comparison, not the assignment; "build_info_x" another
	 * name. */
	assert_bi("build_info_x = {'a': 'no'}\nbuild_info == {}\n"
	    "build_info = {'a': 'yes'}\n", "a=yes");
	/* CRLF line ends. */
	assert_bi("import collections\r\n\r\nbuild_info = collections."
	    "OrderedDict([\r\n  ('cuda_version', '11.8'),\r\n  "
	    "('cudnn_version', '8')])\r\n", "cuda_version=11.8;"
	    "cudnn_version=8");
	/* An annotation. */
	assert_bi("build_info: dict = {'a': 'x'}\n", "a=x");
	/* What follows the statement is other statements: not read. */
	assert_bi("build_info = {'a': 'x'}\nbuild_info.update(b='y')\n",
	    "a=x");
	assert_bi("build_info = {'a': 'x'}  # done\n", "a=x");
	assert_bi("build_info = {'a': 'x'}; other = 1\n", "a=x");
}

/* What is code, not a literal: never read, never run, nothing added. */
static void
test_build_info_code(void **state)
{
	(void)state;
	assert_bi("build_info = dict(cuda_version='12.2')\n", NULL);
	assert_bi("build_info = dict([('cuda_version', '12.2')])\n", NULL);
	assert_bi("build_info = get_build_info()\n", NULL);
	assert_bi("import os\nbuild_info = os.system('rm -rf ~')\n", NULL);
	assert_bi("build_info = collections.OrderedDict([('a', "
	    "os.system('id'))])\n", NULL);
	assert_bi("build_info = {'a': os.system('id')}\n", NULL);
	assert_bi("build_info = {'a': __import__('os').getcwd()}\n", NULL);
	assert_bi("build_info = {**other, 'a': 'x'}\n", NULL);
	assert_bi("build_info = {'a': 'x', **other}\n", NULL);
	assert_bi("build_info = {key: 'x'}\n", NULL);
	assert_bi("build_info = {'a': cuda_version}\n", NULL);
	assert_bi("build_info = {'a': f'{x}'}\n", NULL);
	assert_bi("build_info = {'a': ['x', ['y']]}\n", NULL);
	assert_bi("build_info = {'a': {'b': 'c'}}\n", NULL);
	assert_bi("build_info = {'a': 'x' + 'y'}\n", NULL);
	assert_bi("build_info = {'a': 'x'} | other\n", NULL);
	assert_bi("build_info = {'a': 'x'}.copy()\n", NULL);
	assert_bi("build_info = collections.OrderedDict([('a', 'x')]).copy()"
	    "\n", NULL);
	assert_bi("build_info = collections.OrderedDict([('a', 'x', 'y')])"
	    "\n", NULL);
	assert_bi("build_info = collections.OrderedDict([['a', 'x']])\n",
	    NULL);
	assert_bi("build_info = {'a' 'x'}\n", NULL);
	assert_bi("build_info = {'a': 'x' 'b': 'y'}\n", NULL);
	assert_bi("build_info = {'a': True_or_not}\n", NULL);
	assert_bi("build_info = {'a': Nonesuch}\n", NULL);
	assert_bi("build_info = \n", NULL);
	assert_bi("build_info\n", NULL);
	assert_bi("", NULL);
	assert_bi("no literal here\n", NULL);
}

/* Every cut of a real file before its closing parenthesis is refused. */
static void
test_build_info_truncated(void **state)
{
	struct ep_strv k = { 0 }, v = { 0 };
	size_t n = strlen(tf_ordered), close = n - 2;

	(void)state;
	assert_int_equal(tf_ordered[close], ')');
	for (size_t cut = 0; cut <= close; cut++) {
		seed(&k, &v);
		if (ep_fw_build_info_parse(&k, &v, tf_ordered, cut) == 0)
			fail_msg("read a file cut at %zu of %zu", cut, n);
		assert_int_equal(k.n, 1);
		assert_int_equal(v.n, 1);
		ep_strv_clear(&k);
		ep_strv_clear(&v);
	}
	seed(&k, &v);
	assert_int_equal(ep_fw_build_info_parse(&k, &v, tf_ordered, close + 1),
	    0);
	assert_int_equal(k.n, 8);
	ep_strv_clear(&k);
	ep_strv_clear(&v);
	/* Cut inside a string, a list, a tuple, a dict. */
	assert_bi("build_info = {'a': 'x", NULL);
	assert_bi("build_info = {'a': 'x\n', 'b': 'y'}", NULL);
	assert_bi("build_info = {'a': ['x', 'y'", NULL);
	assert_bi("build_info = OrderedDict([('a', 'x'", NULL);
	assert_bi("build_info = {'a': 'x',", NULL);
	assert_bi("build_info = {'a': ", NULL);
	assert_bi("build_info = {'a'", NULL);
	assert_bi("build_info = {", NULL);
	assert_bi("build_info = {'a': 'x\\", NULL);
}

/* Only a top-level statement assigns: a line of a docstring or another
 * string that starts with "build_info = ", a comment, an indented line, a
 * line inside brackets do not.  Reading the docstring's would give
 * values the module does not hold, or hide the real assignment behind
 * one that is no literal. */
static void
test_build_info_not_a_statement(void **state)
{
	(void)state;
	assert_bi("\"\"\"Auto-generated module providing information about "
	    "the build.\n"
	    "\n"
	    "build_info = {'cuda_version': '9.0'}\n"
	    "build_info = a dict of the build's facts\n"
	    "\"\"\"\n"
	    "build_info = {'cuda_version': '12.2'}\n", "cuda_version=12.2");
	assert_bi("'''Notes.\nbuild_info = {'a': 'doc'}\n'''\n"
	    "build_info = {'a': 'real'}\n", "a=real");
	/* A docstring that holds the other quote kind, and a quote escaped
	 * inside it, does not close it. */
	assert_bi("\"\"\"It's \\\"\"\" here.\nbuild_info = {'a': 'doc'}\n"
	    "''' \"\"\"\nbuild_info = {'a': 'real'}\n", "a=real");
	/* A one-line docstring, then the assignment. */
	assert_bi("\"\"\"build_info = {'a': 'doc'}\"\"\"\nbuild_info = "
	    "{'a': 'real'}\n", "a=real");
	/* Only in a docstring or a comment: there is none. */
	assert_bi("\"\"\"\nbuild_info = {'cuda_version': '9.0'}\n\"\"\"\n",
	    NULL);
	assert_bi("# build_info = {'cuda_version': '9.0'}\n", NULL);
	assert_bi("x = 1  # \"\"\"\nbuild_info = {'a': 'x'}\n", "a=x");
	/* A string on one line, a quote inside another kind. */
	assert_bi("s = \"'''\"\nbuild_info = {'a': 'x'}\n", "a=x");
	/* Indented (a function's local) or inside brackets. */
	assert_bi("def f():\n    build_info = {'a': 'local'}\n", NULL);
	assert_bi("x = dict(\nbuild_info = {'a': 'kw'})\n", NULL);
	assert_bi("x = [\n]\nbuild_info = {'a': 'x'}\n", "a=x");
	/* An unclosed docstring hides what follows. */
	assert_bi("\"\"\"\nbuild_info = {'a': 'x'}\n", NULL);
}

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
		cmocka_unit_test(test_build_info_ordered_dict),
		cmocka_unit_test(test_build_info_plain_dict),
		cmocka_unit_test(test_build_info_syntax),
		cmocka_unit_test(test_build_info_code),
		cmocka_unit_test(test_build_info_truncated),
		cmocka_unit_test(test_build_info_not_a_statement),
		cmocka_unit_test(test_py_assign_real),
		cmocka_unit_test(test_py_assign_forms),
		cmocka_unit_test(test_build_string),
		cmocka_unit_test(test_requires),
		cmocka_unit_test(test_requirement),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
