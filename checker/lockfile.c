/*
 * lockfile.c: what every lockfile format shares (the pin list, PEP 503
 * names, URL scrubbing, line splitting, the choice of format by file name)
 * and the two small formats: Pipfile.lock and conda explicit files.
 * requirements*.txt is read in lockfile_req.c, poetry.lock and uv.lock in
 * lockfile_toml.c (their TOML in lockfile_tomlsyn.c), and the text under
 * them (UTF-8, UTF-16 and UTF-32) in lockfile_text.c.
 */
#include "lockfile.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

void
ep_pins_add(struct ep_pins *p, const char *name, const char *version)
{
	if (p->n >= EP_LOCK_PINS_MAX) {
		p->dropped++;
		return;
	}
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 32;
		p->v = xreallocarray(p->v, p->cap, sizeof *p->v);
	}
	p->v[p->n].name = xstrdup(name);
	p->v[p->n].version = xstrdup(version);
	p->n++;
}

void
ep_pins_warn(struct ep_pins *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ep_strv_push_owned(&p->warnings, xvasprintf(fmt, ap));
	va_end(ap);
}

void
ep_pins_take(struct ep_pins *out, struct ep_pins *from)
{
	for (size_t i = 0; i < from->n; i++)
		ep_pins_add(out, from->v[i].name, from->v[i].version);
	for (size_t i = 0; i < from->warnings.n; i++)
		ep_strv_push(&out->warnings, from->warnings.v[i]);
	out->dropped += from->dropped;
	ep_pins_clear(from);
}

void
ep_pins_clear(struct ep_pins *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].name);
		free(p->v[i].version);
	}
	free(p->v);
	p->v = NULL;
	p->n = p->cap = p->dropped = 0;
	ep_strv_clear(&p->warnings);
}

static int
cmp_pin(const void *a, const void *b)
{
	const struct ep_pin *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c != 0 ? c : strcmp(x->version, y->version);
}

void
ep_pins_merge(struct ep_pins *p)
{
	size_t i, j, k, o = 0, len;
	char *joined, *w;

	if (p->n > 1)
		qsort(p->v, p->n, sizeof *p->v, cmp_pin);
	for (i = 0; i < p->n; i = j) {
		len = strlen(p->v[i].version) + 1;
		for (j = i + 1; j < p->n &&
		    strcmp(p->v[j].name, p->v[i].name) == 0; j++)
			len += strlen(p->v[j].version) + 1;
		joined = xmalloc(len);
		w = stpcpy(joined, p->v[i].version);
		/* Sorted, so a repeat follows its twin; one pass, appending
		 * at the end (never strcat: a name pinned a million times
		 * must stay linear). */
		for (k = i + 1; k < j; k++) {
			if (strcmp(p->v[k].version, p->v[k - 1].version) != 0) {
				*w++ = ',';
				w = stpcpy(w, p->v[k].version);
			}
		}
		for (k = i + 1; k < j; k++) {
			free(p->v[k].name);
			free(p->v[k].version);
		}
		free(p->v[i].version);
		p->v[o].name = p->v[i].name;
		p->v[o].version = joined;
		o++;
	}
	p->n = o;
}

enum ep_lock_format
ep_lock_format_of(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b != NULL ? b + 1 : path;
	if (strcmp(b, "poetry.lock") == 0)
		return EP_LOCK_POETRY;
	if (strcmp(b, "uv.lock") == 0)
		return EP_LOCK_UV;
	if (strcmp(b, "Pipfile.lock") == 0)
		return EP_LOCK_PIPFILE;
	/* Before requirements*.txt: "requirements.explicit.txt" is conda. */
	if (ep_endswith(b, ".explicit.txt") ||
	    (ep_startswith(b, "conda-") && ep_endswith(b, ".lock") &&
	    strlen(b) > strlen("conda-.lock")))
		return EP_LOCK_CONDA;
	if (ep_startswith(b, "requirements") && ep_endswith(b, ".txt"))
		return EP_LOCK_REQUIREMENTS;
	return EP_LOCK_OTHER;
}

