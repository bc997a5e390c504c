/*
 * regresolve.c: what each reference asks a registry next and what every
 * answer means; registry.c carries the requests (libcurl) and calls
 * back here.  A reference goes:
 *
 *   HEAD manifests/<tag or pinned digest>
 *     -> the digest (Docker-Content-Digest, or the pin), its document
 *        from the cache or GET manifests/<digest>; no digest header:
 *        GET manifests/<tag> and hash the body
 *     -> an index: pick the platform, its manifest from the cache or
 *        GET manifests/<digest>; that manifest's config digest; done.
 *     -> a manifest (no index to say its platform): its image config
 *        from the cache or GET blobs/<config digest> (redirects
 *        followed), for the os and architecture it gives; done.
 *
 * Every body hashes to the digest that named it, or the reference
 * fails; results are staged and reach the caller only complete.
 */
#include "regxfer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "hash.h"
#include "outfile.h"
#include "clock.h"
#include "errors.h"
#include "files.h"
#include "xalloc.h"

void
reg_rq_fail(struct reg_rq *rq, const char *fmt, ...)
{
	char msg[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	ep_imgres_clear(&rq->res);
	ep_err_set(&rq->out->err, EP_E_IO, "%s: registry %s: %s",
	    rq->ref->name, rq->ref->registry, msg);
	rq->state = RQ_DONE;
}

static void
rq_finish(struct reg_rq *rq)
{
	*rq->out = rq->res;
	memset(&rq->res, 0, sizeof rq->res);
	rq->state = RQ_DONE;
}

void
reg_rq_request(struct reg_rq *rq, int step, int head, const char *target,
    const char *want)
{
	char *t = xstrdup(target), *w = want != NULL ? xstrdup(want) : NULL;

	free(rq->target);
	free(rq->want);
	rq->target = t;
	rq->want = w;
	rq->step = step;
	rq->head = head;
	rq->attempts = 0;
	rq->not_before = 0;
	rq->state = RQ_READY;
}

/*
 * The document cache: <cache>/<hex> holds the Content-Type, a newline,
 * and the exact bytes; hashed again on every read.  Image configs are
 * kept the same way (with an empty Content-Type): a digest names one
 * content, whatever it is.
 */

static char *
cache_get(struct reg_ctx *ctx, const char *digest, size_t *len, char **ct)
{
	char *path, *buf, *nl;
	size_t n, blen;

	if (ctx->cache == NULL)
		return NULL;
	path = xasprintf("%s/%s", ctx->cache, digest + 7);
	if (ep_read_regular(&buf, &n, path, ctx->o->max_body + 1024, NULL) < 0) {
		free(path);
		return NULL;
	}
	if ((nl = memchr(buf, '\n', n)) == NULL ||
	    !ep_digest_matches(digest, nl + 1, n - (size_t)(nl + 1 - buf))) {
		/* Damaged: fetch it again. */
		unlink(path);
		free(path);
		free(buf);
		return NULL;
	}
	free(path);
	*ct = nl > buf ? xstrndup(buf, (size_t)(nl - buf)) : NULL;
	blen = n - (size_t)(nl + 1 - buf);
	memmove(buf, nl + 1, blen);
	buf[blen] = '\0';
	*len = blen;
	return buf;
}

static void
cache_put(struct reg_ctx *ctx, const char *digest, const char *ct,
    const char *body, size_t len)
{
	size_t cl = ct != NULL ? strcspn(ct, "\r\n") : 0;
	char *path, *data;

	if (ctx->cache == NULL || ep_mkdirs(ctx->cache, NULL) < 0)
		return;
	data = xmalloc(cl + 1 + len);
	if (cl > 0)
		memcpy(data, ct, cl);
	data[cl] = '\n';
	memcpy(data + cl + 1, body, len);
	path = xasprintf("%s/%s", ctx->cache, digest + 7);
	(void)ep_write_cache(path, data, cl + 1 + len, NULL);
	free(path);
	free(data);
}

/* Where the hint that name was resolved before lives: one empty file
 * per name under ctx->tags (by its SHA-256: a name has '/' and ':'). */
static char *
tag_hint(const struct reg_ctx *ctx, const char *name)
{
	char hex[EP_SHA256_HEX];

	ep_hash_buf(hex, name, strlen(name));
	return xasprintf("%s/%s", ctx->tags, hex);
}

int
reg_cache_may_answer(struct reg_ctx *ctx, const struct ep_imgref *ref)
{
	char *path;
	int yes;

	if (ctx->cache == NULL)
		return 0;
	/* Only whether an entry is there: cache_get reads and checks it
	 * when it is wanted, and a damaged one costs a GET then. */
	path = ref->digest != NULL ?
	    xasprintf("%s/%s", ctx->cache, ref->digest + 7) :
	    tag_hint(ctx, ref->name);
	yes = access(path, F_OK) == 0;
	free(path);
	return yes;
}

void
reg_cache_remember(struct reg_ctx *ctx)
{
	char *path;

	if (ctx->tags == NULL)
		return;
	for (size_t i = 0; i < ctx->n; i++) {
		const struct reg_rq *rq = &ctx->rq[i];

		if (rq->ref->digest != NULL || rq->out->err.kind != 0 ||
		    rq->out->digest == NULL)
			continue;
		path = tag_hint(ctx, rq->ref->name);
		if (access(path, F_OK) != 0 && ep_mkdirs(ctx->tags, NULL) == 0)
			(void)ep_write_cache(path, "", 0, NULL);
		free(path);
	}
}

static void fetch_doc(struct reg_ctx *, struct reg_rq *, int, const char *);

/* The image config a single manifest names, verified: its platform;
 * done.  0 when it parsed. */
static int
config_ok(struct reg_rq *rq, const char *digest, const char *body,
    size_t len)
{
	struct ep_err err;

	memset(&err, 0, sizeof err);
	free(rq->res.platform);
	rq->res.platform = ep_imgconfig_platform(body, len, &err);
	if (err.kind != 0) {
		reg_rq_fail(rq, "config blob %s: %s", digest, err.msg);
		return -1;
	}
	rq_finish(rq);
	return 0;
}

/* The config named digest: from the cache, else a GET of the blob. */
static void
fetch_config(struct reg_ctx *ctx, struct reg_rq *rq, const char *digest)
{
	char *body, *ct = NULL;
	size_t len;

	if ((body = cache_get(ctx, digest, &len, &ct)) == NULL) {
		reg_rq_request(rq, STEP_CONFIG, 0, digest, digest);
		return;
	}
	config_ok(rq, digest, body, len);
	free(body);
	free(ct);
}

/* A config blob's answer: the body must hash to the digest the
 * manifest named (a header is not needed: storage a registry redirects
 * to sends none). */
static void
blob_ok(struct reg_ctx *ctx, struct reg_rq *rq, const struct reg_answer *a)
{
	char hex[EP_SHA256_HEX], bd[8 + EP_SHA256_HEX];
	const char *body = a->body != NULL ? a->body : "";

	ep_hash_buf(hex, body, a->len);
	snprintf(bd, sizeof bd, "sha256:%s", hex);
	if (strcmp(rq->want, bd) != 0) {
		reg_rq_fail(rq, "config blob %s: digest mismatch: the body "
		    "hashes to %s", rq->want, bd);
		return;
	}
	if (config_ok(rq, bd, body, a->len) == 0)
		cache_put(ctx, bd, NULL, body, a->len);
}

/* A document of rq's, verified: walk on.  0 when it parsed. */
static int
doc_ok(struct reg_ctx *ctx, struct reg_rq *rq, int step, const char *digest,
    const char *body, size_t len, const char *ct)
{
	const struct ep_imgdoc_entry *e;
	struct ep_imgdoc d;
	struct ep_err err;
	char *why;

	memset(&err, 0, sizeof err);
	if (ep_imgdoc_parse(&d, body, len, ct, &err) < 0) {
		reg_rq_fail(rq, "%s %s: %s", step == STEP_TOP ? "manifest" :
		    "platform manifest", digest, err.msg);
		return -1;
	}
	if (step == STEP_CHILD) {
		if (d.is_index || d.config_digest == NULL)
			reg_rq_fail(rq, "platform manifest %s is an index, not an "
			    "image manifest", digest);
		else {
			rq->res.config_digest = xstrdup(d.config_digest);
			rq_finish(rq);
		}
	} else if (!d.is_index) {
		rq->res.media_type = d.media_type != NULL ?
		    xstrdup(d.media_type) : NULL;
		rq->res.platform_digest = xstrdup(digest);
		rq->res.config_digest = xstrdup(d.config_digest);
		fetch_config(ctx, rq, rq->res.config_digest);
	} else if ((e = ep_imgdoc_pick(&d, ctx->o->platform, &why)) == NULL) {
		reg_rq_fail(rq, "index %s has no manifest for %s (it has %s)",
		    digest, ctx->o->platform, why);
		/* The image is whole and verified: it is the platform asked
		 * for that it does not have (see image.h). */
		rq->out->err.kind = EP_E_INPUT;
		free(why);
	} else {
		rq->res.media_type = d.media_type != NULL ?
		    xstrdup(d.media_type) : NULL;
		rq->res.platform = e->platform != NULL ?
		    xstrdup(e->platform) : NULL;
		rq->res.platform_digest = xstrdup(e->digest);
		fetch_doc(ctx, rq, STEP_CHILD, rq->res.platform_digest);
	}
	ep_imgdoc_clear(&d);
	return 0;
}

/* The document named digest: from the cache, else a GET by digest. */
static void
fetch_doc(struct reg_ctx *ctx, struct reg_rq *rq, int step,
    const char *digest)
{
	char *body, *ct = NULL;
	size_t len;

	if ((body = cache_get(ctx, digest, &len, &ct)) == NULL) {
		reg_rq_request(rq, step, 0, digest, digest);
		return;
	}
	doc_ok(ctx, rq, step, digest, body, len, ct);
	free(body);
	free(ct);
}

/* The digest header when it is a SHA-256 one (other algorithms are
 * left to the body's hash); -1 when it claims sha256 but is malformed. */
static int
header_digest(struct reg_rq *rq, const struct reg_answer *a,
    const char **out)
{
	*out = NULL;
	if (a->digest == NULL || strncmp(a->digest, "sha256:", 7) != 0)
		return 0;
	if (!ep_digest_valid(a->digest)) {
		reg_rq_fail(rq, "malformed Docker-Content-Digest header");
		return -1;
	}
	*out = a->digest;
	return 0;
}

static void
head_ok(struct reg_ctx *ctx, struct reg_rq *rq, const struct reg_answer *a)
{
	const char *pin = rq->ref->digest, *hd, *d;

	if (header_digest(rq, a, &hd) < 0)
		return;
	if (pin != NULL && hd != NULL && strcmp(hd, pin) != 0) {
		reg_rq_fail(rq, "digest mismatch: asked for %s, the registry "
		    "answered %s", pin, hd);
		return;
	}
	if ((d = pin != NULL ? pin : hd) == NULL) {
		/* No digest given: the body tells. */
		reg_rq_request(rq, STEP_TOP, 0, rq->target, NULL);
		return;
	}
	rq->res.digest = xstrdup(d);
	fetch_doc(ctx, rq, STEP_TOP, rq->res.digest);
}

static void
get_ok(struct reg_ctx *ctx, struct reg_rq *rq, const struct reg_answer *a)
{
	char hex[EP_SHA256_HEX], bd[8 + EP_SHA256_HEX];
	const char *hd;

	if (header_digest(rq, a, &hd) < 0)
		return;
	ep_hash_buf(hex, a->body != NULL ? a->body : "", a->len);
	snprintf(bd, sizeof bd, "sha256:%s", hex);
	if (hd != NULL && strcmp(hd, bd) != 0) {
		reg_rq_fail(rq, "digest mismatch: Docker-Content-Digest says %s, "
		    "the body hashes to %s", hd, bd);
		return;
	}
	if (rq->want != NULL && strcmp(rq->want, bd) != 0) {
		reg_rq_fail(rq, "digest mismatch: asked for %s, the body hashes "
		    "to %s", rq->want, bd);
		return;
	}
	if (rq->step == STEP_TOP && rq->res.digest == NULL)
		rq->res.digest = xstrdup(bd);
	if (doc_ok(ctx, rq, rq->step, bd, a->body != NULL ? a->body : "",
	    a->len, a->ctype) == 0)
		cache_put(ctx, bd, a->ctype, a->body, a->len);
}

int
reg_retry_due(const struct reg_ctx *ctx, int *attempts,
    const struct reg_answer *a, uint64_t *not_before)
{
	long ms;

	if (*attempts >= ctx->o->retries)
		return 0;
	if ((ms = reg_retry_after_ms(a->retry_after)) < 0)
		ms = (long)REG_BACKOFF_MS << (*attempts < 8 ? *attempts : 8);
	if (ms > REG_RETRY_CAP_MS)
		ms = REG_RETRY_CAP_MS;
	(*attempts)++;
	*not_before = ep_now_ns() + (uint64_t)ms * 1000000;
	return 1;
}

static const char *
status_name(long status)
{
	return status == 429 ? "too many requests" : "server error";
}

char *
reg_no_credentials(const struct reg_ctx *ctx, const char *registry)
{
	char *files = ep_regcreds_files(&ctx->creds), *s;

	s = xasprintf("authentication required (401); no credentials for %s "
	    "%s %s%s", registry, ctx->creds.files.n > 0 ? "in" : "and",
	    files, ctx->creds.helpers ?
	    " (credsStore and credHelpers are not used)" : "");
	free(files);
	return s;
}

static void
no_credentials(struct reg_ctx *ctx, struct reg_rq *rq)
{
	char *s = reg_no_credentials(ctx, rq->ref->registry);

	reg_rq_fail(rq, "%s", s);
	free(s);
}

static void
on_401(struct reg_ctx *ctx, struct reg_rq *rq, const struct reg_answer *a)
{
	struct ep_regchal c;
	struct ep_err err;

	if (rq->authed) {
		if (rq->cred == NULL)
			no_credentials(ctx, rq);
		else
			reg_rq_fail(rq, "authentication failed (401) with the "
			    "credentials for %s from %s", rq->cred->key,
			    rq->cred->file);
		return;
	}
	memset(&err, 0, sizeof err);
	if (a->www == NULL) {
		reg_rq_fail(rq, "authentication required (401), and no "
		    "WWW-Authenticate challenge");
		return;
	}
	if (ep_regchal_parse(&c, a->www, &err) < 0) {
		reg_rq_fail(rq, "authentication required (401); %s", err.msg);
		return;
	}
	if (c.scheme == EP_CHAL_NONE) {
		reg_rq_fail(rq, "authentication required (401) by a scheme other "
		    "than Basic or Bearer");
		return;
	}
	if (c.scheme == EP_CHAL_BASIC &&
	    (rq->cred == NULL || rq->cred->user == NULL)) {
		ep_regchal_clear(&c);
		no_credentials(ctx, rq);
		return;
	}
	/* The same request again, answering the challenge. */
	ep_regchal_clear(&rq->site->chal);
	rq->site->chal = c;
	rq->state = RQ_READY;
}

void
reg_manifest_done(struct reg_ctx *ctx, struct reg_rq *rq,
    const struct reg_answer *a)
{
	long st = a->status;

	if (a->failure != NULL) {
		if (rq->step == STEP_CONFIG)
			reg_rq_fail(rq, "config blob %s: %s", rq->target,
			    a->failure);
		else
			reg_rq_fail(rq, "%s", a->failure);
		return;
	}
	if (st == 401) {
		on_401(ctx, rq, a);
		return;
	}
	if (st == 429 || (st >= 500 && st <= 599)) {
		if (reg_retry_due(ctx, &rq->attempts, a, &rq->not_before))
			rq->state = RQ_READY;
		else
			reg_rq_fail(rq, "%s (%ld), %d attempts", status_name(st),
			    st, rq->attempts + 1);
		return;
	}
	if (st == 405 && rq->head) {
		/* No HEAD here: GET what it would have named. */
		reg_rq_request(rq, rq->step, 0, rq->target, rq->ref->digest);
		return;
	}
	if (st == 404 && rq->step == STEP_TOP)
		reg_rq_fail(rq, "manifest unknown (404)");
	else if (st == 404 && rq->step == STEP_CONFIG)
		reg_rq_fail(rq, "config blob %s unknown (404)", rq->target);
	else if (st == 404)
		reg_rq_fail(rq, "platform manifest %s unknown (404)", rq->target);
	else if (st == 403)
		reg_rq_fail(rq, "access denied (403)");
	else if (st == 400 && rq->site->plain)
		reg_rq_fail(rq, "unexpected answer (400) to plain http "
		    "(--insecure-registry); does it serve https?");
	else if (st != 200)
		reg_rq_fail(rq, "unexpected answer (%ld)", st);
	else if (rq->step == STEP_CONFIG)
		blob_ok(ctx, rq, a);
	else if (rq->head)
		head_ok(ctx, rq, a);
	else
		get_ok(ctx, rq, a);
}
