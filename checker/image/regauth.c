/*
 * regauth.c: registry authentication without the network: challenges,
 * token URLs, and the credentials files docker and podman write (which
 * token server may have them is regrealm.c's).  registry.c asks; this
 * file only parses and looks up.
 */
#include "regauth.h"
#include "errors.h"
#include "files.h"
#include "strv.h"
#include "xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#define CREDS_MAX (1 << 20)	/* a credentials file larger is not one */

void
ep_regchal_clear(struct ep_regchal *c)
{
	free(c->realm);
	free(c->service);
	free(c->scope);
	memset(c, 0, sizeof *c);
}

static int
is_tchar(int ch)
{
	return isalnum(ch) || (ch != '\0' && strchr("!#$%&'*+-.^_`|~", ch));
}

static const char *
skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* A token at p: its length, 0 if none. */
static size_t
token_len(const char *p)
{
	size_t n = 0;

	while (is_tchar((unsigned char)p[n]))
		n++;
	return n;
}

/* A token68 at p (RFC 7235: base64-ish, '=' padding): its length. */
static size_t
token68_len(const char *p)
{
	size_t n = 0;

	while (isalnum((unsigned char)p[n]) || (p[n] != '\0' &&
	    strchr("-._~+/", p[n]) != NULL))
		n++;
	if (n == 0)
		return 0;
	while (p[n] == '=')
		n++;
	return n;
}

/* A quoted-string at p (p[0] == '"'): the unescaped value in *out, the
 * end after the closing quote, or NULL when unterminated. */
static const char *
quoted(const char *p, char **out)
{
	size_t cap = strlen(p), n = 0;
	char *v = xmalloc(cap + 1);

	for (p++; *p != '"'; p++) {
		if (*p == '\0') {
			free(v);
			return NULL;
		}
		if (*p == '\\' && p[1] != '\0')
			p++;
		v[n++] = *p;
	}
	v[n] = '\0';
	*out = v;
	return p + 1;
}

int
ep_regchal_parse(struct ep_regchal *c, const char *header,
    struct ep_err *err)
{
	struct ep_regchal cur, best;
	const char *p = header;
	size_t n;

	memset(c, 0, sizeof *c);
	memset(&cur, 0, sizeof cur);
	memset(&best, 0, sizeof best);
	for (;;) {
		p = skip_ws(p);
		while (*p == ',' || *p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		/* A scheme. */
		if ((n = token_len(p)) == 0)
			goto bad;
		if (n == 5 && strncasecmp(p, "basic", 5) == 0)
			cur.scheme = EP_CHAL_BASIC;
		else if (n == 6 && strncasecmp(p, "bearer", 6) == 0)
			cur.scheme = EP_CHAL_BEARER;
		else
			cur.scheme = EP_CHAL_NONE;
		p = skip_ws(p + n);
		/* A token68 instead of auth-params ("Negotiate abc=="). */
		if ((n = token68_len(p)) > 0) {
			const char *r = skip_ws(p + n);

			if (*r == ',' || *r == '\0')
				p = r;
		}
		/* Its auth-params: name=value, until a token that is
		 * not followed by '=' (the next scheme). */
		for (;;) {
			const char *name = p, *eq, *end;
			char *val = NULL;
			size_t vn;

			if ((n = token_len(p)) == 0)
				break;
			eq = skip_ws(p + n);
			if (*eq != '=' || eq[1] == '=')
				break;	/* the next challenge's scheme */
			p = skip_ws(eq + 1);
			if (*p == '"') {
				/* p stays at the opening quote for the
				 * message when the string is unterminated. */
				if ((end = quoted(p, &val)) == NULL)
					goto bad;
				p = end;
			} else {
				if ((vn = token_len(p)) == 0)
					goto bad;
				val = xstrndup(p, vn);
				p += vn;
			}
			if (n == 5 && strncasecmp(name, "realm", 5) == 0) {
				free(cur.realm);
				cur.realm = val;
			} else if (n == 7 &&
			    strncasecmp(name, "service", 7) == 0) {
				free(cur.service);
				cur.service = val;
			} else if (n == 5 &&
			    strncasecmp(name, "scope", 5) == 0) {
				free(cur.scope);
				cur.scope = val;
			} else
				free(val);
			p = skip_ws(p);
			if (*p == ',')
				p = skip_ws(p + 1);
			else if (*p != '\0')
				goto bad;
		}
		if (cur.scheme == EP_CHAL_BEARER && cur.realm == NULL) {
			ep_regchal_clear(&cur);
			ep_regchal_clear(&best);
			return ep_err_set(err, EP_E_IO, "malformed "
			    "WWW-Authenticate: Bearer challenge without realm");
		}
		if (cur.scheme > best.scheme) {
			ep_regchal_clear(&best);
			best = cur;
		} else
			ep_regchal_clear(&cur);
		memset(&cur, 0, sizeof cur);
	}
	*c = best;
	return 0;
bad:
	ep_regchal_clear(&cur);
	ep_regchal_clear(&best);
	return ep_err_set(err, EP_E_IO, "malformed WWW-Authenticate at "
	    "offset %zu", (size_t)(p - header));
}

/* Append s percent-encoded (RFC 3986 unreserved kept) to buf at *n. */
static void
pct_append(char *buf, size_t *n, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;

		if (isalnum(ch) || ch == '-' || ch == '.' || ch == '_' ||
		    ch == '~')
			buf[(*n)++] = (char)ch;
		else {
			buf[(*n)++] = '%';
			buf[(*n)++] = hex[ch >> 4];
			buf[(*n)++] = hex[ch & 15];
		}
	}
	buf[*n] = '\0';
}

