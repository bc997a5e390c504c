/*
 * policy.c: parse and query a policy (policy.h): rules matched by glob,
 * first match wins, then waivers.  The defaults are themselves a policy
 * text, parsed by the same code and appended after the user's rules, so
 * they are stated in one place and a user's rule always comes first.
 *
 * The defaults, and why (manifests/policy.schema.json says the same):
 *   meta.*        ignore  who captured a manifest, where and when, is not
 *                         the environment (and meta is not among the
 *                         facts anyway: belt and braces).
 *   os.kernel     ignore  host identity: in a container the kernel is the
 *                         node's, not the image's, and hosts take kernel
 *                         updates on their own schedule.  What the kernel
 *                         means for CUDA is the driver, checked below.
 *   env.*         exact, missing fail: the allowlisted variables change
 *                         numerics or device selection, so one set, unset
 *                         or changed is drift.
 *   python.pkg.*, conda.*, lockfile.*: exact, missing fail: a new,
 *                         removed or changed package or pin is drift.
 *   lib.*         exact, missing fail: versions, SHA-256 of the files,
 *                         and the path the loader resolves (a library
 *                         loaded from elsewhere is the failure that
 *                         pytorch#78489 describes; a fleet whose venvs
 *                         live in different places says so with
 *                         {"key": "lib.*.path", "rule": "ignore"}).
 *   gpu.driver.version  exact: a driver change changes kernels and
 *                         numerics; a version range is a policy choice.
 *   gpu.*.remapped_rows_pending  ignore: the GPU's state now, not its
 *                         setup; the check stack.gpu.<i>.remapped_rows
 *                         fails on it (a pending remap would otherwise
 *                         be said twice, once as drift).
 *   node.net.*.speed  exact, severity warn: the speed a NIC's link
 *                         negotiated (Mb/s, "unknown" while it is down):
 *                         a slower or dead link is seen on every check,
 *                         and fails nothing on its own (a management
 *                         port may be down); the RDMA ports' rate is the
 *                         fabric's, compared exactly.
 *   node.*        exact, missing fail: the node's setup (HCAs, their
 *                         firmware and ports, NICs, kernel modules, the
 *                         fabric manager, memory, hugepages, THP, NUMA,
 *                         SMT, governors, limits, /dev/shm, allowlisted
 *                         kernel parameters): none of them is per host,
 *                         so a change is drift (collect_node.c).
 *   *             exact, missing fail: anything else (os, libc, cpu,
 *                         python, gpu, probe) must stay as blessed.  So
 *                         are artifact.* (a model's digest and file
 *                         count): no rule of their own, since the
 *                         catch-all already says exact, missing fail.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "policy.h"
#include "keyglob.h"
#include "policy_int.h"
#include "verrange.h"
#include "errors.h"
#include "files.h"
#include "strv.h"
#include "xalloc.h"

static const char default_policy[] =
"{\"schema\": \"" EP_POLICY_SCHEMA "\", \"rules\": ["
"{\"key\": \"meta.*\", \"rule\": \"ignore\", \"reason\": "
    "\"who captured a manifest and when is not the environment\"},"
"{\"key\": \"os.kernel\", \"rule\": \"ignore\", \"reason\": "
    "\"host identity: a container runs on its node's kernel\"},"
"{\"key\": \"env.*\", \"rule\": \"exact\", \"missing\": \"fail\", "
    "\"reason\": \"allowlisted variables change numerics\"},"
"{\"key\": \"python.pkg.*\", \"rule\": \"exact\", \"missing\": \"fail\", "
    "\"reason\": \"a new, removed or changed package is drift\"},"
"{\"key\": \"conda.*\", \"rule\": \"exact\", \"missing\": \"fail\", "
    "\"reason\": \"a new, removed or changed package is drift\"},"
"{\"key\": \"lockfile.*\", \"rule\": \"exact\", \"missing\": \"fail\", "
    "\"reason\": \"a changed lockfile or pin is drift\"},"
"{\"key\": \"lib.*\", \"rule\": \"exact\", \"missing\": \"fail\", "
    "\"reason\": \"a changed library version, file or hash is drift\"},"
"{\"key\": \"gpu.driver.version\", \"rule\": \"exact\", "
    "\"reason\": \"a driver change is drift\"},"
"{\"key\": \"gpu.*.remapped_rows_pending\", \"rule\": \"ignore\", "
    "\"reason\": \"a GPU's state now: judged by stack.gpu.<i>.remapped_rows\"},"
"{\"key\": \"node.net.*.speed\", \"rule\": \"exact\", "
    "\"severity\": \"warn\", \"reason\": \"a NIC's negotiated speed: "
    "seen, never fatal\"},"
"{\"key\": \"node.*\", \"rule\": \"exact\", \"missing\": \"fail\", "
    "\"reason\": \"the node's setup: none of it is per host\"},"
"{\"key\": \"*\", \"rule\": \"exact\", \"missing\": \"fail\"}"
"]}";

/* Where the entries being parsed come from (one policy file, or the
 * defaults). */
