/*
 * policy_edit.c: changing a policy file's waivers (waive, unwaive) and
 * rules (policy add, policy remove), and showing a merged policy as JSON
 * (`envparity policy --json`).
 *
 * An edit keeps the file as its owner wrote it: every other member and
 * rule, in their order (jansson keeps an object's insertion order), and
 * writes it back indented by two spaces as every JSON file the project
 * writes.  What it writes is parsed again by ep_policy_parse, the parser
 * check uses, before it is handed back: an edit never leaves a policy
 * that check would refuse.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "clean.h"
#include "policy.h"
#include "keyglob.h"
#include "policy_int.h"
#include "verrange.h"
#include "errors.h"
#include "str.h"
#include "xalloc.h"

/* The text of root, as files are written: two spaces, members in order,
 * a final newline, made safe for CI logs as every JSON we write. */
static char *
dump(json_t *root)
{
	char *raw = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	char *clean, *out;
	size_t n;

	if (raw == NULL)
		return NULL;
	clean = ep_json_clean(raw);
	free(raw);
	n = strlen(clean);
	out = xmalloc(n + 2);
	memcpy(out, clean, n);
	out[n] = '\n';
	out[n + 1] = '\0';
	free(clean);
	return out;
}

/* cur parsed (and validated as check would) into *root; NULL cur: a new
 * policy holding only its schema. */
static int
load(json_t **root, const char *cur, const char *name, struct ep_err *err)
{
	struct ep_policy *p = NULL;
	json_error_t jerr;

	*root = NULL;
	if (cur == NULL) {
		*root = json_object();
		json_object_set_new(*root, "schema",
		    json_string(EP_POLICY_SCHEMA));
		return 0;
	}
	/* A file check would refuse is mended by hand, not edited. */
	if (ep_policy_parse(&p, cur, strlen(cur), name, err) < 0)
		return -1;
	ep_policy_free(p);
	*root = json_loadb(cur, strlen(cur), JSON_REJECT_DUPLICATES, &jerr);
	if (*root == NULL)
		return ep_err_set(err, EP_E_INPUT, "%s: line %d column %d: %s",
		    name, jerr.line, jerr.column, jerr.text);
	return 0;
}

/* root dumped and parsed again as check parses it. */
static int
finish(char **out, json_t *root, const char *name, struct ep_err *err)
{
	struct ep_policy *p = NULL;
	char *text = dump(root);

	*out = NULL;
	if (text == NULL)
		return ep_err_set(err, EP_E_IO, "%s: cannot serialize", name);
	if (ep_policy_parse(&p, text, strlen(text), name, err) < 0) {
		free(text);
		return -1;
	}
	ep_policy_free(p);
	*out = text;
	return 0;
}

/* 1 if s has a byte a key never holds: blanks and control bytes. */
static int
odd_bytes(const char *s)
{
	for (; *s != '\0'; s++)
		if (isspace((unsigned char)*s) || iscntrl((unsigned char)*s))
			return 1;
	return 0;
}

/* 1 if s (not NULL) is not well-formed UTF-8: jansson makes no string
 * of it, and a member left out would change what the waiver means (no
 * "actual" waives any value). */
static int
not_utf8(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), k;
	uint32_t c;

	for (size_t i = 0; i < n; i += k)
		if ((k = ep_utf8_decode(u + i, n - i, &c)) == 0)
			return 1;
	return 0;
}

/* 1 if s is nothing but blanks. */
static int
blank(const char *s)
{
	return s == NULL || strspn(s, " \t\r\n") == strlen(s);
}

int
ep_policy_waiver_check(const struct ep_waiver_spec *w, time_t now,
    struct ep_err *err)
{
	const char *why;
	char *wide;
	struct tm tm;
	char today[16];

