/*
 * attestopt.h: the attestation options check and fleet share (like
 * storeopt.h's store options): --attest FILE with the key to sign it
 * with (--sign-key KEY.pem, --sign-key - for standard input, or
 * --sign-key-fd N), and --statement FILE, the same statement unsigned,
 * for `envparity attest` to sign in a later step.
 *
 * Secrets enter late and leave early: before the work, only where the
 * key comes from is checked (a private regular file, or a descriptor
 * open for reading), without reading a byte of it, and its file is
 * protected from every output; after the work, once every process the
 * judged environment started is gone, the key is read, signs, and is
 * wiped, before anything is written.
 */
#ifndef EP_ATTESTOPT_H
#define EP_ATTESTOPT_H

#include "attest.h"
#include "sigkey.h"
#include "errors.h"

struct ep_attestopt {
	const char *file;		/* --attest */
	const char *statement;		/* --statement */
	const char *key_path;		/* --sign-key: a path, or "-" */
	const char *key_fd;		/* --sign-key-fd, as given */
	/* filled by ep_attestopt_prepare and ep_attestopt_sign: */
	int have_src;
	struct ep_sigkey_src src;
	char *statement_text;		/* the statement, as signed */
	size_t statement_len;
	char *envelope;
};

/* The usage error of an option given without its pair (--attest without
 * a key, a key without --attest, both --sign-key and --sign-key-fd), or
 * NULL. */
const char *ep_attestopt_unpaired(const struct ep_attestopt *o);

/* Where the key comes from, checked as ep_attestopt_unpaired's pairing
 * allows: ep_sigkey_src_path (--sign-key PATH), ep_sigkey_src_fd
 * (--sign-key -, --sign-key-fd N), nothing read.  Sets o->have_src.
 * EP_E_INPUT for N that is no descriptor number, and sigkey.h's
 * refusals.  What `envparity attest` shares with the others. */
int ep_attestopt_key_check(struct ep_attestopt *o, struct ep_err *err);

/* Before the work, and before the output paths are checked (the key's
 * file is then protected from them): EP_E_INPUT for an option without
 * its pair, then ep_attestopt_key_check.  Nothing to do when no
 * attestation was asked for. */
int ep_attestopt_prepare(struct ep_attestopt *o, struct ep_err *err);

/* After the work, before anything is written: the statement of in, and
 * for --attest, once no process of ours is left (reap.h: EP_E_IO when one
 * will not end), the key read (sigkey.h's refusals, EP_E_INPUT), the
 * statement signed into an envelope, and the key wiped.  Kept in o for
 * ep_attestopt_write. */
int ep_attestopt_sign(struct ep_attestopt *o, const struct ep_attest_in *in,
    struct ep_err *err);

/* The signing step alone, for a statement already made (body, n bytes:
 * `envparity attest`): no process of ours left (reap.h), the key read
 * from the source ep_attestopt_key_check checked, body signed into
 * o->envelope, the key wiped.  As ep_attestopt_sign fails. */
int ep_attestopt_sign_text(struct ep_attestopt *o, const void *body,
    size_t n, struct ep_err *err);

/* Write what ep_attestopt_sign made: the statement to --statement (with
 * a newline after it), the envelope to --attest, each under outfile.h's
 * rule.  EP_E_IO when one cannot be written; the file is then as it
 * was. */
int ep_attestopt_write(const struct ep_attestopt *o, struct ep_err *err);

/* Free what o holds (the key's descriptor closed); o's options stay. */
void ep_attestopt_clear(struct ep_attestopt *o);

#endif
