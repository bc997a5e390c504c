/*
 * lockfile_yaml.c: conda-lock.yml (conda-lock's lockfile, version 1) and
 * pixi.lock (versions 4 to 6), both YAML.
 *
 * YAML is read with libyaml (yaml-0.1), not by hand: unlike the TOML
 * readers beside this file, no reader of ours knows YAML's syntax, and
 * what these two tools write uses enough of it (block and flow
 * collections, the three scalar styles, folded multi-line strings in
 * pixi's requires_dist) that a "safe subset" reader would either refuse
 * real files or misread them.  libyaml is YAML 1.1's reference parser in
 * C, kept in Debian (and what PyYAML binds as its C loader; the tests
 * check every pin against PyYAML's own pure-Python reader).  Its
 * document loader builds a node tree whose aliases are references (never
 * copies: no "billion laughs"), and only the few paths named below are
 * walked.  The text must be one document; a key kept (name, version,
 * ...) twice in one mapping, or a kept value holding a control character,
 * makes the file malformed, never a pin.
 *
 * conda-lock.yml: version: 1, metadata, and package: a list of
 * {name, version, manager (conda or pip), platform, url, hash, category}.
 * pixi.lock: version, environments, and packages: a list of entries keyed
 * by conda: or pypi: (version 5 and later) or with kind: (version 4);
 * name and version are the entry's own keys, or for a conda package
 * without them its file name's (NAME-VERSION-BUILD.conda).
 *
 * Each pin also keeps what it applies to (conda-lock: its platform and
 * category; pixi: the ENV:PLATFORM pairs whose environments list its URL),
 * its URL (scrubbed of credentials as ep_lock_url_scrub says) and its
 * hash (sha256, else md5).
 */
#include "lockfile.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

struct ly {
	yaml_document_t doc;
	const char *name;
	struct ep_err *err;
};

static unsigned long
ly_line(const yaml_node_t *n)
{
	return (unsigned long)n->start_mark.line + 1;
}

static int ly_fail(struct ly *, const yaml_node_t *, const char *, ...)
    __attribute__((format(printf, 3, 4)));

static int
ly_fail(struct ly *y, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	ep_err_set(y->err, EP_E_INPUT, "%s:%lu: %s", y->name,
	    n != NULL ? ly_line(n) : 1UL, msg);
	free(msg);
	return -1;
}

/* The scalar's text, or NULL when n is not a scalar. */
static const char *
ly_scalar(const yaml_node_t *n)
{
	return n != NULL && n->type == YAML_SCALAR_NODE ?
	    (const char *)n->data.scalar.value : NULL;
}

/* The value of key in the mapping map, in *out (NULL when absent); -1 if
 * the key is there twice. */
static int
ly_get(struct ly *y, yaml_node_t **out, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;
	yaml_node_t *k;

	*out = NULL;
	for (p = map->data.mapping.pairs.start;
	    p < map->data.mapping.pairs.top; p++) {
		k = yaml_document_get_node(&y->doc, p->key);
		if (ly_scalar(k) == NULL || strcmp(ly_scalar(k), key) != 0 ||
		    strlen(ly_scalar(k)) != k->data.scalar.length)
			continue;
		if (*out != NULL)
			return ly_fail(y, k, "duplicate key \"%s\"", key);
		*out = yaml_document_get_node(&y->doc, p->value);
	}
	return 0;
}

/* The text of the string value of key in map, in *out: NULL when the key
 * is absent; -1 when the value is not a scalar, is empty, or holds a
 * control character (a NUL would cut the C string short). */
