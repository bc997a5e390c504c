/*
 * registry.c: the registry client's transport: every request of a run
 * through one curl multi handle (connections, DNS and TLS sessions
 * shared), with the limits, redirects and TLS rules of --registry-*.  The
 * only file that includes libcurl.
 *
 * Above it (regxfer.h): regsession.c runs a batch (ep_registry_resolve:
 * the run's registries, tokens and scheduling) and regresolve.c is each
 * reference's small state machine: HEAD its manifest by tag (or by its
 * pinned digest); GET the document when the registry gave no digest, when
 * it is an index to walk, or for the config digest a manifest names; then
 * the same for the platform's manifest, or for a single manifest the
 * image config blob (its platform).  Every body is hashed and must equal
 * the digest that named it.  Documents and configs are cached by digest
 * under ep_cache_dir()/manifests/sha256 (immutable; hashed again when
 * read), so a warm resolution is one HEAD.  A transfer that ends is
 * handed back through the context's callbacks; this file calls nothing
 * above it.
 *
 * Authentication follows the registry's 401 challenge: Basic with the
 * user's credentials (regauth.c), or a Bearer token asked of the realm
 * once per registry and repository and shared by every reference that
 * needs it.  Credentials go to curl as options, never into a URL, so no
 * message can carry them.
 */
#include "registry.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hash.h"
#include "regauth.h"
#include "regxfer.h"
#include "version.h"
#include "str.h"
#include "xalloc.h"

/* One request in flight. */
struct reg_xfer {
	CURL *h;
	struct curl_slist *hdrs;
	char *url;
	char *body;
	size_t len, cap, max;
	int too_big;
	char *digest, *ctype, *retry_after, *www;
	char *secret;		/* a POST form holding a token */
	char errbuf[CURL_ERROR_SIZE];
	struct reg_rq *rq;	/* a manifest request, or */
	struct reg_token *tok;	/* a token request */
};

static void
xfer_headers_clear(struct reg_xfer *x)
{
	free(x->digest);
	free(x->ctype);
	free(x->retry_after);
	free(x->www);
	x->digest = x->ctype = x->retry_after = x->www = NULL;
}

/*
 * The transfers: one easy handle per request, added to ctx->multi.
 */

static size_t
on_body(char *p, size_t size, size_t nmemb, void *arg)
{
	struct reg_xfer *x = arg;
	size_t n = size * nmemb;

	if (x->len + n > x->max) {
		x->too_big = 1;
		return 0;	/* curl aborts with CURLE_WRITE_ERROR */
	}
	if (x->len + n + 1 > x->cap) {
		x->cap = (x->len + n + 1) * 2;
		if (x->cap > x->max + 1)
			x->cap = x->max + 1;
		x->body = xrealloc(x->body, x->cap);
	}
	memcpy(x->body + x->len, p, n);
	x->len += n;
	x->body[x->len] = '\0';
	return n;
}

/* Keep one header's value (trimmed) in *slot, the last one winning. */
static void
keep_header(char **slot, const char *v, size_t n)
{
	free(*slot);
	*slot = xstrndup(v, n);
	ep_trim(*slot);
}

static size_t
on_header(char *p, size_t size, size_t nmemb, void *arg)
{
	struct reg_xfer *x = arg;
	size_t n = size * nmemb, k;
	const char *colon;

	/* A new response (after a redirect or a 100): forget the last. */
	if (n >= 5 && strncmp(p, "HTTP/", 5) == 0) {
		xfer_headers_clear(x);
		return n;
	}
	if ((colon = memchr(p, ':', n)) == NULL)
		return n;
	k = (size_t)(colon - p);
#define IS(name) (k == sizeof name - 1 && strncasecmp(p, name, k) == 0)
	if (IS("docker-content-digest"))
		keep_header(&x->digest, colon + 1, n - k - 1);
	else if (IS("content-type"))
		keep_header(&x->ctype, colon + 1, n - k - 1);
	else if (IS("retry-after"))
		keep_header(&x->retry_after, colon + 1, n - k - 1);
	else if (IS("www-authenticate")) {
		/* Several challenges may come in several headers. */
		char *v = xstrndup(colon + 1, n - k - 1), *joined;

		ep_trim(v);
		if (x->www == NULL)
			x->www = v;
		else {
			joined = xasprintf("%s, %s", x->www, v);
			free(x->www);
			free(v);
			x->www = joined;
		}
	}
#undef IS
	return n;
}

