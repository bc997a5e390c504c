/*
 * store_cred.c: the credentials a remote store is offered, and where.
 *
 * libgit2 asks for credentials with the URL of the server that asked
 * (after an HTTP redirect, the server redirected to).  The token
 * (ENVPARITY_GIT_TOKEN) is offered only over https, an ssh key or the
 * agent only over ssh, and each only to the scheme, host and port of the
 * URL the store was opened with: a store that redirects elsewhere, or
 * one named with http://, never receives it, and the error says why.
 *
 * GIT_SSL_CAINFO and GIT_SSL_CAPATH name the CAs that https stores are
 * verified against, as they do for git.
 *
 * The credentials enter once and leave early: main() moves them out of
 * the environment into this file's memory before any command runs
 * (ep_store_cred_take), so no child inherits them and /proc/PID/environ
 * shows zeros where they were; a command done with the network wipes them
 * (ep_store_cred_forget) before the judged environment's code runs.
 */
#include "store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "secret.h"

/* What the store reads from the environment, once taken out of it. */
static struct {
	int taken;		/* ep_store_cred_take ran: never getenv */
	char *token;		/* ENVPARITY_GIT_TOKEN */
	char *job;		/* CI_JOB_TOKEN: which user a token goes as */
	char *ssh_key;		/* ENVPARITY_SSH_KEY: a key file's path */
	char *store;		/* ENVPARITY_STORE: kept to the end, since a
				   command's store spec points to it */
} cred;

void
ep_store_cred_take(void)
{
	if (cred.taken)
		return;
	cred.token = ep_secret_env_take("ENVPARITY_GIT_TOKEN");
	cred.job = ep_secret_env_take("CI_JOB_TOKEN");
	cred.ssh_key = ep_secret_env_take("ENVPARITY_SSH_KEY");
	cred.store = ep_secret_env_take("ENVPARITY_STORE");
	cred.taken = 1;
}

void
ep_store_cred_forget(void)
{
	ep_secret_free(cred.token);
	ep_secret_free(cred.job);
	ep_secret_free(cred.ssh_key);
	cred.token = cred.job = cred.ssh_key = NULL;
}

/* The variable's value: the copy taken, or before that (the unit tests)
 * the environment's. */
static const char *
cred_get(const char *copy, const char *name)
{
	return cred.taken ? copy : getenv(name);
}

const char *
ep_store_env_spec(void)
{
	const char *v = cred_get(cred.store, "ENVPARITY_STORE");

	return v != NULL && v[0] != '\0' ? v : NULL;
}

enum {
	CRED_TOKEN = 1,
	CRED_USER = 2,
	CRED_KEY = 4,
	CRED_AGENT = 8,
};

/* Where a URL leads: its scheme, host and port. */
struct origin {
	char scheme[16];
	char host[256];
	char port[16];
};

/* "host:port", "[v6]:port" or "host" (n bytes) into o; port def when
 * none is given.  0, or -1 when it does not fit. */
static int
split_hostport(struct origin *o, const char *s, size_t n, const char *def)
{
	const char *h = s, *colon = NULL, *end = s + n;
	size_t hn;

	if (n > 0 && s[0] == '[') {
		const char *rb = memchr(s, ']', n);

		if (rb == NULL)
			return -1;
		h = s + 1;
		hn = (size_t)(rb - h);
		if (rb + 1 < end && rb[1] == ':')
			colon = rb + 1;
	} else {
		colon = memchr(s, ':', n);
		hn = colon != NULL ? (size_t)(colon - s) : n;
	}
	if (hn == 0 || hn >= sizeof o->host ||
	    (colon != NULL && (size_t)(end - colon) >= sizeof o->port))
		return -1;
	memcpy(o->host, h, hn);
	o->host[hn] = '\0';
	if (colon != NULL && colon + 1 < end)
		snprintf(o->port, sizeof o->port, "%.*s",
		    (int)(end - colon - 1), colon + 1);
	else
		snprintf(o->port, sizeof o->port, "%s", def);
	return 0;
}

/* The origin of a remote URL (scp-like [user@]host:path is ssh). */
static int
url_origin(struct origin *o, const char *url)
{
	const char *sep = strstr(url, "://"), *auth, *at, *end, *def;

	memset(o, 0, sizeof *o);
	if (sep == NULL) {
		const char *colon = strchr(url, ':');

		if (colon == NULL)
			return -1;
		at = memchr(url, '@', (size_t)(colon - url));
		auth = at != NULL ? at + 1 : url;
		snprintf(o->scheme, sizeof o->scheme, "ssh");
		return split_hostport(o, auth, (size_t)(colon - auth), "22");
	}
	if ((size_t)(sep - url) >= sizeof o->scheme)
		return -1;
	for (size_t i = 0; url + i < sep; i++)
		o->scheme[i] = (char)(url[i] >= 'A' && url[i] <= 'Z' ?
		    url[i] - 'A' + 'a' : url[i]);
	if (strcmp(o->scheme, "git+ssh") == 0 ||
	    strcmp(o->scheme, "ssh+git") == 0)
		snprintf(o->scheme, sizeof o->scheme, "ssh");
	auth = sep + 3;
	end = auth + strcspn(auth, "/?#");
	for (const char *p = auth; p < end; p++)
		if (*p == '@')
			auth = p + 1;
	def = strcmp(o->scheme, "https") == 0 ? "443" :
	    strcmp(o->scheme, "http") == 0 ? "80" :
	    strcmp(o->scheme, "ssh") == 0 ? "22" : "9418";
	return split_hostport(o, auth, (size_t)(end - auth), def);
}

