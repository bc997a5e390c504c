/*
 * store_spec.c: what a store spec names (a local path, a file:// URL, or
 * a network remote: git://, http(s)://, ssh://, [user@]host:path) and the
 * spec as it may be shown, with credentials removed and remembered as
 * secrets to scrub from every message.
 */
#include "store_int.h"

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

/* Redact spec; when secrets is not NULL, add what was removed to it. */
char *
ep_store_redact_into(const char *spec, struct ep_strv *secrets)
{
	const char *sep = url_scheme_end(spec), *auth, *end, *at = NULL;
	const char *colon;

	if (sep == NULL)
		return xstrdup(spec);
	auth = sep + 3;
	end = auth + strcspn(auth, "/?#");
	for (const char *p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	if (at == NULL)
		return xstrdup(spec);
	colon = memchr(auth, ':', (size_t)(at - auth));
	if (secrets != NULL) {
		/* A password, or a user name standing alone where a token
		 * goes ("https://TOKEN@host/..."). */
		if (colon != NULL && colon + 1 < at)
			ep_strv_push_owned(secrets,
			    xstrndup(colon + 1, (size_t)(at - colon - 1)));
		else if (colon == NULL && at > auth &&
		    !user_is_public(spec, (size_t)(sep - spec)))
			ep_strv_push_owned(secrets, xstrndup(auth,
			    (size_t)(at - auth)));
	}
	if (user_is_public(spec, (size_t)(sep - spec)) && colon == NULL)
		return xstrdup(spec);
	if (user_is_public(spec, (size_t)(sep - spec)))
		return xasprintf("%.*s%s", (int)(colon - spec), spec, at);
	return xasprintf("%.*s%s", (int)(auth - spec), spec, at + 1);
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
		at = NULL;
		for (const char *p = auth; p < path; p++)
			if (*p == '@')
				at = p;
		if ((at != NULL ? at + 1 : auth) == path) {
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
		s->url = xstrdup(spec);
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
