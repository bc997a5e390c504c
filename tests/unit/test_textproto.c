/*
 * test_textproto.c: the protobuf text format reader (collect/textproto.h)
 * against the specification's grammar, case by case: each input's tree,
 * written compactly (name=KIND:value, name{...}; KIND s string, i
 * integer, f float, e identifier; a byte outside printable ASCII as
 * \xHH), or the one error it gives.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textproto.h"
#include "xalloc.h"

static void
render(FILE *f, const struct ep_tp_msg *m)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct ep_tp_field *x = &m->v[i];

		if (i > 0)
			fputc(' ', f);
		fputs(x->name, f);
		if (x->listed)
			fputc('*', f);
		if (x->kind == EP_TP_MSG) {
			fputc('{', f);
			render(f, x->msg);
			fputc('}', f);
			continue;
		}
		fprintf(f, "=%c:", "msife"[x->kind]);
		for (size_t j = 0; j < x->len; j++) {
			unsigned char c = (unsigned char)x->value[j];

			if (c >= 0x20 && c < 0x7f)
				fputc(c, f);
			else
				fprintf(f, "\\x%02X", c);
		}
	}
}

/* want: the rendered tree, or "!" and the error message. */
static void
is(const char *text, const char *want)
{
	struct ep_tp_msg *m = NULL;
	struct ep_err err = { 0 };
	char *got = NULL;
	size_t len;
	FILE *f;

	if (ep_textproto_parse(&m, text, strlen(text), "t.pbtxt", &err) < 0) {
		assert_null(m);
		assert_int_equal(err.kind, EP_E_INPUT);
		got = xasprintf("!%s", err.msg);
	} else {
		f = open_memstream(&got, &len);
		render(f, m);
		fclose(f);
	}
	if (strcmp(got, want) != 0)
		fail_msg("input <%s>\n  want <%s>\n  got  <%s>", text, want,
		    got);
	free(got);
	ep_textproto_free(m);
}

static void
test_scalars(void **state)
{
	(void)state;
	is("", "");
	is("  # only a comment\n", "");
	is("a: 1", "a=i:1");
	is("a: -1 b: - 2 c: -\n# between\n3", "a=i:-1 b=i:-2 c=i:-3");
	is("a: 0x1F b: 0XfF c: 017 d: 0 e: -0", "a=i:31 b=i:255 c=i:15 "
	    "d=i:0 e=i:0");
	is("a: 18446744073709551615 b: -9223372036854775808",
	    "a=i:18446744073709551615 b=i:-9223372036854775808");
	is("a: 1.5 b: .5 c: 5. d: 1e5 e: 1E-5 f: 2.5e+3f g: 1f h: 0F",
	    "a=f:1.5 b=f:.5 c=f:5. d=f:1e5 e=f:1E-5 f=f:2.5e+3f g=f:1f "
	    "h=f:0F");
	is("a: -1.5 b: -inf c: -Infinity d: nan e: -NaN",
	    "a=f:-1.5 b=e:-inf c=e:-Infinity d=e:nan e=e:-NaN");
	is("a: KIND_GPU b: true c: False d: t", "a=e:KIND_GPU b=e:true "
	    "c=e:False d=e:t");
	is("a: 1; b: 2, c: 3", "a=i:1 b=i:2 c=i:3");
}

static void
test_strings(void **state)
{
	(void)state;
	is("s: \"x\" t: 'y'", "s=s:x t=s:y");
	is("s: \"a\" 'b'\n \"c\"", "s=s:abc");
	is("s: \"\\a\\b\\f\\n\\r\\t\\v\\?\\\\\\'\\\"\"",
	    "s=s:\\x07\\x08\\x0C\\x0A\\x0D\\x09\\x0B?\\'\"");
	is("s: '\\0\\12\\101\\1011'", "s=s:\\x00\\x0AAA1");
	is("s: '\\x41\\x4g\\xff'", "s=s:A\\x04g\\xFF");
	is("s: '\\u00e9\\U0001F600'", "s=s:\\xC3\\xA9\\xF0\\x9F\\x98\\x80");
	is("s: \"it's\" t: 'say \"hi\"'", "s=s:it's t=s:say \"hi\"");
	is("s: \"caf\xc3\xa9\"", "s=s:caf\\xC3\\xA9");
	is("s: \"# not a comment\"", "s=s:# not a comment");
}

static void
test_messages(void **state)
{
	(void)state;
	is("m { a: 1 }", "m{a=i:1}");
	is("m: { a: 1 }", "m{a=i:1}");
	is("m < a: 1 > n: < >", "m{a=i:1} n{}");
	is("m { n { o: 'x' } }", "m{n{o=s:x}}");
	is("m {} m {a: 2}", "m{} m{a=i:2}");
	is("m [ { a: 1 }, < a: 2 > ]", "m*{a=i:1} m*{a=i:2}");
	is("m: [ {a: 1} ]", "m*{a=i:1}");
	is("f: [1, 2, 3] f: 4", "f*=i:1 f*=i:2 f*=i:3 f=i:4");
	is("f: [] g []", "");
	is("f: ['a', \"b\" 'c']", "f*=s:a f*=s:bc");
	is("m { a: 1; b: 2, };", "m{a=i:1 b=i:2}");
}