static int
same_origin(const struct origin *a, const struct origin *b)
{
	return strcmp(a->scheme, b->scheme) == 0 &&
	    strcasecmp(a->host, b->host) == 0 &&
	    strtol(a->port, NULL, 10) == strtol(b->port, NULL, 10);
}

int
ep_store_tls_init(struct ep_store *s, struct ep_err *err)
{
	const char *file = getenv("GIT_SSL_CAINFO");
	const char *dir = getenv("GIT_SSL_CAPATH");

	if (file != NULL && file[0] == '\0')
		file = NULL;
	if (dir != NULL && dir[0] == '\0')
		dir = NULL;
	if ((file != NULL || dir != NULL) && git_libgit2_opts(
	    GIT_OPT_SET_SSL_CERT_LOCATIONS, file, dir) < 0)
		return ep_store_git_err(err, EP_E_INPUT, s, file != NULL ?
		    "GIT_SSL_CAINFO" : "GIT_SSL_CAPATH");
	return 0;
}

/* The https user for a token when the store URL names none: GitLab's
 * job token is accepted only as gitlab-ci-token's (a token equal to
 * $CI_JOB_TOKEN is that one); GitHub's and the others take any user, and
 * x-access-token is the one GitHub documents for app tokens. */
static const char *
token_user(const char *tok)
{
	const char *job = cred_get(cred.job, "CI_JOB_TOKEN");

	if (job != NULL && job[0] != '\0' && strcmp(job, tok) == 0)
		return "gitlab-ci-token";
	return "x-access-token";
}

/* Offer each kind of credential once; libgit2 calls again after a
 * refusal, and an endless loop of the same offer is the failure mode to
 * avoid.  A credential held back leaves the error saying why, unless
 * another kind can be offered. */
int
ep_store_cred_cb(git_credential **out, const char *url, const char *user,
    unsigned int allowed, void *payload)
{
	struct ep_store_cbctx *c = payload;
	struct ep_store *s = c->s;
	const char *tok = cred_get(cred.token, "ENVPARITY_GIT_TOKEN");
	const char *key = cred_get(cred.ssh_key, "ENVPARITY_SSH_KEY");
	const char *sock = getenv("SSH_AUTH_SOCK");
	const char *u = user != NULL && user[0] != '\0' ? user : NULL;
	struct origin store, asker;
	char why[640], held[700] = "";
	int ours = 0;

	/* Why a secret is held back from a server of the right scheme. */
	if (c->url == NULL || url_origin(&store, c->url) < 0 ||
	    url == NULL || url_origin(&asker, url) < 0)
		snprintf(why, sizeof why, "the server's address is unclear");
	else if (!same_origin(&store, &asker))
		snprintf(why, sizeof why, "the request was redirected to "
		    "%s://%s:%s, not the store's own %s://%s:%s",
		    asker.scheme, asker.host, asker.port, store.scheme,
		    store.host, store.port);
	else
		ours = 1;
	if ((allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) && tok != NULL &&
	    tok[0] != '\0' && !(s->cred_tried & CRED_TOKEN)) {
		if (ours && strcmp(store.scheme, "https") == 0) {
			s->cred_tried |= CRED_TOKEN;
			return git_credential_userpass_plaintext_new(out,
			    u ? u : token_user(tok), tok);
		}
		snprintf(held, sizeof held, "ENVPARITY_GIT_TOKEN was not sent: "
		    "%s", !ours ? why : strcmp(store.scheme, "http") == 0 ?
		    "the store is http://, and the token goes only over https" :
		    "the token goes only over https");
	}
	if ((allowed & GIT_CREDENTIAL_USERNAME) &&
	    !(s->cred_tried & CRED_USER)) {
		s->cred_tried |= CRED_USER;
		return git_credential_username_new(out, u ? u : "git");
	}
	if ((allowed & GIT_CREDENTIAL_SSH_KEY) &&
	    ((key != NULL && key[0] != '\0' && !(s->cred_tried & CRED_KEY)) ||
	    (sock != NULL && sock[0] != '\0' &&
	    !(s->cred_tried & CRED_AGENT)))) {
		if (ours && strcmp(store.scheme, "ssh") == 0) {
			if (key != NULL && key[0] != '\0' &&
			    !(s->cred_tried & CRED_KEY)) {
				s->cred_tried |= CRED_KEY;
				return git_credential_ssh_key_new(out,
				    u ? u : "git", NULL, key, NULL);
			}
			s->cred_tried |= CRED_AGENT;
			return git_credential_ssh_key_from_agent(out,
			    u ? u : "git");
		}
		if (held[0] == '\0')
			snprintf(held, sizeof held, "no ssh key was offered: "
			    "%s", !ours ? why : "a key goes only over ssh");
	}
	if (held[0] != '\0') {
		/* git_error_set_str: libgit2 1.1 (the relocatable build's,
		 * tools/reloc.sh) has no formatting git_error_set. */
		char msg[sizeof held + 32];

		snprintf(msg, sizeof msg, "authentication required; %s", held);
		git_error_set_str(GIT_ERROR_NET, msg);
		return GIT_EAUTH;
	}
	git_error_set_str(GIT_ERROR_NET, "authentication failed (for "
	    "https set ENVPARITY_GIT_TOKEN; for ssh set ENVPARITY_SSH_KEY "
	    "or run an ssh agent)");
	return GIT_EAUTH;
}