char *
ep_regauth_token_url(const struct ep_regchal *c, const char *repository)
{
	char *scope = xasprintf("repository:%s:pull", repository);
	size_t cap, n;
	char *url;

	cap = strlen(c->realm) + 3 * strlen(scope) + 32 +
	    (c->service != NULL ? 3 * strlen(c->service) : 0);
	url = xmalloc(cap);
	n = (size_t)snprintf(url, cap, "%s%c", c->realm,
	    strchr(c->realm, '?') != NULL ? '&' : '?');
	if (c->service != NULL) {
		memcpy(url + n, "service=", 9);
		n += 8;
		pct_append(url, &n, c->service);
		url[n++] = '&';
	}
	memcpy(url + n, "scope=", 7);
	n += 6;
	pct_append(url, &n, scope);
	free(scope);
	return url;
}

char *
ep_regauth_redact_url(const char *url)
{
	const char *host = url, *at, *end, *q, *sep;
	char *s;

	/* A "://" in the query or fragment starts no authority. */
	q = url + strcspn(url, "?#");
	if ((sep = strstr(url, "://")) != NULL && sep < q)
		host = sep + 3;
	end = host + strcspn(host, "/?#");
	/* The last '@' before the path ends the userinfo. */
	at = NULL;
	for (const char *p = host; p < end; p++)
		if (*p == '@')
			at = p;
	if (at == NULL)
		return xstrndup(url, (size_t)(q - url));
	s = xasprintf("%.*s%.*s", (int)(host - url), url,
	    (int)(q - (at + 1)), at + 1);
	return s;
}

/* Decode base64 (standard alphabet, padding optional) into a new
 * NUL-terminated string; NULL when malformed or holding a NUL. */
static char *
b64_decode(const char *s)
{
	size_t len = strlen(s), n = 0;
	unsigned acc = 0;
	int bits = 0;
	char *out = xmalloc(len + 1);

	for (size_t i = 0; i < len; i++) {
		const char *alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789+/";
		const char *pos;

		if (s[i] == '=') {
			while (i < len && s[i] == '=')
				i++;
			if (i != len)
				goto bad;
			break;
		}
		if (s[i] == '\0' || (pos = strchr(alpha, s[i])) == NULL)
			goto bad;
		acc = (acc << 6) | (unsigned)(pos - alpha);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n] = (char)((acc >> bits) & 0xff);
			if (out[n] == '\0')
				goto bad;
			n++;
		}
	}
	out[n] = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

/* A key as docker and podman write it, normalized: scheme dropped, and
 * with a scheme also the path ("https://index.docker.io/v1/" is
 * index.docker.io); a trailing '/' dropped; docker.io's aliases made
 * "docker.io". */
