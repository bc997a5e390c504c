/*
 * imgref.c: parse an image reference into its parts and the canonical
 * name fact keys use.
 *
 * Registry references follow distribution/reference's normalize.go: a
 * first path element that is "localhost" or holds '.' or ':' is a host,
 * otherwise the host is docker.io ("index.docker.io" is its old name) and
 * a one-element repository gets "library/"; the tag defaults to "latest"
 * unless the reference is pinned by digest.  Local references are
 * oci:DIR[:TAG] and docker-archive:FILE[:REF], split at the first ':'
 * after the prefix as skopeo does, so DIR and FILE cannot hold ':'.
 */
#include "imgtypes.h"
#include "errors.h"
#include "str.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

#define NAME_MAX_TOTAL	255	/* distribution's NameTotalLengthMax */
#define TAG_MAX		128

static int
is_lower_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static int
is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

int
ep_digest_valid(const char *s)
{
	if (s == NULL || strncmp(s, "sha256:", 7) != 0)
		return 0;
	s += 7;
	for (size_t i = 0; i < 64; i++)
		if (!is_hex((unsigned char)s[i]))
			return 0;
	return s[64] == '\0';
}

/* A tag: [a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}. */
static int
tag_valid(const char *s, size_t n)
{
	if (n == 0 || n > TAG_MAX || !(ep_ascii_alnum((unsigned char)s[0]) ||
	    s[0] == '_'))
		return 0;
	for (size_t i = 1; i < n; i++) {
		int c = (unsigned char)s[i];

		if (!ep_ascii_alnum(c) && c != '.' && c != '_' && c != '-')
			return 0;
	}
	return 1;
}

/*
 * An OCI layout's ref.name: component ("/" component)*, a component is
 * alphanum (separator alphanum)*, separators [-._:@+] or "--".
 */
static int
ocitag_valid(const char *s)
{
	int prev = '/';

	if (*s == '\0' || strlen(s) > NAME_MAX_TOTAL)
		return 0;
	for (; *s != '\0'; s++) {
		int c = (unsigned char)*s;

		if (ep_ascii_alnum(c)) {
			prev = 'a';
			continue;
		}
		if (c == '/') {
			if (prev != 'a')
				return 0;
		} else if (strchr("-._:@+", c) != NULL) {
			if (prev == '/' || (prev != 'a' &&
			    !(c == '-' && prev == '-')))
				return 0;
		} else
			return 0;
		prev = c;
	}
	return prev == 'a';
}

/* One repository path component: [a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*.
 * Returns NULL or what is wrong with it. */
static const char *
component_check(const char *s, size_t n)
{
	size_t i = 0;

	if (n == 0)
		return "empty path component in repository name";
	for (size_t k = 0; k < n; k++)
		if (s[k] >= 'A' && s[k] <= 'Z')
			return "uppercase in repository name";
	while (i < n) {
		size_t run = 0;

		while (i < n && is_lower_alnum((unsigned char)s[i])) {
			i++;
			run++;
		}
		if (run == 0)
			goto bad;
		if (i == n)
			return NULL;
		if (s[i] == '.') {
			i++;
		} else if (s[i] == '_') {
			i++;
			if (i < n && s[i] == '_')
				i++;
		} else if (s[i] == '-') {
			while (i < n && s[i] == '-')
				i++;
		} else
			goto bad;
		if (i == n)
			goto bad;
	}
	return NULL;
bad:
	return "bad character or separator in repository name";
}

/*
 * host[:port] as distribution's DomainRegexp has it: dot-separated labels
 * of letters, digits and '-', none empty and none beginning or ending with
 * '-' ("dock..er", "ab-.com" and "ab.-com" are not hosts), or a bracketed
 * IPv6 address; a port is a number up to 65535 (the pattern takes any
 * digits, and the connection fails).
 */
static int
host_valid(const char *s, size_t n)
{
	size_t i = 0, label;
	unsigned long port = 0;

	if (n == 0)
		return 0;
	if (s[0] == '[') {
		while (i < n && s[i] != ']')
			i++;
		if (i == n || i < 3)
			return 0;
		for (size_t k = 1; k < i; k++)
			if (!is_hex((unsigned char)s[k]) && s[k] != ':' &&
			    !(s[k] >= 'A' && s[k] <= 'F'))
				return 0;
		i++;
	} else {
		for (;;) {
			for (label = 0; i < n && (ep_ascii_alnum((unsigned char)s[i])
			    || s[i] == '-'); i++, label++)
				;
			if (label == 0 || s[i - label] == '-' ||
			    s[i - 1] == '-')
				return 0;
			if (i == n || s[i] != '.')
				break;
			i++;
		}
	}
	if (i == n)
		return 1;
	if (s[i] != ':' || i + 1 == n || n - i - 1 > 5)
		return 0;
	for (i++; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		port = port * 10 + (unsigned long)(s[i] - '0');
	}
	return port <= 65535;
}

