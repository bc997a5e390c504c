/*
 * pep508_spec.c: version specifiers as packaging's SpecifierSet reads,
 * prints and matches them (pep508.c says from where), distribution names
 * (PEP 503, PEP 508), and the small string helpers every part of the
 * reader uses.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pep508_int.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

const char *const pep508_op_text[] = { "<", "<=", "==", "!=", ">=", ">",
    "~=", "===", "in", "not in" };

int
pep508_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* a then b, a new string: the specifiers are joined often enough that
 * printf's cost shows. */
char *
pep508_cat(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *s = xmalloc(na + nb + 1);

	memcpy(s, a, na);
	memcpy(s + na, b, nb + 1);
	return s;
}

/* --- names ------------------------------------------------------------ */

char *
ep_pep503_normalize(const char *name)
{
	char *out = xmalloc(strlen(name) + 1), *o = out;

	for (const char *p = name; *p != '\0'; p++) {
		if (*p == '-' || *p == '_' || *p == '.') {
			if (o == out || o[-1] != '-')
				*o++ = '-';
		} else
			*o++ = (char)pep508_lower((unsigned char)*p);
	}
	*o = '\0';
	return out;
}

int
ep_pep508_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || !ep_ascii_alnum((unsigned char)name[0]) ||
	    !ep_ascii_alnum((unsigned char)name[n - 1]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!ep_ascii_alnum((unsigned char)name[i]) &&
		    strchr("-_.", name[i]) == NULL)
			return 0;
	return 1;
}

/* --- the specifier pattern -------------------------------------------- */

/* Python's \s at s (NUL-ended): the blank's length, or 0. */
static size_t
space_at(const char *s)
{
	return ep_pyspace_len((const unsigned char *)s,
	    (const unsigned char *)s + strnlen(s, 3));
}

int
pep508_is_sep(int c)
{
	return c == '-' || c == '_' || c == '.';
}

static size_t
skip_digits(const char *s, size_t i)
{
	while (ep_ascii_digit((unsigned char)s[i]))
		i++;
	return i;
}

/* The first of words (lowercase) at s + i, case-insensitively: its
 * length, or 0. */
static size_t
word_at(const char *s, size_t i, const char *const *words)
{
	for (size_t w = 0; words[w] != NULL; w++) {
		size_t n = 0;

		while (words[w][n] != '\0' &&
		    pep508_lower((unsigned char)s[i + n]) == words[w][n])
			n++;
		if (words[w][n] == '\0')
			return n;
	}
	return 0;
}

/* The pre-, post- and dev-release parts of the pattern from s + i; where
 * they end.  Each is optional and tried in the pattern's order, so the
 * first way each matches is the way the regular expression takes. */
static size_t
spec_suffixes(const char *s, size_t i)
{
	static const char *const pre[] = { "alpha", "beta", "preview", "pre",
	    "a", "b", "c", "rc", NULL };
	static const char *const post[] = { "post", "rev", "r", NULL };
	static const char *const dev[] = { "dev", NULL };
	size_t j, w;

	j = i + pep508_is_sep((unsigned char)s[i]);
	if ((w = word_at(s, j, pre)) > 0) {
		j += w;
		j += pep508_is_sep((unsigned char)s[j]);
		i = skip_digits(s, j);
	}
	if (s[i] == '-' && ep_ascii_digit((unsigned char)s[i + 1]))
		i = skip_digits(s, i + 1);
	else {
		j = i + pep508_is_sep((unsigned char)s[i]);
		if ((w = word_at(s, j, post)) > 0) {
			j += w;
			j += pep508_is_sep((unsigned char)s[j]);
			i = skip_digits(s, j);
		}
	}
	j = i + pep508_is_sep((unsigned char)s[i]);
	if ((w = word_at(s, j, dev)) > 0) {
		j += w;
		j += pep508_is_sep((unsigned char)s[j]);
		i = skip_digits(s, j);
	}
	return i;
}

/*
 * The length of packaging's specifier pattern matched at s (NUL-ended),
 * 0 when it does not match: "===" and anything up to a blank, ';' or
 * ')'; "==" and "!=" with a version, a local label or ".*"; "~=" with a
 * release of two or more parts; "<", "<=", ">", ">=" without either.
 * Blanks may follow the operator.
 */
