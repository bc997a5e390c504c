/*
 * serving_props.c: TorchServe's config.properties.  Java properties as
 * java.util.Properties.load reads them (TorchServe's ConfigManager loads
 * the file so), then TorchServe's facts: every property, and the models
 * property, a JSON object written over continued lines, read with
 * jansson as model -> version -> settings (serving.h).
 */
#include "serving.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "str.h"
#include "xalloc.h"

void
ep_props_clear(struct ep_props *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].key);
		free(p->v[i].value);
	}
	free(p->v);
	memset(p, 0, sizeof *p);
}

static void
props_set(struct ep_props *p, char *key, char *value, unsigned line)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->v[i].key, key) == 0) {
			free(key);
			free(p->v[i].value);
			p->v[i].value = value;
			p->v[i].line = line;
			return;
		}
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 16;
		p->v = xreallocarray(p->v, p->cap, sizeof *p->v);
	}
	p->v[p->n++] = (struct ep_prop){ key, value, line };
}

static int
is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\f';
}

/* The logical line s[0..n) (continuations already joined, but escapes
 * not undone) split and unescaped into *key and *value. */
static int
split(char **key, char **value, const char *s, size_t n, const char *name,
    unsigned line, struct ep_err *err)
{
	char *buf = xmalloc(2 * n + 2), *o = buf, *k = NULL;
	size_t i = 0;
	int in_key = 1;

	*key = *value = NULL;
	for (; i <= n; i++) {
		if (in_key && (i == n || ((is_ws(s[i]) || s[i] == '=' ||
		    s[i] == ':')))) {
			*o++ = '\0';
			k = buf;
			in_key = 0;
			while (i < n && is_ws(s[i]))
				i++;
			if (i < n && (s[i] == '=' || s[i] == ':'))
				i++;
			while (i < n && is_ws(s[i]))
				i++;
			i--;
			continue;
		}
		if (i == n)
			break;
		if (s[i] != '\\') {
			*o++ = s[i];
			continue;
		}
		if (++i == n)
			break;	/* a lone backslash at the end: dropped */
		switch (s[i]) {
		case 't': *o++ = '\t'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 'f': *o++ = '\f'; break;
		case 'u': {
			unsigned cp = 0;

			for (int d = 1; d <= 4; d++) {
				if (i + (size_t)d >= n || ep_ascii_hexval(s[i + d]) < 0) {
					free(buf);
					return ep_err_set(err, EP_E_INPUT,
					    "%s:%u: a malformed \\uxxxx "
					    "escape", name, line);
				}
				cp = cp * 16 + (unsigned)ep_ascii_hexval(s[i + d]);
			}
			i += 4;
			/* UTF-8; a lone surrogate as U+FFFD. */
			if (cp >= 0xd800 && cp <= 0xdfff)
				cp = 0xfffd;
			o += ep_utf8_encode(o, cp);
			break;
		}
		default: *o++ = s[i]; break;
		}
	}
	*o = '\0';
	if (k == NULL)
		k = buf;
	*key = xstrdup(k);
	*value = in_key ? xstrdup("") : xstrdup(k + strlen(k) + 1);
	free(buf);
	return 0;
}

int
ep_props_parse(struct ep_props *out, const char *text, size_t len,
    const char *name, struct ep_err *err)
{
	const char *p = text, *end = text + len;
	unsigned line = 1;
	char *logical = NULL, *key, *value;
	size_t n, cap = 0;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (memchr(text, '\0', len) != NULL) {
		const char *z = memchr(text, '\0', len);

		for (const char *q = text; q < z; q++)
			line += *q == '\n';
		return ep_err_set(err, EP_E_INPUT, "%s:%u: a NUL byte", name,
		    line);
	}
	while (p < end) {
		unsigned start;
		int more = 1, first = 1;

		/* Leading white space of a natural line. */
		while (p < end && (is_ws(*p) || *p == '\n' || *p == '\r')) {
			if (*p == '\n' || (*p == '\r' && (p + 1 >= end ||
			    p[1] != '\n')))
				line++;
			p++;
		}
		if (p >= end)
			break;
		start = line;
		if (*p == '#' || *p == '!') {
			while (p < end && *p != '\n' && *p != '\r')
				p++;
			continue;
		}
		n = 0;
		while (more) {
			const char *e = p, *q;
			size_t bs = 0;

			if (!first)
				while (p < end && is_ws(*p))
					p++, e = p;
			while (e < end && *e != '\n' && *e != '\r')
				e++;
			for (q = e; q > p && q[-1] == '\\'; q--)
				bs++;
			more = bs % 2 == 1 && e < end;
			if (n + (size_t)(e - p) + 1 > cap) {
				cap = 2 * (n + (size_t)(e - p) + 1);
				logical = xrealloc(logical, cap);
			}
			memcpy(logical + n, p, (size_t)(e - p - more));
			n += (size_t)(e - p - more);
			if (e < end) {
				if (*e == '\r' && e + 1 < end && e[1] == '\n')
					e++;
				e++;
				line++;
			}
			p = e;
			first = 0;
		}
		if (split(&key, &value, logical, n, name, start, err) < 0)
			goto done;
		props_set(out, key, value, start);
	}
	rc = 0;
done:
	free(logical);
	if (rc < 0)
		ep_props_clear(out);
	return rc;
}

