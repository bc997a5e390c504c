/*
 * lockfile_pins.c: what every lockfile parser shares beneath it: the pin
 * list (capped, merged), PEP 503 names and PEP 508 name syntax, and URL
 * scrubbing for direct references.
 */
#include "lockfile.h"
#include "strv.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void
ep_pins_add_at(struct ep_pins *p, const char *name, const char *version,
    const char *where, const char *source, const char *hash)
{
	struct ep_pin *v;

	if (p->n >= EP_LOCK_PINS_MAX) {
		p->dropped++;
		return;
	}
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 32;
		p->v = xreallocarray(p->v, p->cap, sizeof *p->v);
	}
	v = &p->v[p->n++];
	v->name = xstrdup(name);
	v->version = xstrdup(version);
	v->where = where != NULL ? xstrdup(where) : NULL;
	v->source = source != NULL ? xstrdup(source) : NULL;
	v->hash = hash != NULL ? xstrdup(hash) : NULL;
	v->group = NULL;
	v->deps = NULL;
}

void
ep_pins_set_group(struct ep_pins *p, size_t n0, const char *group)
{
	if (p->n > n0 && group != NULL) {
		free(p->v[p->n - 1].group);
		p->v[p->n - 1].group = xstrdup(group);
	}
}

void
ep_pins_set_deps(struct ep_pins *p, size_t n0, const char *deps)
{
	if (p->n > n0 && deps != NULL) {
		free(p->v[p->n - 1].deps);
		p->v[p->n - 1].deps = xstrdup(deps);
	}
}

void
ep_pins_add(struct ep_pins *p, const char *name, const char *version)
{
	ep_pins_add_at(p, name, version, NULL, NULL, NULL);
}

/* Free what a pin holds. */
static void
pin_free(struct ep_pin *v)
{
	free(v->name);
	free(v->version);
	free(v->where);
	free(v->source);
	free(v->hash);
	free(v->group);
	free(v->deps);
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
	for (size_t i = 0, n0; i < from->n; i++) {
		n0 = out->n;
		ep_pins_add_at(out, from->v[i].name, from->v[i].version,
		    from->v[i].where, from->v[i].source, from->v[i].hash);
		ep_pins_set_group(out, n0, from->v[i].group);
		ep_pins_set_deps(out, n0, from->v[i].deps);
	}
	for (size_t i = 0; i < from->warnings.n; i++)
		ep_strv_push(&out->warnings, from->warnings.v[i]);
	out->dropped += from->dropped;
	out->partial |= from->partial;
	ep_pins_clear(from);
}

void
ep_pins_clear(struct ep_pins *p)
{
	for (size_t i = 0; i < p->n; i++)
		pin_free(&p->v[i]);
	free(p->v);
	p->v = NULL;
	p->n = p->cap = p->dropped = 0;
	p->partial = 0;
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
		for (k = i + 1; k < j; k++)
			pin_free(&p->v[k]);
		free(p->v[i].version);
		free(p->v[i].where);
		free(p->v[i].source);
		free(p->v[i].hash);
		free(p->v[i].group);
		free(p->v[i].deps);
		p->v[o] = (struct ep_pin){ .name = p->v[i].name,
		    .version = joined };
		o++;
	}
	p->n = o;
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
