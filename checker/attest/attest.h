/*
 * attest.h: signed attestations of a gate's result, what `check
 * --attest` and `fleet --attest` write and `envparity verify` reads: an
 * in-toto Statement v1 (in-toto/attestation spec/v1) of envparity's own
 * predicate type, in a DSSE envelope (dsse.h) signed with Ed25519
 * (sigkey.h).  docs/attestations.md and
 * manifests/attestation.schema.json say what each field holds.
 *
 * Subjects, each matched by digest:
 *   facts:<host> (check) or facts:<node> (fleet, one per node read):
 *     sha256 of the facts in canonical form (ep_manifest_facts_sha256);
 *   every --image, by its canonical name: sha256 of image.<name>.digest;
 *   <profile>/manifest.json and <profile>/policy.json (or the --policy
 *     file of a fleet without a store), and the shared policy files the
 *     profile was judged by too (policy.json, train/policy.json):
 *     gitBlob, the id git gives the text the store returned.
 */
#ifndef EP_ATTEST_H
#define EP_ATTEST_H

#include <stddef.h>
#include <time.h>

#include "results.h"
#include "fleetview.h"
#include "manifest.h"
#include "sigkey.h"

#define EP_INTOTO_STATEMENT	"https://in-toto.io/Statement/v1"
#define EP_ATTEST_PREDICATE	"https://envparity.dev/attestation/check/v1"

/* Each list of keys (failing, warned, waived) holds at most this many;
 * the rest are counted in "omitted". */
#define EP_ATTEST_KEYS_MAX	1000

/* What a statement is made of. */
struct ep_attest_in {
	const char *command;		/* "check" or "fleet" */
	const struct ep_results *rs;	/* every result, before any report
					   cut them */
	const struct ep_manifest *current;	/* check: what was checked
						   (facts, image.*); NULL
						   for fleet */
	const struct ep_fleet_view *fleet;	/* fleet: its nodes; NULL
						   for check */
	const char *profile;		/* NULL: no store (a fleet) */
	const char *store;		/* shown without credentials */
	const char *ref;
	const char *commit;		/* 40 hex, or NULL */
	const char *golden_text;	/* the golden manifest as read, or
					   NULL */
	const char *golden_name;	/* its subject name */
	const char *policy_text;	/* the policy as read, or NULL (the
					   defaults) */
	const char *policy_name;	/* its subject name */
	const char *const *more_policy_texts;	/* the other policy files
						   the profile was judged
						   by (shared, inherited) */
	const char *const *more_policy_names;	/* their subject names */
	size_t nmore_policies;
	const char *host;
	time_t time;
};

/* The statement as JSON text (compact, sorted keys: the bytes that are
 * signed), *len bytes.  *out is new. */
int ep_attest_statement(char **out, size_t *len,
    const struct ep_attest_in *in, struct ep_err *err);

/* The statement signed with key into a DSSE envelope (dsse.h's
 * ep_dsse_sign): the text to write.  *out is new. */
int ep_attest_envelope(char **out, const struct ep_attest_in *in,
    const struct ep_sigkey *key, struct ep_err *err);

/* The git blob id of text (SHA-1 of "blob <n>\0" and the n bytes), as
 * `git hash-object` gives it: 40 lowercase hex digits and a NUL. */
void ep_attest_git_blob(char hex[41], const char *text, size_t n);

/* The verdict of a set of results: "FAILED" (a fail or an error result:
 * check's exit 1), "WARNED" (none of those, but a warn or a waived one),
 * "PASSED" (pass and skip only). */
const char *ep_attest_verdict(const size_t counts[EP_NSTATUS]);

/*
 * Reading (verify).
 */
struct ep_att_subject {
	char *name;
	char *sha256;		/* 64 lowercase hex, or NULL */
	char *gitblob;		/* 40 lowercase hex, or NULL */
};

