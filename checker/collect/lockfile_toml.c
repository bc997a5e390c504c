/*
 * lockfile_toml.c: the name and version of each package of poetry.lock,
 * uv.lock and pdm.lock ([[package]] tables) and pylock.toml (PEP 751,
 * [[packages]] tables); the syntax under them: lockfile_tomlsyn.c.
 *
 * It keeps of each package its name and version, pylock.toml's and
 * pdm.lock's marker (what the pin applies to; poetry 2's "markers", one
 * string or a table of one per group), poetry 1.x's dependency edges
 * ([package.dependencies], with their markers: lockreach.c reads them),
 * poetry's category or groups and whether it is optional, pdm.lock's
 * groups, pdm.lock's and pylock.toml's first hash, and pylock.toml's index
 * (where it comes from, scrubbed as ep_lock_url_scrub says), and whether
 * it comes from a source tree, which may leave it without a version (uv's
 * workspace members: source = { editable = "." }, as an inline table or
 * dotted keys; pylock.toml's vcs, directory and archive; pdm.lock's path,
 * url and git).  Subtables such as [package.dependencies],
 * [package.extras], [[package.wheels]] hold none of the package's own
 * keys, as TOML says; pylock.toml's [packages.vcs] says where it comes
 * from.  A root key "package" (or "packages") holding an array of inline
 * tables is read as the same packages.  A kept value holds no control
 * character: a NUL would end the C string, and "1.26.4\u0000rc1" would
 * become the pin 1.26.4.
 */
#include "lockfile_toml.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* What tells the formats apart. */
struct tp_flavour {
	const char *table;	/* "package", or pylock.toml's "packages" */
	const char *const *local;	/* the keys that make a source tree */
	int in_source;		/* uv: those keys are source's */
	int warn_skip;		/* a package without a version is said */
	int marker;		/* "marker" says what the pin applies to */
	int index;		/* "index" says where it comes from */
	int groups;		/* "groups" = [...] says its groups */
};

static const char *const uv_local[] = { "editable", "virtual", "directory",
    "path", NULL };
static const char *const pylock_local[] = { "vcs", "directory", "archive",
    NULL };
static const char *const pdm_local[] = { "path", "url", "git", NULL };

static const struct tp_flavour fl_poetry = { "package", uv_local, 1, 0, 0,
    0, 1 };
static const struct tp_flavour fl_uv = { "package", uv_local, 1, 0, 0, 0,
    0 };
static const struct tp_flavour fl_pylock = { "packages", pylock_local, 0, 1,
    1, 1, 0 };
static const struct tp_flavour fl_pdm = { "package", pdm_local, 0, 1, 1, 0,
    1 };

static int
is_local_key(const struct tp_flavour *fl, const char *key)
{
	for (size_t i = 0; fl->local[i] != NULL; i++)
		if (strcmp(key, fl->local[i]) == 0)
			return 1;
	return 0;
}

/* The [[package]] being read. */
struct tp_pkg {
	int active;
	unsigned line;		/* of its [[package]] header */
	char *name, *version;
	char *marker, *index;	/* pylock.toml's and pdm.lock's */
	char *group;		/* poetry's category, or groups joined */
	char *hash;		/* pdm.lock's, pylock.toml's first hash */
	int optional;		/* poetry: only an extra installs it */
	int local;		/* it comes from a source tree */
	int sub;		/* in one of its subtables: no key is its own */
	int in_deps;		/* poetry: in [package.dependencies] */
	char *deps;		/* poetry: its dependencies, as struct ep_pin's
				   deps says */
};

static void
pkg_reset(struct tp_pkg *k)
{
	free(k->name);
	free(k->version);
	free(k->marker);
	free(k->index);
	free(k->group);
	free(k->hash);
	free(k->deps);
	memset(k, 0, sizeof *k);
}

/* The package k is complete: its pin, or why it has none.  Poetry's
 * packages always have a version; uv's, pdm's and pylock.toml's may not
 * where they come from a source tree (skip: 1). */
