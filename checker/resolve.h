/*
 * resolve.h: what a command needs before its work, resolved in one
 * place (after tmux's cmd_entry targets, found before exec runs): the
 * outputs (where the signing key comes from, the report paths and the
 * command's other outputs), then the store (its options and the
 * profile), then the golden (the store opened and read, the token wiped,
 * the policy parsed, the golden parsed).  A command declares what it
 * needs (EP_NEED_*) and calls the steps in the order its head comment
 * documents; the order is what a user sees on bad input, so each step
 * is its own call.
 *
 * The trust rules of docs/security.md hold here: nothing of the key is
 * read (ep_attestopt_prepare only checks where it comes from, and keeps
 * its file from every output), and the store's token is wiped as soon as
 * the golden is read, before any code of the judged environment runs.
 */
#ifndef EP_RESOLVE_H
#define EP_RESOLVE_H

#include "attestopt.h"
#include "compare.h"
#include "manifest.h"
#include "policy.h"
#include "report.h"
#include "store.h"
#include "storeopt.h"

enum {
	EP_NEED_OUTPUTS = 1u << 0,	/* check the output paths */
	EP_NEED_ATTEST = 1u << 1,	/* and the key's source, first */
	EP_NEED_STORE = 1u << 2,	/* the store options and profile */
	EP_NEED_NAMED = 1u << 3,	/* in CI, a store that is named */
	EP_NEED_POLICY = 1u << 4,	/* the store read, its policy */
	EP_NEED_GOLDEN = 1u << 5,	/* and the golden */
};

/* What a command asks for; every pointer is borrowed. */
struct ep_need {
	unsigned what;				/* EP_NEED_* */
	const struct ep_storeopt *sopt;
	struct ep_attestopt *aopt;		/* EP_NEED_ATTEST */
	const struct ep_reportopt *ropt;	/* EP_NEED_OUTPUTS */
	const char *const *outs;		/* the other outputs, NULL */
	const char *const *outwhat;		/* where not asked for */
	size_t nouts;
	/* The "no golden manifest" message ends "bless WHAT with: CMD
	 * AFTER", CMD the bless command (ep_storeopt_bless_hint): what is
	 * "this machine", after NULL or " NODE.json". */
	const char *bless_what;
	const char *bless_after;
};

/* What was resolved; ep_resolved_clear frees it. */
struct ep_resolved {
	int stdout_taken;		/* an output is standard output */
	struct ep_store_opts so;
	const char *profile;
	struct ep_store *store;
	struct ep_store_info info;
	struct ep_store_policies pol;	/* the policy files read */
	char *mtext;			/* the golden's text */
	char *name;			/* STORE#REF:PROFILE */
	char *where;			/* STORE#REF */
	char *pname;			/* STORE#REF:PROFILE/manifest.json */
	struct ep_policy *policy;
	struct ep_manifest *golden;
	/* The attestation's names for the golden and the policies. */
	char *gname, *pfile;
	const char *more_texts[EP_PROFILE_MAX_DEPTH + 1];
	const char *more_names[EP_PROFILE_MAX_DEPTH + 1];
	char *msg;			/* the whole "no golden" message */
};

/* EP_NEED_ATTEST: where the key comes from (ep_attestopt_prepare,
 * nothing read); EP_NEED_OUTPUTS: the report paths (ep_reports_check),
 * then n->outs (ep_cmd_outputs_check), setting r->stdout_taken.  As
 * those fail. */
int ep_resolve_outputs(struct ep_resolved *r, const struct ep_need *n,
    struct ep_err *err);

/* EP_NEED_STORE: r->so and r->profile from n->sopt and the environment
 * (ep_storeopt_resolve); EP_NEED_NAMED: in CI a store must be named
 * (ep_storeopt_require_named).  EP_E_INPUT as those fail. */
int ep_resolve_store(struct ep_resolved *r, const struct ep_need *n,
    struct ep_err *err);

/* After ep_resolve_store: the store opened and read (EP_E_IO when it
 * cannot be), the store's token wiped, the policy parsed (EP_E_INPUT);
 * then, for EP_NEED_GOLDEN, the golden: EP_E_INPUT "no golden manifest
 * for profile P in STORE#REF:P; bless ..." (n->bless_what) when there is
 * none (whole in r->msg), or when it does not parse. */
int ep_resolve_read(struct ep_resolved *r, const struct ep_need *n,
    struct ep_err *err);

/* The golden's part of an attestation's input: profile, store, ref,
 * commit, the golden's and the policies' texts and names (borrowed from
 * r, which must outlive ain). */
void ep_resolved_attest_in(struct ep_attest_in *ain, struct ep_resolved *r);

/* The golden's part of a report's context (borrowed from r). */
void ep_resolved_report_ctx(struct ep_report_ctx *ctx,
    const struct ep_resolved *r);

struct ep_cmd;

/* Print a resolve step's failure as ep_cmd_fail does (the "no golden"
 * message whole); returns the exit code. */
int ep_resolve_fail(const struct ep_cmd *self, const struct ep_resolved *r,
    const struct ep_err *err);

/* Free what r holds; NULL-safe fields, r itself the caller's. */
void ep_resolved_clear(struct ep_resolved *r);

#endif