static void
add(struct ep_serving_facts *f, char *key, const char *val)
{
	ep_strv_push_owned(&f->keys, key);
	ep_strv_push(&f->vals, val);
}

/* A JSON value under key: objects by member, arrays by [i], scalars as
 * JSON writes them (strings without quotes). */
static void
json_facts(struct ep_serving_facts *out, const char *key, json_t *v)
{
	const char *k;
	json_t *x;
	size_t i;
	char *s, *n;

	if (json_is_object(v)) {
		if (json_object_size(v) == 0)
			add(out, xstrdup(key), "{}");
		json_object_foreach(v, k, x) {
			n = ep_serving_name(k, strlen(k));
			s = xasprintf("%s.%s", key, n);
			if (ep_serving_secret(k))
				add(out, s, json_is_string(x) &&
				    json_string_length(x) == 0 ? "empty" :
				    "set");
			else {
				json_facts(out, s, x);
				free(s);
			}
			free(n);
		}
	} else if (json_is_array(v)) {
		if (json_array_size(v) == 0)
			add(out, xstrdup(key), "[]");
		json_array_foreach(v, i, x) {
			s = xasprintf("%s[%zu]", key, i);
			json_facts(out, s, x);
			free(s);
		}
	} else if (json_is_string(v))
		add(out, xstrdup(key), json_string_value(v));
	else {
		s = json_dumps(v, JSON_ENCODE_ANY);
		add(out, xstrdup(key), s != NULL ? s : "");
		free(s);
	}
}

static int
models(struct ep_serving_facts *out, const struct ep_prop *p,
    const char *file, struct ep_err *err)
{
	json_error_t jerr;
	json_t *root = json_loads(p->value, JSON_REJECT_DUPLICATES, &jerr);
	json_t *vers, *fields;
	const char *model, *ver;
	char *m, *v, *key;
	int rc = -1;

	/* jansson's text can quote the value: its place only. */
	if (root == NULL) {
		rc = ep_err_set(err, EP_E_INPUT, "%s:%u: property 'models' "
		    "is not JSON (line %d, column %d of its value)", file,
		    p->line, jerr.line, jerr.column);
		goto done;
	}
	if (!json_is_object(root)) {
		rc = ep_err_set(err, EP_E_INPUT, "%s:%u: property 'models' "
		    "is not a JSON object", file, p->line);
		goto done;
	}
	json_object_foreach(root, model, vers) {
		if (!json_is_object(vers)) {
			rc = ep_err_set(err, EP_E_INPUT, "%s:%u: property "
			    "'models': a model whose value is not an object "
			    "of versions", file, p->line);
			goto done;
		}
		m = ep_serving_name(model, strlen(model));
		json_object_foreach(vers, ver, fields) {
			v = ep_serving_name(ver, strlen(ver));
			key = xasprintf("serving.%s.%s", m, v);
			json_facts(out, key, fields);
			free(key);
			free(v);
		}
		free(m);
	}
	rc = 0;
done:
	json_decref(root);
	return rc;
}

int
ep_serving_torchserve_facts(struct ep_serving_facts *out,
    const struct ep_props *p, const char *file, struct ep_err *err)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct ep_prop *x = &p->v[i];
		char *n;

		if (strcmp(x->key, "models") == 0) {
			if (models(out, x, file, err) < 0)
				return -1;
			continue;
		}
		n = ep_serving_name(x->key, strlen(x->key));
		add(out, xasprintf("serving.torchserve.%s", n),
		    !ep_serving_secret(x->key) ? x->value :
		    x->value[0] != '\0' ? "set" : "empty");
		free(n);
	}
	return 0;
}
