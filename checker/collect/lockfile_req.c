/*
 * lockfile_req.c: pins from requirements*.txt as pip-compile (and uv pip
 * compile, poetry export, uv export, or a person) writes them.
 *
 * It follows pip's own reading of the file (pip/_internal/req/req_file.py):
 * backslash continuations are joined first (a comment line ends a
 * continuation), then "#" comments at the start or after white space are
 * dropped, then each logical line is an option or a requirement.  Options
 * (-r, -c, -e, --index-url, ...) and installs from a URL or a path name no
 * version and give no pin; their values are never recorded or quoted,
 * since index URLs carry passwords.  A file in UTF-16 or UTF-32 with a
 * byte order mark is decoded first, as pip decodes it.
 */
#include "lockfile.h"
#include "pep508.h"
#include "vercmp.h"
#include "errors.h"
#include "str.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *
skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' ||
	    *p == '\v')
		p++;
	return p;
}

/*
 * The options pip's requirements-file parser takes (pip 26's
 * src/pip/_internal/req/req_file.py, SUPPORTED_OPTIONS and
 * SUPPORTED_OPTIONS_REQ, spelled as src/pip/_internal/cli/cmdoptions.py
 * spells them), on a line of their own or after a requirement.  None
 * changes a pin: each is checked (a name pip does not know, or --hash
 * without ALGO:DIGEST, is refused, as pip refuses it) and passed over.  A
 * long name may be cut short where no other starts the same way, as
 * optparse allows ("--extra-index" is --extra-index-url).
 */
static const struct req_opt {
	const char *name;	/* the long name, without "--" */
	char letter;		/* the short name, or 0 */
	int value;		/* takes a value */
} req_opts[] = {
	{ "index-url", 'i', 1 }, { "pypi-url", 0, 1 },
	{ "extra-index-url", 0, 1 }, { "no-index", 0, 0 },
	{ "constraint", 'c', 1 }, { "requirement", 'r', 1 },
	{ "editable", 'e', 1 }, { "find-links", 'f', 1 },
	{ "no-binary", 0, 1 }, { "only-binary", 0, 1 },
	{ "prefer-binary", 0, 0 }, { "require-hashes", 0, 0 },
	{ "no-require-hashes", 0, 0 }, { "pre", 0, 0 },
	{ "all-releases", 0, 1 }, { "only-final", 0, 1 },
	{ "trusted-host", 0, 1 }, { "use-feature", 0, 1 },
	{ "hash", 0, 1 }, { "config-settings", 'C', 1 },
};
#define NOPTS	(sizeof req_opts / sizeof req_opts[0])

/* The end of the blank-separated token at s; quotes hold blanks, as
 * shlex reads them. */
static const char *
token_end(const char *s)
{
	char q = 0;

	for (; *s != '\0'; s++) {
		if (q != 0) {
			if (*s == q)
				q = 0;
		} else if (*s == '\'' || *s == '"')
			q = *s;
		else if (*s == ' ' || *s == '\t')
			break;
	}
	return s;
}

/* --hash's value: ALGO:DIGEST with one of pip's strong algorithms. */
static int
hash_valid(const char *v, size_t n)
{
	static const char *const algos[] = { "sha256", "sha384", "sha512",
	    NULL };
	const char *colon;

	if (n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n - 1] == v[0]) {
		v++;
		n -= 2;
	}
	if ((colon = memchr(v, ':', n)) == NULL)
		return 0;
	for (size_t i = 0; algos[i] != NULL; i++)
		if ((size_t)(colon - v) == strlen(algos[i]) &&
		    strncmp(v, algos[i], (size_t)(colon - v)) == 0)
			return 1;
	return 0;
}

/* The long option the n bytes at s name, exactly or as the start of one
 * name only; NULL with *ambiguous set when they start several. */