	if (w->key == NULL || w->key[0] == '\0')
		return ep_err_set(err, EP_E_INPUT, "the key is empty");
	if (not_utf8(w->key))
		return ep_err_set(err, EP_E_INPUT, "key '%s' is not UTF-8",
		    w->key);
	if (w->reason != NULL && not_utf8(w->reason))
		return ep_err_set(err, EP_E_INPUT, "--reason is not UTF-8");
	if (w->owner != NULL && not_utf8(w->owner))
		return ep_err_set(err, EP_E_INPUT, "--owner is not UTF-8");
	if (w->actual != NULL && not_utf8(w->actual))
		return ep_err_set(err, EP_E_INPUT, "--actual is not UTF-8 (a "
		    "fact's value always is)");
	if (odd_bytes(w->key))
		return ep_err_set(err, EP_E_INPUT, "key '%s': a fact key "
		    "holds no blanks or control characters", w->key);
	if ((why = ep_glob_problem(w->key)) != NULL)
		return ep_err_set(err, EP_E_INPUT, "key '%s': not a fact key "
		    "or pattern: it %s", w->key, why);
	if ((wide = ep_policy_waiver_too_wide(w->key)) != NULL) {
		ep_err_set(err, EP_E_INPUT, "key '%s': %s", w->key, wide);
		free(wide);
		return -1;
	}
	if (blank(w->reason))
		return ep_err_set(err, EP_E_INPUT, "--reason is empty: say "
		    "why the drift is accepted");
	if (blank(w->owner))
		return ep_err_set(err, EP_E_INPUT, "--owner is empty: name "
		    "who answers for the waiver");
	if (w->actual != NULL && w->actual[0] == '\0')
		return ep_err_set(err, EP_E_INPUT, "--actual is empty");
	if (w->expires == NULL || !ep_policy_valid_date(w->expires))
		return ep_err_set(err, EP_E_INPUT, "--expires '%s': not a "
		    "date (YYYY-MM-DD)", w->expires ? w->expires : "");
	if (gmtime_r(&now, &tm) == NULL ||
	    strftime(today, sizeof today, "%Y-%m-%d", &tm) != 10)
		return ep_err_set(err, EP_E_IO, "cannot tell today's date");
	/* YYYY-MM-DD strings order as the dates do. */
	if (strcmp(w->expires, today) < 0)
		return ep_err_set(err, EP_E_INPUT, "--expires %s: already "
		    "past (today is %s, UTC): a waiver must expire today or "
		    "later", w->expires, today);
	return 0;
}

int
ep_policy_waiver_set(char **out, const char *cur, const char *name,
    const struct ep_waiver_spec *w, time_t now, struct ep_err *err)
{
	json_t *root = NULL, *waivers, *o, *k;
	size_t i, at = (size_t)-1;
	int rc = -1;

	*out = NULL;
	if (ep_policy_waiver_check(w, now, err) < 0 ||
	    load(&root, cur, name, err) < 0)
		goto done;
	o = json_object();
	json_object_set_new(o, "key", json_string(w->key));
	json_object_set_new(o, "reason", json_string(w->reason));
	json_object_set_new(o, "owner", json_string(w->owner));
	json_object_set_new(o, "expires", json_string(w->expires));
	if (w->actual != NULL)
		json_object_set_new(o, "actual", json_string(w->actual));
	if ((waivers = json_object_get(root, "waivers")) == NULL) {
		waivers = json_array();
		json_object_set_new(root, "waivers", waivers);
	}
	/* The same key again replaces the waiver where it stands. */
	for (i = 0; i < json_array_size(waivers);) {
		k = json_object_get(json_array_get(waivers, i), "key");
		if (!json_is_string(k) ||
		    strcmp(json_string_value(k), w->key) != 0) {
			i++;
			continue;
		}
		if (at == (size_t)-1) {
			at = i;
			json_array_set(waivers, i, o);
			i++;
		} else
			json_array_remove(waivers, i);
	}
	if (at == (size_t)-1)
		json_array_append(waivers, o);
	json_decref(o);
	rc = finish(out, root, name, err);
done:
	json_decref(root);
	return rc;
}

/* The key of the first waiver in the JSON array waivers whose glob
 * matches key, or NULL. */