static int
pkg_finish(struct ep_toml *t, struct ep_pins *pins, struct tp_pkg *k,
    const struct tp_flavour *fl)
{
	char *norm, *src, *group;
	size_t n0 = pins->n;

	if (!k->active)
		return 0;
	if (k->name == NULL)
		return ep_toml_fail(t, k->line, "[[%s]] without a name",
		    fl->table);
	if (!ep_lock_valid_name(k->name, strlen(k->name)))
		return ep_toml_fail(t, k->line, "[[%s]] name is not a "
		    "valid package name", fl->table);
	if (k->version == NULL) {
		if (fl != &fl_poetry && k->local) {
			if (fl->warn_skip)
				ep_pins_warn(pins, "%s:%u: %s has no version "
				    "(it comes from a source tree); no pin",
				    t->name, k->line, k->name);
			goto skip;
		}
		return ep_toml_fail(t, k->line, "[[%s]] \"%s\" has no "
		    "version", fl->table, k->name);
	}
	if (k->version[0] == '\0')
		return ep_toml_fail(t, k->line, "[[%s]] \"%s\" has an "
		    "empty version", fl->table, k->name);
	norm = ep_lock_pep503(k->name, strlen(k->name));
	src = k->index != NULL ? ep_lock_url_scrub(k->index,
	    strlen(k->index)) : NULL;
	ep_pins_add_at(pins, norm, k->version, k->marker, src, k->hash);
	group = k->optional ? xasprintf("%s optional", k->group != NULL ?
	    k->group : "") : k->group != NULL ? xstrdup(k->group) : NULL;
	ep_pins_set_group(pins, n0, group);
	ep_pins_set_deps(pins, n0, k->deps);
	free(group);
	free(src);
	free(norm);
skip:
	pkg_reset(k);
	return 0;
}

/* A table header.  [[TABLE]] starts a package; [TABLE.x] and [[TABLE.x]]
 * are subtables of the package being read (pylock.toml's [packages.vcs]
 * says it comes from a source tree); any other table ends it. */
static int
tp_header(struct ep_toml *t, struct ep_pins *pins, struct tp_pkg *k,
    const struct tp_flavour *fl)
{
	struct ep_strv segs = { 0 };
	unsigned line = t->line;
	int array, rc = -1;

	t->p++;
	if ((array = ep_toml_at(t, '[')))
		t->p++;
	if (ep_toml_key(t, &segs) < 0)
		goto done;
	if (!ep_toml_at(t, ']') || (array && (t->p + 1 >= t->end ||
	    t->p[1] != ']'))) {
		ep_toml_fail(t, line, "unterminated table header");
		goto done;
	}
	t->p += array ? 2 : 1;
	if (ep_toml_eol(t) < 0)
		goto done;
	if (k->active && segs.n >= 2 && strcmp(segs.v[0], fl->table) == 0) {
		k->sub = 1;
		k->in_deps = fl == &fl_poetry && segs.n == 2 &&
		    strcmp(segs.v[1], "dependencies") == 0;
		if (!fl->in_source && is_local_key(fl, segs.v[1]))
			k->local = 1;
		rc = 0;
		goto done;
	}
	if (pkg_finish(t, pins, k, fl) < 0)
		goto done;
	pkg_reset(k);
	if (array && segs.n == 1 && strcmp(segs.v[0], fl->table) == 0) {
		k->active = 1;
		k->line = line;
	}
	rc = 0;
done:
	ep_strv_clear(&segs);
	return rc;
}

/* The groups a package belongs to: poetry's category = "main" (poetry
 * 1.x), optional = true, and groups = ["main", "dev"] (poetry 2, pdm),
 * read from the value's text [v, e), which is already known to be TOML:
 * each string of the array that is a name (a group is one), joined with
 * ",".  A second groups key is the duplicate pkg_keyval does not see: the
 * last one wins, as for keys nobody reads. */
