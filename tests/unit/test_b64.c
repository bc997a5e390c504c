/*
 * test_b64.c: base64 (util/b64.c) as its two readers need it: RFC 4648's
 * vectors (section 10) written and read back, in the standard alphabet
 * padded and in the URL-safe one unpadded; DSSE's reading (either
 * alphabet, padded or not); a wheel RECORD's (URL-safe, no padding:
 * PEP 376, PEP 427); and what each must refuse, with the reason said.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b64.h"
#include "errors.h"

/* RFC 4648 section 10: input, standard base64 with padding. */
static const char *rfc4648[][2] = {
	{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" },
	{ "foo", "Zm9v" }, { "foob", "Zm9vYg==" },
	{ "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
};
#define NVEC (sizeof rfc4648 / sizeof rfc4648[0])

static void
decodes(int how, const char *in, const char *want, size_t wn)
{
	unsigned char *out;
	size_t n;
	struct ep_err err = { 0 };

	if (ep_b64_decode_as(&out, &n, in, strlen(in), how, "t", &err) < 0)
		fail_msg("'%s' (how %d): %s", in, how, err.msg);
	assert_int_equal(n, wn);
	assert_memory_equal(out, want, n);
	assert_int_equal(out[n], '\0');
	free(out);
}

static void
refused(int how, const char *in, const char *why)
{
	unsigned char *out = (unsigned char *)"x";
	size_t n = 1;
	struct ep_err err = { 0 };

	assert_int_equal(ep_b64_decode_as(&out, &n, in, strlen(in), how, "t",
	    &err), -1);
	assert_null(out);
	assert_int_equal(n, 0);
	assert_int_equal(err.kind, EP_E_INPUT);
	if (strncmp(err.msg, "t: not base64: ", 15) != 0 ||
	    strstr(err.msg, why) == NULL)
		fail_msg("'%s' (how %d): %s (wanted %s)", in, how, err.msg,
		    why);
}

/* The vector without its padding, as a RECORD writes it. */
static char *
unpadded(const char *s)
{
	size_t n = strlen(s);

	while (n > 0 && s[n - 1] == '=')
		n--;
	return strndup(s, n);
}

static void
test_rfc4648_vectors(void **state)
{
	char *s;

	(void)state;
	for (size_t i = 0; i < NVEC; i++) {
		const char *in = rfc4648[i][0], *b = rfc4648[i][1];

		s = ep_b64_encode(in, strlen(in));
		assert_string_equal(s, b);
		free(s);
		decodes(EP_B64_DSSE, b, in, strlen(in));
		decodes(EP_B64_STD, b, in, strlen(in));
		decodes(EP_B64_URL, b, in, strlen(in));
		s = unpadded(b);
		decodes(EP_B64_DSSE, s, in, strlen(in));
		decodes(EP_B64_RECORD, s, in, strlen(in));
		if (strcmp(s, b) != 0)
			refused(EP_B64_RECORD, b, "where none is allowed");
		free(s);
	}
}

/* Values 62 and 63, where the alphabets differ (the DSSE vector's
 * payload "-_-_Pj8=" is fb ff bf 3e 3f). */
static void
test_alphabets(void **state)
{
	static const char b[] = "\xfb\xff\xbf\x3e\x3f";
	char *s;

	(void)state;
	s = ep_b64_encode(b, 5);
	assert_string_equal(s, "+/+/Pj8=");
	free(s);
	decodes(EP_B64_DSSE, "+/+/Pj8=", b, 5);
	decodes(EP_B64_DSSE, "-_-_Pj8=", b, 5);
	decodes(EP_B64_DSSE, "-_-_Pj8", b, 5);
	decodes(EP_B64_STD, "+/+/Pj8", b, 5);
	decodes(EP_B64_RECORD, "-_-_Pj8", b, 5);
	refused(EP_B64_DSSE, "+/-_", "mixed");
	refused(EP_B64_DSSE, "-_+/", "mixed");
	refused(EP_B64_STD, "-_-_Pj8=", "byte 0 (0x2d) is outside the "
	    "standard alphabet");
	refused(EP_B64_RECORD, "+/+/Pj8", "byte 0 (0x2b) is outside the "
	    "URL-safe alphabet");
	refused(EP_B64_RECORD, "-_-_Pj8=", "where none is allowed");
	refused(EP_B64_DSSE, "Zm9v\xc3\xa9", "0xc3) is outside both "
	    "alphabets");
	/* ep_b64_decode is DSSE's reading. */
	{
		unsigned char *out;
		size_t n;

		assert_int_equal(ep_b64_decode(&out, &n, "-_-_Pj8", 7, "t",
		    NULL), 0);
		assert_memory_equal(out, b, 5);
		free(out);
		assert_int_equal(ep_b64_decode(&out, &n, "+/-_", 4, "t",
		    NULL), -1);
	}
}

/* What no reading takes: one byte string has one text. */
static void
test_refused(void **state)
{
	static const int hows[] = { EP_B64_DSSE, EP_B64_RECORD };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		int how = hows[i];

		refused(how, "Zm9v YmFy", "byte 4 (0x20)");
		refused(how, "Zm9vYmFy\n", "byte 8 (0x0a)");
		refused(how, "Zm=9", "padding at byte 2");
		refused(how, "Zm9vY", "one too many");
		refused(how, "Zh", "not zero");
		refused(how, "Zm9", "not zero");
	}
	refused(EP_B64_DSSE, "Zg=", "padded to 3");
	refused(EP_B64_DSSE, "Zg===", "3 padding");
	refused(EP_B64_DSSE, "Zm8==", "padded to 5");
	refused(EP_B64_DSSE, "Zh==", "not zero");
	refused(EP_B64_DSSE, "Zm9=", "not zero");
	refused(EP_B64_DSSE, "Zm9vYmFy=", "padded to 9");
	refused(EP_B64_RECORD, "Zg==", "where none is allowed");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc4648_vectors),
		cmocka_unit_test(test_alphabets),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
