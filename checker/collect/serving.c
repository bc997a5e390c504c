/*
 * serving.c: which serving format a text-format file is, and its fields
 * as facts (serving.h), schemaless: what the .proto would say about a
 * field is guessed from how it is written, with a short list of the
 * fields Triton's model_config.proto and TF Serving's protos declare
 * repeated, so that one instance_group is "instance_group[0]" as two are.
 */
#include "serving.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "str.h"
#include "xalloc.h"

/* Fields declared repeated in Triton's model_config.proto and TF
 * Serving's model_server_config.proto and session_bundle_config.proto. */
static const char *const repeated[] = {
	"allowed_batch_sizes", "batch_input", "batch_output", "control",
	"control_input", "dims", "gpus", "input", "instance_group",
	"model_warmup", "output", "preferred_batch_size", "secondary_devices",
	"state", "step", "versions", NULL,
};

void
ep_serving_facts_clear(struct ep_serving_facts *f)
{
	ep_strv_clear(&f->keys);
	ep_strv_clear(&f->vals);
}

static void
add(struct ep_serving_facts *f, char *key, char *val)
{
	ep_strv_push_owned(&f->keys, key);
	ep_strv_push_owned(&f->vals, val);
}

int
ep_serving_secret(const char *name)
{
	static const char *const words[] = { "pass", "secret", "token",
	    "private_key", "privatekey", "credential", "keystore", "api_key",
	    "apikey", NULL };
	char *low = xstrdup(name);
	int hit = 0;

	for (char *p = low; *p != '\0'; p++)
		*p = (char)tolower((unsigned char)*p);
	for (size_t i = 0; words[i] != NULL && !hit; i++)
		hit = strstr(low, words[i]) != NULL;
	free(low);
	return hit;
}

char *
ep_serving_name(const char *name, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = xmalloc(3 * len + 4), *o = out;

	if (len == 0)
		return xstrdup("%00");
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (isalnum(c) || c == '_' || c == '-')
			*o++ = (char)c;
		else {
			*o++ = '%';
			*o++ = hex[c >> 4];
			*o++ = hex[c & 0xf];
		}
	}
	*o = '\0';
	return out;
}

enum ep_serving_format
ep_serving_kind(const char *base, const struct ep_tp_msg *m)
{
	static const char *const batching[] = { "batch_timeout_micros",
	    "num_batch_threads", "max_enqueued_batches", "allowed_batch_sizes",
	    "thread_pool_name", "pad_variable_length_inputs",
	    "enable_large_batch_splitting", "max_execution_batch_size", NULL };
	const struct ep_tp_field *mbs;

	if (strcmp(base, "config.pbtxt") == 0 ||
	    ep_textproto_get(m, "platform") != NULL ||
	    ep_textproto_get(m, "backend") != NULL)
		return EP_SERVING_TRITON;
	if (ep_textproto_get(m, "model_config_list") != NULL)
		return EP_SERVING_TFS_MODELS;
	mbs = ep_textproto_get(m, "max_batch_size");
	if (mbs != NULL && mbs->kind == EP_TP_MSG)
		return EP_SERVING_TFS_BATCHING;
	for (size_t i = 0; batching[i] != NULL; i++)
		if (ep_textproto_get(m, batching[i]) != NULL)
			return EP_SERVING_TFS_BATCHING;
	return EP_SERVING_UNKNOWN;
}

static int
is_repeated(const char *name)
{
	for (size_t i = 0; repeated[i] != NULL; i++)
		if (strcmp(repeated[i], name) == 0)
			return 1;
	return 0;
}

/* A scalar's value as a fact's value (a new string). */
static int
scalar(char **out, const struct ep_tp_field *f, const char *file,
    struct ep_err *err)
{
	*out = NULL;
	if (f->kind == EP_TP_STR && memchr(f->value, '\0', f->len) != NULL)
		return ep_err_set(err, EP_E_INPUT, "%s:%u: field '%s': a "
		    "string holding a NUL byte", file, f->line, f->name);
	*out = f->kind == EP_TP_STR ? ep_utf8_sanitize(f->value, f->len) :
	    xstrdup(f->value);
	return 0;
}

/* A message of exactly a scalar "key" and a "value": one map entry. */
static int
is_entry(const struct ep_tp_field *f)
{
	const struct ep_tp_msg *m = f->msg;

	return f->kind == EP_TP_MSG && m->n == 2 &&
	    strcmp(m->v[0].name, "key") == 0 && m->v[0].kind != EP_TP_MSG &&
	    strcmp(m->v[1].name, "value") == 0;
}

