/*
 * fuzz_regcreds.c: credentials files (docker's config.json, containers'
 * auth.json) as ep_regcreds_parse reads them, then the entry looked up
 * for a few registries.  regauth.h promises that no message holds a
 * secret: when the parse fails, no value of an entry's fields (password,
 * tokens, auth) may appear in the message.  (A secret is only
 * looked for when it holds a '|', which no message template has, and is
 * no part of any key, which messages may quote.)
 */
#include <jansson.h>

#include "fuzz.h"
#include "regauth.h"

static const char *const registries[][2] = {
	{ "docker.io", "library/ubuntu" }, { "127.0.0.1:5000", "a/b" },
	{ "registry-1.docker.io", NULL }, { "ghcr.io", "org/x/y" },
};

/* 1 if s is part of some object key in j, at any depth. */
static int
in_a_key(json_t *j, const char *s)
{
	const char *k;
	json_t *v;
	size_t i;

	if (json_is_object(j)) {
		json_object_foreach(j, k, v)
			if (strstr(k, s) != NULL || in_a_key(v, s))
				return 1;
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			if (in_a_key(v, s))
				return 1;
	}
	return 0;
}

static void
check_secret(json_t *root, const char *s, const char *msg)
{
	if (s == NULL || strchr(s, '|') == NULL || in_a_key(root, s))
		return;
	FZ_CHECK(strstr(msg, s) == NULL);
}

/* Nothing secret in msg: no value of any entry's fields.  The keys,
 * which messages quote next to a template's bytes (auths."KEY".auth),
 * are taken out first. */
static void
check_message(const uint8_t *data, size_t size, const char *msg)
{
	json_t *root = json_loadb((const char *)data, size, 0, NULL), *v, *f;
	const char *k, *field;
	char *left = xstrdup(msg);

	json_object_foreach(json_object_get(root, "auths"), k, v)
		fz_blank(left, k);
	json_object_foreach(json_object_get(root, "auths"), k, v)
		json_object_foreach(v, field, f)
			check_secret(root, json_string_value(f), left);
	json_decref(root);
	free(left);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ep_regcreds c = { 0 };
	struct ep_err err = { 0 };
	const struct ep_regcred *e;
	char *files;

	if (ep_regcreds_parse(&c, "fuzz", (const char *)data, size,
	    &err) < 0) {
		FZ_CHECK(err.kind == EP_E_INPUT &&
		    strncmp(err.msg, "fuzz: ", 6) == 0);
		check_message(data, size, err.msg);
		ep_regcreds_clear(&c);
		return 0;
	}
	for (size_t i = 0; i < c.n; i++)
		FZ_CHECK(c.v[i].key != NULL && c.v[i].file != NULL &&
		    (c.v[i].user == NULL) == (c.v[i].pass == NULL));
	for (size_t i = 0; i < sizeof registries / sizeof *registries; i++) {
		e = ep_regcreds_find(&c, registries[i][0], registries[i][1]);
		FZ_CHECK(e == NULL || (e >= c.v && e < c.v + c.n));
	}
	for (size_t i = 0; i < c.n; i++) {
		e = ep_regcreds_find(&c, c.v[i].key, NULL);
		FZ_CHECK(e == NULL || (e >= c.v && e < c.v + c.n));
	}
	files = ep_regcreds_files(&c);
	free(files);
	ep_regcreds_clear(&c);
	return 0;
}
