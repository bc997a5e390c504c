/*
 * b64.h: base64 as DSSE envelopes carry it (RFC 4648).  Written in the
 * standard alphabet with padding; read in either alphabet, standard or
 * URL-safe, padded or not, as DSSE requires verifiers to, and nothing
 * else: a byte outside the alphabet (white space included), both
 * alphabets in one string, padding that is wrong or not at the end, or
 * bits after the last byte that are not zero are refused, so that one
 * byte string has one reading.
 */
#ifndef EP_B64_H
#define EP_B64_H

#include <stddef.h>

#include "errors.h"

/* data as standard base64 with padding: a new NUL-terminated string. */
char *ep_b64_encode(const void *data, size_t n);

/* Decode the n bytes at s into *out (new, NUL-terminated for
 * convenience, *outlen bytes without it).  On a string that is not
 * base64, EP_E_INPUT "WHAT: not base64: ..." saying where. */
int ep_b64_decode(unsigned char **out, size_t *outlen, const char *s,
    size_t n, const char *what, struct ep_err *err);

#endif
