/*
 * regsession.c: ep_registry_resolve, the registry client's top: one
 * run's registries, bearer tokens and scheduling, over the transport in
 * registry.c, with each reference's steps in regresolve.c:
 * which registry each reference goes to (https, or plain http only for
 * --insecure-registry), the credentials that apply, one token per
 * registry and repository shared by every reference that needs it, and
 * which requests may start now (a few per registry, retries when due).
 */
#include "progress.h"
#include "regxfer.h"
#include "cachedir.h"
#include "clock.h"
#include "errors.h"
#include "strv.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

static struct reg_site *
site_get(struct reg_ctx *ctx, const struct ep_imgref *ref)
{
	const struct ep_imgopt *o = ctx->o;
	struct reg_site *s;

	for (size_t i = 0; i < ctx->nsites; i++)
		if (strcmp(ctx->sites[i]->registry, ref->registry) == 0)
			return ctx->sites[i];
	s = xcalloc(1, sizeof *s);
	s->registry = xstrdup(ref->registry);
	s->plain = ep_strv_contains(&o->insecure, ref->registry) ||
	    ep_strv_contains(&o->insecure, ref->api_host);
	s->base = xasprintf("%s://%s", s->plain ? "http" : "https",
	    ref->api_host);
	ctx->sites = xreallocarray(ctx->sites, ctx->nsites + 1,
	    sizeof *ctx->sites);
	ctx->sites[ctx->nsites++] = s;
	return s;
}

void
reg_ctx_init(struct reg_ctx *ctx, const struct ep_imgref *const *refs,
    size_t n, const struct ep_imgopt *o, struct ep_imgres *const *out)
{
	int creds_ok, head;
	char *dir, *why = NULL;

	memset(ctx, 0, sizeof *ctx);
	ctx->o = o;
	creds_ok = ep_regcreds_load(&ctx->creds, o->auth_file,
	    &ctx->creds_err) == 0;
	/* The cache a capture trusts, or none (its warning is the hash
	 * cache's): a FIFO or a hint planted in a cache others can write
	 * must not steer a resolution. */
	if (!o->no_cache && (dir = ep_cache_dir_trusted(&why)) != NULL) {
		ctx->cache = xasprintf("%s/manifests/sha256", dir);
		ctx->tags = xasprintf("%s/manifests/tags", dir);
		free(dir);
	}
	free(why);
	ctx->rq = xcalloc(n ? n : 1, sizeof *ctx->rq);
	ctx->n = n;
	for (size_t i = 0; i < n; i++) {
		struct reg_rq *rq = &ctx->rq[i];
		const struct ep_imgref *r = refs[i];

		rq->ref = r;
		rq->out = out[i];
		if (!creds_ok) {
			/* A broken credentials file fails them all: the
			 * user named it, or it is theirs. */
			ep_err_set(&rq->out->err, EP_E_INPUT, "%s: %s",
			    r->name, ctx->creds_err.msg);
			rq->state = RQ_DONE;
			continue;
		}
		rq->site = site_get(ctx, r);
		rq->cred = ep_regcreds_find(&ctx->creds, r->registry,
		    r->repository);
		/* HEAD when the cache may answer the GET; else GET. */
		head = reg_cache_may_answer(ctx, r);
		if (r->digest != NULL)
			reg_rq_request(rq, STEP_TOP, head, r->digest,
			    head ? NULL : r->digest);
		else
			reg_rq_request(rq, STEP_TOP, head, r->tag, NULL);
	}
}

void
reg_ctx_clear(struct reg_ctx *ctx)
{
	for (size_t i = 0; i < ctx->n; i++) {
		free(ctx->rq[i].target);
		free(ctx->rq[i].want);
		ep_imgres_clear(&ctx->rq[i].res);
	}
	free(ctx->rq);
	free(ctx->tags);
	for (size_t i = 0; i < ctx->nsites; i++) {
		free(ctx->sites[i]->registry);
		free(ctx->sites[i]->base);
		ep_regchal_clear(&ctx->sites[i]->chal);
		free(ctx->sites[i]);
	}
	free(ctx->sites);
	for (size_t i = 0; i < ctx->ntoks; i++) {
		struct reg_token *t = ctx->toks[i];

		if (t->value != NULL)
			explicit_bzero(t->value, strlen(t->value));
		free(t->value);
		free(t->why);
		free(t->repository);
		free(t);
	}
	free(ctx->toks);
	ep_regcreds_clear(&ctx->creds);
	free(ctx->cache);
	memset(ctx, 0, sizeof *ctx);
}