static int
ly_text(struct ly *y, const char **out, yaml_node_t *map, const char *key)
{
	yaml_node_t *v;
	const char *s;

	*out = NULL;
	if (ly_get(y, &v, map, key) < 0)
		return -1;
	if (v == NULL)
		return 0;
	if ((s = ly_scalar(v)) == NULL)
		return ly_fail(y, v, "\"%s\" is not a string", key);
	if (s[0] == '\0')
		return ly_fail(y, v, "\"%s\" is empty", key);
	for (size_t i = 0; i < v->data.scalar.length; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return ly_fail(y, v, "\"%s\" holds a control "
			    "character", key);
	*out = s;
	return 0;
}

/* What a pin applies to, comes from and is hashed as. */
struct ly_at {
	const char *where, *url, *sha256, *md5;
};

/* One pin: a conda name as written (printable, no blank, no '/'), a
 * Python one valid and PEP 503 normalized; its URL without what can hold
 * a secret. */
static int
ly_pin(struct ly *y, struct ep_pins *pins, const yaml_node_t *at,
    const char *pkg, const char *version, int python,
    const struct ly_at *w)
{
	char *norm = NULL, *src = NULL, *hash = NULL;

	if (python) {
		if (!ep_lock_valid_name(pkg, strlen(pkg)))
			return ly_fail(y, at, "package name is not a valid "
			    "Python package name");
		pkg = norm = ep_lock_pep503(pkg, strlen(pkg));
	} else {
		for (const char *c = pkg; *c != '\0'; c++)
			if (*c == ' ' || *c == '/' || (unsigned char)*c >= 0x7f)
				return ly_fail(y, at, "package name is not a "
				    "conda package name");
	}
	if (w->url != NULL)
		src = ep_lock_url_scrub(w->url, strlen(w->url));
	if (w->sha256 != NULL)
		hash = xasprintf("sha256:%s", w->sha256);
	else if (w->md5 != NULL)
		hash = xasprintf("md5:%s", w->md5);
	ep_pins_add_at(pins, pkg, version, w->where, src, hash);
	free(norm);
	free(src);
	free(hash);
	return 0;
}

/* Load the one document of buf into y->doc; its root, a mapping, in
 * *root. */
static int
ly_load(struct ly *y, yaml_node_t **root, const char *buf, size_t len,
    const char *what)
{
	yaml_parser_t parser;
	yaml_document_t extra;
	int rc = -1;

	*root = NULL;
	if (!yaml_parser_initialize(&parser))
		return ep_err_set(y->err, EP_E_INPUT, "%s: out of memory "
		    "reading YAML", y->name);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf,
	    len);
	if (!yaml_parser_load(&parser, &y->doc)) {
		/* libyaml's problems are fixed texts: they quote no value. */
		ep_err_set(y->err, EP_E_INPUT, "%s:%lu: not valid YAML: %s",
		    y->name, (unsigned long)parser.problem_mark.line + 1,
		    parser.problem != NULL ? parser.problem : "error");
		memset(&y->doc, 0, sizeof y->doc);
		goto done;
	}
	if ((*root = yaml_document_get_root_node(&y->doc)) == NULL ||
	    (*root)->type != YAML_MAPPING_NODE) {
		ly_fail(y, *root, "not a %s (the top level is not a mapping)",
		    what);
		goto done;
	}
	if (!yaml_parser_load(&parser, &extra)) {
		ep_err_set(y->err, EP_E_INPUT, "%s:%lu: not valid YAML: %s",
		    y->name, (unsigned long)parser.problem_mark.line + 1,
		    parser.problem != NULL ? parser.problem : "error");
		goto done;
	}
	if (yaml_document_get_root_node(&extra) != NULL) {
		yaml_document_delete(&extra);
		ly_fail(y, NULL, "more than one YAML document in a %s", what);
		goto done;
	}
	yaml_document_delete(&extra);
	rc = 0;
done:
	yaml_parser_delete(&parser);
	return rc;
}

/* The top-level key `key` of root, which must be a sequence (list) or a
 * mapping (map), present. */
static int
ly_need(struct ly *y, yaml_node_t **out, yaml_node_t *root, const char *key,
    yaml_node_type_t type, const char *what)
{
	if (ly_get(y, out, root, key) < 0)
		return -1;
	if (*out == NULL)
		return ly_fail(y, root, "not a %s (no \"%s\")", what, key);
	if ((*out)->type != type)
		return ly_fail(y, *out, "\"%s\" is not a %s", key,
		    type == YAML_SEQUENCE_NODE ? "list" : "mapping");
	return 0;
}

/* The top-level version, one of the accepted ones (lo to hi). */
static int
ly_version(struct ly *y, yaml_node_t *root, long lo, long hi,
    const char *what)
{
	const char *v;
	char *end;
	long n;

	if (ly_text(y, &v, root, "version") < 0)
		return -1;
	if (v == NULL)
		return ly_fail(y, root, "not a %s (no \"version\")", what);
	n = strtol(v, &end, 10);
	if (*end != '\0' || n < lo || n > hi)
		return ly_fail(y, root, "version %.20s of the %s format is not "
		    "one envparity reads (%ld to %ld)", v, what, lo, hi);
	return 0;
}