static const struct req_opt *
long_opt(const char *s, size_t n, int *ambiguous)
{
	const struct req_opt *found = NULL;

	*ambiguous = 0;
	for (size_t i = 0; i < NOPTS && n > 0; i++) {
		if (strncmp(s, req_opts[i].name, n) != 0)
			continue;
		if (req_opts[i].name[n] == '\0')
			return &req_opts[i];
		*ambiguous = found != NULL;
		found = &req_opts[i];
	}
	return *ambiguous ? NULL : found;
}

/* The options from s to the end of the line.  Words that are not
 * options pip leaves unread, and so do we.  Only option names are
 * quoted in a message: values can be URLs with passwords. */
static int
req_options(struct ep_pins *pins, const char *s, unsigned no,
    const char *name, struct ep_err *err)
{
	const struct req_opt *o;
	const char *e, *v, *ve;
	size_t n;
	int amb, sep;

	for (;;) {
		s = skip_blank(s);
		if (*s == '\0' || strcmp(s, "--") == 0 ||
		    ep_startswith(s, "-- ") || ep_startswith(s, "--\t"))
			return 0;
		e = token_end(s);
		v = NULL;
		if (s[0] != '-' || s[1] == '\0' || s[1] == ' ' ||
		    s[1] == '\t') {
			s = e;
			continue;
		}
		if (s[1] != '-') {
			for (o = NULL, n = 0; n < NOPTS; n++)
				if (req_opts[n].letter == s[1])
					o = &req_opts[n];
			if (o == NULL)
				return ep_err_set(err, EP_E_INPUT, "%s:%u: "
				    "unknown option '-%c'", name, no,
				    (unsigned char)s[1] >= ' ' &&
				    (unsigned char)s[1] < 0x7f ? s[1] : '?');
			if (s + 2 < e)
				v = s + 2;	/* -rbase.txt */
		} else {
			/* Letters, digits and dashes: a value can follow
			 * after '=' (or ':', which pip does not take but
			 * we always have: either way the name is all a
			 * message quotes). */
			for (n = 0; isalnum((unsigned char)s[2 + n]) ||
			    s[2 + n] == '-'; n++)
				;
			sep = s[2 + n] == '=' || s[2 + n] == ':';
			if ((o = long_opt(s + 2, n, &amb)) == NULL ||
			    (!sep && s + 2 + n != e))
				return ep_err_set(err, EP_E_INPUT, "%s:%u: %s "
				    "option '--%.*s'", name, no, amb ?
				    "ambiguous" : "unknown",
				    (int)(n > 40 ? 40 : n), s + 2);
			if (sep) {
				if (!o->value)
					return ep_err_set(err, EP_E_INPUT,
					    "%s:%u: option '--%s' takes no "
					    "value", name, no, o->name);
				v = s + 3 + n;
			}
		}
		ve = e;
		if (o->value && v == NULL) {
			v = skip_blank(e);
			if (*v == '\0')
				return ep_err_set(err, EP_E_INPUT, "%s:%u: "
				    "option '--%s' needs a value", name, no,
				    o->name);
			ve = token_end(v);
		}
		/* -r: pins of another file, not read here. */
		if (strcmp(o->name, "requirement") == 0)
			pins->partial = 1;
		if (strcmp(o->name, "hash") == 0 &&
		    !hash_valid(v, (size_t)(ve - v)))
			return ep_err_set(err, EP_E_INPUT, "%s:%u: --hash "
			    "needs ALGO:DIGEST, ALGO one of sha256, sha384, "
			    "sha512", name, no);
		s = ve;
	}
}

/* A line that installs from a URL or a path names no version to pin:
 * "git+https://…#egg=x", "./pkg", "/wheels/x.whl", "dist/x.whl". */