static const char *
covering(json_t *waivers, const char *key)
{
	for (size_t i = 0; i < json_array_size(waivers); i++) {
		const char *k = json_string_value(json_object_get(
		    json_array_get(waivers, i), "key"));

		if (k != NULL && ep_glob_match(k, key))
			return k;
	}
	return NULL;
}

int
ep_policy_waiver_remove(char **out, const char *cur, const char *name,
    const char *key, struct ep_err *err)
{
	json_t *root = NULL, *waivers, *k;
	size_t removed = 0;
	int rc = -1;

	*out = NULL;
	if (cur == NULL)
		return ep_err_set(err, EP_E_INPUT, "%s: no such file, so no "
		    "waiver for '%s'", name, key);
	if (load(&root, cur, name, err) < 0)
		goto done;
	waivers = json_object_get(root, "waivers");
	for (size_t i = 0; i < json_array_size(waivers);) {
		k = json_object_get(json_array_get(waivers, i), "key");
		if (json_is_string(k) && strcmp(json_string_value(k),
		    key) == 0) {
			json_array_remove(waivers, i);
			removed++;
		} else
			i++;
	}
	if (removed == 0) {
		const char *glob = covering(waivers, key);

		ep_err_set(err, EP_E_INPUT, "%s: no waiver for '%s' (the key "
		    "must be written as the waiver names it%s%s%s)", name, key,
		    glob ? ": the waiver for '" : "", glob ? glob : "", glob ?
		    "' covers it" : "");
		goto done;
	}
	if (json_array_size(waivers) == 0)
		json_object_del(root, "waivers");
	rc = finish(out, root, name, err);
done:
	json_decref(root);
	return rc;
}

/* r as a policy file's rule object: the members it gives, in the order
 * the schema lists them. */
static json_t *
rule_object(const struct ep_rule_spec *r)
{
	json_t *o = json_object();

	json_object_set_new(o, "key", json_string(r->key));
	json_object_set_new(o, "rule", json_string(r->rule));
	if (r->range != NULL)
		json_object_set_new(o, "range", json_string(r->range));
	if (r->missing != NULL)
		json_object_set_new(o, "missing", json_string(r->missing));
	if (r->severity != NULL)
		json_object_set_new(o, "severity", json_string(r->severity));
	if (r->reason != NULL)
		json_object_set_new(o, "reason", json_string(r->reason));
	return o;
}

int
ep_policy_rule_check(const struct ep_rule_spec *r, struct ep_err *err)
{
	static const char *const kinds[] = { "exact", "ignore", "version",
	    "present", "absent" };
	const char *const text[] = { r->rule, r->range, r->missing,
	    r->severity, r->reason };
	struct ep_policy *p = NULL;
	struct ep_err perr = { 0 };
	json_t *root, *rules;
	const char *rest;
	char *policy;
	size_t k;

	if (r->key == NULL || r->key[0] == '\0')
		return ep_err_set(err, EP_E_INPUT, "the key is empty");
	if (not_utf8(r->key))
		return ep_err_set(err, EP_E_INPUT, "key '%s' is not UTF-8",
		    r->key);
	if (odd_bytes(r->key))
		return ep_err_set(err, EP_E_INPUT, "key '%s': a fact key "
		    "holds no blanks or control characters", r->key);
	for (size_t i = 0; i < sizeof text / sizeof text[0]; i++)
		if (text[i] != NULL && not_utf8(text[i]))
			return ep_err_set(err, EP_E_INPUT, "rule for '%s': "
			    "not UTF-8", r->key);
	for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
		if (r->rule != NULL && strcmp(r->rule, kinds[k]) == 0)
			break;
	if (k == sizeof kinds / sizeof kinds[0])
		return ep_err_set(err, EP_E_INPUT, "unknown rule '%s' (one of "
		    "exact, ignore, version, present, absent)",
		    r->rule != NULL ? r->rule : "");
	if (r->reason != NULL && blank(r->reason))
		return ep_err_set(err, EP_E_INPUT, "--reason is empty");
	/* The rest as check judges it: a policy of this rule alone. */
	root = json_object();
	rules = json_array();
	json_object_set_new(root, "schema", json_string(EP_POLICY_SCHEMA));
	json_array_append_new(rules, rule_object(r));
	json_object_set_new(root, "rules", rules);
	policy = dump(root);
	json_decref(root);
	if (policy == NULL)
		return ep_err_set(err, EP_E_IO, "cannot serialize the rule");
	if (ep_policy_parse(&p, policy, strlen(policy), "rule", &perr) < 0) {
		/* "rule: rules[0] (key \"K\"): why": the key holds no
		 * blank, so the first "\"): " ends the entry's name. */
		rest = strstr(perr.msg, "\"): ");
		ep_err_set(err, EP_E_INPUT, "rule for '%s': %s", r->key,
		    rest != NULL ? rest + 4 : perr.msg);
		free(policy);
		return -1;
	}
	ep_policy_free(p);
	free(policy);
	return 0;
}