const char *
ep_lock_format_name(enum ep_lock_format f)
{
	switch (f) {
	case EP_LOCK_REQUIREMENTS:
		return "requirements";
	case EP_LOCK_POETRY:
		return "poetry";
	case EP_LOCK_UV:
		return "uv";
	case EP_LOCK_PIPFILE:
		return "pipfile";
	case EP_LOCK_CONDA:
		return "conda";
	case EP_LOCK_OTHER:
		break;
	}
	return "other";
}

int
ep_lock_parse(struct ep_pins *out, enum ep_lock_format f, const char *buf,
    size_t len, const char *name, struct ep_err *err)
{
	switch (f) {
	case EP_LOCK_REQUIREMENTS:
		return ep_lock_parse_requirements(out, buf, len, name, err);
	case EP_LOCK_POETRY:
		return ep_lock_parse_toml(out, buf, len, name, 0, err);
	case EP_LOCK_UV:
		return ep_lock_parse_toml(out, buf, len, name, 1, err);
	case EP_LOCK_PIPFILE:
		return ep_lock_parse_pipfile(out, buf, len, name, err);
	case EP_LOCK_CONDA:
		return ep_lock_parse_conda(out, buf, len, name, err);
	case EP_LOCK_OTHER:
		break;
	}
	return 0;
}

char *
ep_lock_pep503(const char *s, size_t n)
{
	char *out = xmalloc(n + 1), *o = out;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '-' || s[i] == '_' || s[i] == '.') {
			if (o == out || o[-1] != '-')
				*o++ = '-';
		} else
			*o++ = (char)tolower((unsigned char)s[i]);
	}
	*o = '\0';
	return out;
}