/* Start a request for url.  A new xfer, added to the multi handle. */
static struct reg_xfer *
xfer_new(struct reg_ctx *ctx, const char *url, int head, int allow_http)
{
	const struct ep_imgopt *o = ctx->o;
	struct reg_xfer *x = xcalloc(1, sizeof *x);
	long low = o->timeout_ms / 1000;
	CURL *h;

	if ((h = curl_easy_init()) == NULL) {
		fprintf(stderr, "envparity: curl_easy_init failed\n");
		abort();
	}
	x->h = h;
	x->max = o->max_body;
	x->url = xstrdup(url);
	if (low < 1)
		low = 1;
	if (low > 15)
		low = 15;
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PRIVATE, x);
	curl_easy_setopt(h, CURLOPT_SHARE, ctx->share);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "envparity/" EP_VERSION);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR,
	    allow_http ? "http,https" : "https");
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR,
	    allow_http ? "http,https" : "https");
#else
	(void)allow_http;
#endif
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, o->timeout_ms);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, low);
	curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)o->max_body);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
	if (o->ca_file != NULL)
		curl_easy_setopt(h, CURLOPT_CAINFO, o->ca_file);
	if (head)
		curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
	return x;
}

static void
xfer_add(struct reg_ctx *ctx, struct reg_xfer *x)
{
	if (x->hdrs != NULL)
		curl_easy_setopt(x->h, CURLOPT_HTTPHEADER, x->hdrs);
	curl_multi_add_handle(ctx->multi, x->h);
	ctx->active++;
}

static void
xfer_free(struct reg_ctx *ctx, struct reg_xfer *x)
{
	curl_multi_remove_handle(ctx->multi, x->h);
	curl_easy_cleanup(x->h);
	curl_slist_free_all(x->hdrs);
	xfer_headers_clear(x);
	if (x->secret != NULL)
		explicit_bzero(x->secret, strlen(x->secret));
	free(x->secret);
	free(x->body);
	free(x->url);
	free(x);
	ctx->active--;
}

/* An Authorization header, the token kept only in the xfer. */
static void
xfer_bearer(struct reg_xfer *x, const char *token)
{
	char *h = xasprintf("Authorization: Bearer %s", token);

	x->hdrs = curl_slist_append(x->hdrs, h);
	explicit_bzero(h, strlen(h));
	free(h);
}