struct layer {
	const char *name;	/* for errors */
	const char *origin;	/* owned by the policy */
	int scope;		/* enum ep_policy_scope */
	size_t rule0, waiver0;	/* the nearer layers' entries end here */
};


static const char *const kind_names[] = { "exact", "ignore", "version",
    "present", "absent", NULL };
static const char *const missing_names[] = { "fail", "skip", "ignore",
    NULL };

static const char *
own(struct ep_policy *p, const char *s)
{
	ep_strv_push(&p->strings, s);
	return p->strings.v[p->strings.n - 1];
}

static const char *
own_owned(struct ep_policy *p, char *s)
{
	ep_strv_push_owned(&p->strings, s);
	return p->strings.v[p->strings.n - 1];
}

static int
lookup(const char *const *names, const char *s)
{
	for (int i = 0; names[i] != NULL; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

int
ep_policy_valid_date(const char *s)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
	    30, 31 };
	int y, m, d, leap, max;

	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return 0;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && !isdigit((unsigned char)s[i]))
			return 0;
	y = atoi(s);
	m = atoi(s + 5);
	d = atoi(s + 8);
	if (y < 1 || m < 1 || m > 12 || d < 1)
		return 0;
	leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	max = mdays[m - 1] + (m == 2 && leap);
	return d <= max;
}

/* Every member of o must be one of names; where names where it is. */
static int
check_fields(json_t *o, const char *const *names, const char *name,
    const char *where, struct ep_err *err)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v) {
		if (lookup(names, k) < 0)
			return ep_err_set(err, EP_E_INPUT, "%s: %s%sunknown "
			    "field \"%s\"", name, where, *where ? ": " : "",
			    k);
	}
	return 0;
}

/* A member that must be a non-empty string if present (or always, when
 * required); *out NULL when absent. */
static int
get_string(const char **out, json_t *o, const char *field, int required,
    const char *name, const char *where, struct ep_err *err)
{
	json_t *v = json_object_get(o, field);

	*out = NULL;
	if (v == NULL) {
		if (required)
			return ep_err_set(err, EP_E_INPUT, "%s: %s: no \"%s\"",
			    name, where, field);
		return 0;
	}
	if (!json_is_string(v))
		return ep_err_set(err, EP_E_INPUT, "%s: %s: \"%s\" is not a "
		    "string", name, where, field);
	if (json_string_value(v)[0] == '\0')
		return ep_err_set(err, EP_E_INPUT, "%s: %s: \"%s\" is empty",
		    name, where, field);
	*out = json_string_value(v);
	return 0;
}

/* What a rule and a waiver open with: o is an object of the known fields
 * with a "key"; *key is it, and where ("rules[2]
 * (key \"lib.*\")") names the entry for the messages that follow. */
static int
parse_entry_key(const char **key, char *where, size_t wsize, json_t *o,
    const char *const *fields, const char *section, size_t i,
    const char *name, struct ep_err *err)
{
	snprintf(where, wsize, "%s[%zu]", section, i);
	if (!json_is_object(o))
		return ep_err_set(err, EP_E_INPUT, "%s: %s: not an object",
		    name, where);
	if (check_fields(o, fields, name, where, err) < 0 ||
	    get_string(key, o, "key", 1, name, where, err) < 0)
		return -1;
	/* From here on, messages name the entry by its key too. */
	snprintf(where, wsize, "%s[%zu] (key \"%.200s\")", section, i, *key);
	return 0;
}

/* After the entry's other fields are read: a key that is no glob. */
static int
check_entry_key(const char *key, const char *where, const char *name,
    struct ep_err *err)
{
	const char *why = ep_glob_problem(key);

	return why == NULL ? 0 : ep_err_set(err, EP_E_INPUT, "%s: %s: the "
	    "key %s", name, where, why);
}

/* why (new, or NULL: the entry may stand) as the entry's error. */
static int
too_wide(char *why, const char *name, const char *where, struct ep_err *err)
{
	if (why == NULL)
		return 0;
	ep_err_set(err, EP_E_INPUT, "%s: %s: %s", name, where, why);
	free(why);
	return -1;
}