static int
req_is_location(const char *s)
{
	size_t tok = strcspn(s, " \t"), scheme = 0;

	if (s[0] == '.' || s[0] == '/' || s[0] == '~')
		return 1;
	while (isalnum((unsigned char)s[scheme]) || s[scheme] == '+' ||
	    s[scheme] == '-' || s[scheme] == '.')
		scheme++;
	if (scheme > 0 && strncmp(s + scheme, "://", 3) == 0)
		return 1;
	if (ep_startswith(s, "file:"))
		return 1;
	for (size_t i = 0; i < tok && s[i] != '@'; i++)
		if (s[i] == '/')
			return 1;
	return 0;
}

static size_t
req_op_len(const char *p)
{
	static const char *const ops[] = { "===", "==", "!=", "<=", ">=",
	    "~=", "<", ">", NULL };

	for (size_t i = 0; ops[i] != NULL; i++)
		if (ep_startswith(p, ops[i]))
			return strlen(ops[i]);
	return 0;
}

/* Parse "[(]OP VERSION[, OP VERSION...][)]" at *pp into spec (blanks
 * dropped) and return the pinned version (a pointer into spec) when it is
 * a single "==V" without a wildcard or "===V", else NULL. */
static int
req_specifier(char **exact, char *spec, const char **pp, unsigned no,
    const char *name, struct ep_err *err)
{
	const char *p = skip_blank(*pp), *v;
	char *o = spec;
	size_t oplen, clauses = 0;
	int paren = 0, pinned = 0;

	*exact = NULL;
	if (*p == '(') {
		paren = 1;
		p = skip_blank(p + 1);
	}
	while (*p != '\0' && strchr("=<>!~", *p) != NULL) {
		if ((oplen = req_op_len(p)) == 0)
			return ep_err_set(err, EP_E_INPUT, "%s:%u: invalid "
			    "version operator", name, no);
		pinned = clauses == 0 && (oplen == 3 || (oplen == 2 &&
		    p[0] == '='));
		memcpy(o, p, oplen);
		o += oplen;
		p = skip_blank(p + oplen);
		v = p;
		while (*p != '\0' && !isspace((unsigned char)*p) &&
		    strchr(",;()#", *p) == NULL)
			p++;
		if (p == v)
			return ep_err_set(err, EP_E_INPUT, "%s:%u: missing "
			    "version after '%.*s'", name, no, (int)oplen,
			    o - oplen);
		if (pinned && oplen == 2 && memchr(v, '*', (size_t)(p - v)))
			pinned = 0;
		memcpy(o, v, (size_t)(p - v));
		o += p - v;
		clauses++;
		p = skip_blank(p);
		if (*p != ',')
			break;
		*o++ = ',';
		p = skip_blank(p + 1);
		if (*p == '\0' || strchr("=<>!~", *p) == NULL)
			return ep_err_set(err, EP_E_INPUT, "%s:%u: expected a "
			    "version clause after ','", name, no);
	}
	*o = '\0';
	if (paren) {
		if (*p != ')')
			return ep_err_set(err, EP_E_INPUT, "%s:%u: missing ')' "
			    "after the version specifier", name, no);
		p = skip_blank(p + 1);
	}
	if (clauses == 1 && pinned)
		*exact = spec + (spec[2] == '=' ? 3 : 2);
	*pp = p;
	return 0;
}

/*
 * Whether the text after a ';' inside a direct reference's URL starts its
 * markers.  packaging's grammar ends the URL at white space only (a ';'
 * is part of it: "https://h/a;v=1/x.whl"), pip's requirements-file reader
 * cuts the line at the first ';' ("x.whl;python_version>'3'" works with
 * pip).  Both agree where the ';' is followed by white space or by what a
 * marker opens with (a variable, a quoted string, a parenthesis); a ';'
 * followed by anything else is the URL's own.
 */
