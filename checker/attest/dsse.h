/*
 * dsse.h: DSSE envelopes (secure-systems-lab/dsse, protocol.md and
 * envelope.md, v1.0.0), one Ed25519 signature written, any number read.
 *
 *   PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
 *
 * with LEN the byte length in ASCII decimal, no leading zeros; the
 * signature is over PAE, never over the payload alone, so that a payload
 * cannot be replayed under another type.  An envelope is
 * {"payload": b64(body), "payloadType": type, "signatures": [{"keyid":
 * ..., "sig": b64(sig)}]}.  Reading follows protocol.md's order: decode,
 * verify a signature over the PAE, then reject an unsupported payload
 * type, and only then may the caller parse the body.
 */
#ifndef EP_DSSE_H
#define EP_DSSE_H

#include <stddef.h>

#include "sigkey.h"
#include "errors.h"

#define EP_DSSE_INTOTO	"application/vnd.in-toto+json"

/* An envelope larger than this, or with more signatures, is refused
 * before anything is verified. */
#define EP_DSSE_MAX	(64u << 20)
#define EP_DSSE_SIGS_MAX	64

/* PAE(type, body): a new buffer of *len bytes (NUL-terminated besides). */
unsigned char *ep_dsse_pae(size_t *len, const char *type, size_t typelen,
    const void *body, size_t n);

/* Sign body (n bytes) of type with key into an envelope: JSON with sorted
 * keys, a two-space indent and a trailing newline, base64 in the standard
 * alphabet with padding, keyid always set.  *out is new. */
int ep_dsse_sign(char **out, const char *type, const void *body, size_t n,
    const struct ep_sigkey *key, struct ep_err *err);

/* Open the envelope text (n bytes): a signature must hold under one of
 * keys (threshold one; the keyid is a hint, never trusted: every
 * signature is tried with every key) and the payload type must be type.
 * *body gets the payload (new, NUL-terminated, *len bytes) and *which the
 * index of the key that held.  Fails with EP_E_INPUT for an envelope
 * that is malformed (not JSON, a field missing or of the wrong type, no
 * signature, base64 that is not, too large) or of another payload type,
 * and EP_E_DENIED when no signature holds. */
int ep_dsse_open(unsigned char **body, size_t *len, size_t *which,
    const char *text, size_t n, const char *type,
    struct ep_sigkey *const *keys, size_t nkeys, struct ep_err *err);

#endif
