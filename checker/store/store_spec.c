/*
 * store_spec.c: what a store spec names (a local path, a file:// URL, or
 * a network remote: git://, http(s)://, ssh://, [user@]host:path) and the
 * spec as it may be shown, with credentials removed and remembered as
 * secrets to scrub from every message.
 */
#include "store_int.h"
#include "errors.h"
#include "strv.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Where a URL's scheme ends ("://"), or NULL when spec is not a URL. */
static const char *
url_scheme_end(const char *spec)
{
	const char *sep = strstr(spec, "://"), *p;

	if (sep == NULL || sep == spec || !isalpha((unsigned char)spec[0]))
		return NULL;
	for (p = spec; p < sep; p++)
		if (!isalnum((unsigned char)*p) && strchr("+.-", *p) == NULL)
			return NULL;
	return sep;
}

/* Schemes whose user name is not a secret (ssh's "git@", file's none);
 * for http(s) a user name is often a token. */
static int
user_is_public(const char *scheme, size_t n)
{
	static const char *const pub[] = { "git", "ssh", "git+ssh",
	    "ssh+git", "file", NULL };

	for (size_t i = 0; pub[i] != NULL; i++)
		if (strlen(pub[i]) == n && strncasecmp(scheme, pub[i], n) == 0)
			return 1;
	return 0;
}

/*
 * The credentials of a URL spec: [*start, *at), at its '@'.  They end at
 * the last '@' that a host and a path follow, so a password may hold
 * '/', '?', '#' or '@' unencoded ("https://u:p/w#x@host/r.git" is user u
 * at host); an '@' in the path must then be written %40.  A URL with no
 * path is read as git reads it: credentials end before the first '/',
 * '?' or '#'.  0 when spec is no URL or names no credentials.
 */
static int
userinfo_span(const char *spec, const char **start, const char **at)
{
	const char *sep = url_scheme_end(spec), *auth, *p, *h;

	*at = NULL;
	if (sep == NULL)
		return 0;
	*start = auth = sep + 3;
	for (p = auth; *p != '\0'; p++) {
		if (*p != '@')
			continue;
		h = p + 1 + strcspn(p + 1, "/?#@");
		if (h > p + 1 && *h == '/')
			*at = p;
	}
	if (*at == NULL) {
		h = auth + strcspn(auth, "/?#");
		for (p = auth; p < h; p++)
			if (*p == '@')
				*at = p;
	}
	return *at != NULL;
}

/* s with '/', '?', '#' and '@' percent-encoded: what libgit2 must be
 * given so that it splits the URL where we do.  A new string. */
static char *
encode_userinfo(const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = xmalloc(n * 3 + 1), *o = out;

	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\0' && strchr("/?#@", s[i]) != NULL) {
			*o++ = '%';
			*o++ = hex[(unsigned char)s[i] >> 4];
			*o++ = hex[(unsigned char)s[i] & 0xf];
		} else
			*o++ = s[i];
	}
	*o = '\0';
	return out;
}

/* Remember secret (n bytes) and the form libgit2 is given of it. */
static void
add_secret(struct ep_strv *secrets, const char *secret, size_t n)
{
	char *enc = encode_userinfo(secret, n);

	if (strlen(enc) != n)
		ep_strv_push_owned(secrets, enc);
	else
		free(enc);
	ep_strv_push_owned(secrets, xstrndup(secret, n));
}

/* Redact spec; when secrets is not NULL, add what was removed to it. */
char *
ep_store_redact_into(const char *spec, struct ep_strv *secrets)
{
	const char *sep = url_scheme_end(spec), *auth, *at, *colon;

	if (!userinfo_span(spec, &auth, &at))
		return xstrdup(spec);
	colon = memchr(auth, ':', (size_t)(at - auth));
	if (secrets != NULL) {
		/* A password, or a user name standing alone where a token
		 * goes ("https://TOKEN@host/..."). */
		if (colon != NULL && colon + 1 < at)
			add_secret(secrets, colon + 1,
			    (size_t)(at - colon - 1));
		else if (colon == NULL && at > auth &&
		    !user_is_public(spec, (size_t)(sep - spec)))
			add_secret(secrets, auth, (size_t)(at - auth));
	}
	if (user_is_public(spec, (size_t)(sep - spec)) && colon == NULL)
		return xstrdup(spec);
	if (user_is_public(spec, (size_t)(sep - spec)))
		return xasprintf("%.*s%s", (int)(colon - spec), spec, at);
	return xasprintf("%.*s%s", (int)(auth - spec), spec, at + 1);
}

/* spec as libgit2 must be given it: credentials percent-encoded where
 * they hold '/', '?', '#' or '@'.  A new string. */