static int
markers_follow(const char *p)
{
	static const char *const legacy[] = { "os.name", "sys.platform",
	    "platform.version", "platform.machine",
	    "platform.python_implementation", "python_implementation" };
	size_t n;

	if (*p == '\0' || isspace((unsigned char)*p) || *p == '(' ||
	    *p == '\'' || *p == '"')
		return 1;
	for (size_t i = 0; i < EP_MV_N + sizeof legacy / sizeof legacy[0];
	    i++) {
		const char *v = i < EP_MV_N ? ep_marker_vars[i] :
		    legacy[i - EP_MV_N];

		n = strlen(v);
		if (strncmp(p, v, n) == 0 && !isalnum((unsigned char)p[n]) &&
		    p[n] != '_' && p[n] != '.')
			return 1;
	}
	return 0;
}

/* The marker after the ';' at p (up to the per-requirement options,
 * " --hash=..."), trimmed, as a new string; NULL when p holds none. */
static char *
req_marker(const char *p)
{
	const char *e;

	if (*p != ';')
		return NULL;
	p = skip_blank(p + 1);
	for (e = p; *e != '\0'; e++)
		if (e[0] == '-' && e[1] == '-' && e > p &&
		    isspace((unsigned char)e[-1]))
			break;
	while (e > p && isspace((unsigned char)e[-1]))
		e--;
	return e > p ? xstrndup(p, (size_t)(e - p)) : NULL;
}

static int
req_requirement(struct ep_pins *pins, const char *s, unsigned no,
    const char *name, struct ep_err *err)
{
	const char *p = s, *url;
	char *norm = NULL, *spec = NULL, *exact, *scrubbed, *ver = NULL;
	char *marker;
	int rc = -1;

	if (req_is_location(s)) {
		/* It installs something no pin names. */
		pins->partial = 1;
		return 0;
	}
	while (isalnum((unsigned char)*p) || *p == '.' || *p == '_' ||
	    *p == '-')
		p++;
	if (!ep_lock_valid_name(s, (size_t)(p - s)))
		return ep_err_set(err, EP_E_INPUT, "%s:%u: not a requirement "
		    "(expected NAME[EXTRAS] [SPECIFIER] [; MARKERS])", name,
		    no);
	norm = ep_lock_pep503(s, (size_t)(p - s));
	p = skip_blank(p);
	if (*p == '[') {
		if ((p = strchr(p, ']')) == NULL) {
			ep_err_set(err, EP_E_INPUT, "%s:%u: '[' without ']' "
			    "in the extras", name, no);
			goto done;
		}
		p = skip_blank(p + 1);
	}
	if (*p == '@') {
		/* A direct reference; markers and options may follow. */
		url = p = skip_blank(p + 1);
		while (*p != '\0' && !isspace((unsigned char)*p) &&
		    !(*p == ';' && markers_follow(p + 1)))
			p++;
		if (p == url) {
			ep_err_set(err, EP_E_INPUT, "%s:%u: missing URL after "
			    "'@'", name, no);
			goto done;
		}
		scrubbed = ep_lock_url_scrub(url, (size_t)(p - url));
		ver = xasprintf("@ %s", scrubbed);
		free(scrubbed);
		marker = req_marker(skip_blank(p));
		ep_pins_add_at(pins, norm, ver, marker, NULL, NULL);
		free(marker);
		rc = 0;
		goto done;
	}
	spec = xmalloc(strlen(p) + 1);
	if (req_specifier(&exact, spec, &p, no, name, err) < 0)
		goto done;
	/* What may follow: markers, or per-requirement options (--hash). */
	if (*p != '\0' && *p != ';' && !ep_startswith(p, "--")) {
		ep_err_set(err, EP_E_INPUT, "%s:%u: unexpected text after the "
		    "%s", name, no, spec[0] != '\0' ? "version specifier" :
		    "package name");
		goto done;
	}
	/* "==1.0.org1" names no PEP 440 version: say so, and keep the
	 * specifier as written rather than pass it off as a version. */
	if (exact != NULL && spec[1] == '=' && spec[2] != '=' &&
	    !ep_version_pep440(exact)) {
		ep_pins_warn(pins, "%s:%u: %s: the version after == is not "
		    "a PEP 440 version; the pin is the specifier as written",
		    name, no, norm);
		exact = NULL;
	}
	marker = req_marker(p);
	ep_pins_add_at(pins, norm, exact != NULL ? exact :
	    spec[0] != '\0' ? spec : "*", marker, NULL, NULL);
	free(marker);
	rc = 0;
done:
	free(norm);
	free(spec);
	free(ver);
	return rc;
}

