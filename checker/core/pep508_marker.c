/*
 * pep508_marker.c: environment markers: parsed, printed as packaging's
 * str(Marker) prints them, and evaluated for an environment.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pep508_int.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

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
		if (vars[i].name[0] == c && (n = pep508_keyword(t, vars[i].name)) >
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
	if ((pep508_at(t, '\'') || pep508_at(t, '"')) &&
	    (close = memchr(t->s + t->pos + 1, t->s[t->pos],
	    t->len - t->pos - 1)) != NULL) {
		it->val[k] = pep508_unquote(t->s + from + 1,
		    (size_t)(close - t->s) - from - 1);
		if (it->val[k] == NULL)
			return pep508_syntax(t, "Invalid quoted string");
		t->pos = (size_t)(close - t->s) + 1;
		return 0;
	}
	return pep508_syntax(t, "Expected a marker variable or quoted string");
}

static int
marker_op(struct tok *t, int *op)
{
	static const char *const ops[] = { "===", "==", "~=", "!=", "<=",
	    ">=", "<", ">", NULL };
	static const int opv[] = { OP_ARB, OP_EQ, OP_COMPAT, OP_NE, OP_LE,
	    OP_GE, OP_LT, OP_GT };
	size_t n;

	if ((n = pep508_keyword(t, "in")) > 0) {
		t->pos += n;
		*op = OP_IN;
		return 0;
	}
	if ((n = pep508_keyword(t, "not")) > 0) {
		t->pos += n;
		if (pep508_ws(t) == 0)
			return pep508_syntax(t, "Expected whitespace after 'not'");
		if ((n = pep508_keyword(t, "in")) == 0)
			return pep508_syntax(t, "Expected 'in' after 'not'");
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
	return pep508_syntax(t, "Expected marker operator, one of <=, <, !=, ==, >=, "
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
	pep508_ws(t);
	if (pep508_at(t, '(')) {
		size_t open = t->pos;

		t->pos++;
		pep508_ws(t);
		a->sub = xcalloc(1, sizeof *a->sub);
		if (marker_expr(t, a->sub) < 0)
			return -1;
		pep508_ws(t);
		if (!pep508_at(t, ')')) {
			t->pos = open;
			return pep508_syntax(t, "Expected matching RIGHT_PARENTHESIS "
			    "for LEFT_PARENTHESIS, after marker expression");
		}
		t->pos++;
	} else {
		a->it.var[0] = a->it.var[1] = MV_LITERAL;
		if (marker_var(t, &a->it, 0) < 0)
			return -1;
		pep508_ws(t);
		if (marker_op(t, &a->it.op) < 0)
			return -1;
		pep508_ws(t);
		if (marker_var(t, &a->it, 1) < 0)
			return -1;
		normalize_extra(&a->it);
	}
	pep508_ws(t);
	return 0;
}

/* marker: marker_atom (BOOLOP marker_atom)* */
static int
marker_expr(struct tok *t, struct ep_marker *m)
{
	size_t n, cap = 0;
	int orb = 0;

	if (++t->depth > DEPTH_MAX)
		return pep508_syntax(t, "Marker nested too deeply");
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
		if ((n = pep508_keyword(t, "or")) > 0)
			orb = 1;
		else if ((n = pep508_keyword(t, "and")) > 0)
			orb = 0;
		else
			break;
		t->pos += n;
	}
	t->depth--;
	return 0;
}

struct ep_marker *
pep508_marker_read(struct tok *t)
{
	struct ep_marker *m = xcalloc(1, sizeof *m);

	if (marker_expr(t, m) < 0) {
		ep_marker_free(m);
		return NULL;
	}
	return m;
}

int
ep_marker_parse(struct ep_marker **out, const char *text,
    struct ep_err *err)
{
	struct tok t = { text, 0, strlen(text), 0, err };
	struct ep_marker *m = xcalloc(1, sizeof *m);

	*out = NULL;
	if (marker_expr(&t, m) < 0 || (t.pos < t.len &&
	    pep508_syntax(&t, "Expected end of marker expression") < 0)) {
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
void
pep508_format_marker(struct ep_strv *o, const struct ep_marker *m, int first)
{
	if (m->n == 1 && m->a[0].sub != NULL) {
		pep508_format_marker(o, m->a[0].sub, first);
		return;
	}
	if (m->n > 1 && !first)
		ep_strv_push(o, "(");
	for (size_t i = 0; i < m->n; i++) {
		const struct matom *a = &m->a[i];

		if (i > 0)
			ep_strv_push(o, m->orb[i] ? " or " : " and ");
		if (a->sub != NULL) {
			pep508_format_marker(o, a->sub, 0);
			continue;
		}
		for (int k = 0; k < 2; k++) {
			if (a->it.var[k] == MV_LITERAL)
				put_value(o, a->it.val[k]);
			else
				ep_strv_push(o, var_name(a->it.var[k]));
			if (k == 0)
				ep_strv_push_owned(o, xasprintf(" %s ",
				    pep508_op_text[a->it.op]));
		}
	}
	if (m->n > 1 && !first)
		ep_strv_push(o, ")");
}

char *
pep508_strv_join(const struct ep_strv *sv)
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

	pep508_format_marker(&o, m, 1);
	s = pep508_strv_join(&o);
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
		text = pep508_cat(pep508_op_text[op], rhs);
		r = pep508_spec_read(&k, text);
		free(text);
		if (r == 0) {
			r = lhs == NULL ? T_UNKNOWN : pep508_spec1_contains(&k, lhs);
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
		    pep508_op_text[op], var_name(key));
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
		full = e.full = pep508_cat(full, "local");
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