/* 1 when a nearer layer has an entry with the same key: that one wins,
 * and this one could never match first (rules) or would only confuse
 * (waivers), so it is left out. */
static int
shadowed_rule(const struct ep_policy *p, const struct layer *l,
    const char *key)
{
	if (l->scope == EP_SCOPE_DEFAULT)
		return 0;
	for (size_t i = 0; i < l->rule0; i++)
		if (strcmp(p->rules[i].key, key) == 0)
			return 1;
	return 0;
}

static int
shadowed_waiver(const struct ep_policy *p, const struct layer *l,
    const char *key)
{
	for (size_t i = 0; i < l->waiver0; i++)
		if (strcmp(p->waivers[i].key, key) == 0)
			return 1;
	return 0;
}

static int
parse_rule(struct ep_policy *p, json_t *o, size_t i, const struct layer *l,
    struct ep_err *err)
{
	const char *name = l->name;
	static const char *const fields[] = { "key", "rule", "range",
	    "missing", "severity", "reason", NULL };
	struct ep_rule *r;
	struct ep_verrange *vr = NULL;
	struct ep_err rerr = { 0 };
	const char *key, *kind, *range, *missing, *severity, *reason;
	char where[32 + 256];
	int k, m = EP_MISSING_FAIL, sev = EP_SEVERITY_FAIL;

	if (parse_entry_key(&key, where, sizeof where, o, fields, "rules", i,
	    name, err) < 0 ||
	    get_string(&kind, o, "rule", 1, name, where, err) < 0 ||
	    get_string(&range, o, "range", 0, name, where, err) < 0 ||
	    get_string(&missing, o, "missing", 0, name, where, err) < 0 ||
	    get_string(&severity, o, "severity", 0, name, where, err) < 0 ||
	    get_string(&reason, o, "reason", 0, name, where, err) < 0 ||
	    check_entry_key(key, where, name, err) < 0)
		return -1;
	if ((k = lookup(kind_names, kind)) < 0)
		return ep_err_set(err, EP_E_INPUT, "%s: %s: unknown rule "
		    "\"%s\" (one of exact, ignore, version, present, absent)",
		    name, where, kind);
	if (k == EP_RULE_VERSION && range == NULL)
		return ep_err_set(err, EP_E_INPUT, "%s: %s: rule \"version\" "
		    "needs a \"range\" (such as \">=580.65,<590\")", name,
		    where);
	if (k != EP_RULE_VERSION && range != NULL)
		return ep_err_set(err, EP_E_INPUT, "%s: %s: \"range\" goes "
		    "only with rule \"version\"", name, where);
	if (missing != NULL) {
		if (k != EP_RULE_EXACT && k != EP_RULE_VERSION)
			return ep_err_set(err, EP_E_INPUT, "%s: %s: "
			    "\"missing\" does not apply to rule \"%s\"", name,
			    where, kind);
		if ((m = lookup(missing_names, missing)) < 0)
			return ep_err_set(err, EP_E_INPUT, "%s: %s: unknown "
			    "missing \"%s\" (one of fail, skip, ignore)", name,
			    where, missing);
	}
	if (severity != NULL) {
		if (strcmp(severity, "fail") == 0)
			sev = EP_SEVERITY_FAIL;
		else if (strcmp(severity, "warn") == 0)
			sev = EP_SEVERITY_WARN;
		else
			return ep_err_set(err, EP_E_INPUT, "%s: %s: unknown "
			    "severity \"%s\" (fail or warn)", name, where,
			    severity);
		if (k == EP_RULE_IGNORE)
			return ep_err_set(err, EP_E_INPUT, "%s: %s: "
			    "\"severity\" does not apply to rule \"ignore\"",
			    name, where);
	}
	if (too_wide(ep_policy_rule_too_wide(key, k, m, sev), name, where,
	    err) < 0)
		return -1;
	if (range != NULL && ep_verrange_parse(&vr, range, &rerr) < 0)
		return ep_err_set(err, EP_E_INPUT, "%s: %s: %s", name, where,
		    rerr.msg);
	if (shadowed_rule(p, l, key)) {
		ep_verrange_free(vr);
		return 0;
	}