int
ep_policy_rule_set(char **out, const char *cur, const char *name,
    const struct ep_rule_spec *r, int *replaced, struct ep_err *err)
{
	json_t *root = NULL, *rules, *o, *k;
	size_t i, at = (size_t)-1;
	int rc = -1;

	*out = NULL;
	*replaced = 0;
	if (ep_policy_rule_check(r, err) < 0 ||
	    load(&root, cur, name, err) < 0)
		goto done;
	o = rule_object(r);
	if ((rules = json_object_get(root, "rules")) == NULL) {
		rules = json_array();
		json_object_set_new(root, "rules", rules);
	}
	/* The same key again replaces the rule where it stands; a new one
	 * is tried first in its file. */
	for (i = 0; i < json_array_size(rules);) {
		k = json_object_get(json_array_get(rules, i), "key");
		if (!json_is_string(k) ||
		    strcmp(json_string_value(k), r->key) != 0) {
			i++;
			continue;
		}
		if (at == (size_t)-1) {
			at = i;
			json_array_set(rules, i, o);
			i++;
		} else
			json_array_remove(rules, i);
	}
	if (at == (size_t)-1)
		json_array_insert(rules, 0, o);
	else
		*replaced = 1;
	json_decref(o);
	rc = finish(out, root, name, err);
done:
	json_decref(root);
	return rc;
}

int
ep_policy_rule_remove(char **out, const char *cur, const char *name,
    const char *key, struct ep_err *err)
{
	json_t *root = NULL, *rules, *k;
	size_t removed = 0;
	int rc = -1;

	*out = NULL;
	if (cur == NULL)
		return ep_err_set(err, EP_E_INPUT, "%s: no such file, so no "
		    "rule for '%s'", name, key);
	if (load(&root, cur, name, err) < 0)
		goto done;
	rules = json_object_get(root, "rules");
	for (size_t i = 0; i < json_array_size(rules);) {
		k = json_object_get(json_array_get(rules, i), "key");
		if (json_is_string(k) && strcmp(json_string_value(k),
		    key) == 0) {
			json_array_remove(rules, i);
			removed++;
		} else
			i++;
	}
	if (removed == 0) {
		ep_err_set(err, EP_E_INPUT, "%s: no rule for '%s' (the key "
		    "must be written as the rule names it: `envparity "
		    "policy` lists them)", name, key);
		goto done;
	}
	rc = finish(out, root, name, err);
done:
	json_decref(root);
	return rc;
}

/* 1 when waiver w has expired at now. */
static int
expired(const struct ep_waiver *w, time_t now)
{
	struct tm tm;
	char today[16];

	if (gmtime_r(&now, &tm) == NULL ||
	    strftime(today, sizeof today, "%Y-%m-%d", &tm) != 10)
		return 0;
	return strcmp(w->expires, today) < 0;
}

int
ep_policy_waiver_expired(const struct ep_waiver *w, time_t now)
{
	return expired(w, now);
}

static void
set_str(json_t *o, const char *k, const char *v)
{
	if (v != NULL)
		json_object_set_new(o, k, json_string(v));
}

/* "capture": {"env", "env_not_secret", "files"} as the files spell it,
 * when the policy adds anything to a capture. */