static void
xfer_basic(struct reg_xfer *x, const struct ep_regcred *c)
{
	curl_easy_setopt(x->h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
	curl_easy_setopt(x->h, CURLOPT_USERNAME, c->user);
	curl_easy_setopt(x->h, CURLOPT_PASSWORD, c->pass);
}

void
reg_start_manifest(struct reg_ctx *ctx, struct reg_rq *rq,
    const char *token)
{
	struct reg_site *s = rq->site;
	struct reg_xfer *x;
	char *url;

	url = xasprintf("%s/v2/%s/%s/%s", s->base, rq->ref->repository,
	    rq->step == STEP_CONFIG ? "blobs" : "manifests", rq->target);
	x = xfer_new(ctx, url, rq->head, s->plain);
	free(url);
	x->rq = rq;
	if (rq->step == STEP_CONFIG) {
		/*
		 * Registries answer a blob with a redirect to their storage
		 * (S3, a CDN) with the access signed into the URL.  Followed
		 * (https only, unless the registry is plain http), and the
		 * credentials stay with the registry: libcurl (7.83 and
		 * later) sends neither CURLOPT_USERNAME/PASSWORD nor a
		 * custom Authorization header to another host, port or
		 * scheme unless CURLOPT_UNRESTRICTED_AUTH, never set here
		 * (tested: digest_bad.bats).
		 */
		curl_easy_setopt(x->h, CURLOPT_FOLLOWLOCATION, 1L);
		curl_easy_setopt(x->h, CURLOPT_MAXREDIRS, 3L);
		curl_easy_setopt(x->h, CURLOPT_UNRESTRICTED_AUTH, 0L);
	} else
		x->hdrs = curl_slist_append(x->hdrs, "Accept: " EP_MT_ACCEPT);
	rq->authed = 0;
	if (token != NULL) {
		xfer_bearer(x, token);
		rq->authed = 1;
	} else if (s->chal.scheme == EP_CHAL_BASIC && rq->cred != NULL &&
	    rq->cred->user != NULL) {
		xfer_basic(x, rq->cred);
		rq->authed = 1;
	}
	rq->state = RQ_RUNNING;
	s->active++;
	xfer_add(ctx, x);
}

void
reg_start_token(struct reg_ctx *ctx, struct reg_token *t)
{
	const struct ep_regcred *c = t->cred;
	struct reg_xfer *x;
	char *url, *form;
	CURLU *u;

	url = ep_regauth_token_url(&t->site->chal, t->repository);
	x = xfer_new(ctx, url, 0, t->allow_http);
	x->tok = t;
	if (c == NULL || c->identity_token == NULL) {
		/* A GET: curl keeps Authorization to the first host. */
		curl_easy_setopt(x->h, CURLOPT_FOLLOWLOCATION, 1L);
		curl_easy_setopt(x->h, CURLOPT_MAXREDIRS, 3L);
		if (c != NULL && c->user != NULL)
			xfer_basic(x, c);
	} else {
		/* docker's OAuth2 refresh: POST the form to the realm.  Its
		 * body is the secret, and curl would send it again after a
		 * 307 to any host: no redirects here. */
		char *svc = curl_easy_escape(x->h, t->site->chal.service != NULL ?
		    t->site->chal.service : "", 0);
		char *ref = curl_easy_escape(x->h, c->identity_token, 0);
		char *scope = strchr(url, '?') != NULL ?
		    strstr(url, "scope=") : NULL;

		form = xasprintf("grant_type=refresh_token&client_id=envparity"
		    "&service=%s&%s&refresh_token=%s", svc,
		    scope != NULL ? scope : "", ref);
		curl_free(svc);
		curl_free(ref);
		x->secret = form;
		curl_easy_setopt(x->h, CURLOPT_POSTFIELDS, form);
		if ((u = curl_url()) != NULL) {
			char *plain = NULL;

			/* The realm without our query. */
			if (curl_url_set(u, CURLUPART_URL, t->site->chal.realm,
			    0) == CURLUE_OK &&
			    curl_url_get(u, CURLUPART_URL, &plain, 0) ==
			    CURLUE_OK)
				curl_easy_setopt(x->h, CURLOPT_URL, plain);
			curl_free(plain);
			curl_url_cleanup(u);
		}
	}
	free(url);
	t->state = TOK_RUNNING;
	t->authed = c != NULL && (c->user != NULL || c->identity_token != NULL);
	xfer_add(ctx, x);
}

/* Why a transfer failed at the transport, or NULL if it did not. */
static char *
xfer_failure(struct reg_ctx *ctx, struct reg_xfer *x, CURLcode cc,
    const char *host)
{
	const char *e = x->errbuf[0] != '\0' ? x->errbuf :
	    curl_easy_strerror(cc);

	switch (cc) {
	case CURLE_OK:
		return NULL;
	case CURLE_FILESIZE_EXCEEDED:
		return xasprintf("document larger than %zu bytes",
		    ctx->o->max_body);
	case CURLE_WRITE_ERROR:
		if (x->too_big)
			return xasprintf("document larger than %zu bytes",
			    ctx->o->max_body);
		break;
	case CURLE_OPERATION_TIMEDOUT:
		return xasprintf("timed out (%s); see --registry-timeout", e);
	case CURLE_SSL_CACERT_BADFILE:
		return xasprintf("--registry-ca %s: cannot be used (%s)",
		    ctx->o->ca_file != NULL ? ctx->o->ca_file : "(system)", e);
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_ISSUER_ERROR:
		return xasprintf("TLS failed (%s); for a registry with a "
		    "private CA use --registry-ca FILE, for one that serves "
		    "plain http --insecure-registry %s", e, host);
	case CURLE_UNSUPPORTED_PROTOCOL:
		return xasprintf("refused to leave https (%s); a plain-http "
		    "registry needs --insecure-registry %s", e, host);
	default:
		break;
	}
	return xasprintf("%s", e);
}

static void
on_done(struct reg_ctx *ctx, struct reg_xfer *x, CURLcode cc)
{
	struct reg_answer a;
	char *why;

	memset(&a, 0, sizeof a);
	curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &a.status);
	why = xfer_failure(ctx, x, cc, x->rq != NULL ?
	    x->rq->ref->registry : x->tok->site->registry);
	a.failure = why;
	a.body = x->body;
	a.len = x->len;
	a.digest = x->digest;
	a.ctype = x->ctype;
	a.retry_after = x->retry_after;
	a.www = x->www;
	a.url = x->url;
	if (x->rq != NULL) {
		x->rq->site->active--;
		ctx->manifest_done(ctx, x->rq, &a);
	} else
		ctx->token_done(ctx, x->tok, &a);
	free(why);
	xfer_free(ctx, x);
}

