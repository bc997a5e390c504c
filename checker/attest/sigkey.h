/*
 * sigkey.h: Ed25519 keys for signing and verifying attestations, read
 * from PEM files (PKCS#8 private keys, SubjectPublicKeyInfo public keys,
 * as `openssl genpkey -algorithm ed25519` and `openssl pkey -pubout`
 * write them), through OpenSSL 3's EVP interface.
 *
 * A key's bytes never leave this file: no message quotes them, and the
 * text read is wiped before it is freed.  A key is named in messages by
 * its file and its keyid: the lowercase hex SHA-256 of its DER
 * SubjectPublicKeyInfo (`openssl pkey -pubin -in PUB.pem -outform DER |
 * sha256sum`), which DSSE envelopes carry as a hint.
 */
#ifndef EP_SIGKEY_H
#define EP_SIGKEY_H

#include <stddef.h>

#include "util.h"

#define EP_ED25519_SIG	64	/* bytes of an Ed25519 signature */
#define EP_SIGKEY_MAX	(64u << 10)	/* a PEM file larger is no key */

struct ep_sigkey;

/* The private key in the PEM file at path, for signing.  Refused with
 * EP_E_INPUT and one line naming path: a file that group or others may
 * read or write (mode & 077, as ssh refuses one; the message gives the
 * mode and the chmod), one that is not a regular file, not PEM, a public
 * key, an encrypted key (no passphrase is ever asked for), or a key of
 * another type than Ed25519 (named: RSA, EC, ED448, ...).  A file that
 * cannot be opened or read is EP_E_INPUT too: the user named it. */
int ep_sigkey_load_private(struct ep_sigkey **out, const char *path,
    struct ep_err *err);

/* The public key in the PEM file at path, for verifying: the same
 * refusals, less the mode (a public key is public), and a private key is
 * refused ("give the public key: openssl pkey -in KEY -pubout"): a
 * deploy job has no business holding the signing key. */
int ep_sigkey_load_public(struct ep_sigkey **out, const char *path,
    struct ep_err *err);

/* The same from PEM text in memory (name for messages; private: 1 for a
 * private key, 0 for a public one), for the tests and the fuzz target. */
int ep_sigkey_from_pem(struct ep_sigkey **out, const char *pem, size_t len,
    const char *name, int private, struct ep_err *err);

void ep_sigkey_free(struct ep_sigkey *k);	/* accepts NULL */

/* The keyid: 64 lowercase hex digits, borrowed from k. */
const char *ep_sigkey_id(const struct ep_sigkey *k);

/* The file (or name) k was read from, borrowed. */
const char *ep_sigkey_name(const struct ep_sigkey *k);

/* PureEdDSA over the n bytes at msg with a private key: sig gets
 * EP_ED25519_SIG bytes (deterministic: RFC 8032).  EP_E_IO if OpenSSL
 * fails, EP_E_INPUT for a public key. */
int ep_sigkey_sign(unsigned char sig[EP_ED25519_SIG],
    const struct ep_sigkey *k, const void *msg, size_t n,
    struct ep_err *err);

/* 1 when sig (siglen bytes) is k's signature over msg, else 0 (a
 * signature of another length included). */
int ep_sigkey_verify(const struct ep_sigkey *k, const unsigned char *sig,
    size_t siglen, const void *msg, size_t n);

#endif