static char *
url_for_git(const char *spec)
{
	const char *auth, *at;
	char *enc, *out;

	if (!userinfo_span(spec, &auth, &at) ||
	    strcspn(auth, "/?#@") >= (size_t)(at - auth))
		return xstrdup(spec);
	enc = encode_userinfo(auth, (size_t)(at - auth));
	out = xasprintf("%.*s%s%s", (int)(auth - spec), spec, enc, at);
	free(enc);
	return out;
}

const char *
ep_store_spec_ref(const char *arg)
{
	const char *hash = strrchr(arg, '#'), *auth, *at;

	/* A '#' inside the credentials is part of a password. */
	if (hash != NULL && userinfo_span(arg, &auth, &at) && hash < at)
		return NULL;
	return hash;
}

void
ep_store_spec_scrub(const char *spec, struct ep_err *err)
{
	struct ep_strv secrets = { 0 };
	char *shown = ep_store_redact_into(spec, &secrets);

	/* The spec whole becomes what may be shown of it; any rest of a
	 * secret, "***". */
	ep_store_replace(err, spec, shown);
	ep_store_scrub_secrets(&secrets, err);
	ep_strv_clear(&secrets);
	free(shown);
}

char *
ep_store_redact(const char *spec)
{
	return ep_store_redact_into(spec, NULL);
}

/* Classify spec into s->kind, s->display, s->url or s->path, s->direct.
 * Malformed: EP_E_INPUT. */
int
ep_store_parse_spec(struct ep_store *s, const char *spec, struct ep_err *err)
{
	static const char *const net[] = { "git", "http", "https", "ssh",
	    "git+ssh", "ssh+git", NULL };
	const char *sep, *auth, *path, *colon, *slash, *at;
	char *scheme = NULL;
	size_t i;
	int rc = -1;

	s->display = ep_store_redact_into(spec, &s->secrets);
	if (spec[0] == '\0')
		return ep_err_set(err, EP_E_INPUT, "store: empty name");
	for (const char *p = spec; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return ep_err_set(err, EP_E_INPUT, "store %s: "
			    "contains a control character", s->display);

	if ((sep = url_scheme_end(spec)) != NULL) {
		scheme = xstrndup(spec, (size_t)(sep - spec));
		for (char *p = scheme; *p != '\0'; p++)
			*p = (char)tolower((unsigned char)*p);
		auth = sep + 3;
		path = auth + strcspn(auth, "/");
		if (strpbrk(spec, " \t") != NULL) {
			ep_err_set(err, EP_E_INPUT, "store %s: a URL cannot "
			    "contain spaces", s->display);
			goto done;
		}
		if (strcmp(scheme, "file") == 0) {
			if (path != auth && strncmp(auth, "localhost/", 10)) {
				ep_err_set(err, EP_E_INPUT, "store %s: a file "
				    "URL names no host (file:///path)",
				    s->display);
				goto done;
			}
			if (path[0] == '\0' || strcmp(path, "/") == 0) {
				ep_err_set(err, EP_E_INPUT, "store %s: no "
				    "repository path", s->display);
				goto done;
			}
			s->kind = EP_STORE_FILE;
			s->url = xstrdup(spec);
			s->direct = xstrdup(path);
			rc = 0;
			goto done;
		}
		for (i = 0; net[i] != NULL; i++)
			if (strcmp(scheme, net[i]) == 0)
				break;
		if (net[i] == NULL) {
			ep_err_set(err, EP_E_INPUT, "store %s: unsupported "
			    "scheme '%s' (use a path, file://, git://, "
			    "http://, https://, ssh:// or user@host:path)",
			    s->display, scheme);
			goto done;
		}
		if (userinfo_span(spec, &auth, &at))
			auth = at + 1;
		path = auth + strcspn(auth, "/");
		if (auth == path) {
			ep_err_set(err, EP_E_INPUT, "store %s: no host",
			    s->display);
			goto done;
		}
		if (path[0] == '\0' || strcmp(path, "/") == 0) {
			ep_err_set(err, EP_E_INPUT, "store %s: no repository "
			    "path", s->display);
			goto done;
		}
		s->kind = EP_STORE_NET;
		s->url = url_for_git(spec);
		rc = 0;
		goto done;
	}

	/* git's rule: a colon before any slash makes it [user@]host:path. */
	colon = strchr(spec, ':');
	slash = strchr(spec, '/');
	if (colon != NULL && (slash == NULL || colon < slash)) {
		const char *host = memchr(spec, '@', (size_t)(colon - spec));

		host = host != NULL ? host + 1 : spec;
		if (host == colon || colon[1] == '\0') {
			ep_err_set(err, EP_E_INPUT, "store %s: expected "
			    "[user@]host:path", s->display);
			goto done;
		}
		s->kind = EP_STORE_NET;
		s->url = xstrdup(spec);
		rc = 0;
		goto done;
	}
	s->kind = EP_STORE_LOCAL;
	s->path = xstrdup(spec);
	rc = 0;
done:
	free(scheme);
	return rc;
}