long
reg_retry_after_ms(const char *v)
{
	char *end;
	long s;
	time_t t;

	if (v == NULL || *v == '\0')
		return -1;
	s = strtol(v, &end, 10);
	if (end != v && *end == '\0')
		return s < 0 ? 0 : s > 3600 ? 3600000 : s * 1000;
	if ((t = curl_getdate(v, NULL)) == -1)
		return -1;
	t -= time(NULL);
	return t < 0 ? 0 : t > 3600 ? 3600000 : (long)t * 1000;
}

void
reg_xfer_open(struct reg_ctx *ctx)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	ctx->multi = curl_multi_init();
	ctx->share = curl_share_init();
	if (ctx->multi == NULL || ctx->share == NULL) {
		fprintf(stderr, "envparity: curl_multi_init failed\n");
		abort();
	}
	/* Connections are shared by the multi handle itself; the share
	 * adds the DNS cache and TLS sessions. */
	curl_share_setopt(ctx->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	curl_share_setopt(ctx->share, CURLSHOPT_SHARE,
	    CURL_LOCK_DATA_SSL_SESSION);
	curl_multi_setopt(ctx->multi, CURLMOPT_MAX_HOST_CONNECTIONS,
	    (long)REG_HOST_CONNS);
	curl_multi_setopt(ctx->multi, CURLMOPT_MAXCONNECTS,
	    (long)REG_ACTIVE_MAX);
}

void
reg_xfer_run(struct reg_ctx *ctx, long wait)
{
	int running, mdone = 0;
	CURLMsg *m;

	curl_multi_perform(ctx->multi, &running);
	while ((m = curl_multi_info_read(ctx->multi, &running)) != NULL) {
		struct reg_xfer *x;

		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE,
		    (char **)&x);
		on_done(ctx, x, m->data.result);
		mdone = 1;
	}
	if (mdone)
		return;		/* start what the answers allow */
	/* curl shortens the wait to its own timeouts. */
	if (wait < 0 || wait > 1000)
		wait = 1000;
	curl_multi_poll(ctx->multi, NULL, 0, (int)wait, NULL);
}

void
reg_xfer_close(struct reg_ctx *ctx)
{
	curl_multi_cleanup(ctx->multi);
	curl_share_cleanup(ctx->share);
	ctx->multi = ctx->share = NULL;
	curl_global_cleanup();
}

const char *
ep_registry_library_version(void)
{
	static char buf[128];
	const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);

	if (buf[0] == '\0')
		snprintf(buf, sizeof buf, "libcurl %s (%s)", v->version,
		    v->ssl_version != NULL ? v->ssl_version : "no TLS");
	return buf;
}
