/*
 * pep508.c: dependency specifiers and environment markers (pep508.h),
 * read as pypa/packaging 26.3 reads them (src/packaging/_tokenizer.py,
 * _parser.py, markers.py, specifiers.py): a recursive descent over
 * tokens matched the way its regular expressions match them, which is
 * where most of PEP 508's corner cases live ("name @ url;x" is all URL,
 * "foo>=1," is valid, "(a)" prints as a).  Versions compare through
 * verrange.c, which holds to packaging's own specifier cases.
 *
 * Where packaging itself would crash or loop rather than answer, this
 * answers plainly: markers nested deeper than DEPTH_MAX are an error (a
 * RecursionError there), \N{...} escapes and NUL characters in marker
 * strings are "Invalid quoted string" (there, a name lookup and a str
 * with a NUL), and comparing two strings or two variables is an error
 * (there, a KeyError or a comparison with a variable's name).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pep508.h"
#include "vercmp.h"

#define DEPTH_MAX	64

const char *const ep_marker_vars[EP_MV_N] = {
	"implementation_name", "implementation_version", "os_name",
	"platform_machine", "platform_python_implementation",
	"platform_release", "platform_system", "platform_version",
	"python_full_version", "python_version", "sys_platform",
};

/* Variables beyond the environment: "extra" ("" for core metadata), the
 * lock file's set-valued ones (no value in metadata), and none (a
 * string literal). */
enum { MV_EXTRA = EP_MV_N, MV_EXTRAS, MV_DEPGROUPS, MV_LITERAL = -1 };

enum { OP_LT, OP_LE, OP_EQ, OP_NE, OP_GE, OP_GT, OP_COMPAT, OP_ARB, OP_IN,
    OP_NOTIN };
static const char *const op_text[] = { "<", "<=", "==", "!=", ">=", ">",
    "~=", "===", "in", "not in" };

/* lhs op rhs: each side a variable or a string. */
struct mitem {
	int var[2];		/* enum ep_mvar, MV_*, or MV_LITERAL */
	char *val[2];		/* the string; NULL: a variable */
	int op;
};

struct matom {
	struct ep_marker *sub;	/* a marker in parentheses, or NULL: it */
	struct mitem it;
};

/* Atoms joined by "and" and "or" ("and" binds tighter), as packaging's
 * marker lists are. */
struct ep_marker {
	struct matom *a;
	size_t n;
	unsigned char *orb;	/* orb[i]: "or" stands before a[i] (i > 0) */
};

struct spec {
	int op;
	char *ver;
};

struct ep_specset {
	struct spec *v;
	size_t n;
	struct ep_verrange *range;	/* every clause but ===; or NULL */
	char *str;			/* str(SpecifierSet) */
};

/* --- names ------------------------------------------------------------ */

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* a then b, a new string: the specifiers are joined often enough that
 * printf's cost shows. */
static char *
cat(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *s = xmalloc(na + nb + 1);

	memcpy(s, a, na);
	memcpy(s + na, b, nb + 1);
	return s;
}

