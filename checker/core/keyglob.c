/*
 * keyglob.c: the globs policies match fact keys with (keyglob.h): '*'
 * any run of bytes, dots included; '?' one byte; classes; '\\' quotes.  A
 * mismatch backtracks to the last '*' only, so matching takes at most the
 * pattern's length times the key's: never exponential on a crafted key.
 *
 * Beside matching, what a glob can match at all (ep_glob_names,
 * ep_glob_covers), for the policy's guard against waivers and rules that
 * cover every key: decided from the glob, never by trying sample keys.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "keyglob.h"
#include "xalloc.h"

/* One class after '[' at *pp against c: 1 or 0, *pp moved past ']'; -1
 * when the class is not closed. */
static int
class_match(const char **pp, unsigned char c)
{
	const unsigned char *p = (const unsigned char *)*pp;
	int neg = 0, hit = 0;

	if (*p == '!' || *p == '^') {
		neg = 1;
		p++;
	}
	if (*p == ']') {		/* first: a literal ']' */
		hit |= c == ']';
		p++;
	}
	while (*p != ']') {
		unsigned char lo, hi;

		if (*p == '\0')
			return -1;
		if (*p == '\\' && p[1] != '\0')
			p++;
		lo = *p++;
		if (p[0] == '-' && p[1] != ']' && p[1] != '\0') {
			p++;
			if (*p == '\\' && p[1] != '\0')
				p++;
			hi = *p++;
			hit |= lo <= c && c <= hi;
		} else
			hit |= c == lo;
	}
	*pp = (const char *)p + 1;
	return hit != neg;
}

int
ep_glob_match(const char *pattern, const char *key)
{
	const char *p = pattern, *k = key, *star_p = NULL, *star_k = NULL;

	while (*k != '\0') {
		if (*p == '*') {
			while (*p == '*')
				p++;
			star_p = p;
			star_k = k;
			continue;
		}
		if (*p == '?') {
			p++;
			k++;
			continue;
		}
		if (*p == '[') {
			const char *q = p + 1;
			int m = class_match(&q, (unsigned char)*k);

			if (m < 0)
				return 0;
			if (m) {
				p = q;
				k++;
				continue;
			}
		} else if (*p == '\\' && p[1] != '\0') {
			if (p[1] == *k) {
				p += 2;
				k++;
				continue;
			}
		} else if (*p != '\0' && *p == *k) {
			p++;
			k++;
			continue;
		}
		/* Mismatch: let the last '*' take one more byte. */
		if (star_p == NULL)
			return 0;
		p = star_p;
		k = ++star_k;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

const char *
ep_glob_problem(const char *pattern)
{
	if (*pattern == '\0')
		return "is empty";
	for (const char *p = pattern; *p != '\0'; p++) {
		if (*p == '\\') {
			if (p[1] == '\0')
				return "ends in a lone '\\'";
			p++;
		} else if (*p == '[') {
			const char *q = p + 1;

			if (class_match(&q, 0) < 0)
				return "has a '[' class that is not closed";
			p = q - 1;
		}
	}
	return NULL;
}

/*
 * What a glob can match, with its classes taken as any one byte.  A class
 * only narrows one byte among a few, and a key's bytes are whatever its
 * collector or a manifest put there (any UTF-8, '[' and ']' included), so
 * the analysis does not guess which bytes a key may hold: every class
 * counts as '?', which matches more than the class does.  Keys by which a
 * glob names anything are then its literal bytes alone.
 */
enum { TOK_STAR, TOK_ANY, TOK_LIT };

struct tok {
	int kind;
	unsigned char c;	/* TOK_LIT */
};

/* pattern (a usable glob) as tokens, runs of '*' as one: *n of them,
 * new. */
static struct tok *
tokens(const char *pattern, size_t *n)
{
	struct tok *v = xcalloc(strlen(pattern) + 1, sizeof *v);
	const char *p = pattern;

	*n = 0;
	while (*p != '\0') {
		if (*p == '*') {
			if (*n == 0 || v[*n - 1].kind != TOK_STAR)
				v[(*n)++].kind = TOK_STAR;
			p++;
		} else if (*p == '?') {
			v[(*n)++].kind = TOK_ANY;
			p++;
		} else if (*p == '[') {
			const char *q = p + 1;

			if (class_match(&q, 0) < 0)	/* not closed: a literal */
				goto lit;
			v[(*n)++].kind = TOK_ANY;
			p = q;
		} else {
lit:
			if (*p == '\\' && p[1] != '\0')
				p++;
			v[*n].kind = TOK_LIT;
			v[(*n)++].c = (unsigned char)*p++;
		}
	}
	return v;
}

int
ep_glob_names(const char *pattern)
{
	size_t n;
	struct tok *v = tokens(pattern, &n);
	int named = 0;

	for (size_t i = 0; i < n && !named; i++)
		named = v[i].kind == TOK_LIT && v[i].c != '.';
	free(v);
	return named;
}

/* The states of the glob's automaton reachable without reading: a '*'
 * may match nothing. */
static void
closure(unsigned char *set, const struct tok *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] && v[i].kind == TOK_STAR)
			set[i + 1] = 1;
}

/* Read byte c (-1: a byte no literal of the glob is) from the states in
 * set into next. */
static void
step(unsigned char *next, const unsigned char *set, const struct tok *v,
    size_t n, int c)
{
	memset(next, 0, n + 1);
	for (size_t i = 0; i < n; i++) {
		if (!set[i])
			continue;
		if (v[i].kind == TOK_STAR)
			next[i] = 1;
		else if (v[i].kind == TOK_ANY ||
		    (c >= 0 && v[i].c == (unsigned char)c))
			next[i + 1] = 1;
	}
	closure(next, v, n);
}

/*
 * After the prefix, a byte no literal of the glob is (call it g) stands
 * for any byte: a path of the automaton that reads g reads it with '*' or
 * '?', which read any byte as well.  So the glob covers every key
 * prefix + w (w not empty: no key ends a prefix such as "python.")
 * exactly when it matches prefix + g^k for every k >= 1.  And the states
 * after g^k are the same for every k past n + 1: a path that reads more
 * bytes than the glob has tokens stays on some '*' at least once, and
 * may stay once more, or once less.  So k up to n + 2 decides, and
 * sooner once a byte leaves the states as they were.
 */
int
ep_glob_covers(const char *pattern, const char *prefix)
{
	size_t n;
	struct tok *v = tokens(pattern, &n);
	unsigned char *set = xcalloc(n + 1, 1), *next = xcalloc(n + 1, 1);
	unsigned char *t;
	int covers = 1;

	set[0] = 1;
	closure(set, v, n);
	for (const char *p = prefix; *p != '\0'; p++) {
		step(next, set, v, n, (unsigned char)*p);
		t = set, set = next, next = t;
	}
	for (size_t k = 1; k <= n + 2 && covers; k++) {
		step(next, set, v, n, -1);
		t = set, set = next, next = t;
		covers = set[n];
		if (memcmp(set, next, n + 1) == 0)
			break;	/* the same states from here on */
	}
	free(set);
	free(next);
	free(v);
	return covers;
}
