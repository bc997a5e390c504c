/*
 * test_framework.c: TensorFlow's build_info.py reader (collect/framework.h)
 * on the formats its generators write (as shared/research/frameworks.md
 * quotes them) and on what they do not write.  The other readers are
 * test_framework_py.c's; the checks on what they read test_checks_fw.c's.
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
