/*
 * policy_capture.c: a policy's "capture", what a profile adds to every
 * capture that check and bless make of it (extrafacts.h): environment
 * variables by name or prefix, names excused from looking like a
 * credential's, files whose SHA-256 or first line is a fact.  Every
 * file's entries count (the shared policy's, a folder's, the profile's):
 * a capture only grows.  A name that looks like a credential's is
 * refused here, when the policy is read, so a policy never captures one
 * silently.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "policy_int.h"
#include "xalloc.h"

/* The array member k of o, each a non-empty string, into v. */
static int
strings(struct ep_strv *v, json_t *o, const char *k, const char *name,
    struct ep_err *err)
{
	json_t *a = json_object_get(o, k), *s;
	size_t i;

	if (a == NULL)
		return 0;
	if (!json_is_array(a))
		return ep_err_set(err, EP_E_INPUT, "%s: capture.%s is not an "
		    "array of strings", name, k);
	json_array_foreach(a, i, s) {
		const char *t = json_string_value(s);

		if (t == NULL || *t == '\0' || strlen(t) != json_string_length(s))
			return ep_err_set(err, EP_E_INPUT, "%s: capture.%s[%zu]: "
			    "not a non-empty string", name, k, i);
		ep_strv_push(v, t);
	}
	return 0;
}

/* "files": [{"path": "/etc/nccl.conf", "fact": "sha256" | "line"}]. */
static int
files(struct ep_extra *x, json_t *o, const char *name, struct ep_err *err)
{
	json_t *a = json_object_get(o, "files"), *f;
	const char *path, *fact;
	size_t i;

	if (a == NULL)
		return 0;
	if (!json_is_array(a))
		return ep_err_set(err, EP_E_INPUT, "%s: capture.files is not "
		    "an array", name);
	json_array_foreach(a, i, f) {
		path = json_string_value(json_object_get(f, "path"));
		fact = json_string_value(json_object_get(f, "fact"));
		if (!json_is_object(f) || json_object_size(f) != 2 ||
		    path == NULL || fact == NULL)
			return ep_err_set(err, EP_E_INPUT, "%s: capture.files[%zu]:"
			    " not {\"path\": PATH, \"fact\": \"sha256\" or "
			    "\"line\"}", name, i);
		if (strcmp(fact, "sha256") == 0)
			ep_strv_push(&x->sha256, path);
		else if (strcmp(fact, "line") == 0)
			ep_strv_push(&x->line, path);
		else
			return ep_err_set(err, EP_E_INPUT, "%s: capture.files[%zu]:"
			    " unknown fact \"%s\" (sha256 or line)", name, i,
			    fact);
	}
	return 0;
}

int
ep_policy_parse_capture(struct ep_policy *p, json_t *o, const char *name,
    struct ep_err *err)
{
	static const char *const known[] = { "env", "env_not_secret",
	    "files", NULL };
	struct ep_extra x = { 0 };
	const char *k;
	char *where = NULL;
	json_t *v;
	int rc = -1;

	if (o == NULL)
		return 0;
	if (!json_is_object(o))
		return ep_err_set(err, EP_E_INPUT, "%s: \"capture\" is not an "
		    "object", name);
	json_object_foreach(o, k, v) {
		size_t i;

		for (i = 0; known[i] != NULL && strcmp(known[i], k) != 0; i++)
			;
		if (known[i] == NULL)
			return ep_err_set(err, EP_E_INPUT, "%s: capture: unknown "
			    "member \"%.64s\" (env, env_not_secret, files)", name,
			    k);
	}
	where = xasprintf("%s: capture", name);
	if (strings(&x.env, o, "env", name, err) < 0 ||
	    strings(&x.not_secret, o, "env_not_secret", name, err) < 0 ||
	    files(&x, o, name, err) < 0 || ep_extra_check(&x, where, err) < 0)
		goto done;
	/* A store's policy may excuse a name that only looks like a
	 * credential's (HF_TOKEN_PATH); one that is one for certain only the
	 * job's own command line may. */
	for (size_t i = 0; i < x.not_secret.n; i++) {
		const char *w = ep_extra_strong_word(x.not_secret.v[i]);

		if (w != NULL) {
			ep_err_set(err, EP_E_INPUT, "%s.env_not_secret: '%s' "
			    "holds %s: a policy may not call such a name not "
			    "secret; only the job's command line may "
			    "(--env-not-secret %s)", where, x.not_secret.v[i], w,
			    x.not_secret.v[i]);
			goto done;
		}
	}
	ep_extra_merge(&p->capture, &x);
	rc = 0;
done:
	ep_extra_clear(&x);
	free(where);
	return rc;
}

const struct ep_extra *
ep_policy_capture(const struct ep_policy *p)
{
	return &p->capture;
}