/* 1 if authorities a and b ("host[:port]", "[v6]:port") name one host. */
static int
same_host(const char *a, const char *b)
{
	size_t la = a[0] == '[' ? strcspn(a, "]") + 1 : strcspn(a, ":");
	size_t lb = b[0] == '[' ? strcspn(b, "]") + 1 : strcspn(b, ":");

	return la == lb && strncasecmp(a, b, la) == 0;
}

/* The token for rq's registry and repository: found, or made (queued,
 * or settled at once when it need not be asked for). */
static struct reg_token *
token_get(struct reg_ctx *ctx, struct reg_rq *rq)
{
	const char *realm = rq->site->chal.realm;
	struct reg_token *t;
	char *auth, *shown;

	for (size_t i = 0; i < ctx->ntoks; i++) {
		t = ctx->toks[i];
		if (t->site == rq->site &&
		    strcmp(t->repository, rq->ref->repository) == 0)
			return t;
	}
	t = xcalloc(1, sizeof *t);
	t->site = rq->site;
	t->repository = xstrdup(rq->ref->repository);
	t->cred = rq->cred;
	t->state = TOK_QUEUED;
	ctx->toks = xreallocarray(ctx->toks, ctx->ntoks + 1,
	    sizeof *ctx->toks);
	ctx->toks[ctx->ntoks++] = t;
	if (t->cred != NULL && t->cred->registry_token != NULL) {
		t->value = xstrdup(t->cred->registry_token);
		t->state = TOK_READY;
		return t;
	}
	auth = ep_regauth_url_authority(realm);
	shown = ep_regauth_redact_url(realm);
	if (strncasecmp(realm, "http://", 7) == 0) {
		/* A plain-http token server, with or without
		 * credentials, only where the user allowed plain http:
		 * that server named with --insecure-registry, or the
		 * insecure registry's own host (another port of it, as a
		 * registry's issuer often is). */
		t->allow_http = ep_strv_contains(&ctx->o->insecure, auth) ||
		    (rq->site->plain && same_host(auth, rq->ref->api_host));
		if (!t->allow_http) {
			t->why = xasprintf("token server %s is plain http; "
			    "use --insecure-registry %s to allow it", shown,
			    auth);
			t->state = TOK_FAILED;
		}
	} else if (strncasecmp(realm, "https://", 8) != 0) {
		t->why = xasprintf("token realm %s is not an https URL",
		    shown);
		t->state = TOK_FAILED;
	}
	/*
	 * The realm is the registry's word, and the registry may be
	 * someone else's (plain http can be rewritten on the way; a
	 * mirror names what it likes).  A token asked anonymously carries
	 * nothing; credentials go only to a token server on the
	 * registry's host, one the user named, or a known pair (Docker
	 * Hub's auth.docker.io).  Never anonymously instead: a private
	 * image would then fail as "denied", hiding why.
	 */
	if (t->state != TOK_FAILED && t->cred != NULL &&
	    (t->cred->user != NULL || t->cred->identity_token != NULL) &&
	    !ep_regauth_realm_trusted(realm, rq->ref->registry,
	    rq->ref->api_host, &ctx->o->auth_realms)) {
		struct ep_strv hint = { 0 };
		char *opt = NULL;

		/* The option, when naming this host would do. */
		ep_strv_push(&hint, auth);
		if (ep_regauth_realm_trusted(realm, rq->ref->registry,
		    rq->ref->api_host, &hint))
			opt = xasprintf(" (--registry-auth-realm %s allows it)",
			    auth);
		ep_strv_clear(&hint);
		t->why = xasprintf("token server %s is not on the registry's "
		    "host; the credentials for %s from %s are not sent there%s",
		    shown, t->cred->key, t->cred->file, opt != NULL ? opt : "");
		free(opt);
		t->state = TOK_FAILED;
	}
	free(auth);
	free(shown);
	return t;
}

/* Start rq's request, with what its registry's challenge asks for. */
static void
rq_start(struct reg_ctx *ctx, struct reg_rq *rq)
{
	struct reg_token *t;

	if (rq->site->chal.scheme != EP_CHAL_BEARER) {
		reg_start_manifest(ctx, rq, NULL);
		return;
	}
	t = token_get(ctx, rq);
	if (t->state == TOK_READY)
		reg_start_manifest(ctx, rq, t->value);
	else if (t->state == TOK_FAILED)
		reg_rq_fail(rq, "%s", t->why);
	else {
		rq->tok = t;
		rq->state = RQ_WAIT;
	}
}