static char *
key_normalize(const char *key)
{
	const char *p = key, *q;
	char *k;
	size_t n;

	if ((q = strstr(key, "://")) != NULL) {
		p = q + 3;
		n = strcspn(p, "/");
	} else
		n = strlen(p);
	while (n > 0 && p[n - 1] == '/')
		n--;
	q = p + strcspn(p, "/");
	if (q > p + n)
		q = p + n;
	if ((q - p == 15 && strncmp(p, "index.docker.io", 15) == 0) ||
	    (q - p == 20 && strncmp(p, "registry-1.docker.io", 20) == 0))
		k = xasprintf("docker.io%.*s", (int)(n - (size_t)(q - p)), q);
	else
		k = xstrndup(p, n);
	return k;
}

static int
entry_parse(struct ep_regcred *e, const char *path, const char *key,
    json_t *v, struct ep_err *err)
{
	const char *auth = NULL, *u = NULL, *pw = NULL, *id = NULL, *rt = NULL;
	json_t *x;
	char *dec, *colon;
	size_t dn;

	memset(e, 0, sizeof *e);
	if (!json_is_object(v))
		return ep_err_set(err, EP_E_INPUT, "%s: auths.\"%s\": not an "
		    "object", path, key);
#define STR(name, var) do {						\
	if ((x = json_object_get(v, name)) != NULL && !json_is_null(x)) { \
		if (!json_is_string(x))					\
			return ep_err_set(err, EP_E_INPUT, "%s: auths.\"%s\"" \
			    ".%s: not a string", path, key, name);	\
		var = json_string_value(x);				\
	}								\
} while (0)
	STR("auth", auth);
	STR("username", u);
	STR("password", pw);
	STR("identitytoken", id);
	STR("registrytoken", rt);
#undef STR
	if (auth != NULL && *auth != '\0') {
		if ((dec = b64_decode(auth)) == NULL)
			return ep_err_set(err, EP_E_INPUT, "%s: auths.\"%s\""
			    ".auth: not base64", path, key);
		dn = strlen(dec);
		if ((colon = strchr(dec, ':')) == NULL) {
			explicit_bzero(dec, dn);
			free(dec);
			return ep_err_set(err, EP_E_INPUT, "%s: auths.\"%s\""
			    ".auth: not base64 of USER:PASSWORD", path, key);
		}
		*colon = '\0';
		e->user = xstrdup(dec);
		e->pass = xstrdup(colon + 1);
		explicit_bzero(dec, dn);
		free(dec);
	} else if (u != NULL && pw != NULL) {
		e->user = xstrdup(u);
		e->pass = xstrdup(pw);
	}
	if (id != NULL && *id != '\0')
		e->identity_token = xstrdup(id);
	if (rt != NULL && *rt != '\0')
		e->registry_token = xstrdup(rt);
	e->file = xstrdup(path);
	e->key = key_normalize(key);
	return 0;
}

static void
cred_free(struct ep_regcred *e)
{
	free(e->file);
	free(e->key);
	free(e->user);
	if (e->pass != NULL)
		explicit_bzero(e->pass, strlen(e->pass));
	free(e->pass);
	free(e->identity_token);
	free(e->registry_token);
	memset(e, 0, sizeof *e);
}

int
ep_regcreds_parse(struct ep_regcreds *c, const char *path, const char *text,
    size_t len, struct ep_err *err)
{
	json_error_t jerr;
	json_t *root, *auths;
	const char *key;
	json_t *v;
	int rc = -1;

	if ((root = json_loadb(text, len, 0, &jerr)) == NULL)
		/* Line and column only: jansson's text quotes the bytes
		 * near the error, which may be a password. */
		return ep_err_set(err, EP_E_INPUT, "%s: not JSON (line %d, "
		    "column %d)", path, jerr.line, jerr.column);
	if (!json_is_object(root)) {
		ep_err_set(err, EP_E_INPUT, "%s: not a JSON object", path);
		goto done;
	}
	if (json_object_get(root, "credsStore") != NULL ||
	    json_object_get(root, "credHelpers") != NULL)
		c->helpers = 1;
	auths = json_object_get(root, "auths");
	if (auths != NULL && !json_is_object(auths)) {
		ep_err_set(err, EP_E_INPUT, "%s: \"auths\" is not an object",
		    path);
		goto done;
	}
	json_object_foreach(auths, key, v) {
		struct ep_regcred e;

		if (entry_parse(&e, path, key, v, err) < 0) {
			cred_free(&e);
			goto done;
		}
		c->v = xreallocarray(c->v, c->n + 1, sizeof *c->v);
		c->v[c->n++] = e;
	}
	rc = 0;
done:
	json_decref(root);
	return rc;
}