/* 1 if s starts as a local reference does ("oci:", "docker-archive:"). */
static int
local_prefix(const char *s)
{
	return ep_startswith(s, "oci:") || ep_startswith(s, "docker-archive:");
}

static int
parse_registry(struct ep_imgref *r, const char *s, struct ep_err *err)
{
	const char *at, *slash, *colon, *end, *path;
	char *repo = NULL;
	size_t plen;
	const char *why;

	if (*s == '\0')
		return ep_err_set(err, EP_E_INPUT, "image reference is empty");
	for (const char *p = s; *p != '\0'; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
			return ep_err_set(err, EP_E_INPUT, "image reference "
			    "'%s': white space or control character", s);
	/* 64 hex digits are an image ID (docker's ParseNormalizedNamed
	 * refuses them as a name): not docker.io/library/<ID>:latest. */
	if (strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64)
		return ep_err_set(err, EP_E_INPUT, "image reference '%s': 64 "
		    "hexadecimal digits are an image ID, not a name a "
		    "registry knows (write NAME@sha256:ID to pin by digest)",
		    s);

	end = s + strlen(s);
	if ((at = strchr(s, '@')) != NULL) {
		/* USER[:PASSWORD]@HOST/...: a digest has no '/', so what is
		 * before the '@' may be a secret, and is never repeated. */
		if (strchr(at + 1, '/') != NULL)
			return ep_err_set(err, EP_E_INPUT, "image reference "
			    "'***@%s': credentials are not part of an image "
			    "reference (use --registry-auth-file)", at + 1);
		if (!ep_digest_valid(at + 1))
			return ep_err_set(err, EP_E_INPUT, "image reference "
			    "'%s': bad digest '%s' (expected sha256: and 64 "
			    "lowercase hex digits)", s, at + 1);
		r->digest = xstrdup(at + 1);
		end = at;
	}
	/* A tag is after the last ':' that follows the last '/'. */
	slash = NULL;
	for (const char *p = s; p < end; p++)
		if (*p == '/')
			slash = p;
	colon = NULL;
	for (const char *p = slash != NULL ? slash : s; p < end; p++)
		if (*p == ':')
			colon = p;
	if (colon != NULL) {
		size_t tn = (size_t)(end - colon - 1);

		if (tn == 0)
			return ep_err_set(err, EP_E_INPUT, "image reference "
			    "'%s': empty tag", s);
		if (!tag_valid(colon + 1, tn))
			return ep_err_set(err, EP_E_INPUT, "image reference "
			    "'%s': bad tag '%.*s' (expected "
			    "[A-Za-z0-9_][A-Za-z0-9._-], at most 128)", s,
			    (int)tn, colon + 1);
		r->tag = xstrndup(colon + 1, tn);
		end = colon;
	}
	if (end == s)
		return ep_err_set(err, EP_E_INPUT, "image reference '%s': "
		    "empty repository name", s);

	/* Host or not. */
	path = s;
	if ((slash = memchr(s, '/', (size_t)(end - s))) != NULL) {
		size_t hn = (size_t)(slash - s);

		if ((memchr(s, '.', hn) != NULL || memchr(s, ':', hn) != NULL ||
		    (hn == 9 && strncmp(s, "localhost", 9) == 0))) {
			if (!host_valid(s, hn))
				return ep_err_set(err, EP_E_INPUT,
				    "image reference '%s': bad registry host "
				    "'%.*s'", s, (int)hn, s);
			r->registry = xstrndup(s, hn);
			path = slash + 1;
		}
	}
	if (r->registry == NULL || strcmp(r->registry, "index.docker.io") == 0) {
		free(r->registry);
		r->registry = xstrdup("docker.io");
	}
	plen = (size_t)(end - path);
	for (const char *c = path; ; ) {
		const char *e = memchr(c, '/', (size_t)(end - c));
		size_t cn = e != NULL ? (size_t)(e - c) : (size_t)(end - c);

		if ((why = component_check(c, cn)) != NULL)
			return ep_err_set(err, EP_E_INPUT, "image reference "
			    "'%s': %s ('%.*s')", s, why, (int)cn, c);
		if (e == NULL)
			break;
		c = e + 1;
	}
	if (strcmp(r->registry, "docker.io") == 0 &&
	    memchr(path, '/', plen) == NULL)
		repo = xasprintf("library/%.*s", (int)plen, path);
	else
		repo = xstrndup(path, plen);
	if (strlen(r->registry) + 1 + strlen(repo) > NAME_MAX_TOTAL) {
		free(repo);
		return ep_err_set(err, EP_E_INPUT, "image reference '%.64s...': "
		    "repository name longer than %d characters", s,
		    NAME_MAX_TOTAL);
	}
	r->repository = repo;
	r->api_host = xstrdup(strcmp(r->registry, "docker.io") == 0 ?
	    "registry-1.docker.io" : r->registry);
	if (r->tag == NULL && r->digest == NULL)
		r->tag = xstrdup("latest");
	/*
	 * A registry host "oci" or "docker-archive" with a port would give
	 * a name that reads as a local image ("oci:5000/foo:latest" is the
	 * layout 5000/foo, tag latest): the two would share fact keys, and
	 * a batch would resolve one and drop the other.  Such a name keeps
	 * the "docker://" that such a reference needs anyway, so it reads
	 * back as itself.
	 */
	r->name = xasprintf("%s%s/%s%s%s%s%s", local_prefix(r->registry) ?
	    "docker://" : "", r->registry, r->repository,
	    r->tag != NULL ? ":" : "", r->tag != NULL ? r->tag : "",
	    r->digest != NULL ? "@" : "", r->digest != NULL ? r->digest : "");
	return 0;
}

/* oci:DIR[:TAG] and docker-archive:FILE[:REF]. */
static int
parse_local(struct ep_imgref *r, const char *s, const char *rest,
    const char *prefix, struct ep_err *err)
{
	const char *colon = strchr(rest, ':');
	size_t pn = colon != NULL ? (size_t)(colon - rest) : strlen(rest);

	if (pn == 0)
		return ep_err_set(err, EP_E_INPUT, "image reference '%s': "
		    "empty %s", s, r->kind == EP_IMG_OCI ? "directory" :
		    "archive path");
	for (const char *p = rest; *p != '\0'; p++)
		if ((unsigned char)*p < ' ' || (unsigned char)*p == 0x7f)
			return ep_err_set(err, EP_E_INPUT, "image reference "
			    "'%s': control character", s);
	r->path = xstrndup(rest, pn);
	if (colon != NULL) {
		const char *t = colon + 1;

		if (*t == '\0')
			return ep_err_set(err, EP_E_INPUT, "image reference "
			    "'%s': empty %s", s, r->kind == EP_IMG_OCI ?
			    "tag" : "image reference after the path");
		if (r->kind == EP_IMG_OCI && !ocitag_valid(t))
			return ep_err_set(err, EP_E_INPUT, "image reference "
			    "'%s': bad tag '%s'", s, t);
		if (r->kind == EP_IMG_ARCHIVE) {
			struct ep_imgref sub;
			struct ep_err e2 = { 0 };

			/* The image in the archive: a name:tag. */
			memset(&sub, 0, sizeof sub);
			if (parse_registry(&sub, t, &e2) < 0 ||
			    sub.digest != NULL || strchr(t, ':') == NULL) {
				ep_imgref_clear(&sub);
				return ep_err_set(err, EP_E_INPUT, "image "
				    "reference '%s': bad image in the archive "
				    "'%s' (expected NAME:TAG)", s, t);
			}
			ep_imgref_clear(&sub);
		}
		r->tag = xstrdup(t);
	}
	r->name = r->tag != NULL ? xasprintf("%s%s:%s", prefix, r->path,
	    r->tag) : xasprintf("%s%s", prefix, r->path);
	return 0;
}

int
ep_imgref_parse(struct ep_imgref *r, const char *s, struct ep_err *err)
{
	int rc;

	memset(r, 0, sizeof *r);
	if (ep_startswith(s, "oci:")) {
		/* Local, always: a registry called oci needs docker://. */
		r->kind = EP_IMG_OCI;
		rc = parse_local(r, s, s + 4, "oci:", err);
	} else if (ep_startswith(s, "docker-archive:")) {
		r->kind = EP_IMG_ARCHIVE;
		rc = parse_local(r, s, s + 15, "docker-archive:", err);
	} else if (ep_startswith(s, "docker://")) {
		r->kind = EP_IMG_REGISTRY;
		rc = parse_registry(r, s + 9, err);
	} else {
		r->kind = EP_IMG_REGISTRY;
		rc = parse_registry(r, s, err);
	}
	if (rc < 0) {
		ep_imgref_clear(r);
		return -1;
	}
	r->input = xstrdup(s);
	return 0;
}

void
ep_imgref_clear(struct ep_imgref *r)
{
	free(r->input);
	free(r->name);
	free(r->registry);
	free(r->api_host);
	free(r->repository);
	free(r->tag);
	free(r->digest);
	free(r->path);
	memset(r, 0, sizeof *r);
}

void
ep_imgres_clear(struct ep_imgres *r)
{
	free(r->digest);
	free(r->media_type);
	free(r->platform_digest);
	free(r->platform);
	free(r->config_digest);
	memset(r, 0, sizeof *r);
}