/* One logical line (continuations joined), NUL-terminated and ours. */
static int
req_logical(struct ep_pins *pins, char *s, unsigned no, const char *name,
    struct ep_err *err)
{
	const char *q;

	for (size_t i = 0; s[i] != '\0'; i++) {
		if (s[i] == '#' && (i == 0 || isspace((unsigned char)s[i - 1]))) {
			s[i] = '\0';
			break;
		}
	}
	ep_trim(s);
	if (s[0] == '\0')
		return 0;
	/* As pip's break_args_options: the options begin at the first
	 * word that starts with '-'; what comes before is the
	 * requirement. */
	for (q = s; *q != '\0'; q = token_end(q))
		if (*(q = skip_blank(q)) == '-')
			break;
	if (req_options(pins, q, no, name, err) < 0)
		return -1;
	if (q == s)
		return 0;
	s[q - s] = '\0';
	return req_requirement(pins, ep_trim(s), no, name, err);
}

static int
is_comment_line(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i < n && s[i] == '#';
}

int
ep_lock_parse_requirements(struct ep_pins *out, const char *buf, size_t len,
    const char *name, struct ep_err *err)
{
	struct ep_pins pins = { 0 };
	struct ep_lock_lines l;
	const char *s;
	char *logical = NULL, *text = NULL;
	size_t n, ln = 0, cap = 0;
	unsigned first = 0;
	int cont = 0, rc = -1;

	/* UTF-16 and UTF-32 with a byte order mark, which pip reads. */
	switch (ep_lock_decode_bom(&text, &n, buf, len)) {
	case 1:
		buf = text;
		len = n;
		break;
	case -1:
		ep_err_set(err, EP_E_INPUT, "%s:1: not UTF-16 or UTF-32 text "
		    "after its byte order mark", name);
		goto done;
	}
	ep_lock_lines_init(&l, buf, len);
	while (ep_lock_next_line(&l, &s, &n)) {
		int comment = is_comment_line(s, n);

		if (memchr(s, '\0', n) != NULL) {
			ep_err_set(err, EP_E_INPUT, "%s:%u: NUL byte in a text "
			    "file", name, l.no);
			goto done;
		}
		if (!cont) {
			ln = 0;
			first = l.no;
		}
		if (ln + n + 2 > EP_LOCK_LINE_MAX) {
			ep_err_set(err, EP_E_INPUT, "%s:%u: line longer than "
			    "%zu bytes", name, first, EP_LOCK_LINE_MAX);
			goto done;
		}
		if (ln + n + 2 > cap) {
			cap = (ln + n + 2) * 2;
			logical = xrealloc(logical, cap);
		}
		/* As pip does: a comment line ends a continuation, and gets
		 * a blank in front so that it still reads as a comment. */
		if (comment && cont)
			logical[ln++] = ' ';
		cont = !comment && n > 0 && s[n - 1] == '\\';
		memcpy(logical + ln, s, cont ? n - 1 : n);
		ln += cont ? n - 1 : n;
		logical[ln] = '\0';
		if (!cont && req_logical(&pins, logical, first, name, err) < 0)
			goto done;
	}
	if (cont && req_logical(&pins, logical, first, name, err) < 0)
		goto done;
	ep_pins_take(out, &pins);
	rc = 0;
done:
	free(logical);
	free(text);
	ep_pins_clear(&pins);
	return rc;
}