char *
ep_pep503_normalize(const char *name)
{
	char *out = xmalloc(strlen(name) + 1), *o = out;

	for (const char *p = name; *p != '\0'; p++) {
		if (*p == '-' || *p == '_' || *p == '.') {
			if (o == out || o[-1] != '-')
				*o++ = '-';
		} else
			*o++ = (char)lower((unsigned char)*p);
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

static int
is_sep(int c)
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
		    lower((unsigned char)s[i + n]) == words[w][n])
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

	j = i + is_sep((unsigned char)s[i]);
	if ((w = word_at(s, j, pre)) > 0) {
		j += w;
		j += is_sep((unsigned char)s[j]);
		i = skip_digits(s, j);
	}
	if (s[i] == '-' && ep_ascii_digit((unsigned char)s[i + 1]))
		i = skip_digits(s, i + 1);
	else {
		j = i + is_sep((unsigned char)s[i]);
		if ((w = word_at(s, j, post)) > 0) {
			j += w;
			j += is_sep((unsigned char)s[j]);
			i = skip_digits(s, j);
		}
	}
	j = i + is_sep((unsigned char)s[i]);
	if ((w = word_at(s, j, dev)) > 0) {
		j += w;
		j += is_sep((unsigned char)s[j]);
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
static size_t
spec_len(const char *s)
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
			if (is_sep((unsigned char)s[i]) &&
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
static int
spec_read(struct spec *out, const char *text)
{
	static const int two[] = { OP_COMPAT, OP_EQ, OP_NE, OP_LE, OP_GE };
	static const char *const twos[] = { "~=", "==", "!=", "<=", ">=" };
	char *s = ep_pystrip(xstrdup(text));
	size_t n = 0;

	memset(out, 0, sizeof *out);
	if (spec_len(s) != strlen(s)) {
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
static int
spec1_contains(const struct spec *k, const char *cand)
{
	struct ep_verrange *r = NULL;
	char *text;
	int in = 0;

	if (k->op == OP_ARB)
		return strcasecmp(cand, k->ver) == 0;
	if (!ep_version_pep440(cand))
		return 0;
	text = cat(op_text[k->op], k->ver);
	if (ep_verrange_parse(&r, text, NULL) == 0)
		in = ep_verrange_match(r, cand) == 1;
	ep_verrange_free(r);
	free(text);
	return in;
}

static void
specset_free(struct ep_specset *s)
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
		return cat(op_text[k->op], k->ver);
	rel = strchr(n, '!') != NULL ? (size_t)(strchr(n, '!') - n) + 1 : 0;
	end = rel + strspn(n + rel, "0123456789.");
	if (k->op != OP_COMPAT) {
		size_t e = end;

		while (e > rel + 2 && strncmp(n + e - 2, ".0", 2) == 0)
			e -= 2;
		memmove(n + e, n + end, strlen(n + end) + 1);
	}
	out = cat(op_text[k->op], n);
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
static int
specset_parse(struct ep_specset **out, const char *text, struct ep_err *err)
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
		if (spec_read(&t[n].k, p) < 0) {
			ep_err_set(err, EP_E_INPUT, "invalid specifier \"%s\"",
			    p);
			goto done;
		}
		t[n].str = cat(op_text[t[n].k.op], t[n].k.ver);
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
			r = cat(rtext, ",");
			free(rtext);
			rtext = r;
			r = cat(rtext, op_text[s->v[i].op]);
		} else
			r = xstrdup(op_text[s->v[i].op]);
		free(rtext);
		rtext = cat(r, s->v[i].ver);
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
	specset_free(s);
	ep_strv_clear(&kept);
	ep_strv_clear(&canon);
	free(copy);
	free(rtext);
	return rc;
}

/* --- tokens ----------------------------------------------------------- */

struct tok {
	const char *s;
	size_t pos, len;
	int depth;
	struct ep_err *err;
};

/* Python's \w, with every byte of a non-ASCII character taken as one:
 * after a name, a marker variable or a keyword, a non-ASCII character
 * makes the text invalid either way. */
static int
is_word(int c)
{
	return ep_ascii_alnum(c) || c == '_' || c >= 0x80;
}

/* \b at i. */
static int
boundary(const struct tok *t, size_t i)
{
	int a = i > 0 && is_word((unsigned char)t->s[i - 1]);
	int b = i < t->len && is_word((unsigned char)t->s[i]);

	return a != b;
}

static int
syntax(struct tok *t, const char *expected)
{
	return ep_err_set(t->err, EP_E_INPUT, "%s at column %zu", expected,
	    t->pos + 1);
}

/* WS: [ \t]+ (packaging's blank between tokens: no newline). */
static size_t
ws(struct tok *t)
{
	size_t from = t->pos;

	while (t->pos < t->len && (t->s[t->pos] == ' ' ||
	    t->s[t->pos] == '\t'))
		t->pos++;
	return t->pos - from;
}

static int
at(const struct tok *t, char c)
{
	return t->pos < t->len && t->s[t->pos] == c;
}

/* \bword\b at the position: its length, or 0. */
static size_t
keyword(const struct tok *t, const char *word)
{
	size_t n = strlen(word);

	if (t->len - t->pos < n || memcmp(t->s + t->pos, word, n) != 0 ||
	    !boundary(t, t->pos) || !boundary(t, t->pos + n))
		return 0;
	return n;
}

/* IDENTIFIER: \b[a-zA-Z0-9][a-zA-Z0-9._-]*\b, the longest that ends on
 * a boundary; its length, or 0. */
static size_t
identifier(const struct tok *t)
{
	size_t i = t->pos, e;

	if (i >= t->len || !ep_ascii_alnum((unsigned char)t->s[i]) ||
	    !boundary(t, i))
		return 0;
	for (e = i + 1; e < t->len && (ep_ascii_alnum((unsigned char)
	    t->s[e]) || is_sep((unsigned char)t->s[e])); e++)
		;
	while (e > i && !boundary(t, e))
		e--;
	return e - i;
}

/* --- marker strings ----------------------------------------------------- */

static void
put_utf8(char **o, unsigned long cp)
{
	unsigned char *p = (unsigned char *)*o;

	if (cp >= 0xd800 && cp <= 0xdfff)
		cp = 0xfffd;	/* a lone surrogate: not UTF-8 */
	if (cp < 0x80)
		*p++ = (unsigned char)cp;
	else if (cp < 0x800) {
		*p++ = (unsigned char)(0xc0 | cp >> 6);
		*p++ = (unsigned char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*p++ = (unsigned char)(0xe0 | cp >> 12);
		*p++ = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		*p++ = (unsigned char)(0x80 | (cp & 0x3f));
	} else {
		*p++ = (unsigned char)(0xf0 | cp >> 18);
		*p++ = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		*p++ = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		*p++ = (unsigned char)(0x80 | (cp & 0x3f));
	}
	*o = (char *)p;
}

static int
hexval(int c)
{
	if (ep_ascii_digit(c))
		return c - '0';
	c = lower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * The body of a quoted string, as ast.literal_eval reads a Python string
 * literal: the escapes \\ \' \" \a \b \f \n \r \t \v \ooo \xhh \uhhhh
 * \Uhhhhhhhh and a backslash before a line end (which drops both); any
 * other backslash stays as written.  A raw line end, a backslash that
 * would escape the closing quote, a short or out-of-range escape, \N{...}
 * and a NUL character are refused.  A new string, or NULL.
 */
static char *
unquote(const char *b, size_t n)
{
	char *out = xmalloc(n * 2 + 1), *o = out;
	size_t i = 0;

	while (i < n) {
		unsigned long cp = 0;
		size_t k, want;
		int c = (unsigned char)b[i];

		if (c == '\n' || c == '\r')
			goto bad;
		if (c != '\\') {
			*o++ = (char)c;
			i++;
			continue;
		}
		if (++i == n)
			goto bad;	/* it escapes the closing quote */
		c = (unsigned char)b[i++];
		switch (c) {
		case '\n':
			continue;
		case '\r':
			if (i < n && b[i] == '\n')
				i++;
			continue;
		case '\\': case '\'': case '"':
			*o++ = (char)c;
			continue;
		case 'a': *o++ = '\a'; continue;
		case 'b': *o++ = '\b'; continue;
		case 'f': *o++ = '\f'; continue;
		case 'n': *o++ = '\n'; continue;
		case 'r': *o++ = '\r'; continue;
		case 't': *o++ = '\t'; continue;
		case 'v': *o++ = '\v'; continue;
		case 'x': want = 2; break;
		case 'u': want = 4; break;
		case 'U': want = 8; break;
		case 'N':
			goto bad;
		default:
			if (c >= '0' && c <= '7') {
				cp = (unsigned long)(c - '0');
				for (k = 0; k < 2 && i < n && b[i] >= '0' &&
				    b[i] <= '7'; k++)
					cp = cp * 8 + (unsigned long)(b[i++] -
					    '0');
				if (cp == 0)
					goto bad;
				put_utf8(&o, cp);
			} else {
				*o++ = '\\';
				*o++ = (char)c;
			}
			continue;
		}
		for (k = 0; k < want; k++) {
			int h = i < n ? hexval((unsigned char)b[i]) : -1;

			if (h < 0)
				goto bad;
			cp = cp * 16 + (unsigned long)h;
			i++;
		}
		if (cp == 0 || cp > 0x10ffff)
			goto bad;
		put_utf8(&o, cp);
	}
	*o = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

/* --- markers ------------------------------------------------------------- */

static void
marker_free_atoms(struct ep_marker *m)
{
	for (size_t i = 0; i < m->n; i++) {
		ep_marker_free(m->a[i].sub);
		free(m->a[i].it.val[0]);
		free(m->a[i].it.val[1]);
	}
	free(m->a);
	free(m->orb);
}

void
ep_marker_free(struct ep_marker *m)
{
	if (m == NULL)
		return;
	marker_free_atoms(m);
	free(m);
}

/* VARIABLE, the names packaging knows (with its aliases), as \b...\b. */
static int
variable(struct tok *t)
{
	static const struct {
		const char *name;
		int var;
	} vars[] = {
		{ "python_version", EP_MV_PYTHON_VERSION },
		{ "python_full_version", EP_MV_PYTHON_FULL_VERSION },
		{ "os_name", EP_MV_OS_NAME }, { "os.name", EP_MV_OS_NAME },
		{ "sys_platform", EP_MV_SYS_PLATFORM },
		{ "sys.platform", EP_MV_SYS_PLATFORM },
		{ "platform_release", EP_MV_PLATFORM_RELEASE },
		{ "platform_system", EP_MV_PLATFORM_SYSTEM },
		{ "platform_version", EP_MV_PLATFORM_VERSION },
		{ "platform.version", EP_MV_PLATFORM_VERSION },
		{ "platform_machine", EP_MV_PLATFORM_MACHINE },
		{ "platform.machine", EP_MV_PLATFORM_MACHINE },
		{ "platform_python_implementation",
		    EP_MV_PLATFORM_PYTHON_IMPLEMENTATION },
		{ "platform.python_implementation",
		    EP_MV_PLATFORM_PYTHON_IMPLEMENTATION },
		{ "python_implementation",
		    EP_MV_PLATFORM_PYTHON_IMPLEMENTATION },
		{ "implementation_name", EP_MV_IMPLEMENTATION_NAME },
		{ "implementation_version", EP_MV_IMPLEMENTATION_VERSION },
		{ "extras", MV_EXTRAS }, { "extra", MV_EXTRA },
		{ "dependency_groups", MV_DEPGROUPS },
	};
	size_t n;
	char c = t->pos < t->len ? t->s[t->pos] : '\0';

	/* Every name starts with one of these: a string does not. */
	if (strchr("diopse", c) == NULL || c == '\0')
		return MV_LITERAL;
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		if (vars[i].name[0] == c && (n = keyword(t, vars[i].name)) >
		    0) {
			t->pos += n;
			return vars[i].var;
		}
	return MV_LITERAL;
}

/* marker_var: VARIABLE | QUOTED_STRING, into its side k. */
static int
marker_var(struct tok *t, struct mitem *it, int k)
{
	const char *close;
	size_t from = t->pos;

	if ((it->var[k] = variable(t)) != MV_LITERAL)
		return 0;
	if ((at(t, '\'') || at(t, '"')) && (close = memchr(t->s + t->pos + 1,
	    t->s[t->pos], t->len - t->pos - 1)) != NULL) {
		it->val[k] = unquote(t->s + from + 1,
		    (size_t)(close - t->s) - from - 1);
		if (it->val[k] == NULL)
			return syntax(t, "Invalid quoted string");
		t->pos = (size_t)(close - t->s) + 1;
		return 0;
	}
	return syntax(t, "Expected a marker variable or quoted string");
}

static int
marker_op(struct tok *t, int *op)
{
	static const char *const ops[] = { "===", "==", "~=", "!=", "<=",
	    ">=", "<", ">", NULL };
	static const int opv[] = { OP_ARB, OP_EQ, OP_COMPAT, OP_NE, OP_LE,
	    OP_GE, OP_LT, OP_GT };
	size_t n;

	if ((n = keyword(t, "in")) > 0) {
		t->pos += n;
		*op = OP_IN;
		return 0;
	}
	if ((n = keyword(t, "not")) > 0) {
		t->pos += n;
		if (ws(t) == 0)
			return syntax(t, "Expected whitespace after 'not'");
		if ((n = keyword(t, "in")) == 0)
			return syntax(t, "Expected 'in' after 'not'");
		t->pos += n;
		*op = OP_NOTIN;
		return 0;
	}
	for (size_t i = 0; ops[i] != NULL; i++)
		if (strncmp(t->s + t->pos, ops[i], strlen(ops[i])) == 0) {
			t->pos += strlen(ops[i]);
			*op = opv[i];
			return 0;
		}
	return syntax(t, "Expected marker operator, one of <=, <, !=, ==, >=, "
	    ">, ~=, ===, in, not in");
}

/* PEP 685: an extra's name compared with "extra" (or put in "extras",
 * "dependency_groups") is normalized when the marker is read. */
static void
normalize_extra(struct mitem *it)
{
	char *v;
	int k = -1;

	if (it->var[0] == MV_EXTRA && it->var[1] == MV_LITERAL)
		k = 1;
	else if (it->var[1] == MV_EXTRA && it->var[0] == MV_LITERAL)
		k = 0;
	else if ((it->var[1] == MV_EXTRAS || it->var[1] == MV_DEPGROUPS) &&
	    it->var[0] == MV_LITERAL)
		k = 0;
	if (k < 0)
		return;
	v = ep_pep503_normalize(it->val[k]);
	free(it->val[k]);
	it->val[k] = v;
}

static int marker_expr(struct tok *t, struct ep_marker *m);

/* marker_atom: ( marker ) | marker_item, blanks around either. */
static int
marker_atom(struct tok *t, struct matom *a)
{
	ws(t);
	if (at(t, '(')) {
		size_t open = t->pos;

		t->pos++;
		ws(t);
		a->sub = xcalloc(1, sizeof *a->sub);
		if (marker_expr(t, a->sub) < 0)
			return -1;
		ws(t);
		if (!at(t, ')')) {
			t->pos = open;
			return syntax(t, "Expected matching RIGHT_PARENTHESIS "
			    "for LEFT_PARENTHESIS, after marker expression");
		}
		t->pos++;
	} else {
		a->it.var[0] = a->it.var[1] = MV_LITERAL;
		if (marker_var(t, &a->it, 0) < 0)
			return -1;
		ws(t);
		if (marker_op(t, &a->it.op) < 0)
			return -1;
		ws(t);
		if (marker_var(t, &a->it, 1) < 0)
			return -1;
		normalize_extra(&a->it);
	}
	ws(t);
	return 0;
}

/* marker: marker_atom (BOOLOP marker_atom)* */
static int
marker_expr(struct tok *t, struct ep_marker *m)
{
	size_t n, cap = 0;
	int orb = 0;

	if (++t->depth > DEPTH_MAX)
		return syntax(t, "Marker nested too deeply");
	for (;;) {
		if (m->n == cap) {
			cap = cap ? cap * 2 : 4;
			m->a = xreallocarray(m->a, cap, sizeof *m->a);
			m->orb = xreallocarray(m->orb, cap, 1);
		}
		memset(&m->a[m->n], 0, sizeof m->a[m->n]);
		m->orb[m->n] = (unsigned char)orb;
		m->n++;
		if (marker_atom(t, &m->a[m->n - 1]) < 0)
			return -1;
		if ((n = keyword(t, "or")) > 0)
			orb = 1;
		else if ((n = keyword(t, "and")) > 0)
			orb = 0;
		else
			break;
		t->pos += n;
	}
	t->depth--;
	return 0;
}

int
ep_marker_parse(struct ep_marker **out, const char *text,
    struct ep_err *err)
{
	struct tok t = { text, 0, strlen(text), 0, err };
	struct ep_marker *m = xcalloc(1, sizeof *m);

	*out = NULL;
	if (marker_expr(&t, m) < 0 || (t.pos < t.len &&
	    syntax(&t, "Expected end of marker expression") < 0)) {
		ep_marker_free(m);
		return -1;
	}
	*out = m;
	return 0;
}

/* A string as Value.serialize() writes it: in double quotes unless it
 * holds one. */
static void
put_value(struct ep_strv *o, const char *v)
{
	ep_strv_push_owned(o, strchr(v, '"') != NULL && strchr(v, '\'') ==
	    NULL ? xasprintf("'%s'", v) : xasprintf("\"%s\"", v));
}

static const char *
var_name(int var)
{
	if (var < EP_MV_N)
		return ep_marker_vars[var];
	return var == MV_EXTRA ? "extra" : var == MV_EXTRAS ? "extras" :
	    "dependency_groups";
}

/* _format_marker: parts into o, a nested list in parentheses. */
static void
format_marker(struct ep_strv *o, const struct ep_marker *m, int first)
{
	if (m->n == 1 && m->a[0].sub != NULL) {
		format_marker(o, m->a[0].sub, first);
		return;
	}
	if (m->n > 1 && !first)
		ep_strv_push(o, "(");
	for (size_t i = 0; i < m->n; i++) {
		const struct matom *a = &m->a[i];

		if (i > 0)
			ep_strv_push(o, m->orb[i] ? " or " : " and ");
		if (a->sub != NULL) {
			format_marker(o, a->sub, 0);
			continue;
		}
		for (int k = 0; k < 2; k++) {
			if (a->it.var[k] == MV_LITERAL)
				put_value(o, a->it.val[k]);
			else
				ep_strv_push(o, var_name(a->it.var[k]));
			if (k == 0)
				ep_strv_push_owned(o, xasprintf(" %s ",
				    op_text[a->it.op]));
		}
	}
	if (m->n > 1 && !first)
		ep_strv_push(o, ")");
}

static char *
strv_join(const struct ep_strv *sv)
{
	size_t len = 1;
	char *out;

	for (size_t i = 0; i < sv->n; i++)
		len += strlen(sv->v[i]);
	out = xcalloc(1, len);
	for (size_t i = 0; i < sv->n; i++)
		strcat(out, sv->v[i]);
	return out;
}

char *
ep_marker_str(const struct ep_marker *m)
{
	struct ep_strv o = { 0 };
	char *s;

	format_marker(&o, m, 1);
	s = strv_join(&o);
	ep_strv_clear(&o);
	return s;
}

static int
version_var(int var)
{
	return var == EP_MV_IMPLEMENTATION_VERSION ||
	    var == EP_MV_PLATFORM_RELEASE || var == EP_MV_PYTHON_FULL_VERSION ||
	    var == EP_MV_PYTHON_VERSION;
}

enum { T_FALSE = EP_MARKER_FALSE, T_TRUE = EP_MARKER_TRUE,
    T_UNKNOWN = EP_MARKER_UNKNOWN };

/*
 * _eval_op(lhs, op, rhs, key): either side may be NULL (not known).  A
 * version variable's comparison is PEP 440's when "op rhs" is a
 * specifier; otherwise, and for every other variable, strings compare
 * with in, not in, == and !=, "<=" and ">=" mean "==", "<" and ">" are
 * false, and "~=" and "===" are undefined (-1).
 */
static int
eval_op(const char *lhs, int op, const char *rhs, int key,
    struct ep_err *err)
{
	if (version_var(key)) {
		struct spec k;
		char *text;
		int r;

		if (rhs == NULL)
			return T_UNKNOWN;
		text = cat(op_text[op], rhs);
		r = spec_read(&k, text);
		free(text);
		if (r == 0) {
			r = lhs == NULL ? T_UNKNOWN : spec1_contains(&k, lhs);
			free(k.ver);
			return r;
		}
	}
	switch (op) {
	case OP_LT:
	case OP_GT:
		return T_FALSE;
	case OP_COMPAT:
	case OP_ARB:
		return ep_err_set(err, EP_E_INPUT, "'%s' is undefined on %s",
		    op_text[op], var_name(key));
	}
	if (lhs == NULL || rhs == NULL)
		return T_UNKNOWN;
	switch (op) {
	case OP_IN:
		return strstr(rhs, lhs) != NULL;
	case OP_NOTIN:
		return strstr(rhs, lhs) == NULL;
	case OP_NE:
		return strcmp(lhs, rhs) != 0;
	default:	/* ==, <=, >= */
		return strcmp(lhs, rhs) == 0;
	}
}

struct eval {
	const struct ep_markerenv *env;
	const char *fullv;	/* python_full_version, as packaging mends */
	char *full;		/* it, where it had to be mended */
	int unknown;		/* the first variable unknown, or -1 */
	int failed;
	struct ep_err *err;
};

static const char *
env_value(struct eval *e, int var)
{
	if (var == MV_EXTRA)
		return "";
	if (var == EP_MV_PYTHON_FULL_VERSION)
		return e->fullv;
	return e->env->v[var];
}

static int
eval_item(struct eval *e, const struct mitem *it)
{
	const char *lhs, *rhs;
	int key, r;

	if ((it->var[0] == MV_LITERAL) == (it->var[1] == MV_LITERAL)) {
		if (!e->failed)
			ep_err_set(e->err, EP_E_INPUT, "a marker compares %s",
			    it->var[0] == MV_LITERAL ? "two strings" :
			    "two variables");
		e->failed = 1;
		return T_FALSE;
	}
	key = it->var[0] != MV_LITERAL ? it->var[0] : it->var[1];
	if (key == MV_EXTRAS || key == MV_DEPGROUPS) {
		if (!e->failed)
			ep_err_set(e->err, EP_E_INPUT, "%s has no value in "
			    "distribution metadata", var_name(key));
		e->failed = 1;
		return T_FALSE;
	}
	lhs = it->var[0] == MV_LITERAL ? it->val[0] : env_value(e, key);
	rhs = it->var[1] == MV_LITERAL ? it->val[1] : env_value(e, key);
	if ((r = eval_op(lhs, it->op, rhs, key, e->failed ? NULL :
	    e->err)) < 0) {
		e->failed = 1;
		return T_FALSE;
	}
	if (r == T_UNKNOWN && e->unknown < 0)
		e->unknown = key;
	return r;
}

/* any(all(group) for group split at "or"), three-valued. */
static int
eval_marker(struct eval *e, const struct ep_marker *m)
{
	int any = T_FALSE, all = T_TRUE, v;

	for (size_t i = 0; i < m->n; i++) {
		if (i > 0 && m->orb[i]) {
			any = any == T_TRUE || all == T_TRUE ? T_TRUE :
			    any == T_UNKNOWN || all == T_UNKNOWN ? T_UNKNOWN :
			    T_FALSE;
			all = T_TRUE;
		}
		v = m->a[i].sub != NULL ? eval_marker(e, m->a[i].sub) :
		    eval_item(e, &m->a[i].it);
		all = all == T_FALSE || v == T_FALSE ? T_FALSE :
		    all == T_UNKNOWN || v == T_UNKNOWN ? T_UNKNOWN : T_TRUE;
	}
	return any == T_TRUE || all == T_TRUE ? T_TRUE :
	    any == T_UNKNOWN || all == T_UNKNOWN ? T_UNKNOWN : T_FALSE;
}

int
ep_marker_eval(const struct ep_marker *m, const struct ep_markerenv *env,
    struct ep_err *err)
{
	struct eval e = { env, NULL, NULL, -1, 0, err };
	const char *full = env->v[EP_MV_PYTHON_FULL_VERSION];
	int r;

	/* platform.python_version() of an untagged build ends in '+',
	 * which packaging mends into a local label. */
	if (full != NULL && ep_endswith(full, "+"))
		full = e.full = cat(full, "local");
	e.fullv = full;
	r = eval_marker(&e, m);
	free(e.full);
	if (e.failed)
		return -1;
	if (r == T_UNKNOWN)
		ep_err_set(err, EP_E_INPUT, "%s is not known here",
		    var_name(e.unknown));
	return r;
}

/* --- requirements ------------------------------------------------------- */

void
ep_req_clear(struct ep_req *r)
{
	free(r->name);
	free(r->norm);
	ep_strv_clear(&r->extras);
	free(r->url);
	specset_free(r->spec);
	ep_marker_free(r->marker);
	memset(r, 0, sizeof *r);
}

static int
req_extras(struct tok *t, struct ep_req *r)
{
	size_t open = t->pos, n;

	t->pos++;	/* [ */
	ws(t);
	if ((n = identifier(t)) > 0) {
		for (;;) {
			char *x = xstrndup(t->s + t->pos, n);

			if (!ep_strv_contains(&r->extras, x))
				ep_strv_push(&r->extras, x);
			free(x);
			t->pos += n;
			ws(t);
			if (identifier(t) > 0)
				return syntax(t, "Expected comma between extra "
				    "names");
			if (!at(t, ','))
				break;
			t->pos++;
			ws(t);
			if ((n = identifier(t)) == 0)
				return syntax(t, "Expected extra name after "
				    "comma");
		}
	}
	ws(t);
	if (!at(t, ']')) {
		t->pos = open;
		return syntax(t, "Expected matching RIGHT_BRACKET for "
		    "LEFT_BRACKET, after extras");
	}
	t->pos++;
	ep_strv_sort(&r->extras);
	return 0;
}

/* version_many: SPECIFIER (WS? , WS? SPECIFIER)*, as one string. */
static int
req_versions(struct tok *t, struct ep_strv *parsed)
{
	size_t n;

	while ((n = spec_len(t->s + t->pos)) > 0) {
		size_t start = t->pos;
		const char *p;

		ep_strv_push_owned(parsed, xstrndup(t->s + t->pos, n));
		t->pos += n;
		p = t->s + t->pos;
		if (p[0] == '.' && p[1] == '*') {
			t->pos = start;
			return syntax(t, strncmp(t->s + start, "!=", 2) == 0 ||
			    (strncmp(t->s + start, "==", 2) == 0 &&
			    strncmp(t->s + start, "===", 3) != 0) ?
			    ".* suffix cannot be used with pre-release, "
			    "post-release, dev or local versions" :
			    ".* suffix can only be used with `==` or `!=` "
			    "operators");
		}
		if (p[0] == '+' && ((p[1] >= 'a' && p[1] <= 'z') ||
		    ep_ascii_digit((unsigned char)p[1]))) {
			t->pos = start;
			return syntax(t, "Local version label can only be used "
			    "with `==` or `!=` operators");
		}
		ws(t);
		if (!at(t, ','))
			break;
		ep_strv_push(parsed, ",");
		t->pos++;
		ws(t);
	}
	return 0;
}

static int
req_marker(struct tok *t, struct ep_req *r, const char *expected)
{
	if (!at(t, ';'))
		return syntax(t, expected);
	t->pos++;
	r->marker = xcalloc(1, sizeof *r->marker);
	if (marker_expr(t, r->marker) < 0)
		return -1;
	ws(t);
	return 0;
}

static int
req_parse(struct tok *t, struct ep_req *r)
{
	struct ep_strv parsed = { 0 };
	char *spec = NULL;
	size_t n, open;
	int rc = -1;

	ws(t);
	if ((n = identifier(t)) == 0)
		return syntax(t, "Expected package name at the start of "
		    "dependency specifier");
	r->name = xstrndup(t->s + t->pos, n);
	r->norm = ep_pep503_normalize(r->name);
	t->pos += n;
	ws(t);
	if (at(t, '[') && req_extras(t, r) < 0)
		goto done;
	ws(t);
	if (at(t, '@')) {
		t->pos++;
		ws(t);
		n = strcspn(t->s + t->pos, " \t");
		if (n == 0) {
			syntax(t, "Expected URL after @");
			goto done;
		}
		r->url = xstrndup(t->s + t->pos, n);
		t->pos += n;
		if (t->pos < t->len) {
			if (ws(t) == 0) {
				syntax(t, "Expected whitespace after URL");
				goto done;
			}
			if (t->pos < t->len && req_marker(t, r, "Expected "
			    "semicolon (after URL and whitespace) or end") < 0)
				goto done;
		}
	} else {
		open = t->pos;
		if (at(t, '('))
			t->pos++;
		ws(t);
		if (req_versions(t, &parsed) < 0)
			goto done;
		ws(t);
		if (t->s[open] == '(') {
			if (!at(t, ')')) {
				t->pos = open;
				syntax(t, "Expected matching RIGHT_PARENTHESIS "
				    "for LEFT_PARENTHESIS, after version "
				    "specifier");
				goto done;
			}
			t->pos++;
		}
		ws(t);
		if (t->pos < t->len && req_marker(t, r, parsed.n > 0 ?
		    "Expected comma (within version specifier), semicolon "
		    "(after version specifier) or end" : "Expected semicolon "
		    "(after name with no version specifier) or end") < 0)
			goto done;
	}
	if (t->pos < t->len) {
		syntax(t, "Expected end of dependency specifier");
		goto done;
	}
	spec = strv_join(&parsed);
	if (specset_parse(&r->spec, spec, t->err) < 0)
		goto done;
	rc = 0;
done:
	ep_strv_clear(&parsed);
	free(spec);
	return rc;
}

int
ep_req_parse(struct ep_req *out, const char *text, struct ep_err *err)
{
	struct tok t = { text, 0, strlen(text), 0, err };

	memset(out, 0, sizeof *out);
	if (req_parse(&t, out) < 0) {
		ep_req_clear(out);
		return -1;
	}
	return 0;
}

const char *
ep_req_specifier(const struct ep_req *r)
{
	return r->spec != NULL ? r->spec->str : "";
}

char *
ep_req_str(const struct ep_req *r)
{
	struct ep_strv o = { 0 };
	char *s;

	ep_strv_push(&o, r->name);
	if (r->extras.n > 0) {
		ep_strv_push(&o, "[");
		for (size_t i = 0; i < r->extras.n; i++) {
			if (i > 0)
				ep_strv_push(&o, ",");
			ep_strv_push(&o, r->extras.v[i]);
		}
		ep_strv_push(&o, "]");
	}
	ep_strv_push(&o, ep_req_specifier(r));
	if (r->url != NULL) {
		ep_strv_push(&o, " @ ");
		ep_strv_push(&o, r->url);
		if (r->marker != NULL)
			ep_strv_push(&o, " ");
	}
	if (r->marker != NULL) {
		ep_strv_push(&o, "; ");
		format_marker(&o, r->marker, 1);
	}
	s = strv_join(&o);
	ep_strv_clear(&o);
	return s;
}

int
ep_req_contains(const struct ep_req *r, const char *version)
{
	const struct ep_specset *s = r->spec;
	char *norm = NULL;
	int in = 1;

	if (s == NULL || s->n == 0)
		return 1;
	if (s->range != NULL && (!ep_version_pep440(version) ||
	    ep_verrange_match(s->range, version) != 1))
		return 0;
	/* pip holds a Version, whose str() === compares: the normal form. */
	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i].op != OP_ARB)
			continue;
		if (norm == NULL && (norm = ep_version_pep440_norm(version)) ==
		    NULL)
			norm = xstrdup(version);
		if (strcasecmp(norm, s->v[i].ver) != 0)
			in = 0;
	}
	free(norm);
	return in;
}