/* conda-lock's hash: {md5: HEX, sha256: HEX}, either or both. */
static int
conda_lock_hash(struct ly *y, struct ly_at *w, yaml_node_t *pkg)
{
	yaml_node_t *h;

	if (ly_get(y, &h, pkg, "hash") < 0)
		return -1;
	if (h == NULL)
		return 0;
	if (h->type != YAML_MAPPING_NODE)
		return ly_fail(y, h, "\"hash\" is not a mapping");
	return ly_text(y, &w->sha256, h, "sha256") < 0 ||
	    ly_text(y, &w->md5, h, "md5") < 0 ? -1 : 0;
}

static int
conda_lock_pkg(struct ly *y, struct ep_pins *pins, yaml_node_t *pkg)
{
	const char *name, *version, *manager, *platform, *category;
	struct ly_at w = { 0 };
	char *where;
	int rc;

	if (pkg->type != YAML_MAPPING_NODE)
		return ly_fail(y, pkg, "a package is not a mapping");
	if (ly_text(y, &name, pkg, "name") < 0 ||
	    ly_text(y, &version, pkg, "version") < 0 ||
	    ly_text(y, &manager, pkg, "manager") < 0 ||
	    ly_text(y, &platform, pkg, "platform") < 0 ||
	    ly_text(y, &category, pkg, "category") < 0 ||
	    ly_text(y, &w.url, pkg, "url") < 0 ||
	    conda_lock_hash(y, &w, pkg) < 0)
		return -1;
	if (name == NULL || version == NULL || manager == NULL ||
	    platform == NULL)
		return ly_fail(y, pkg, "a package without %s",
		    name == NULL ? "a name" : version == NULL ? "a version" :
		    manager == NULL ? "a manager" : "a platform");
	if (strcmp(manager, "conda") != 0 && strcmp(manager, "pip") != 0)
		return ly_fail(y, pkg, "package %s: manager is neither conda "
		    "nor pip", name);
	/* conda-lock's own default category is "main". */
	where = xasprintf("%s %s", platform, category != NULL ? category :
	    "main");
	w.where = where;
	rc = ly_pin(y, pins, pkg, name, version, strcmp(manager, "pip") == 0,
	    &w);
	free(where);
	return rc;
}

int
ep_lock_parse_conda_lock(struct ep_pins *out, const char *buf, size_t len,
    const char *name, struct ep_err *err)
{
	static const char what[] = "conda-lock.yml";
	struct ly y = { .name = name, .err = err };
	struct ep_pins pins = { 0 };
	yaml_node_t *root, *list, *meta;
	yaml_node_item_t *i;
	int rc = -1;

	if (ly_load(&y, &root, buf, len, what) < 0 ||
	    ly_version(&y, root, 1, 1, what) < 0 ||
	    ly_need(&y, &meta, root, "metadata", YAML_MAPPING_NODE, what) < 0 ||
	    ly_need(&y, &list, root, "package", YAML_SEQUENCE_NODE, what) < 0)
		goto done;
	for (i = list->data.sequence.items.start;
	    i < list->data.sequence.items.top; i++)
		if (conda_lock_pkg(&y, &pins, yaml_document_get_node(&y.doc,
		    *i)) < 0)
			goto done;
	ep_pins_take(out, &pins);
	rc = 0;
done:
	ep_pins_clear(&pins);
	yaml_document_delete(&y.doc);
	return rc;
}

/* pixi.lock's environments, as what each package URL applies to: one
 * entry per URL, its "ENV:PLATFORM" pairs joined with ",", sorted by URL
 * for a binary search (built once: a URL listed a million times is
 * joined once, never once per package). */
struct pixi_ref {
	const char *url;
	char *where;
};

struct pixi_refs {
	struct pixi_ref *v;
	size_t n, cap;
};

/* At most this many packages listed by the environments together: an
 * alias can list one long list in a hundred thousand environments, a few
 * bytes each, and that must not become 10^10 entries. */
#define PIXI_REFS_MAX	((size_t)1 << 20)

static int
cmp_ref(const void *a, const void *b)
{
	const struct pixi_ref *x = a, *y = b;
	int c = strcmp(x->url, y->url);

	return c != 0 ? c : strcmp(x->where, y->where);
}

static int
cmp_url(const void *a, const void *b)
{
	return strcmp(((const struct pixi_ref *)a)->url,
	    ((const struct pixi_ref *)b)->url);
}

