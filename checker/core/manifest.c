/*
 * manifest.c: the fact map, its meta, and its byte-stable serialization.
 */
#include "clean.h"
#include "hash.h"
#include "keyglob.h"
#include "outfile.h"
#include "manifest.h"
#include "errors.h"
#include "files.h"
#include "str.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Manifests are small (thousands of facts); a golden one larger than this
 * is garbage, not a manifest. */
#define MANIFEST_MAX (64u * 1024 * 1024)

static json_t *
str_new(const char *s)
{
	char *clean = ep_utf8_sanitize(s, strlen(s));
	json_t *j = json_string(clean);

	free(clean);
	return j;
}

struct ep_manifest *
ep_manifest_new(void)
{
	struct ep_manifest *m = xcalloc(1, sizeof *m);

	m->root = json_object();
	m->facts = json_object();
	m->meta = json_object();
	json_object_set_new(m->root, "schema", json_string(EP_MANIFEST_SCHEMA));
	json_object_set(m->root, "facts", m->facts);
	json_object_set(m->root, "meta", m->meta);
	json_decref(m->facts);
	json_decref(m->meta);
	return m;
}

void
ep_manifest_free(struct ep_manifest *m)
{
	if (m == NULL)
		return;
	json_decref(m->root);
	free(m);
}

void
ep_manifest_set(struct ep_manifest *m, const char *key, const char *value)
{
	char *k = ep_utf8_sanitize(key, strlen(key));

	json_object_set_new(m->facts, k, str_new(value));
	free(k);
}

void
ep_manifest_setf(struct ep_manifest *m, const char *key, const char *fmt, ...)
{
	va_list ap;
	char *v;

	va_start(ap, fmt);
	v = xvasprintf(fmt, ap);
	va_end(ap);
	ep_manifest_set(m, key, v);
	free(v);
}

const char *
ep_manifest_get(const struct ep_manifest *m, const char *key)
{
	return json_string_value(json_object_get(m->facts, key));
}

void
ep_manifest_warn(struct ep_manifest *m, const char *fmt, ...)
{
	json_t *w = json_object_get(m->meta, "warnings");
	va_list ap;
	char *msg, *safe;
	size_t n;

	if (w == NULL) {
		w = json_array();
		json_object_set_new(m->meta, "warnings", w);
	}
	/* Bounded: a pull request's thousand broken lockfiles must not make
	 * a manifest that no store will take. */
	if (m->warnings_dropped > 0 || json_array_size(w) >= EP_WARNINGS_MAX) {
		m->warnings_dropped++;
		msg = xasprintf("and %zu more warnings not recorded (at most %d "
		    "are)", m->warnings_dropped, EP_WARNINGS_MAX);
		if (m->warnings_dropped == 1)
			json_array_append_new(w, json_string(msg));
		else
			json_array_set_new(w, json_array_size(w) - 1,
			    json_string(msg));
		free(msg);
		return;
	}
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	/* A warning may quote what a file said: never a URL's password. */
	safe = ep_scrub_userinfo(msg);
	if ((n = strlen(safe)) > EP_WARNING_BYTES) {
		n = EP_WARNING_BYTES;
		while (n > 0 && ((unsigned char)safe[n] & 0xc0) == 0x80)
			n--;
		safe = xrealloc(safe, n + 4);
		memcpy(safe + n, "\xe2\x80\xa6", 4);	/* U+2026 */
	}
	json_array_append_new(w, str_new(safe));
	free(safe);
	free(msg);
}

void
ep_manifest_unavailable(struct ep_manifest *m, const char *area,
    const char *fmt, ...)
{
	json_t *u = json_object_get(m->meta, "unavailable");
	va_list ap;
	char *msg;

	if (u == NULL) {
		u = json_object();
		json_object_set_new(m->meta, "unavailable", u);
	}
	if (json_object_get(u, area) != NULL)
		return;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	json_object_set_new(u, area, str_new(msg));
	free(msg);
}

void
ep_manifest_meta_set(struct ep_manifest *m, const char *key, const char *value)
{
	json_object_set_new(m->meta, key, str_new(value));
}

int
ep_manifest_dump(char **out, const struct ep_manifest *m, struct ep_err *err)
{
	char *raw = json_dumps(m->root, JSON_SORT_KEYS | JSON_INDENT(2)), *s;
	size_t n;

	*out = NULL;
	if (raw == NULL)
		return ep_err_set(err, EP_E_IO, "cannot serialize manifest");
	s = ep_json_clean(raw);
	free(raw);
	n = strlen(s);
	*out = xmalloc(n + 2);
	memcpy(*out, s, n);
	(*out)[n] = '\n';
	(*out)[n + 1] = '\0';
	free(s);
	return 0;
}

int
ep_manifest_write(const struct ep_manifest *m, const char *path,
    struct ep_err *err)
{
	char *s;
	int rc;

	if (ep_manifest_dump(&s, m, err) < 0)
		return -1;
	rc = ep_out_write(path, s, strlen(s), EP_OUT_STDOUT, err);
	free(s);
	return rc;
}