static void
test_refused(void **state)
{
	(void)state;
	is("a 1", "!t.pbtxt:1: field 'a': expected ':' or '{'");
	is("f [1, 2]", "!t.pbtxt:1: field 'f': a list of values needs ':' "
	    "after the name");
	is("m {\n a: 1\n", "!t.pbtxt:1: the message opened here is not "
	    "closed with '}'");
	is("m < a: 1 }", "!t.pbtxt:1: expected a field name");
	is("}", "!t.pbtxt:1: expected a field name");
	is("a: 10bar", "!t.pbtxt:1: a malformed number (a number may not run "
	    "into a letter or another number)");
	is("a: 1.2.3", "!t.pbtxt:1: a malformed number (a number may not run "
	    "into a letter or another number)");
	is("a: 08", "!t.pbtxt:1: a malformed number (a number may not run "
	    "into a letter or another number)");
	is("a: 0x", "!t.pbtxt:1: a malformed number (a number may not run "
	    "into a letter or another number)");
	is("a: 01.5", "!t.pbtxt:1: a malformed number (a number may not run "
	    "into a letter or another number)");
	is("a: 1e", "!t.pbtxt:1: a malformed number (a number may not run "
	    "into a letter or another number)");
	is("a: 18446744073709551616", "!t.pbtxt:1: an integer beyond 64 "
	    "bits");
	is("a: -9223372036854775809", "!t.pbtxt:1: an integer beyond 64 "
	    "bits");
	is("a: - foo", "!t.pbtxt:1: '-' not before a number, inf or nan");
	is("a:\n\n'x\n'", "!t.pbtxt:3: a string is not closed on its line");
	is("a: 'x", "!t.pbtxt:1: a string is not closed on its line");
	is("a: '\\q'", "!t.pbtxt:1: an unknown escape in a string");
	is("a: '\\400'", "!t.pbtxt:1: an octal escape beyond \\377");
	is("a: '\\xZ'", "!t.pbtxt:1: \\x without a hex digit");
	is("a: '\\u12'", "!t.pbtxt:1: \\u needs 4 hex digits");
	is("a: '\\U0011FFFF'", "!t.pbtxt:1: a \\u or \\U escape that is not "
	    "a Unicode scalar value");
	is("a: '\\uD800'", "!t.pbtxt:1: a \\u or \\U escape that is not a "
	    "Unicode scalar value");
	is("[ext.field]: 1", "!t.pbtxt:1: extension and Any field names "
	    "([...]) are not read");
	is("a: 1 ;;", "!t.pbtxt:1: expected a field name");
	is("m [ {a: 1}, 2 ]", "!t.pbtxt:1: a list of messages holds "
	    "something else");
	is("f: [1, 2", "!t.pbtxt:1: expected ',' or ']' in a list");
	is("f: [1,]", "!t.pbtxt:1: expected a value");
	is("f: [1 2]", "!t.pbtxt:1: expected ',' or ']' in a list");
	is("a: @", "!t.pbtxt:1: an unexpected character");
	is("a: {", "!t.pbtxt:1: the message opened here is not closed "
	    "with '}'");
	is("a: 'caf\xc3'", "!t.pbtxt:1: invalid UTF-8");
}

static void
test_nul_and_depth(void **state)
{
	struct ep_tp_msg *m = NULL;
	struct ep_err err = { 0 };
	char *deep, *p;

	(void)state;
	assert_int_equal(ep_textproto_parse(&m, "a: 1\n\0", 6, "n", &err),
	    -1);
	assert_string_equal(err.msg, "n:2: a NUL byte");

	/* 100 levels are read, 101 are not. */
	for (int levels = 100; levels <= 101; levels++) {
		p = deep = xmalloc(4 * (size_t)levels + 8);
		for (int i = 0; i < levels; i++)
			p += sprintf(p, "m {");
		p += sprintf(p, "a: 1");
		for (int i = 0; i < levels; i++)
			*p++ = '}';
		*p = '\0';
		memset(&err, 0, sizeof err);
		assert_int_equal(ep_textproto_parse(&m, deep, strlen(deep),
		    "d", &err), levels == 100 ? 0 : -1);
		if (levels == 101)
			assert_string_equal(err.msg, "d:1: messages nested "
			    "more than 100 deep");
		ep_textproto_free(m);
		m = NULL;
		free(deep);
	}

	/* Lines are counted through comments and strings. */
	is("# one\n# two\nm {\n  a: 'x' # three\n  b: 1.2.3\n}",
	    "!t.pbtxt:5: a malformed number (a number may not run into a "
	    "letter or another number)");
}

static void
test_get(void **state)
{
	struct ep_tp_msg *m = NULL;
	struct ep_err err = { 0 };
	const char *t = "a: 1 b: 'x' a: 2";

	(void)state;
	assert_int_equal(ep_textproto_parse(&m, t, strlen(t), "g", &err), 0);
	assert_string_equal(ep_textproto_get(m, "a")->value, "1");
	assert_int_equal(ep_textproto_get(m, "b")->line, 1);
	assert_null(ep_textproto_get(m, "c"));
	assert_null(ep_textproto_get(NULL, "a"));
	ep_textproto_free(m);
	ep_textproto_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_nul_and_depth),
		cmocka_unit_test(test_get),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
