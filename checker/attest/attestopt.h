/*
 * attestopt.h: the attestation options check and fleet share (like
 * storeopt.h's store options): --attest FILE and --sign-key KEY.pem, one
 * never without the other.  The key is read and the path checked before
 * the command does its work; the envelope is written after it, whatever
 * the verdict, under outfile.h's rule.
 */
#ifndef EP_ATTESTOPT_H
#define EP_ATTESTOPT_H

#include "attest.h"
#include "sigkey.h"
#include "util.h"

/* getopt_long codes, above the others' ranges. */
enum {
	EP_OPT_ATTEST = 0x700,
	EP_OPT_SIGN_KEY,
};
#define EP_ATTEST_LONGOPTS						\
	{ "attest", required_argument, NULL, EP_OPT_ATTEST },		\
	{ "sign-key", required_argument, NULL, EP_OPT_SIGN_KEY }
#define EP_ATTEST_HELP							\
"Attestation options (docs/attestations.md):\n"			\
"  --attest FILE        write a signed attestation of the verdict: an\n" \
"                       in-toto Statement v1 in a DSSE envelope, written\n" \
"                       whatever the verdict (- for standard output)\n"	\
"  --sign-key KEY.pem   the Ed25519 private key (PEM) to sign it with;\n" \
"                       a key readable by group or others is refused\n"	\
"Each needs the other.  Check it with `envparity verify`.\n"

struct ep_attestopt {
	const char *file;		/* --attest */
	const char *key_path;		/* --sign-key */
};

/* Apply one attestation option; 1 if c was one, 0 if not. */
int ep_attest_opt(struct ep_attestopt *o, int c, const char *arg);

/* 1 when an attestation was asked for. */
int ep_attestopt_wanted(const struct ep_attestopt *o);

/* The usage error of an option given without its pair, or NULL. */
const char *ep_attestopt_unpaired(const struct ep_attestopt *o);

/* Before the work: EP_E_INPUT for an option without its pair, then the file's path checked (outfile.h) and the signing key
 * read into *key (sigkey.h's refusals).  *key stays NULL when no
 * attestation was asked for. */
int ep_attestopt_prepare(struct ep_sigkey **key, const struct ep_attestopt *o,
    struct ep_err *err);

/* After the work: the statement of in, signed with key, written to
 * o->file (nothing when no attestation was asked for).  EP_E_IO when it
 * cannot be written; the file is then as it was. */
int ep_attestopt_write(const struct ep_attestopt *o,
    const struct ep_sigkey *key, const struct ep_attest_in *in,
    struct ep_err *err);

#endif