static void
capture_json(json_t *root, const struct ep_extra *x)
{
	json_t *o, *a, *f;
	const struct ep_strv *files[] = { &x->sha256, &x->line };
	const char *fact[] = { "sha256", "line" };

	if (x->env.n + x->not_secret.n + x->sha256.n + x->line.n == 0)
		return;
	o = json_object();
	a = json_array();
	for (size_t i = 0; i < x->env.n; i++)
		json_array_append_new(a, json_string(x->env.v[i]));
	json_object_set_new(o, "env", a);
	a = json_array();
	for (size_t i = 0; i < x->not_secret.n; i++)
		json_array_append_new(a, json_string(x->not_secret.v[i]));
	json_object_set_new(o, "env_not_secret", a);
	a = json_array();
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < files[k]->n; i++) {
			f = json_object();
			json_object_set_new(f, "path",
			    json_string(files[k]->v[i]));
			json_object_set_new(f, "fact", json_string(fact[k]));
			json_array_append_new(a, f);
		}
	json_object_set_new(o, "files", a);
	json_object_set_new(root, "capture", o);
}

int
ep_policy_json(char **out, const struct ep_policy *p, time_t now,
    const char *const *head, struct ep_err *err)
{
	const struct ep_rule *r;
	const struct ep_waiver *w;
	json_t *root = json_object(), *rules = json_array();
	json_t *waivers = json_array(), *o;
	const struct ep_strv *wl;
	size_t nr, nw;

	*out = NULL;
	for (size_t i = 0; head != NULL && head[i] != NULL; i += 2)
		set_str(root, head[i], head[i + 1]);
	r = ep_policy_rules(p, &nr);
	for (size_t i = 0; i < nr; i++) {
		o = json_object();
		set_str(o, "key", r[i].key);
		set_str(o, "rule", ep_rule_kind_name(r[i].kind));
		if (r[i].range != NULL)
			set_str(o, "range", ep_verrange_text(r[i].range));
		if (r[i].kind == EP_RULE_EXACT || r[i].kind == EP_RULE_VERSION)
			set_str(o, "missing",
			    ep_rule_missing_name(r[i].missing));
		if (r[i].kind != EP_RULE_IGNORE)
			set_str(o, "severity", r[i].severity ==
			    EP_SEVERITY_WARN ? "warn" : "fail");
		set_str(o, "reason", r[i].reason);
		set_str(o, "origin", r[i].origin);
		set_str(o, "scope", ep_policy_scope_name(r[i].scope));
		json_array_append_new(rules, o);
	}
	w = ep_policy_waivers(p, &nw);
	for (size_t i = 0; i < nw; i++) {
		o = json_object();
		set_str(o, "key", w[i].key);
		set_str(o, "reason", w[i].reason);
		set_str(o, "owner", w[i].owner);
		set_str(o, "expires", w[i].expires);
		set_str(o, "actual", w[i].actual);
		if (w[i].range != NULL)
			set_str(o, "range", ep_verrange_text(w[i].range));
		json_object_set_new(o, "expired",
		    json_boolean(expired(&w[i], now)));
		set_str(o, "origin", w[i].origin);
		set_str(o, "scope", ep_policy_scope_name(w[i].scope));
		json_array_append_new(waivers, o);
	}
	json_object_set_new(root, "rules", rules);
	json_object_set_new(root, "waivers", waivers);
	capture_json(root, ep_policy_capture(p));
	wl = ep_policy_workloads(p);
	if (wl->n > 0) {
		o = json_object();
		for (size_t i = 0; i < wl->n; i++) {
			const char *eq = strchr(wl->v[i], '=');
			char *name = xstrndup(wl->v[i],
			    (size_t)(eq - wl->v[i]));

			json_object_set_new(o, name, json_string(eq + 1));
			free(name);
		}
		json_object_set_new(root, "workloads", o);
	}
	*out = dump(root);
	json_decref(root);
	if (*out == NULL)
		return ep_err_set(err, EP_E_IO, "cannot serialize the policy");
	return 0;
}
