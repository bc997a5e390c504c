/*
 * b64.h: base64 (RFC 4648), one reader for every use.  Written in the
 * standard alphabet with padding.  Read in the alphabets and with the
 * padding the caller names, and nothing else: a byte outside them (white
 * space included), both alphabets in one string, padding that is wrong,
 * not at the end or not allowed, or bits after the last byte that are
 * not zero are refused, so that one byte string has one reading.  DSSE
 * envelopes (attest/) take either alphabet, padded or not, as DSSE
 * requires verifiers to; a wheel's RECORD (collect/libwheel.c) holds
 * URL-safe base64 without padding (PEP 376, PEP 427).
 */
#ifndef EP_B64_H
#define EP_B64_H

#include <stddef.h>

#include "errors.h"

/* What a reader accepts: the alphabets (at least one), and whether '='
 * padding may end the text (then it must be exactly what the data
 * needs). */
enum {
	EP_B64_STD = 1,		/* RFC 4648 section 4: "+/" */
	EP_B64_URL = 2,		/* section 5: "-_" */
	EP_B64_NOPAD = 4,	/* no padding at all */
};
#define EP_B64_DSSE	(EP_B64_STD | EP_B64_URL)
#define EP_B64_RECORD	(EP_B64_URL | EP_B64_NOPAD)

/* data as standard base64 with padding: a new NUL-terminated string. */
char *ep_b64_encode(const void *data, size_t n);

/* Decode the n bytes at s, read as how says (EP_B64_*), into *out (new,
 * NUL-terminated for convenience, *outlen bytes without it).  On a
 * string that is not such base64, *out NULL and EP_E_INPUT "WHAT: not
 * base64: ..." saying where. */
int ep_b64_decode_as(unsigned char **out, size_t *outlen, const char *s,
    size_t n, int how, const char *what, struct ep_err *err);

/* ep_b64_decode_as for DSSE (EP_B64_DSSE). */
int ep_b64_decode(unsigned char **out, size_t *outlen, const char *s,
    size_t n, const char *what, struct ep_err *err);

#endif