static void
refs_push(struct pixi_refs *r, const char *url, char *where)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->v = xreallocarray(r->v, r->cap, sizeof *r->v);
	}
	r->v[r->n].url = url;
	r->v[r->n++].where = where;
}

static void
refs_clear(struct pixi_refs *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].where);
	free(r->v);
	memset(r, 0, sizeof *r);
}

/* A key of environments or of an environment's packages: a plain name. */
static const char *
pixi_key(struct ly *y, yaml_node_pair_t *p, const char *what)
{
	yaml_node_t *k = yaml_document_get_node(&y->doc, p->key);
	const char *s = ly_scalar(k);

	if (s == NULL || s[0] == '\0' || strlen(s) != k->data.scalar.length) {
		ly_fail(y, k, "%s is not a name", what);
		return NULL;
	}
	for (const char *c = s; *c != '\0'; c++)
		if ((unsigned char)*c <= ' ' || *c == ',' || *c == 0x7f) {
			ly_fail(y, k, "%s is not a name", what);
			return NULL;
		}
	return s;
}

/* One environment's packages: PLATFORM: [{conda: URL} or {pypi: URL}]. */
static int
pixi_env(struct ly *y, struct pixi_refs *r, const char *env,
    yaml_node_t *pkgs)
{
	yaml_node_pair_t *p;
	yaml_node_item_t *i;
	yaml_node_t *list, *e;
	const char *plat, *conda, *pypi;

	if (pkgs->type != YAML_MAPPING_NODE)
		return ly_fail(y, pkgs, "an environment's \"packages\" is not "
		    "a mapping");
	for (p = pkgs->data.mapping.pairs.start;
	    p < pkgs->data.mapping.pairs.top; p++) {
		if ((plat = pixi_key(y, p, "a platform")) == NULL)
			return -1;
		list = yaml_document_get_node(&y->doc, p->value);
		if (list == NULL || list->type != YAML_SEQUENCE_NODE)
			return ly_fail(y, list, "an environment's packages "
			    "are not a list");
		for (i = list->data.sequence.items.start;
		    i < list->data.sequence.items.top; i++) {
			e = yaml_document_get_node(&y->doc, *i);
			if (e == NULL || e->type != YAML_MAPPING_NODE)
				return ly_fail(y, e, "an environment's package "
				    "is not a mapping");
			if (ly_text(y, &conda, e, "conda") < 0 ||
			    ly_text(y, &pypi, e, "pypi") < 0)
				return -1;
			if ((conda == NULL) == (pypi == NULL))
				return ly_fail(y, e, "an environment's package "
				    "is not one conda: or pypi:");
			if (r->n >= PIXI_REFS_MAX)
				return ly_fail(y, e, "more than %zu packages "
				    "listed by the environments", PIXI_REFS_MAX);
			refs_push(r, conda != NULL ? conda : pypi,
			    xasprintf("%s:%s", env, plat));
		}
	}
	return 0;
}

/* Every environment's references, then one entry per URL. */
static int
pixi_refs(struct ly *y, struct pixi_refs *r, yaml_node_t *envs)
{
	yaml_node_pair_t *p;
	yaml_node_t *env, *pkgs;
	const char *name;
	size_t i, j, k, o = 0, len;
	char *w;

	for (p = envs->data.mapping.pairs.start;
	    p < envs->data.mapping.pairs.top; p++) {
		if ((name = pixi_key(y, p, "an environment")) == NULL)
			return -1;
		env = yaml_document_get_node(&y->doc, p->value);
		if (env == NULL || env->type != YAML_MAPPING_NODE)
			return ly_fail(y, env, "environment %s is not a "
			    "mapping", name);
		if (ly_get(y, &pkgs, env, "packages") < 0 ||
		    (pkgs != NULL && pixi_env(y, r, name, pkgs) < 0))
			return -1;
	}
	if (r->n > 1)
		qsort(r->v, r->n, sizeof *r->v, cmp_ref);
	for (i = 0; i < r->n; i = j) {
		len = 0;
		for (j = i; j < r->n && strcmp(r->v[j].url, r->v[i].url) == 0;
		    j++)
			len += strlen(r->v[j].where) + 1;
		w = xmalloc(len);
		w[0] = '\0';
		for (k = i, len = 0; k < j; k++) {
			/* Sorted: a pair listed twice follows its twin. */
			if (k > i && strcmp(r->v[k].where, r->v[k - 1].where) == 0)
				continue;
			len += (size_t)sprintf(w + len, "%s%s", len > 0 ? "," :
			    "", r->v[k].where);
		}
		for (k = i; k < j; k++)
			free(r->v[k].where);
		r->v[o].url = r->v[i].url;
		r->v[o++].where = w;
	}
	r->n = o;
	return 0;
}