int
ep_manifest_parse(struct ep_manifest **out, const char *text, size_t len,
    const char *name, struct ep_err *err)
{
	json_error_t je;
	json_t *root, *facts, *meta, *v;
	const char *schema, *key;
	struct ep_manifest *m;

	*out = NULL;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (root == NULL)
		return ep_err_set(err, EP_E_INPUT,
		    "%s: not a manifest: line %d column %d: %s", name,
		    je.line, je.column, je.text);
	if (!json_is_object(root)) {
		json_decref(root);
		return ep_err_set(err, EP_E_INPUT,
		    "%s: not a manifest: top level is not an object", name);
	}
	schema = json_string_value(json_object_get(root, "schema"));
	if (schema == NULL || strcmp(schema, EP_MANIFEST_SCHEMA) != 0) {
		ep_err_set(err, EP_E_INPUT,
		    "%s: unsupported manifest schema \"%s\" (this envparity "
		    "reads \"%s\")", name, schema ? schema : "(none)",
		    EP_MANIFEST_SCHEMA);
		json_decref(root);
		return -1;
	}
	facts = json_object_get(root, "facts");
	meta = json_object_get(root, "meta");
	if (!json_is_object(facts) || (meta != NULL && !json_is_object(meta))) {
		json_decref(root);
		return ep_err_set(err, EP_E_INPUT,
		    "%s: not a manifest: \"facts\" and \"meta\" must be "
		    "objects", name);
	}
	json_object_foreach(facts, key, v) {
		if (*key == '\0') {
			ep_err_set(err, EP_E_INPUT, "%s: a fact key is empty",
			    name);
			json_decref(root);
			return -1;
		}
		if (!json_is_string(v)) {
			ep_err_set(err, EP_E_INPUT,
			    "%s: fact \"%s\" is not a string", name, key);
			json_decref(root);
			return -1;
		}
	}
	m = xcalloc(1, sizeof *m);
	m->root = root;
	m->facts = facts;
	if (meta == NULL) {
		meta = json_object();
		json_object_set_new(root, "meta", meta);
	}
	m->meta = meta;
	*out = m;
	return 0;
}

int
ep_manifest_load(struct ep_manifest **out, const char *path,
    struct ep_err *err)
{
	char *text;
	size_t len;
	int rc;

	*out = NULL;
	if (ep_read_file(&text, &len, path, MANIFEST_MAX, err) < 0)
		return -1;
	rc = ep_manifest_parse(out, text, len, path, err);
	free(text);
	return rc;
}

/* A growing byte buffer for the canonical form. */
struct canon {
	char *p;
	size_t n, cap;
};

static void
canon_put(struct canon *c, const char *s, size_t n)
{
	if (c->n + n + 1 > c->cap) {
		while (c->n + n + 1 > c->cap)
			c->cap = c->cap ? c->cap * 2 : 4096;
		c->p = xrealloc(c->p, c->cap);
	}
	memcpy(c->p + c->n, s, n);
	c->n += n;
}

/* s as jq 1.6 and later print a string: only what JSON requires is
 * escaped, and DEL, as jq does. */
static void
canon_string(struct canon *c, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char esc[7];

	canon_put(c, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char b = (unsigned char)s[i];
		const char *e = NULL;

		switch (b) {
		case '"': e = "\\\""; break;
		case '\\': e = "\\\\"; break;
		case '\b': e = "\\b"; break;
		case '\f': e = "\\f"; break;
		case '\n': e = "\\n"; break;
		case '\r': e = "\\r"; break;
		case '\t': e = "\\t"; break;
		default:
			break;
		}
		if (e != NULL)
			canon_put(c, e, 2);
		else if (b < 0x20 || b == 0x7f) {
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[b >> 4];
			esc[5] = hex[b & 15];
			canon_put(c, esc, 6);
		} else
			canon_put(c, (const char *)&s[i], 1);
	}
	canon_put(c, "\"", 1);
}

static int
key_order(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void
ep_manifest_facts_sha256(char hex[65], const struct ep_manifest *m)
{
	struct canon c = { 0 };
	size_t n = json_object_size(m->facts), i = 0;
	const char **keys = xcalloc(n ? n : 1, sizeof *keys);
	const char *key;
	json_t *v;

	json_object_foreach(m->facts, key, v)
		keys[i++] = key;
	/* strcmp compares as unsigned char: byte order, which for UTF-8
	 * is code point order, jq's. */
	qsort(keys, n, sizeof *keys, key_order);
	canon_put(&c, "{", 1);
	for (i = 0; i < n; i++) {
		v = json_object_get(m->facts, keys[i]);
		if (i > 0)
			canon_put(&c, ",", 1);
		canon_string(&c, keys[i], strlen(keys[i]));
		canon_put(&c, ":", 1);
		canon_string(&c, json_string_value(v),
		    json_string_length(v));
	}
	canon_put(&c, "}", 1);
	ep_hash_buf(hex, c.p, c.n);
	free(c.p);
	free(keys);
}

size_t
ep_manifest_matching(const struct ep_manifest *m, const char *glob)
{
	const char *key;
	json_t *v;
	size_t n = 0;

	json_object_foreach(m->facts, key, v)
		n += ep_glob_match(glob, key) != 0;
	return n;
}

const char *
ep_manifest_library_version(void)
{
	return "jansson " JANSSON_VERSION;
}
