/*
 * regxfer.h: what the registry client's files share, internal to them:
 * regsession.c (ep_registry_resolve: the run's registries, tokens and
 * scheduling) on top, regresolve.c (what each reference asks next, and
 * what an answer means) beneath it, and registry.c (the transfers, the
 * only libcurl user) at the bottom, calling back up only through the two
 * functions in struct reg_ctx.
 */
#ifndef EP_REGXFER_H
#define EP_REGXFER_H

#include <stddef.h>
#include <stdint.h>

#include "registry.h"
#include "regauth.h"

#define REG_HOST_CONNS 6	/* requests in flight to one registry */
#define REG_ACTIVE_MAX 32	/* requests in flight in all */
#define REG_BACKOFF_MS 250	/* the first retry's wait; doubles */
#define REG_RETRY_CAP_MS 10000	/* the longest Retry-After honoured */

struct reg_answer;

/* A registry, once per run. */
struct reg_site {
	char *registry;		/* as in references: "docker.io" */
	char *base;		/* "https://registry-1.docker.io" */
	int plain;		/* --insecure-registry: http */
	struct ep_regchal chal;	/* learned from its 401, else scheme 0 */
	int active;		/* its requests in flight */
};

enum { TOK_QUEUED, TOK_RUNNING, TOK_READY, TOK_FAILED };

/* A bearer token for one registry and repository, shared. */
struct reg_token {
	struct reg_site *site;
	char *repository;
	const struct ep_regcred *cred;	/* borrowed from ctx->creds */
	int state;
	int allow_http;		/* the realm is plain http and allowed */
	int authed;		/* asked with credentials */
	int attempts;
	uint64_t not_before;	/* ns, ep_now_ns() */
	char *value;		/* a secret */
	char *why;		/* when failed */
};

enum { RQ_READY, RQ_RUNNING, RQ_WAIT, RQ_DONE };
/* The document a request is for: the reference's own, an index's
 * platform manifest, or a single manifest's image config (a blob). */
enum { STEP_TOP, STEP_CHILD, STEP_CONFIG };

/* One reference. */
struct reg_rq {
	const struct ep_imgref *ref;
	struct ep_imgres *out;
	struct reg_site *site;
	const struct ep_regcred *cred;	/* borrowed from ctx->creds */
	int state;
	int step;		/* the document the next request is for */
	int head;		/* HEAD, else GET */
	char *target;		/* the tag or digest in the URL */
	char *want;		/* the digest the body must hash to */
	int attempts;		/* of this request */
	int authed;		/* credentials or a token went with it */
	uint64_t not_before;	/* ns: a retry waits till then */
	struct reg_token *tok;	/* the token waited for */
	struct ep_imgres res;	/* staged: moved to *out only when all of
				   it is verified */
};

struct reg_ctx {
	const struct ep_imgopt *o;
	void *multi, *share;	/* CURLM *, CURLSH * (registry.c) */
	/* What registry.c calls when a transfer ends: regsession.c sets
	 * them (reg_manifest_done, reg_token_done), so that the transport
	 * knows nothing of what an answer means. */
	void (*manifest_done)(struct reg_ctx *, struct reg_rq *,
	    const struct reg_answer *);
	void (*token_done)(struct reg_ctx *, struct reg_token *,
	    const struct reg_answer *);
	struct reg_rq *rq;
	size_t n;
	struct reg_site **sites;
	size_t nsites;
	struct reg_token **toks;
	size_t ntoks;
	struct ep_regcreds creds;
	struct ep_err creds_err;	/* kind != 0: loading them failed */
	char *cache;		/* the documents' directory, or NULL */
	char *tags;		/* hints: the tags resolved before, or NULL */
	int active;		/* requests in flight */
};

/* An answer, borrowed for the length of a *_done call. */
struct reg_answer {
	long status;		/* HTTP status, 0 when none */
	const char *failure;	/* transport failure, or NULL */
	const char *body;	/* NUL-terminated after len bytes */
	size_t len;
	const char *digest, *ctype, *retry_after, *www;
	const char *url;
};

/* regresolve.c: a reference's steps. */
void reg_manifest_done(struct reg_ctx *ctx, struct reg_rq *rq,
    const struct reg_answer *a);
/* Fail rq: "<reference>: registry <registry>: <message>"; its staged
 * results are dropped. */
void reg_rq_fail(struct reg_rq *rq, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* rq's next request: HEAD or GET manifests/<target> (blobs/<target>
 * for STEP_CONFIG); want is the digest the body must hash to, or NULL. */
void reg_rq_request(struct reg_rq *rq, int step, int head,
    const char *target, const char *want);
/* "authentication required (401); no credentials for R in FILES" */
char *reg_no_credentials(const struct reg_ctx *ctx, const char *registry);
/* After a 429 or 5xx: 1 and *not_before set when another attempt is
 * due (Retry-After honoured up to REG_RETRY_CAP_MS, else backoff). */
int reg_retry_due(const struct reg_ctx *ctx, int *attempts,
    const struct reg_answer *a, uint64_t *not_before);

/* Whether the first request for ref should be a HEAD: only when the
 * cache may answer the GET that follows, that is when the documents of
 * a pinned digest are cached (an entry is there; it is checked when
 * read), or when this tag was resolved before (a hint under the cache).  Otherwise one GET gives digest and body
 * together: a first run costs no extra round trip. */
int reg_cache_may_answer(struct reg_ctx *ctx, const struct ep_imgref *ref);
/* Remember the tags resolved in this run, for reg_cache_may_answer. */
void reg_cache_remember(struct reg_ctx *ctx);

/* regsession.c: the run's registries, tokens and scheduling. */
void reg_ctx_init(struct reg_ctx *ctx, const struct ep_imgref *const *refs,
    size_t n, const struct ep_imgopt *o, struct ep_imgres *const *out);
void reg_ctx_clear(struct reg_ctx *ctx);
/* Start what may start now; the ms until a retry falls due, or -1 when
 * nothing waits on time (what waits for a free connection starts when a
 * request in flight ends). */
long reg_pump(struct reg_ctx *ctx);
void reg_token_done(struct reg_ctx *ctx, struct reg_token *t,
    const struct reg_answer *a);

/* registry.c, the transport (the only libcurl user; it calls nothing
 * above it but ctx's two callbacks).  reg_xfer_open before the first
 * request, reg_xfer_close after the last; reg_xfer_run moves transfers on
 * and calls back for those that ended, or waits up to wait ms (at most a
 * second; -1: a second) for one to. */
void reg_xfer_open(struct reg_ctx *ctx);
void reg_xfer_run(struct reg_ctx *ctx, long wait);
void reg_xfer_close(struct reg_ctx *ctx);

/* registry.c: rq's request (a manifest, or for STEP_CONFIG a blob,
 * following redirects), with the bearer token when not NULL. */
void reg_start_manifest(struct reg_ctx *ctx, struct reg_rq *rq,
    const char *token);
void reg_start_token(struct reg_ctx *ctx, struct reg_token *t);
/* Retry-After (seconds or an HTTP date) in ms, -1 when absent or bad. */
long reg_retry_after_ms(const char *v);

#endif
