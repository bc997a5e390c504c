/*
 * regauth.h: what registry authentication needs that is not I/O on the
 * network: parsing WWW-Authenticate challenges, the credentials files
 * (docker's config.json, containers' auth.json) and the entry that
 * applies to a registry, the token URL to ask (regauth.c); which token
 * server may have the credentials (regrealm.c).  registry.c does the
 * requests; nothing here includes libcurl.
 *
 * Secrets (passwords, identity tokens) live only in struct ep_regcred;
 * no message built here ever contains one.
 */
#ifndef EP_REGAUTH_H
#define EP_REGAUTH_H

#include <stddef.h>

#include "errors.h"
#include "strv.h"

enum ep_chal_scheme {
	EP_CHAL_NONE = 0,	/* none we can answer */
	EP_CHAL_BASIC,
	EP_CHAL_BEARER,
};

/* One challenge from WWW-Authenticate; strings owned (ep_regchal_clear). */
struct ep_regchal {
	int scheme;		/* enum ep_chal_scheme */
	char *realm;		/* Bearer: the token server's URL */
	char *service;		/* Bearer, or NULL */
	char *scope;		/* Bearer, or NULL */
};

/* Parse one WWW-Authenticate header value (RFC 7235: a list of
 * challenges, each a scheme and auth-params with quoted strings, commas
 * inside quotes included).  The Bearer challenge wins over Basic, as
 * docker's does; unknown schemes are skipped.  Returns 0 with c filled
 * (scheme EP_CHAL_NONE when no challenge was usable), or -1 with err
 * (EP_E_IO, "malformed WWW-Authenticate: ...") for a syntax error or a
 * Bearer challenge without realm. */
int ep_regchal_parse(struct ep_regchal *c, const char *header,
    struct ep_err *err);
void ep_regchal_clear(struct ep_regchal *c);

/* The token URL for pulling repository: realm?service=S&scope=
 * repository:REPO:pull, percent-encoded, "&" when the realm already has
 * a query.  A new string. */
char *ep_regauth_token_url(const struct ep_regchal *c,
    const char *repository);

/* Whether the credentials for registry (as in a reference:
 * "docker.io", "127.0.0.1:5000"; api_host is where it is reached) may
 * go to the token server at realm, a URL the registry's challenge named.
 * 1 when realm's host is the registry's (registry's or api_host's, any
 * port), is named in trusted (--registry-auth-realm: "HOST", any port,
 * or "HOST:PORT"), or is a known pair over https (docker.io and its
 * aliases: auth.docker.io; nvcr.io: authn.nvidia.com).  0 otherwise,
 * including a realm whose authority is not a plain host[:port] (a
 * userinfo, a backslash: what URL parsers may read differently).  The
 * scheme (https, or plain http where allowed) is the caller's check. */
int ep_regauth_realm_trusted(const char *realm, const char *registry,
    const char *api_host, const struct ep_strv *trusted);

/* 1 if s is a plain "host[:port]" (letters, digits, '.', '-', or a
 * bracketed IPv6 address; a port of at most 5 digits), as
 * --registry-auth-realm takes. */
int ep_regauth_hostport_valid(const char *s);

/* "host[:port]" of an http(s) URL, its userinfo dropped, for messages
 * and options.  A new string. */
char *ep_regauth_url_authority(const char *url);

/* url without its userinfo ("https://u:p@h/x" -> "https://h/x") and
 * without its query, for messages.  A new string. */
char *ep_regauth_redact_url(const char *url);

/* One credential entry. */
struct ep_regcred {
	char *file;		/* the file it came from */
	char *key;		/* normalized: "host[:port][/path]" */
	char *user;		/* Basic user, or NULL */
	char *pass;		/* Basic password, or NULL: a secret */
	char *identity_token;	/* OAuth2 refresh token, or NULL: a secret */
	char *registry_token;	/* a bearer token to send as is, or NULL: a
				   secret */
};

/* Every credentials file looked at, in order, and their entries. */
struct ep_regcreds {
	struct ep_strv files;	/* the paths looked at, existing or not */
	size_t n;
	struct ep_regcred *v;
	int helpers;		/* a file names credsStore/credHelpers,
				   which envparity does not run */
};

/* Load the credentials: auth_file alone when not NULL; else
 * $REGISTRY_AUTH_FILE (or, when unset, $XDG_RUNTIME_DIR/containers/
 * auth.json), then $DOCKER_CONFIG/config.json (default
 * ~/.docker/config.json).  A missing default file is skipped; a file
 * named explicitly (auth_file, $REGISTRY_AUTH_FILE) that cannot be read,
 * and any file that is not a JSON object with an "auths" object of
 * well-formed entries, is an error (EP_E_INPUT) naming the file and the
 * entry, never a secret.  c is cleared on error.  ep_regcreds_clear
 * frees c. */
int ep_regcreds_load(struct ep_regcreds *c, const char *auth_file,
    struct ep_err *err);
void ep_regcreds_clear(struct ep_regcreds *c);

/* Parse one credentials file's text into c (appending); path names it
 * in messages.  For the tests and ep_regcreds_load. */
int ep_regcreds_parse(struct ep_regcreds *c, const char *path,
    const char *text, size_t len, struct ep_err *err);

/* The entry for registry (as in a reference: "docker.io",
 * "127.0.0.1:5000") and repository: the first file that has one wins;
 * within a file "host/path" keys match the repository at a '/' boundary
 * and the longest wins over the bare host.  Keys may carry a scheme and
 * a path ("https://index.docker.io/v1/"), and docker.io,
 * index.docker.io and registry-1.docker.io are one registry.  Borrowed
 * from c, or NULL. */
const struct ep_regcred *ep_regcreds_find(const struct ep_regcreds *c,
    const char *registry, const char *repository);

/* "FILE, FILE" of c->files, or "no credentials file" (a new string). */
char *ep_regcreds_files(const struct ep_regcreds *c);

#endif