static void
pkg_group(struct tp_pkg *k, const char *key, char **str, const char *v,
    const char *e, const struct tp_flavour *fl)
{
	const char *q;
	char *g = NULL, *joined;

	if (fl == &fl_poetry && strcmp(key, "optional") == 0)
		k->optional = (size_t)(e - v) >= 4 && memcmp(v, "true", 4) == 0;
	else if (fl == &fl_poetry && strcmp(key, "category") == 0 &&
	    *str != NULL && ep_lock_valid_name(*str, strlen(*str))) {
		free(k->group);
		k->group = xstrdup(*str);
	} else if (fl == &fl_poetry && strcmp(key, "markers") == 0 &&
	    *str != NULL && k->marker == NULL) {
		/* poetry 2's marker, when one for every group */
		k->marker = *str;
		*str = NULL;
	} else if (fl == &fl_poetry && strcmp(key, "markers") == 0 &&
	    *str == NULL && k->marker == NULL) {
		/* poetry 2's markers = { GROUP = "M", ... }: installed where
		 * one of them holds (the default selection is every
		 * group) */
		k->marker = ep_toml_markers_or(v, e);
	} else if (fl->groups && strcmp(key, "groups") == 0 && v < e &&
	    *v == '[') {
		for (; v < e; v = q + 1) {
			if ((v = memchr(v, '"', (size_t)(e - v))) == NULL ||
			    (q = memchr(v + 1, '"', (size_t)(e - v - 1))) == NULL)
				break;
			v++;
			if (ep_lock_valid_name(v, (size_t)(q - v))) {
				joined = g == NULL ? xstrndup(v, (size_t)(q -
				    v)) : xasprintf("%s,%.*s", g, (int)(q - v),
				    v);
				free(g);
				g = joined;
			}
		}
		free(k->group);
		k->group = g;
	}
}

static int
is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' &&
		    s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F')))
			return 0;
	return n > 0;
}

static int
is_ident(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
	    c == '-';
}

/* 1 if [s, e) is a hash's name: "sha256", "md5". */
static int
is_alg(const char *s, const char *e)
{
	for (; s < e; s++)
		if (!is_ident((unsigned char)*s))
			return 0;
	return 1;
}

/* The first hash in the value text [v, e), which is already known to be
 * TOML: pdm.lock's files = [{file = ..., hash = "ALG:HEX"}], pylock.toml's
 * hashes = { ALG = "HEX" } (in sdist, wheels, archive, or a subtable's
 * own hashes key), as a new "ALG:HEX", or NULL.  Each IDENT = "VALUE" of
 * the text is looked at; the first that is a hash wins (a file name or a
 * URL is not hex).  Linear in the text. */
static char *
raw_hash(const char *v, const char *e)
{
	const char *p, *id, *q, *sv, *colon;
	size_t idn;

	for (p = v; p < e; p++) {
		if (*p != '=' || p == v)
			continue;
		for (q = p; q > v && (q[-1] == ' ' || q[-1] == '\t'); q--)
			;
		/* At most 16 back: a hash's name is short, and a long run
		 * of '='s must not be scanned again for each. */
		for (id = q; id > v && q - id <= 16 &&
		    is_ident((unsigned char)id[-1]); id--)
			;
		idn = (size_t)(q - id);
		if (id > v && is_ident((unsigned char)id[-1]))
			continue;
		for (q = p + 1; q < e && (*q == ' ' || *q == '\t'); q++)
			;
		if (idn == 0 || idn > 16 || q >= e || *q != '"')
			continue;
		sv = ++q;
		while (q < e && *q != '"' && *q != '\\' && *q != '\n')
			q++;
		if (q >= e || *q != '"')
			continue;
		if (idn == 4 && memcmp(id, "hash", 4) == 0 &&
		    (colon = memchr(sv, ':', (size_t)(q - sv))) != NULL &&
		    colon > sv && colon - sv <= 16 && is_alg(sv, colon) &&
		    is_hex(colon + 1, (size_t)(q - colon - 1)))
			return xstrndup(sv, (size_t)(q - sv));
		if (!(idn == 4 && memcmp(id, "hash", 4) == 0) &&
		    is_hex(sv, (size_t)(q - sv)) && (q - sv) >= 32)
			return xasprintf("%.*s:%.*s", (int)idn, id,
			    (int)(q - sv), sv);
		p = q;
	}
	return NULL;
}

/* A key of a package (or of its subtables: pylock.toml's
 * [packages.sdist], [[packages.wheels]]) that holds its files' hashes:
 * the first one is kept. */
static void
pkg_hash(struct tp_pkg *k, const char *key, const char *v, const char *e,
    const struct tp_flavour *fl)
{
	static const char *const pdm_keys[] = { "files", NULL };
	static const char *const pylock_keys[] = { "sdist", "wheels",
	    "archive", "hashes", NULL };
	const char *const *keys = fl == &fl_pdm ? pdm_keys :
	    fl == &fl_pylock ? pylock_keys : NULL;

	if (keys == NULL || k->hash != NULL)
		return;
	for (size_t i = 0; keys[i] != NULL; i++)
		if (strcmp(key, keys[i]) == 0) {
			k->hash = raw_hash(v, e);
			return;
		}
}

