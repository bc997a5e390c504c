/*
 * b64.c: base64 (RFC 4648 sections 4 and 5) for DSSE envelopes.  Our
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

/* The value of c in either alphabet, or -1; *alpha gets 1 for a
 * character of the standard alphabet only, 2 of the URL-safe one only. */
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
		*alpha = 1;
		return c == '+' ? 62 : 63;
	}
	if (c == '-' || c == '_') {
		*alpha = 2;
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

int
ep_b64_decode(unsigned char **out, size_t *outlen, const char *s, size_t n,
    const char *what, struct ep_err *err)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t data = n, pad = 0, i, o = 0;
	unsigned char *buf;
	unsigned acc = 0;
	int alpha, seen = 0, bits = 0, v;

	*out = NULL;
	*outlen = 0;
	while (data > 0 && u[data - 1] == '=') {
		data--;
		pad++;
	}
	/* What the bytes are first, then how many there are. */
	for (i = 0; i < data; i++) {
		if (b64_value(u[i], &alpha) < 0) {
			if (u[i] == '=')
				return not_b64(what, err, "padding at byte "
				    "%zu, before the end", i);
			return not_b64(what, err, "byte %zu (0x%02x) is "
			    "outside both alphabets", i, u[i]);
		}
		if (alpha != 0) {
			if (seen != 0 && seen != alpha)
				return not_b64(what, err, "the standard and "
				    "the URL-safe alphabets mixed (byte %zu, "
				    "0x%02x)", i, u[i]);
			seen = alpha;
		}
	}
	if (pad > 2)
		return not_b64(what, err, "%zu padding characters", pad);
	if (pad > 0 && n % 4 != 0)
		return not_b64(what, err, "padded to %zu characters, not a "
		    "multiple of 4", n);
	if (data % 4 == 1)
		return not_b64(what, err, "%zu characters cannot be a whole "
		    "string (one too many)", data);
	if (pad > 0 && (4 - data % 4) % 4 != pad)
		return not_b64(what, err, "%zu padding characters where the "
		    "data needs %zu", pad, (4 - data % 4) % 4);
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