int
ep_lock_valid_name(const char *s, size_t n)
{
	if (n == 0 || !isalnum((unsigned char)s[0]) ||
	    !isalnum((unsigned char)s[n - 1]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' &&
		    s[i] != '_' && s[i] != '.')
			return 0;
	return 1;
}

/* Where the host begins in the n bytes at auth (just after "://"): past
 * the userinfo, if there is one.  A well-formed URL's userinfo ends at
 * the last '@' before the first '/', '?' or '#'.  One whose password holds
 * such a delimiter unencoded ("user:pa/ss@host", "user:p#ss@host", which
 * pip cannot use either) shows as an authority with a port that is not a
 * number, and an '@' later on: the userinfo then ends at the last '@'
 * before the next '/' after that one. */
static const char *
url_host(const char *auth, size_t n)
{
	const char *end = auth + n, *delim = auth, *colon, *at = NULL, *q;
	int port_ok = 1;

	while (delim < end && *delim != '/' && *delim != '?' && *delim != '#')
		delim++;
	for (q = auth; q < delim; q++)
		if (*q == '@')
			at = q;
	if (at != NULL)
		return at + 1;
	if ((colon = memchr(auth, ':', (size_t)(delim - auth))) == NULL)
		return auth;
	for (q = colon + 1; q < delim; q++)
		if (*q < '0' || *q > '9')
			port_ok = 0;
	if (port_ok || (q = memchr(delim, '@', (size_t)(end - delim))) == NULL)
		return auth;
	for (at = q; q < end && *q != '/'; q++)
		if (*q == '@')
			at = q;
	return at + 1;
}

char *
ep_lock_url_scrub(const char *s, size_t n)
{
	const char *end = s + n, *auth = NULL, *host, *cut;
	char *out, *o, *tmp, *t;

	/* anaconda.org channel tokens, https://conda.anaconda.org/t/TOKEN/:
	 * each "/t/SEGMENT" goes, in one pass, first: a cut can join what is
	 * left into a new "://" with a user:password@ after it
	 * ("https:/t///u:p@h"). */
	t = tmp = xmalloc(n + 1);
	for (const char *q = s; q < end;) {
		if (end - q >= 3 && memcmp(q, "/t/", 3) == 0) {
			const char *next = memchr(q + 3, '/', (size_t)(end - q - 3));

			q = next != NULL ? next : end;
			continue;
		}
		*t++ = *q++;
	}
	s = tmp;
	end = t;
	out = o = xmalloc((size_t)(end - s) + 1);
	/* The authority follows the first "://" before any '?' or '#'; one
	 * after them is in the query or the fragment, which go. */
	for (const char *q = s; q + 3 <= end && *q != '?' && *q != '#'; q++)
		if (memcmp(q, "://", 3) == 0) {
			auth = q + 3;
			break;
		}
	if (auth != NULL) {
		host = url_host(auth, (size_t)(end - auth));
		memcpy(o, s, (size_t)(auth - s));
		o += auth - s;
		s = host;
	}
	/* Then the query and the fragment. */
	if ((cut = memchr(s, '#', (size_t)(end - s))) != NULL)
		end = cut;
	if ((cut = memchr(s, '?', (size_t)(end - s))) != NULL)
		end = cut;
	memcpy(o, s, (size_t)(end - s));
	o += end - s;
	*o = '\0';
	free(tmp);
	return out;
}

const char *
ep_lock_skip_bom(const char *buf, size_t *len)
{
	if (*len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
		*len -= 3;
		return buf + 3;
	}
	return buf;
}

void
ep_lock_lines_init(struct ep_lock_lines *l, const char *buf, size_t len)
{
	buf = ep_lock_skip_bom(buf, &len);
	l->p = buf;
	l->end = buf + len;
	l->no = 0;
}

int
ep_lock_next_line(struct ep_lock_lines *l, const char **s, size_t *n)
{
	const char *nl;

	if (l->p >= l->end)
		return 0;
	nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	*s = l->p;
	*n = (size_t)((nl != NULL ? nl : l->end) - l->p);
	l->p = nl != NULL ? nl + 1 : l->end;
	if (*n > 0 && (*s)[*n - 1] == '\r')
		(*n)--;
	l->no++;
	return 1;
}

/* "%2B" and friends in a package file name ("1.0%2Bcpu"), decoded in place. */
static void
pct_decode(char *s)
{
	char *o = s;

	for (; *s != '\0'; s++) {
		if (s[0] == '%' && isxdigit((unsigned char)s[1]) &&
		    isxdigit((unsigned char)s[2])) {
			char hex[3] = { s[1], s[2], '\0' };

			*o++ = (char)strtol(hex, NULL, 16);
			s += 2;
		} else
			*o++ = *s;
	}
	*o = '\0';
}

/* One package line of an explicit file: a URL or path ending in
 * NAME-VERSION-BUILD.conda or .tar.bz2, with an optional #md5 or
 * #sha256 fragment.  Only name and version are kept: the channel part of
 * the URL can hold a token. */
static int
conda_line(struct ep_pins *pins, const char *s, size_t n, unsigned no,
    const char *name, struct ep_err *err)
{
	const char *frag = memchr(s, '#', n), *base;
	char *file, *ver, *build;
	size_t blen;
	int rc = -1;

	if (frag != NULL)
		n = (size_t)(frag - s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	base = s + n;
	while (base > s && base[-1] != '/')
		base--;
	blen = (size_t)(s + n - base);
	file = xstrndup(base, blen);
	if (ep_endswith(file, ".conda"))
		file[blen - strlen(".conda")] = '\0';
	else if (ep_endswith(file, ".tar.bz2"))
		file[blen - strlen(".tar.bz2")] = '\0';
	else {
		ep_err_set(err, EP_E_INPUT, "%s:%u: not a conda package URL "
		    "(expected .../NAME-VERSION-BUILD.conda or .tar.bz2)",
		    name, no);
		goto done;
	}
	pct_decode(file);
	if ((build = strrchr(file, '-')) == NULL || build == file ||
	    build[1] == '\0')
		goto bad;
	*build = '\0';
	if ((ver = strrchr(file, '-')) == NULL || ver == file ||
	    ver[1] == '\0')
		goto bad;
	*ver++ = '\0';
	ep_pins_add(pins, file, ver);
	rc = 0;
	goto done;
bad:
	ep_err_set(err, EP_E_INPUT, "%s:%u: package file name is not "
	    "NAME-VERSION-BUILD", name, no);
done:
	free(file);
	return rc;
}

int
ep_lock_parse_conda(struct ep_pins *out, const char *buf, size_t len,
    const char *name, struct ep_err *err)
{
	struct ep_pins pins = { 0 };
	struct ep_lock_lines l;
	const char *s;
	size_t n, b;
	int explicit = 0, rc = -1;

	ep_lock_lines_init(&l, buf, len);
	while (ep_lock_next_line(&l, &s, &n)) {
		if (memchr(s, '\0', n) != NULL) {
			ep_err_set(err, EP_E_INPUT, "%s:%u: NUL byte in a text "
			    "file", name, l.no);
			goto done;
		}
		b = 0;
		while (b < n && isspace((unsigned char)s[b]))
			b++;
		s += b;
		n -= b;
		while (n > 0 && isspace((unsigned char)s[n - 1]))
			n--;
		if (n == 0 || s[0] == '#')
			continue;
		if (n == strlen("@EXPLICIT") && memcmp(s, "@EXPLICIT", n) == 0) {
			explicit = 1;
			continue;
		}
		if (!explicit) {
			ep_err_set(err, EP_E_INPUT, "%s:%u: expected the "
			    "@EXPLICIT line before any package", name, l.no);
			goto done;
		}
		if (conda_line(&pins, s, n, l.no, name, err) < 0)
			goto done;
	}
	if (!explicit) {
		ep_err_set(err, EP_E_INPUT, "%s:%u: no @EXPLICIT line: not a "
		    "conda explicit lockfile", name, l.no > 0 ? l.no : 1);
		goto done;
	}
	ep_pins_take(out, &pins);
	rc = 0;
done:
	ep_pins_clear(&pins);
	return rc;
}

/* Pipenv writes "version": "==1.2.3"; git and path entries have none. */
static int
pipfile_section(struct ep_pins *pins, json_t *sect, const char *which,
    const char *name, struct ep_err *err)
{
	const char *pkg, *v;
	json_t *entry, *ver;
	char *norm, *text;

	if (!json_is_object(sect))
		return ep_err_set(err, EP_E_INPUT, "%s: \"%s\" is not an "
		    "object", name, which);
	json_object_foreach(sect, pkg, entry) {
		if (!ep_lock_valid_name(pkg, strlen(pkg)))
			return ep_err_set(err, EP_E_INPUT, "%s: \"%s\" has a "
			    "key that is not a package name", name, which);
		if (!json_is_object(entry))
			return ep_err_set(err, EP_E_INPUT, "%s: %s.%s is not "
			    "an object", name, which, pkg);
		if ((ver = json_object_get(entry, "version")) == NULL)
			continue;
		if (!json_is_string(ver))
			return ep_err_set(err, EP_E_INPUT, "%s: %s.%s.version "
			    "is not a string", name, which, pkg);
		v = json_string_value(ver);
		if (ep_startswith(v, "==="))
			v += 3;
		else if (ep_startswith(v, "=="))
			v += 2;
		text = ep_trim(xstrdup(v));
		norm = ep_lock_pep503(pkg, strlen(pkg));
		ep_pins_add(pins, norm, text[0] != '\0' ? text : "*");
		free(norm);
		free(text);
	}
	return 0;
}

int
ep_lock_parse_pipfile(struct ep_pins *out, const char *buf, size_t len,
    const char *name, struct ep_err *err)
{
	static const char *const sections[] = { "default", "develop", NULL };
	struct ep_pins pins = { 0 };
	json_error_t je;
	json_t *root, *sect;
	char *near;
	int found = 0, rc = -1;

	buf = ep_lock_skip_bom(buf, &len);
	if ((root = json_loadb(buf, len, 0, &je)) == NULL) {
		/* jansson quotes the token it choked on: it could be a
		 * source URL with a password in it. */
		if ((near = strstr(je.text, " near ")) != NULL)
			*near = '\0';
		return ep_err_set(err, EP_E_INPUT, "%s:%d: not valid JSON: %s",
		    name, je.line > 0 ? je.line : 1, je.text);
	}
	if (!json_is_object(root)) {
		ep_err_set(err, EP_E_INPUT, "%s:1: not a Pipfile.lock (the top "
		    "level is not an object)", name);
		goto done;
	}
	for (size_t i = 0; sections[i] != NULL; i++) {
		if ((sect = json_object_get(root, sections[i])) == NULL)
			continue;
		found++;
		if (pipfile_section(&pins, sect, sections[i], name, err) < 0)
			goto done;
	}
	if (found == 0) {
		ep_err_set(err, EP_E_INPUT, "%s:1: not a Pipfile.lock (no "
		    "\"default\" or \"develop\" section)", name);
		goto done;
	}
	ep_pins_take(out, &pins);
	rc = 0;
done:
	ep_pins_clear(&pins);
	json_decref(root);
	return rc;
}