static int flatten(struct ep_serving_facts *out, const struct ep_tp_msg *m,
    const char *prefix, const char *file, struct ep_err *err);

/* One value of a message field at key: a wrapper's value, a message's
 * fields, "{}" for an empty one, or a scalar. */
static int
value(struct ep_serving_facts *out, const struct ep_tp_field *f,
    const char *key, const char *file, struct ep_err *err)
{
	char *v;

	if (f->kind != EP_TP_MSG) {
		if (scalar(&v, f, file, err) < 0)
			return -1;
		add(out, xstrdup(key), v);
		return 0;
	}
	if (f->msg->n == 0) {
		add(out, xstrdup(key), xstrdup("{}"));
		return 0;
	}
	if (f->msg->n == 1 && strcmp(f->msg->v[0].name, "value") == 0 &&
	    f->msg->v[0].kind != EP_TP_MSG)
		return value(out, &f->msg->v[0], key, file, err);
	return flatten(out, f->msg, key, file, err);
}

/* "set" or "empty" for a secret field's values from index first on:
 * never the value. */
static const char *
secret_value(const struct ep_tp_msg *m, size_t first)
{
	for (size_t i = first; i < m->n; i++)
		if (strcmp(m->v[i].name, m->v[first].name) == 0 &&
		    (m->v[i].kind == EP_TP_MSG ? m->v[i].msg->n != 0 :
		    m->v[i].len != 0))
			return "set";
	return "empty";
}

/* The scalars called name from index first on, joined by ','. */
static int
joined(char **out, const struct ep_tp_msg *m, size_t first, const char *file,
    struct ep_err *err)
{
	size_t len = 0, o = 0, n;
	char *v, *buf = xstrdup("");

	*out = NULL;
	for (size_t i = first; i < m->n; i++) {
		if (strcmp(m->v[i].name, m->v[first].name) != 0)
			continue;
		if (scalar(&v, &m->v[i], file, err) < 0) {
			free(buf);
			return -1;
		}
		n = strlen(v);
		buf = xrealloc(buf, len + n + 2);
		if (o > 0)
			buf[o++] = ',';
		memcpy(buf + o, v, n + 1);
		o += n;
		len = o;
		free(v);
	}
	*out = buf;
	return 0;
}

/* A map entry f (a "key" and a "value") under key.KEY; the last of two
 * entries with one key wins, as protobuf merges a map. */
static int
map_entry(struct ep_serving_facts *out, const struct ep_tp_field *f,
    const char *key, const char *file, struct ep_err *err)
{
	const struct ep_tp_field *k = &f->msg->v[0];
	char *kn = ep_serving_name(k->value, k->len);
	char *sub = xasprintf("%s.%s", key, kn);
	size_t n = strlen(sub);
	int rc;

	for (size_t j = 0; j < out->keys.n; j++)
		if (strncmp(out->keys.v[j], sub, n) == 0 &&
		    (out->keys.v[j][n] == '\0' || out->keys.v[j][n] == '.'))
			out->keys.v[j][0] = '\0';	/* compact() drops it */
	rc = value(out, &f->msg->v[1], sub, file, err);
	free(sub);
	free(kn);
	return rc;
}

/* Every field called name in m (from index first on) under prefix:
 * scalars joined, messages indexed when repeated, map entries by key,
 * a secret as set or empty. */
static int
field(struct ep_serving_facts *out, const struct ep_tp_msg *m, size_t first,
    const char *prefix, const char *file, struct ep_err *err)
{
	const char *name = m->v[first].name;
	size_t n = 0, nmsg = 0, idx = 0;
	int listed = 0, entries = 1, rc = 0;
	char *key = xasprintf("%s.%s", prefix, name), *sub, *v;

	for (size_t i = first; i < m->n; i++)
		if (strcmp(m->v[i].name, name) == 0) {
			n++;
			nmsg += m->v[i].kind == EP_TP_MSG;
			listed |= m->v[i].listed;
			entries &= is_entry(&m->v[i]);
		}
	if (nmsg != 0 && nmsg != n)
		rc = ep_err_set(err, EP_E_INPUT, "%s:%u: field '%s' is a "
		    "message in one place and a value in another", file,
		    m->v[first].line, name);
	else if (ep_serving_secret(name))
		add(out, xstrdup(key), xstrdup(secret_value(m, first)));
	else if (nmsg == 0) {
		if ((rc = joined(&v, m, first, file, err)) == 0)
			add(out, xstrdup(key), v);
	} else
		for (size_t i = first; i < m->n && rc == 0; i++) {
			if (strcmp(m->v[i].name, name) != 0)
				continue;
			if (entries) {
				rc = map_entry(out, &m->v[i], key, file, err);
				continue;
			}
			sub = n > 1 || listed || is_repeated(name) ?
			    xasprintf("%s[%zu]", key, idx++) : xstrdup(key);
			rc = value(out, &m->v[i], sub, file, err);
			free(sub);
		}
	free(key);
	return rc;
}