/* A key and its value, read into the package k: name and version (strings
 * without a control character: a NUL would cut the C string short), and
 * whether source is a local tree, as an inline table (source = {
 * editable = "." }) or as dotted keys (source.editable = "."). */
static int
pkg_keyval(struct ep_toml *t, struct tp_pkg *k, const struct ep_strv *segs,
    unsigned line, char **str, int local, const struct tp_flavour *fl)
{
	char **slot = NULL;

	if (fl->in_source && segs->n == 2 &&
	    strcmp(segs->v[0], "source") == 0 && is_local_key(fl, segs->v[1]))
		k->local = 1;
	if (!fl->in_source && is_local_key(fl, segs->v[0]))
		k->local = 1;
	if (segs->n != 1)
		return 0;
	if (strcmp(segs->v[0], "name") == 0)
		slot = &k->name;
	else if (strcmp(segs->v[0], "version") == 0)
		slot = &k->version;
	else if (fl->marker && strcmp(segs->v[0], "marker") == 0)
		slot = &k->marker;
	else if (fl->index && strcmp(segs->v[0], "index") == 0)
		slot = &k->index;
	else if (fl->in_source && strcmp(segs->v[0], "source") == 0)
		k->local = local;
	if (slot == NULL)
		return 0;
	if (*slot != NULL)
		return ep_toml_fail(t, line, "duplicate key \"%s\"",
		    segs->v[0]);
	if (*str == NULL)
		return ep_toml_fail(t, line, "\"%s\" is not a string",
		    segs->v[0]);
	for (const char *c = *str; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return ep_toml_fail(t, line, "\"%s\" holds a control "
			    "character", segs->v[0]);
	if (t->nul)
		return ep_toml_fail(t, line, "\"%s\" holds a NUL character",
		    segs->v[0]);
	*slot = *str;
	*str = NULL;
	return 0;
}

/* One package written as an inline table, t->p at its '{'. */
static int
tp_pkg_inline(struct ep_toml *t, struct ep_pins *pins,
    const struct tp_flavour *fl)
{
	struct tp_pkg k = { .active = 1, .line = t->line };
	struct ep_strv segs = { 0 };
	char *str = NULL;
	unsigned line;
	int local, rc = -1;

	for (t->p++;;) {
		if (ep_toml_space(t) < 0)
			goto done;
		if (t->p >= t->end) {
			ep_toml_fail(t, k.line, "unterminated inline table");
			goto done;
		}
		if (*t->p == '}') {
			t->p++;
			break;
		}
		local = 0;
		line = t->line;
		if (ep_toml_pair(t, &segs, &str, fl->local, &local) < 0 ||
		    pkg_keyval(t, &k, &segs, line, &str, local, fl) < 0 ||
		    ep_toml_space(t) < 0)
			goto done;
		ep_strv_clear(&segs);
		free(str);
		str = NULL;
		if (ep_toml_at(t, ','))
			t->p++;
		else if (!ep_toml_at(t, '}')) {
			ep_toml_fail(t, t->line, "expected ',' or '}' in an "
			    "inline table");
			goto done;
		}
	}
	rc = pkg_finish(t, pins, &k, fl);
done:
	ep_strv_clear(&segs);
	free(str);
	pkg_reset(&k);
	return rc;
}

/* package = [{ name = ..., version = ... }, ...] at the root: the same
 * packages as [[package]] tables, TOML's other spelling of them. */
static int
tp_pkg_array(struct ep_toml *t, struct ep_pins *pins,
    const struct tp_flavour *fl)
{
	unsigned start = t->line;

	if (!ep_toml_at(t, '['))
		return ep_toml_fail(t, start, "\"%s\" is neither [[%s]] "
		    "tables nor an array of them", fl->table, fl->table);
	for (t->p++;;) {
		if (ep_toml_space(t) < 0)
			return -1;
		if (t->p >= t->end)
			return ep_toml_fail(t, start, "unterminated array");
		if (*t->p == ']') {
			t->p++;
			return 0;
		}
		if (!ep_toml_at(t, '{'))
			return ep_toml_fail(t, t->line, "\"%s\" is an "
			    "array of something else than tables", fl->table);
		if (tp_pkg_inline(t, pins, fl) < 0 || ep_toml_space(t) < 0)
			return -1;
		if (ep_toml_at(t, ','))
			t->p++;
		else if (t->p < t->end && !ep_toml_at(t, ']'))
			return ep_toml_fail(t, t->line, "expected ',' or ']' "
			    "in an array");
	}
}

/* One line of [package.dependencies], NAME = VALUE (text [v, e)), onto
 * k->deps as struct ep_pin's deps says; a value that is none of poetry's
 * forms is one that holds everywhere. */
static void
pkg_dep(struct tp_pkg *k, const char *name, const char *v, const char *e)
{
	char *marker = NULL, *norm, *line;
	int optional = 0;

	if (!ep_lock_valid_name(name, strlen(name)))
		return;
	(void)ep_toml_edge(&marker, &optional, v, e);
	norm = ep_lock_pep503(name, strlen(name));
	line = xasprintf("%s%s%s\t%c\t%s", k->deps != NULL ? k->deps : "",
	    k->deps != NULL ? "\n" : "", norm, optional ? '1' : '0',
	    marker != NULL ? marker : "");
	free(k->deps);
	k->deps = line;
	free(norm);
	free(marker);
}

static int
tp_keyval(struct ep_toml *t, struct ep_pins *pins, struct tp_pkg *k,
    const struct tp_flavour *fl)
{
	struct ep_strv segs = { 0 };
	unsigned line = t->line;
	const char *v0;
	char *str = NULL;
	int local = 0, rc = -1;

	if (ep_toml_key(t, &segs) < 0)
		goto done;
	if (!ep_toml_at(t, '=')) {
		ep_toml_fail(t, line, "expected '=' after a key");
		goto done;
	}
	t->p++;
	ep_toml_blank(t);
	v0 = t->p;
	if (t->root && segs.n == 1 && strcmp(segs.v[0], fl->table) == 0)
		rc = tp_pkg_array(t, pins, fl);
	else
		rc = ep_toml_value(t, &str, fl->local, &local, 0);
	if (rc < 0 || (rc = ep_toml_eol(t)) < 0)
		goto done;
	if (k->active && !k->sub && segs.n == 1)
		pkg_group(k, segs.v[0], &str, v0, t->p, fl);
	if (k->active && k->in_deps && segs.n == 1)
		pkg_dep(k, segs.v[0], v0, t->p);
	if (k->active && segs.n == 1)
		pkg_hash(k, segs.v[0], v0, t->p, fl);
	if (k->active && !k->sub)
		rc = pkg_keyval(t, k, &segs, line, &str, local, fl);
done:
	free(str);
	ep_strv_clear(&segs);
	return rc;
}

static int
toml_parse(struct ep_pins *out, const char *buf, size_t len,
    const char *name, const struct tp_flavour *fl, struct ep_err *err)
{
	struct ep_pins pins = { 0 };
	struct tp_pkg k = { 0 };
	struct ep_toml t;
	int rc = -1;

	buf = ep_lock_skip_bom(buf, &len);
	memset(&t, 0, sizeof t);
	t.p = buf;
	t.end = buf + len;
	t.line = 1;
	t.name = name;
	t.err = err;
	t.root = 1;
	if (ep_toml_utf8(&t) < 0)
		goto done;
	for (;;) {
		if (ep_toml_space(&t) < 0)
			goto done;
		if (t.p >= t.end)
			break;
		if (*t.p == '[') {
			t.root = 0;
			if (tp_header(&t, &pins, &k, fl) < 0)
				goto done;
		} else if (tp_keyval(&t, &pins, &k, fl) < 0)
			goto done;
	}
	if (pkg_finish(&t, &pins, &k, fl) < 0)
		goto done;
	ep_pins_take(out, &pins);
	rc = 0;
done:
	pkg_reset(&k);
	ep_pins_clear(&pins);
	return rc;
}

int
ep_lock_parse_toml(struct ep_pins *out, const char *buf, size_t len,
    const char *name, int uv, struct ep_err *err)
{
	return toml_parse(out, buf, len, name, uv ? &fl_uv : &fl_poetry, err);
}

int
ep_lock_parse_pylock(struct ep_pins *out, const char *buf, size_t len,
    const char *name, struct ep_err *err)
{
	return toml_parse(out, buf, len, name, &fl_pylock, err);
}

int
ep_lock_parse_pdm(struct ep_pins *out, const char *buf, size_t len,
    const char *name, struct ep_err *err)
{
	return toml_parse(out, buf, len, name, &fl_pdm, err);
}