	p->rules = xreallocarray(p->rules, p->nrules + 1, sizeof *p->rules);
	r = &p->rules[p->nrules++];
	memset(r, 0, sizeof *r);
	r->key = own(p, key);
	r->kind = k;
	r->missing = m;
	r->severity = sev;
	r->reason = reason ? own(p, reason) : NULL;
	r->builtin = l->scope == EP_SCOPE_DEFAULT;
	r->scope = l->scope;
	r->origin = l->origin;
	if (vr != NULL) {
		p->ranges = xreallocarray(p->ranges, p->nranges + 1,
		    sizeof *p->ranges);
		p->ranges[p->nranges++] = vr;
		r->range = vr;
		r->text = own_owned(p, xasprintf("version %s",
		    ep_verrange_text(vr)));
	} else
		r->text = kind_names[k];
	return 0;
}

static int
parse_waiver(struct ep_policy *p, json_t *o, size_t i, const struct layer *l,
    struct ep_err *err)
{
	const char *name = l->name;
	static const char *const fields[] = { "key", "reason", "owner",
	    "expires", "actual", "range", NULL };
	struct ep_waiver *w;
	struct ep_verrange *vr = NULL;
	struct ep_err rerr = { 0 };
	const char *key, *reason, *owner, *expires, *actual, *range;
	char where[32 + 256];

	if (parse_entry_key(&key, where, sizeof where, o, fields, "waivers", i,
	    name, err) < 0 ||
	    get_string(&reason, o, "reason", 1, name, where, err) < 0 ||
	    get_string(&owner, o, "owner", 1, name, where, err) < 0 ||
	    get_string(&expires, o, "expires", 1, name, where, err) < 0 ||
	    get_string(&actual, o, "actual", 0, name, where, err) < 0 ||
	    get_string(&range, o, "range", 0, name, where, err) < 0 ||
	    check_entry_key(key, where, name, err) < 0)
		return -1;
	if (too_wide(ep_policy_waiver_too_wide(key), name, where, err) < 0)
		return -1;
	if (!ep_policy_valid_date(expires))
		return ep_err_set(err, EP_E_INPUT, "%s: %s: expires \"%s\" "
		    "is not a date (YYYY-MM-DD)", name, where, expires);
	if (actual != NULL && range != NULL)
		return ep_err_set(err, EP_E_INPUT, "%s: %s: \"actual\" and "
		    "\"range\" together: give the one value or the range it "
		    "accepts", name, where);
	if (range != NULL && ep_verrange_parse(&vr, range, &rerr) < 0)
		return ep_err_set(err, EP_E_INPUT, "%s: %s: %s", name, where,
		    rerr.msg);
	if (shadowed_waiver(p, l, key)) {
		ep_verrange_free(vr);
		return 0;
	}
	p->waivers = xreallocarray(p->waivers, p->nwaivers + 1,
	    sizeof *p->waivers);
	w = &p->waivers[p->nwaivers++];
	memset(w, 0, sizeof *w);
	w->index = i;
	w->seq = p->nwaivers - 1;
	w->scope = l->scope;
	w->origin = l->origin;
	w->key = own(p, key);
	w->reason = own(p, reason);
	w->owner = own(p, owner);
	w->expires = own(p, expires);
	if (actual != NULL)
		w->accepts = w->actual = own(p, actual);
	if (vr != NULL) {
		p->ranges = xreallocarray(p->ranges, p->nranges + 1,
		    sizeof *p->ranges);
		p->ranges[p->nranges++] = vr;
		w->range = vr;
		w->accepts = own_owned(p, xasprintf("range %s",
		    ep_verrange_text(vr)));
	}
	return 0;
}

/* Parse one policy text and append its rules and waivers to p, after
 * those of the nearer layers parsed before it. */
static int
parse_into(struct ep_policy *p, const char *text, size_t len,
    struct layer *l, struct ep_err *err)
{
	const char *name = l->name;
	static const char *const fields[] = { "schema", "description",
	    "rules", "waivers", "workloads", "capture", NULL };
	json_error_t jerr;
	json_t *root, *v, *rules, *waivers;
	int rc = -1;