struct ep_att_image {
	char *name;		/* canonical, as the facts key it */
	char *digest;		/* "sha256:<hex>" */
};

/* A statement whose signature held, as read. */
struct ep_attestation {
	char *command, *verdict, *profile, *host, *store, *ref, *commit;
	char *version;
	char *time_text;	/* as written */
	time_t time;
	size_t counts[EP_NSTATUS];
	char *first_failing;	/* the first key of "failing", or NULL */
	struct ep_att_subject *subjects;
	size_t nsubjects;
	struct ep_att_image *images;
	size_t nimages;
	size_t key;		/* the index of the key that held */
};
void ep_attestation_free(struct ep_attestation *a);	/* accepts NULL */

/* Open an envelope (text, n bytes) with keys, then read its statement:
 * _type Statement v1, payloadType application/vnd.in-toto+json (checked
 * before the payload is parsed), predicateType envparity's, and every
 * field the schema requires, of the right type.  EP_E_DENIED when no
 * signature holds; EP_E_INPUT for anything malformed, a statement of
 * another type included. */
int ep_attest_open(struct ep_attestation **out, const char *text, size_t n,
    struct ep_sigkey *const *keys, size_t nkeys, struct ep_err *err);

/* Read a statement (body, n bytes) already authenticated; what
 * ep_attest_open does after the signature. */
int ep_attest_parse(struct ep_attestation **out, const void *body, size_t n,
    struct ep_err *err);

/* What verify requires of the verdict. */
enum ep_require {
	EP_REQUIRE_PARITY,	/* PASSED only */
	EP_REQUIRE_NOFAIL,	/* PASSED or WARNED */
};

/* Each check below returns 0 when the condition holds, else -1 with
 * err (EP_E_DENIED) saying in one line which condition failed and how. */
int ep_attest_require_verdict(const struct ep_attestation *a, int require,
    struct ep_err *err);

/* Made at most max_age seconds before now, and not more than
 * EP_ATTEST_SKEW seconds after it (clocks differ a little). */
#define EP_ATTEST_SKEW	300
int ep_attest_require_age(const struct ep_attestation *a, time_t now,
    long long max_age, struct ep_err *err);

/* A subject whose digest of that algorithm ("sha256" or "gitBlob") is
 * hex. */
int ep_attest_require_subject(const struct ep_attestation *a,
    const char *alg, const char *hex, struct ep_err *err);

int ep_attest_require_profile(const struct ep_attestation *a,
    const char *profile, struct ep_err *err);

/* The golden it was judged against: the store exactly as the statement
 * names it (credentials removed, as every message shows a store), and the
 * golden's commit (case aside).  A statement that names none (a fleet
 * without a store) never matches. */
int ep_attest_require_store(const struct ep_attestation *a,
    const char *store, struct ep_err *err);
int ep_attest_require_commit(const struct ep_attestation *a,
    const char *commit, struct ep_err *err);

/* 0 when text is a full commit id (40 or 64 hex digits), else EP_E_INPUT
 * saying that a prefix is no pin. */
int ep_attest_commit_parse(const char *text, struct ep_err *err);

/* "sha256:HEX" (64 hex digits) or "gitBlob:HEX" (40) into *alg (static)
 * and hex (lowercased, NUL-terminated); EP_E_INPUT otherwise. */
int ep_attest_digest_parse(const char **alg, char hex[65], const char *text,
    struct ep_err *err);

/* A duration: one or more NUMBER UNIT, units s, m, h, d, w ("30m",
 * "24h", "7d", "1d12h"), more than zero and at most 100 years, into
 * *secs; EP_E_INPUT naming the text otherwise. */
int ep_attest_duration(long long *secs, const char *text,
    struct ep_err *err);

/* secs in days, hours, minutes and seconds, the units that are not zero
 * ("3d 4h", "1h 1s", "40s"): new. */
char *ep_attest_duration_text(long long secs);

#endif