static int
flatten(struct ep_serving_facts *out, const struct ep_tp_msg *m,
    const char *prefix, const char *file, struct ep_err *err)
{
	for (size_t i = 0; i < m->n; i++) {
		int seen = 0;

		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(m->v[j].name, m->v[i].name) == 0;
		if (!seen && field(out, m, i, prefix, file, err) < 0)
			return -1;
	}
	return 0;
}

/* Drop the entries a map's later key overrode (their key emptied). */
static void
compact(struct ep_serving_facts *f)
{
	size_t o = 0;

	for (size_t i = 0; i < f->keys.n; i++) {
		if (f->keys.v[i][0] == '\0') {
			free(f->keys.v[i]);
			free(f->vals.v[i]);
			continue;
		}
		f->keys.v[o] = f->keys.v[i];
		f->vals.v[o++] = f->vals.v[i];
	}
	f->keys.n = f->vals.n = o;
}

/* Triton's model: its facts under serving.MODEL. */
static int
triton(struct ep_serving_facts *out, const struct ep_tp_msg *m,
    const char *model, const char *versions, const char *file,
    struct ep_err *err)
{
	const struct ep_tp_field *name = ep_textproto_get(m, "name");
	char *n, *prefix;
	int rc;

	if (model == NULL && (name == NULL || name->kind != EP_TP_STR ||
	    name->len == 0))
		return ep_err_set(err, EP_E_INPUT, "%s: a Triton model "
		    "configuration without a name, outside a model folder",
		    file);
	n = model != NULL ? ep_serving_name(model, strlen(model)) :
	    ep_serving_name(name->value, name->len);
	prefix = xasprintf("serving.%s", n);
	rc = flatten(out, m, prefix, file, err);
	if (rc == 0 && versions != NULL)
		add(out, xasprintf("%s.versions", prefix), xstrdup(versions));
	free(prefix);
	free(n);
	return rc;
}

/* TF Serving's model config: each config under serving.NAME. */
static int
tfs_models(struct ep_serving_facts *out, const struct ep_tp_msg *m,
    const char *file, struct ep_err *err)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct ep_tp_field *f = &m->v[i];
		struct ep_tp_msg top = { .v = (struct ep_tp_field *)f, .n = 1 };

		if (strcmp(f->name, "model_config_list") != 0 ||
		    f->kind != EP_TP_MSG) {
			if (flatten(out, &top, "serving.tfserving", file,
			    err) < 0)
				return -1;
			continue;
		}
		for (size_t j = 0; j < f->msg->n; j++) {
			const struct ep_tp_field *c = &f->msg->v[j];
			const struct ep_tp_field *name;
			struct ep_tp_msg one = { .v = (struct ep_tp_field *)c,
			    .n = 1 };
			char *n, *prefix;
			int rc;

			if (strcmp(c->name, "config") != 0 ||
			    c->kind != EP_TP_MSG) {
				if (flatten(out, &one, "serving.tfserving."
				    "model_config_list", file, err) < 0)
					return -1;
				continue;
			}
			name = ep_textproto_get(c->msg, "name");
			if (name == NULL || name->kind != EP_TP_STR ||
			    name->len == 0)
				return ep_err_set(err, EP_E_INPUT, "%s:%u: a "
				    "model config without a name", file,
				    c->line);
			n = ep_serving_name(name->value, name->len);
			prefix = xasprintf("serving.%s", n);
			rc = flatten(out, c->msg, prefix, file, err);
			free(prefix);
			free(n);
			if (rc < 0)
				return -1;
		}
	}
	return 0;
}

int
ep_serving_textproto_facts(struct ep_serving_facts *out,
    enum ep_serving_format k, const struct ep_tp_msg *m, const char *model,
    const char *versions, const char *file, struct ep_err *err)
{
	int rc;

	switch (k) {
	case EP_SERVING_TRITON:
		rc = triton(out, m, model, versions, file, err);
		break;
	case EP_SERVING_TFS_MODELS:
		rc = tfs_models(out, m, file, err);
		break;
	case EP_SERVING_TFS_BATCHING:
		rc = flatten(out, m, "serving.batching", file, err);
		break;
	default:
		rc = ep_err_set(err, EP_E_INPUT, "%s: not a serving "
		    "configuration envparity reads", file);
		break;
	}
	compact(out);
	return rc;
}
