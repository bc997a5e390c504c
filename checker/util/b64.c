/*
 * b64.c: base64 (RFC 4648 sections 4 and 5), for DSSE envelopes and for
 * the hashes of a wheel's RECORD (b64.h says what each accepts).  Our
 * own few lines rather than OpenSSL's EVP_DecodeBlock, which skips white
 * space, knows one alphabet and pads its output with zero bytes.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "b64.h"
#include "errors.h"
#include "xalloc.h"

static const char std_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *
ep_b64_encode(const void *data, size_t n)
{
	const unsigned char *d = data;
	char *out = xmalloc((n + 2) / 3 * 4 + 1), *o = out;
	size_t i;

	for (i = 0; i + 3 <= n; i += 3) {
		unsigned v = (unsigned)d[i] << 16 | (unsigned)d[i + 1] << 8 |
		    d[i + 2];

		*o++ = std_alphabet[v >> 18 & 63];
		*o++ = std_alphabet[v >> 12 & 63];
		*o++ = std_alphabet[v >> 6 & 63];
		*o++ = std_alphabet[v & 63];
	}
	if (n - i == 1) {
		unsigned v = (unsigned)d[i] << 16;

		*o++ = std_alphabet[v >> 18 & 63];
		*o++ = std_alphabet[v >> 12 & 63];
		*o++ = '=';
		*o++ = '=';
	} else if (n - i == 2) {
		unsigned v = (unsigned)d[i] << 16 | (unsigned)d[i + 1] << 8;

		*o++ = std_alphabet[v >> 18 & 63];
		*o++ = std_alphabet[v >> 12 & 63];
		*o++ = std_alphabet[v >> 6 & 63];
		*o++ = '=';
	}
	*o = '\0';
	return out;
}

/* The value of c in either alphabet, or -1; *alpha gets EP_B64_STD for a
 * character of the standard alphabet only, EP_B64_URL of the URL-safe
 * one only, 0 for one of both. */
static int
b64_value(unsigned char c, int *alpha)
{
	*alpha = 0;
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '/') {
		*alpha = EP_B64_STD;
		return c == '+' ? 62 : 63;
	}
	if (c == '-' || c == '_') {
		*alpha = EP_B64_URL;
		return c == '-' ? 62 : 63;
	}
	return -1;
}

static int not_b64(const char *, struct ep_err *, const char *, ...)
    __attribute__((format(printf, 3, 4)));

static int
not_b64(const char *what, struct ep_err *err, const char *fmt, ...)
{
	va_list ap;
	char *why;

	va_start(ap, fmt);
	why = xvasprintf(fmt, ap);
	va_end(ap);
	ep_err_set(err, EP_E_INPUT, "%s: not base64: %s", what, why);
	free(why);
	return -1;
}

static const char *
alphabet_name(int how)
{
	if ((how & EP_B64_DSSE) == EP_B64_DSSE)
		return "both alphabets";
	return how & EP_B64_URL ? "the URL-safe alphabet" :
	    "the standard alphabet";
}

/* What the bytes of u are, then how many there are: 0 when the n bytes
 * at u are base64 as how allows, *data the count before the padding. */
static int
b64_check(size_t *data, const unsigned char *u, size_t n, int how,
    const char *what, struct ep_err *err)
{
	size_t d = n, pad = 0, i;
	int alpha, seen = 0;

	while (d > 0 && u[d - 1] == '=') {
		d--;
		pad++;
	}
	for (i = 0; i < d; i++) {
		if (b64_value(u[i], &alpha) < 0 ||
		    (alpha != 0 && !(how & alpha))) {
			if (u[i] == '=')
				return not_b64(what, err, "padding at byte "
				    "%zu, before the end", i);
			return not_b64(what, err, "byte %zu (0x%02x) is "
			    "outside %s", i, u[i], alphabet_name(how));
		}
		if (alpha != 0) {
			if (seen != 0 && seen != alpha)
				return not_b64(what, err, "the standard and "
				    "the URL-safe alphabets mixed (byte %zu, "
				    "0x%02x)", i, u[i]);
			seen = alpha;
		}
	}
	if (pad > 0 && (how & EP_B64_NOPAD))
		return not_b64(what, err, "padding (byte %zu) where none is "
		    "allowed", d);
	if (pad > 2)
		return not_b64(what, err, "%zu padding characters", pad);
	if (pad > 0 && n % 4 != 0)
		return not_b64(what, err, "padded to %zu characters, not a "
		    "multiple of 4", n);
	if (d % 4 == 1)
		return not_b64(what, err, "%zu characters cannot be a whole "
		    "string (one too many)", d);
	if (pad > 0 && (4 - d % 4) % 4 != pad)
		return not_b64(what, err, "%zu padding characters where the "
		    "data needs %zu", pad, (4 - d % 4) % 4);
	*data = d;
	return 0;
}

int
ep_b64_decode_as(unsigned char **out, size_t *outlen, const char *s,
    size_t n, int how, const char *what, struct ep_err *err)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t data = 0, i, o = 0;
	unsigned char *buf;
	unsigned acc = 0;
	int alpha, bits = 0, v;

	*out = NULL;
	*outlen = 0;
	if (b64_check(&data, u, n, how, what, err) < 0)
		return -1;
	buf = xmalloc(data / 4 * 3 + 3);
	for (i = 0; i < data; i++) {
		v = b64_value(u[i], &alpha);
		acc = (acc << 6 | (unsigned)v) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf[o++] = (unsigned char)(acc >> bits & 0xff);
		}
	}
	/* Left over: 0, 2 or 4 bits, which an encoder leaves zero. */
	if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) {
		free(buf);
		return not_b64(what, err, "the bits after the last byte are "
		    "not zero (at byte %zu)", data - 1);
	}
	buf[o] = '\0';
	*out = buf;
	*outlen = o;
	return 0;
}

int
ep_b64_decode(unsigned char **out, size_t *outlen, const char *s, size_t n,
    const char *what, struct ep_err *err)
{
	return ep_b64_decode_as(out, outlen, s, n, EP_B64_DSSE, what, err);
}