size_t
pep508_spec_len(const char *s)
{
	size_t i, j, n, nrel = 1;
	int eq = 0, compat = 0;

	if (strncmp(s, "===", 3) == 0) {
		for (i = 3; (n = space_at(s + i)) > 0; i += n)
			;
		while (s[i] != '\0' && space_at(s + i) == 0 && s[i] != ';' &&
		    s[i] != ')')
			i++;
		return i;
	}
	if (strncmp(s, "==", 2) == 0 || strncmp(s, "!=", 2) == 0) {
		eq = 1;
		i = 2;
	} else if (strncmp(s, "~=", 2) == 0) {
		compat = 1;
		i = 2;
	} else if (strncmp(s, "<=", 2) == 0 || strncmp(s, ">=", 2) == 0)
		i = 2;
	else if (s[0] == '<' || s[0] == '>')
		i = 1;
	else
		return 0;
	while ((n = space_at(s + i)) > 0)
		i += n;
	if (s[i] == 'v' || s[i] == 'V')
		i++;
	j = skip_digits(s, i);
	if (j > i && s[j] == '!')
		i = j + 1;
	if ((j = skip_digits(s, i)) == i)
		return 0;
	i = j;
	while (s[i] == '.' && ep_ascii_digit((unsigned char)s[i + 1])) {
		i = skip_digits(s, i + 1);
		nrel++;
	}
	if (compat && nrel < 2)
		return 0;
	if (eq && s[i] == '.' && s[i + 1] == '*')
		return i + 2;
	i = spec_suffixes(s, i);
	if (eq && s[i] == '+' && ep_ascii_alnum((unsigned char)s[i + 1])) {
		i++;
		for (;;) {
			while (ep_ascii_alnum((unsigned char)s[i]))
				i++;
			if (pep508_is_sep((unsigned char)s[i]) &&
			    ep_ascii_alnum((unsigned char)s[i + 1]))
				i++;
			else
				break;
		}
	}
	return i;
}

/* Specifier(text) as packaging reads it: the whole (blanks around it
 * aside) must match the pattern; then the operator and the version.
 * 0, or -1 when text is not one. */
int
pep508_spec_read(struct spec *out, const char *text)
{
	static const int two[] = { OP_COMPAT, OP_EQ, OP_NE, OP_LE, OP_GE };
	static const char *const twos[] = { "~=", "==", "!=", "<=", ">=" };
	char *s = ep_pystrip(xstrdup(text));
	size_t n = 0;

	memset(out, 0, sizeof *out);
	if (pep508_spec_len(s) != strlen(s)) {
		free(s);
		return -1;
	}
	if (strncmp(s, "===", 3) == 0) {
		out->op = OP_ARB;
		n = 3;
	}
	for (size_t i = 0; n == 0 && i < 5; i++)
		if (strncmp(s, twos[i], 2) == 0) {
			out->op = two[i];
			n = 2;
		}
	if (n == 0) {
		out->op = s[0] == '<' ? OP_LT : OP_GT;
		n = 1;
	}
	out->ver = ep_pystrip(xstrdup(s + n));
	free(s);
	return 0;
}

/* 1 if cand is in the one specifier op ver (a version variable of a
 * marker against its string): "===" compares text without regard to
 * case, the others need a PEP 440 version. */
int
pep508_spec1_contains(const struct spec *k, const char *cand)
{
	struct ep_verrange *r = NULL;
	char *text;
	int in = 0;

	if (k->op == OP_ARB)
		return strcasecmp(cand, k->ver) == 0;
	if (!ep_version_pep440(cand))
		return 0;
	text = pep508_cat(pep508_op_text[k->op], k->ver);
	if (ep_verrange_parse(&r, text, NULL) == 0)
		in = ep_verrange_match(r, cand) == 1;
	ep_verrange_free(r);
	free(text);
	return in;
}

void
pep508_specset_free(struct ep_specset *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].ver);
	free(s->v);
	ep_verrange_free(s->range);
	free(s->str);
	free(s);
}

/* A specifier's identity (packaging's _canonical_spec): === and ".*"
 * as written; else the version's normal form, trailing ".0"s of the
 * release dropped but for "~=", where they count. */