/* What the package at url applies to, or NULL. */
static const char *
pixi_where(const struct pixi_refs *r, const char *url)
{
	struct pixi_ref key = { .url = url, .where = (char *)"" };
	const struct pixi_ref *f;

	if (url == NULL || r->n == 0)
		return NULL;
	f = bsearch(&key, r->v, r->n, sizeof *r->v, cmp_url);
	return f != NULL ? f->where : NULL;
}

/* One entry of pixi.lock's packages: which kind (conda or pypi), its
 * location, then name and version. */
static int
pixi_pkg(struct ly *y, struct ep_pins *pins, yaml_node_t *pkg,
    const struct pixi_refs *refs)
{
	const char *conda, *pypi, *kind, *name, *version, *url;
	char *fname = NULL, *fver = NULL;
	struct ly_at w = { 0 };
	int python, rc;

	if (pkg->type != YAML_MAPPING_NODE)
		return ly_fail(y, pkg, "a package is not a mapping");
	if (ly_text(y, &conda, pkg, "conda") < 0 ||
	    ly_text(y, &pypi, pkg, "pypi") < 0 ||
	    ly_text(y, &kind, pkg, "kind") < 0 ||
	    ly_text(y, &name, pkg, "name") < 0 ||
	    ly_text(y, &version, pkg, "version") < 0 ||
	    ly_text(y, &url, pkg, "url") < 0)
		return -1;
	if (ly_text(y, &w.sha256, pkg, "sha256") < 0 ||
	    ly_text(y, &w.md5, pkg, "md5") < 0)
		return -1;
	if ((conda != NULL) + (pypi != NULL) + (kind != NULL) != 1)
		return ly_fail(y, pkg, "a package with %s of conda:, pypi: "
		    "and kind:", conda == NULL && pypi == NULL &&
		    kind == NULL ? "none" : "more than one");
	if (kind != NULL) {
		if (strcmp(kind, "conda") == 0)
			conda = url;
		else if (strcmp(kind, "pypi") == 0)
			pypi = url;
		else
			return ly_fail(y, pkg, "kind is neither conda nor "
			    "pypi");
		if (conda == NULL && pypi == NULL)
			return ly_fail(y, pkg, "a package without a url");
	}
	python = pypi != NULL;
	w.url = python ? pypi : conda;
	w.where = pixi_where(refs, w.url);
	if (!python && name == NULL && version == NULL &&
	    ep_lock_conda_filename(&fname, &fver, conda, strlen(conda)) == 0) {
		name = fname;
		version = fver;
	}
	if (name == NULL || version == NULL)
		rc = ly_fail(y, pkg, "a package without %s", name == NULL ?
		    "a name" : "a version");
	else
		rc = ly_pin(y, pins, pkg, name, version, python, &w);
	free(fname);
	free(fver);
	return rc;
}

int
ep_lock_parse_pixi(struct ep_pins *out, const char *buf, size_t len,
    const char *name, struct ep_err *err)
{
	static const char what[] = "pixi.lock";
	struct ly y = { .name = name, .err = err };
	struct ep_pins pins = { 0 };
	struct pixi_refs refs = { 0 };
	yaml_node_t *root, *list, *envs;
	yaml_node_item_t *i;
	int rc = -1;

	if (ly_load(&y, &root, buf, len, what) < 0 ||
	    ly_version(&y, root, 4, 6, what) < 0 ||
	    ly_need(&y, &envs, root, "environments", YAML_MAPPING_NODE,
	    what) < 0 ||
	    ly_need(&y, &list, root, "packages", YAML_SEQUENCE_NODE, what) < 0 ||
	    pixi_refs(&y, &refs, envs) < 0)
		goto done;
	for (i = list->data.sequence.items.start;
	    i < list->data.sequence.items.top; i++)
		if (pixi_pkg(&y, &pins, yaml_document_get_node(&y.doc, *i),
		    &refs) < 0)
			goto done;
	ep_pins_take(out, &pins);
	rc = 0;
done:
	refs_clear(&refs);
	ep_pins_clear(&pins);
	yaml_document_delete(&y.doc);
	return rc;
}