	l->rule0 = p->nrules;
	l->waiver0 = p->nwaivers;

	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL)
		return ep_err_set(err, EP_E_INPUT, "%s: line %d column %d: %s",
		    name, jerr.line, jerr.column, jerr.text);
	if (!json_is_object(root)) {
		ep_err_set(err, EP_E_INPUT, "%s: not a JSON object", name);
		goto done;
	}
	if (check_fields(root, fields, name, "", err) < 0)
		goto done;
	v = json_object_get(root, "schema");
	if (!json_is_string(v)) {
		ep_err_set(err, EP_E_INPUT, "%s: no \"schema\" string "
		    "(expected \"%s\")", name, EP_POLICY_SCHEMA);
		goto done;
	}
	if (strcmp(json_string_value(v), EP_POLICY_SCHEMA) != 0) {
		ep_err_set(err, EP_E_INPUT, "%s: schema \"%s\" is not %s",
		    name, json_string_value(v), EP_POLICY_SCHEMA);
		goto done;
	}
	v = json_object_get(root, "description");
	if (v != NULL && !json_is_string(v)) {
		ep_err_set(err, EP_E_INPUT, "%s: \"description\" is not a "
		    "string", name);
		goto done;
	}
	rules = json_object_get(root, "rules");
	waivers = json_object_get(root, "waivers");
	if ((rules != NULL && !json_is_array(rules)) ||
	    (waivers != NULL && !json_is_array(waivers))) {
		ep_err_set(err, EP_E_INPUT, "%s: \"%s\" is not an array", name,
		    rules != NULL && !json_is_array(rules) ? "rules" :
		    "waivers");
		goto done;
	}
	for (size_t i = 0; i < json_array_size(rules); i++)
		if (parse_rule(p, json_array_get(rules, i), i, l, err) < 0)
			goto done;
	for (size_t i = 0; i < json_array_size(waivers); i++)
		if (parse_waiver(p, json_array_get(waivers, i), i, l,
		    err) < 0)
			goto done;
	if (ep_policy_parse_workloads(p, json_object_get(root, "workloads"),
	    name, err) < 0 || ep_policy_parse_capture(p,
	    json_object_get(root, "capture"), name, err) < 0)
		goto done;
	rc = 0;
done:
	json_decref(root);
	return rc;
}

/*
 * The defaults come last and are never shadowed: a user's rule for the
 * same key comes first and wins anyway, and the catch-all must stay the
 * last rule.
 */
static void
append_defaults(struct ep_policy *p)
{
	struct ep_err err = { 0 };
	struct layer l = { "built-in default policy", NULL, EP_SCOPE_DEFAULT,
	    0, 0 };

	l.origin = own(p, "built-in default");
	if (parse_into(p, default_policy, sizeof default_policy - 1, &l,
	    &err) < 0)
		abort();	/* a bug in default_policy: unit-tested */
}

int
ep_policy_parse_layers(struct ep_policy **out,
    const struct ep_policy_layer *v, size_t n, struct ep_err *err)
{
	struct ep_policy *p = xcalloc(1, sizeof *p);
	struct layer l;

	*out = NULL;
	for (size_t i = 0; i < n; i++) {
		l.name = v[i].name != NULL ? v[i].name : "policy";
		l.origin = own(p, v[i].origin != NULL ? v[i].origin : l.name);
		l.scope = v[i].scope;
		if (parse_into(p, v[i].text, v[i].len, &l, err) < 0) {
			ep_policy_free(p);
			return -1;
		}
	}
	append_defaults(p);
	*out = p;
	return 0;
}

int
ep_policy_parse(struct ep_policy **out, const char *text, size_t len,
    const char *name, struct ep_err *err)
{
	struct ep_policy_layer l = { text, len, name, name,
	    EP_SCOPE_PROFILE };

	return ep_policy_parse_layers(out, &l, 1, err);
}

const char *
ep_policy_scope_name(int scope)
{
	static const char *const names[] = { "profile", "inherited",
	    "shared", "default" };

	if (scope < 0 || scope > EP_SCOPE_DEFAULT)
		return "unknown";
	return names[scope];
}

const char *
ep_rule_kind_name(int kind)
{
	if (kind < 0 || kind > EP_RULE_ABSENT)
		return "unknown";
	return kind_names[kind];
}

const char *
ep_rule_missing_name(int missing)
{
	if (missing < 0 || missing > EP_MISSING_IGNORE)
		return "unknown";
	return missing_names[missing];
}

int
ep_policy_load(struct ep_policy **out, const char *path, struct ep_err *err)
{
	char *text = NULL;
	size_t len;
	int rc;

	*out = NULL;
	if (ep_read_file(&text, &len, path, EP_POLICY_MAX, err) < 0)
		return -1;
	rc = ep_policy_parse(out, text, len, path, err);
	free(text);
	return rc;
}

struct ep_policy *
ep_policy_default(void)
{
	struct ep_policy *p = xcalloc(1, sizeof *p);

	append_defaults(p);
	return p;
}

void
ep_policy_free(struct ep_policy *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->nranges; i++)
		ep_verrange_free(p->ranges[i]);
	free(p->ranges);
	free(p->rules);
	free(p->waivers);
	ep_strv_clear(&p->strings);
	ep_strv_clear(&p->workloads);
	ep_extra_clear(&p->capture);
	free(p);
}