static char *
spec_canon(const struct spec *k)
{
	char *n, *out;
	size_t rel, end;

	if (k->op == OP_ARB || ep_endswith(k->ver, ".*") ||
	    (n = ep_version_pep440_norm(k->ver)) == NULL)
		return pep508_cat(pep508_op_text[k->op], k->ver);
	rel = strchr(n, '!') != NULL ? (size_t)(strchr(n, '!') - n) + 1 : 0;
	end = rel + strspn(n + rel, "0123456789.");
	if (k->op != OP_COMPAT) {
		size_t e = end;

		while (e > rel + 2 && strncmp(n + e - 2, ".0", 2) == 0)
			e -= 2;
		memmove(n + e, n + end, strlen(n + end) + 1);
	}
	out = pep508_cat(pep508_op_text[k->op], n);
	free(n);
	return out;
}

struct spec_text {
	struct spec k;
	char *str;		/* str(Specifier): operator, version */
};

static int
spec_text_order(const void *a, const void *b)
{
	return strcmp(((const struct spec_text *)a)->str,
	    ((const struct spec_text *)b)->str);
}

/* SpecifierSet(text): comma-separated, blanks and empty parts dropped,
 * each a specifier; sorted by their text, the equal ones once, and
 * written back as packaging does. */
int
pep508_specset_parse(struct ep_specset **out, const char *text,
    struct ep_err *err)
{
	struct ep_specset *s = xcalloc(1, sizeof *s);
	struct ep_strv kept = { 0 }, canon = { 0 };
	struct spec_text *t = NULL;
	char *copy = xstrdup(text), *p, *comma, *rtext = NULL, *c;
	size_t n = 0, cap = 0, len = 1;
	int rc = -1;

	*out = NULL;
	for (p = copy; p != NULL; p = comma) {
		if ((comma = strchr(p, ',')) != NULL)
			*comma++ = '\0';
		if (*ep_pystrip(p) == '\0')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 4;
			t = xreallocarray(t, cap, sizeof *t);
		}
		if (pep508_spec_read(&t[n].k, p) < 0) {
			ep_err_set(err, EP_E_INPUT, "invalid specifier \"%s\"",
			    p);
			goto done;
		}
		t[n].str = pep508_cat(pep508_op_text[t[n].k.op], t[n].k.ver);
		n++;
	}
	if (n > 0)
		qsort(t, n, sizeof *t, spec_text_order);
	s->v = xcalloc(n ? n : 1, sizeof *s->v);
	for (size_t i = 0; i < n; i++) {
		/* One specifier is its own set: nothing to compare. */
		c = n > 1 ? spec_canon(&t[i].k) : NULL;
		if (c != NULL && ep_strv_contains(&canon, c)) {
			free(c);
			continue;
		}
		if (c != NULL)
			ep_strv_push_owned(&canon, c);
		ep_strv_push(&kept, t[i].str);
		s->v[s->n] = t[i].k;
		s->v[s->n++].ver = xstrdup(t[i].k.ver);
	}
	for (size_t i = 0; i < kept.n; i++)
		len += strlen(kept.v[i]) + 1;
	s->str = xcalloc(1, len);
	for (size_t i = 0; i < kept.n; i++) {
		if (i > 0)
			strcat(s->str, ",");
		strcat(s->str, kept.v[i]);
	}
	for (size_t i = 0; i < s->n; i++) {
		char *r;

		if (s->v[i].op == OP_ARB)
			continue;
		if (rtext != NULL) {
			r = pep508_cat(rtext, ",");
			free(rtext);
			rtext = r;
			r = pep508_cat(rtext, pep508_op_text[s->v[i].op]);
		} else
			r = xstrdup(pep508_op_text[s->v[i].op]);
		free(rtext);
		rtext = pep508_cat(r, s->v[i].ver);
		free(r);
	}
	if (rtext != NULL && ep_verrange_parse(&s->range, rtext, err) < 0)
		goto done;
	*out = s;
	s = NULL;
	rc = 0;
done:
	for (size_t i = 0; i < n; i++) {
		free(t[i].k.ver);
		free(t[i].str);
	}
	free(t);
	pep508_specset_free(s);
	ep_strv_clear(&kept);
	ep_strv_clear(&canon);
	free(copy);
	free(rtext);
	return rc;
}