long
reg_pump(struct reg_ctx *ctx)
{
	uint64_t now = ep_now_ns(), next = UINT64_MAX;

	for (size_t i = 0; i < ctx->n; i++) {
		struct reg_rq *rq = &ctx->rq[i];

		if (rq->state == RQ_WAIT) {
			if (rq->tok->state == TOK_FAILED)
				reg_rq_fail(rq, "%s", rq->tok->why);
			else if (rq->tok->state == TOK_READY)
				rq->state = RQ_READY;
		}
		if (rq->state != RQ_READY)
			continue;
		if (rq->not_before > now) {
			if (rq->not_before < next)
				next = rq->not_before;
		} else if (rq->site->active < REG_HOST_CONNS &&
		    ctx->active < REG_ACTIVE_MAX)
			rq_start(ctx, rq);
		/* else: when one of the requests in flight ends */
	}
	for (size_t i = 0; i < ctx->ntoks; i++) {
		struct reg_token *t = ctx->toks[i];

		if (t->state != TOK_QUEUED)
			continue;
		if (t->not_before > now) {
			if (t->not_before < next)
				next = t->not_before;
		} else if (ctx->active < REG_ACTIVE_MAX)
			reg_start_token(ctx, t);
	}
	if (next != UINT64_MAX)
		return (long)((next - now) / 1000000) + 1;
	return -1;
}

void
reg_token_done(struct reg_ctx *ctx, struct reg_token *t,
    const struct reg_answer *a)
{
	char *shown = ep_regauth_redact_url(t->site->chal.realm);
	json_t *root = NULL, *v;
	long st = a->status;

	if (a->failure != NULL)
		t->why = xasprintf("token server %s: %s", shown, a->failure);
	else if (st == 200) {
		root = json_loadb(a->body != NULL ? a->body : "", a->len, 0,
		    NULL);
		if (!json_is_string(v = json_object_get(root, "token")) ||
		    *json_string_value(v) == '\0')
			v = json_object_get(root, "access_token");
		if (json_is_string(v) && *json_string_value(v) != '\0')
			t->value = xstrdup(json_string_value(v));
		else
			t->why = xasprintf("token server %s: no token in its "
			    "answer", shown);
	} else if ((st == 401 || st == 403) && t->authed)
		t->why = xasprintf("authentication failed (%ld): token server "
		    "%s refused the credentials for %s from %s", st, shown,
		    t->cred->key, t->cred->file);
	else if (st == 401 || st == 403)
		t->why = reg_no_credentials(ctx, t->site->registry);
	else if (st == 429 || (st >= 500 && st <= 599)) {
		if (reg_retry_due(ctx, &t->attempts, a, &t->not_before)) {
			t->state = TOK_QUEUED;
			free(shown);
			return;
		}
		t->why = xasprintf("token server %s: %s (%ld), %d attempts",
		    shown, st == 429 ? "too many requests" : "server error",
		    st, t->attempts + 1);
	} else
		t->why = xasprintf("token server %s: unexpected answer (%ld)",
		    shown, st);
	if (root != NULL)
		json_decref(root);
	t->state = t->why != NULL ? TOK_FAILED : TOK_READY;
	free(shown);
}

void
ep_registry_resolve(const struct ep_imgref *const *refs, size_t n,
    const struct ep_imgopt *o, struct ep_imgres *const *out)
{
	struct reg_ctx ctx;
	struct ep_progress prog;
	size_t done;

	reg_ctx_init(&ctx, refs, n, o, out);
	ctx.manifest_done = reg_manifest_done;
	ctx.token_done = reg_token_done;
	reg_xfer_open(&ctx);
	ep_progress_start(&prog, "registries", "references resolved", n, 0);
	for (;;) {
		long wait = reg_pump(&ctx);

		if (wait < 0 && ctx.active == 0)
			break;
		/* At most 100 ms at a time while the line is shown, so
		 * that it moves during a slow registry's answer. */
		if (prog.on && (wait < 0 || wait > 100))
			wait = 100;
		reg_xfer_run(&ctx, wait);
		done = 0;
		for (size_t i = 0; i < ctx.n; i++)
			done += ctx.rq[i].state == RQ_DONE;
		ep_progress_set(&prog, done);
	}
	ep_progress_end(&prog);
	reg_xfer_close(&ctx);
	reg_cache_remember(&ctx);
	reg_ctx_clear(&ctx);
}
