/*
 * glob.c: the globs policies match fact keys with (policy.h): '*' any run
 * of bytes, dots included; '?' one byte; classes; '\\' quotes.  A
 * mismatch backtracks to the last '*' only, so matching takes at most the
 * pattern's length times the key's: never exponential on a crafted key.
 */
#include <stddef.h>

#include "policy.h"

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
