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

#include "errors.h"

#define EP_ED25519_SIG	64	/* bytes of an Ed25519 signature */
#define EP_SIGKEY_MAX	(64u << 10)	/* a PEM file larger is no key */

struct ep_sigkey;

/*
 * A private key for signing is checked early and read late: a command
 * checks where the key comes from before its work, without reading a
 * byte of the key (ep_sigkey_src_path, ep_sigkey_src_fd), and reads it
 * only once the judged environment's code is done (ep_sigkey_src_read).
 * From the check on, the key's file is protected from every output
 * (outfile.h's ep_out_protect): no report, manifest or envelope replaces
 * it, by whatever name.
 */
struct ep_sigkey_src {
	char *name;		/* for messages: the path, "standard input",
				   "descriptor N" */
	char *path;		/* the file opened when read; NULL: fd */
	int fd;			/* the descriptor read; -1: path */
};

/* A key file at path: a regular file (ep_open_regular's rule) that can
 * be opened, private (mode & 077 == 0, as ssh requires; the message
 * gives the mode and the chmod), whose first line (its PEM armour, no
 * key byte) is not that of a public or an encrypted key.  EP_E_INPUT
 * naming path otherwise.  Nothing else is read. */
int ep_sigkey_src_path(struct ep_sigkey_src *src, const char *path,
    struct ep_err *err);

/* A key on descriptor fd (0: standard input, named so): open for
 * reading, not a directory or a terminal; a regular file behind it is
 * held to the path's rules.  fd is made close-on-exec, so that no child
 * inherits it; standard input is moved to a new descriptor and /dev/null
 * put in its place.  EP_E_INPUT naming the descriptor otherwise. */
int ep_sigkey_src_fd(struct ep_sigkey_src *src, int fd, struct ep_err *err);

/* Read the key from src, now: the file opened again and held to the
 * same rules (it may have changed since), or the descriptor read to its
 * end and closed; then parsed (ep_sigkey_load_private's refusals) and
 * the text wiped.  Once only. */
int ep_sigkey_src_read(struct ep_sigkey **out, struct ep_sigkey_src *src,
    struct ep_err *err);

/* ep_sigkey_src_read once no process of ours is left: every child, and
 * every orphan they left us, killed and reaped first (reap.h), so that
 * nothing of the judged environment runs while the key is in memory.
 * EP_E_IO, the key not read, when one cannot be reaped; then
 * ep_sigkey_src_read's refusals.  What every signing step calls. */
int ep_sigkey_src_read_late(struct ep_sigkey **out, struct ep_sigkey_src *src,
    struct ep_err *err);

/* Close and free what src holds; accepts one never filled (zeroed, or
 * fd -1). */
void ep_sigkey_src_clear(struct ep_sigkey_src *src);

/* The private key in the PEM file at path, for signing, checked and read
 * at once (ep_sigkey_src_path, then ep_sigkey_src_read).  Refused with
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