static int
load_one(struct ep_regcreds *c, const char *path, int required,
    struct ep_err *err)
{
	char *text;
	size_t len;
	int rc;

	ep_strv_push(&c->files, path);
	if (!required && access(path, F_OK) != 0 && errno == ENOENT)
		return 0;
	if (ep_read_file(&text, &len, path, CREDS_MAX, err) < 0)
		return -1;
	rc = ep_regcreds_parse(c, path, text, len, err);
	explicit_bzero(text, len);
	free(text);
	return rc;
}

int
ep_regcreds_load(struct ep_regcreds *c, const char *auth_file,
    struct ep_err *err)
{
	const char *env, *home;
	char *p;
	int rc = 0;

	memset(c, 0, sizeof *c);
	if (auth_file != NULL)
		rc = load_one(c, auth_file, 1, err);
	else {
		if ((env = getenv("REGISTRY_AUTH_FILE")) != NULL &&
		    *env != '\0')
			rc = load_one(c, env, 1, err);
		else if ((env = getenv("XDG_RUNTIME_DIR")) != NULL &&
		    *env == '/') {
			p = xasprintf("%s/containers/auth.json", env);
			rc = load_one(c, p, 0, err);
			free(p);
		}
		p = NULL;
		if ((env = getenv("DOCKER_CONFIG")) != NULL && *env != '\0')
			p = xasprintf("%s/config.json", env);
		else if ((home = getenv("HOME")) != NULL && *home != '\0')
			p = xasprintf("%s/.docker/config.json", home);
		if (rc == 0 && p != NULL)
			rc = load_one(c, p, 0, err);
		free(p);
	}
	if (rc < 0)
		ep_regcreds_clear(c);
	return rc;
}

void
ep_regcreds_clear(struct ep_regcreds *c)
{
	for (size_t i = 0; i < c->n; i++)
		cred_free(&c->v[i]);
	free(c->v);
	ep_strv_clear(&c->files);
	memset(c, 0, sizeof *c);
}

const struct ep_regcred *
ep_regcreds_find(const struct ep_regcreds *c, const char *registry,
    const char *repository)
{
	const struct ep_regcred *best = NULL;
	char *reg = key_normalize(registry);
	size_t rl = strlen(reg), best_len = 0;

	for (size_t i = 0; i < c->n; i++) {
		const struct ep_regcred *e = &c->v[i];
		size_t kl = strlen(e->key);

		/* Files in order: a later file never overrides. */
		if (best != NULL && strcmp(e->file, best->file) != 0)
			break;
		if (strncmp(e->key, reg, rl) != 0)
			continue;
		if (e->key[rl] != '\0') {
			/* "host/path": the repository at a boundary. */
			size_t pl = kl - rl - 1;

			if (e->key[rl] != '/' || repository == NULL ||
			    strncmp(e->key + rl + 1, repository, pl) != 0 ||
			    (repository[pl] != '\0' && repository[pl] != '/'))
				continue;
		}
		if (best == NULL || kl > best_len) {
			best = e;
			best_len = kl;
		}
	}
	free(reg);
	return best;
}

char *
ep_regcreds_files(const struct ep_regcreds *c)
{
	size_t len = 1;
	char *s;

	if (c->files.n == 0)
		return xstrdup("no credentials file");
	for (size_t i = 0; i < c->files.n; i++)
		len += strlen(c->files.v[i]) + 2;
	s = xcalloc(1, len);
	for (size_t i = 0; i < c->files.n; i++) {
		if (i > 0)
			strcat(s, ", ");
		strcat(s, c->files.v[i]);
	}
	return s;
}
