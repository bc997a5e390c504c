/*
 * attest_read.c: reading an attestation for `envparity verify`: the
 * envelope opened (dsse.c), the statement read field by field, and the
 * conditions a deploy job may require of it (the verdict, the age, the
 * subjects, and the golden it was judged against: profile, store,
 * commit).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "attest.h"
#include "dsse.h"
#include "errors.h"
#include "str.h"
#include "xalloc.h"

void
ep_attestation_free(struct ep_attestation *a)
{
	if (a == NULL)
		return;
	free(a->command);
	free(a->verdict);
	free(a->profile);
	free(a->host);
	free(a->store);
	free(a->ref);
	free(a->commit);
	free(a->version);
	free(a->time_text);
	free(a->first_failing);
	for (size_t i = 0; i < a->nsubjects; i++) {
		free(a->subjects[i].name);
		free(a->subjects[i].sha256);
		free(a->subjects[i].gitblob);
	}
	free(a->subjects);
	for (size_t i = 0; i < a->nimages; i++) {
		free(a->images[i].name);
		free(a->images[i].digest);
	}
	free(a->images);
	free(a);
}

static int
bad(struct ep_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
bad(struct ep_err *err, const char *fmt, ...)
{
	va_list ap;
	char *m;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	ep_err_set(err, EP_E_INPUT, "not an envparity attestation: %s", m);
	free(m);
	return -1;
}

/* The string member name of o into *out (new); NULL allowed (JSON null
 * or absent) when nullable.  -1 with err otherwise. */
static int
get_str(char **out, json_t *o, const char *name, int nullable,
    struct ep_err *err)
{
	json_t *v = json_object_get(o, name);

	*out = NULL;
	if (json_is_string(v)) {
		*out = xstrndup(json_string_value(v), json_string_length(v));
		return 0;
	}
	if (nullable && (v == NULL || json_is_null(v)))
		return 0;
	return bad(err, "predicate \"%s\" is %s", name, v == NULL ?
	    "missing" : nullable ? "not a string or null" : "not a string");
}

static int
is_hex(const char *s, size_t n)
{
	return strlen(s) == n && strspn(s, "0123456789abcdef") == n;
}

/* Digits at s, exactly n of them, as a number; -1 if not. */
static int
digits(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (!ep_ascii_digit(s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* RFC 3339 date-time (section 5.6): YYYY-MM-DDTHH:MM:SS[.frac] then Z or
 * +HH:MM / -HH:MM, into seconds since the epoch. */
static int
rfc3339(time_t *out, const char *s)
{
	struct tm tm = { 0 };
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;
	const char *p;
	time_t t;

	if (strlen(s) < 20 || s[4] != '-' || s[7] != '-' ||
	    (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':')
		return -1;
	if ((y = digits(s, 4)) < 0 || (mo = digits(s + 5, 2)) < 1 ||
	    mo > 12 || (d = digits(s + 8, 2)) < 1 || d > 31 ||
	    (h = digits(s + 11, 2)) < 0 || h > 23 ||
	    (mi = digits(s + 14, 2)) < 0 || mi > 59 ||
	    (sec = digits(s + 17, 2)) < 0 || sec > 60)
		return -1;
	p = s + 19;
	if (*p == '.') {
		if (!ep_ascii_digit(p[1]))
			return -1;
		for (p++; ep_ascii_digit(*p); p++)
			;
	}
	if ((*p == 'Z' || *p == 'z') && p[1] == '\0')
		sign = 0;
	else if ((*p == '+' || *p == '-') && strlen(p) == 6 && p[3] == ':' &&
	    (oh = digits(p + 1, 2)) >= 0 && oh <= 23 &&
	    (om = digits(p + 4, 2)) >= 0 && om <= 59)
		sign = *p == '+' ? 1 : -1;
	else
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = timegm(&tm);
	/* timegm normalizes the 31st of February; such a date is not one. */
	if (t == (time_t)-1 || tm.tm_mday != d || tm.tm_mon != mo - 1)
		return -1;
	*out = t - sign * (oh * 3600 + om * 60);
	return 0;
}

static int
read_subjects(struct ep_attestation *a, json_t *subjects, struct ep_err *err)
{
	size_t i;
	json_t *s, *d, *v;

	if (!json_is_array(subjects))
		return bad(err, "\"subject\" is %s", subjects == NULL ?
		    "missing" : "not an array");
	a->subjects = xcalloc(json_array_size(subjects) + 1,
	    sizeof *a->subjects);
	json_array_foreach(subjects, i, s) {
		struct ep_att_subject *sub = &a->subjects[a->nsubjects++];

		d = json_object_get(s, "digest");
		if (!json_is_object(s) || !json_is_object(d) ||
		    json_object_size(d) == 0)
			return bad(err, "subject[%zu] has no digest", i);
		v = json_object_get(s, "name");
		if (v != NULL && !json_is_string(v))
			return bad(err, "subject[%zu] \"name\" is not a "
			    "string", i);
		sub->name = xstrdup(v != NULL ? json_string_value(v) : "");
		if ((v = json_object_get(d, "sha256")) != NULL) {
			if (!json_is_string(v) ||
			    !is_hex(json_string_value(v), 64))
				return bad(err, "subject[%zu] sha256 is not 64 "
				    "lowercase hex digits", i);
			sub->sha256 = xstrdup(json_string_value(v));
		}
		if ((v = json_object_get(d, "gitBlob")) != NULL) {
			if (!json_is_string(v) ||
			    !is_hex(json_string_value(v), 40))
				return bad(err, "subject[%zu] gitBlob is not 40 "
				    "lowercase hex digits", i);
			sub->gitblob = xstrdup(json_string_value(v));
		}
	}
	return 0;
}

/* The subject called name, or NULL. */
static const struct ep_att_subject *
subject_named(const struct ep_attestation *a, const char *name)
{
	for (size_t i = 0; i < a->nsubjects; i++)
		if (strcmp(a->subjects[i].name, name) == 0)
			return &a->subjects[i];
	return NULL;
}

static int
read_images(struct ep_attestation *a, json_t *images, struct ep_err *err)
{
	const struct ep_att_subject *sub;
	const char *name, *dg;
	json_t *o;

	if (!json_is_object(images))
		return bad(err, "predicate \"images\" is %s", images == NULL ?
		    "missing" : "not an object");
	a->images = xcalloc(json_object_size(images) + 1, sizeof *a->images);
	json_object_foreach(images, name, o) {
		dg = json_string_value(json_object_get(o, "digest"));
		if (dg == NULL || strncmp(dg, "sha256:", 7) != 0 ||
		    !is_hex(dg + 7, 64))
			return bad(err, "image %s has no sha256 digest", name);
		/* Each image is a subject: the predicate may not say more
		 * than the subjects. */
		sub = subject_named(a, name);
		if (sub == NULL || sub->sha256 == NULL ||
		    strcmp(sub->sha256, dg + 7) != 0)
			return bad(err, "image %s is not a subject of that "
			    "digest", name);
		a->images[a->nimages].name = xstrdup(name);
		a->images[a->nimages++].digest = xstrdup(dg);
	}
	return 0;
}

static int
read_counts(struct ep_attestation *a, json_t *c, struct ep_err *err)
{
	if (!json_is_object(c))
		return bad(err, "predicate \"counts\" is %s", c == NULL ?
		    "missing" : "not an object");
	for (int s = 0; s < EP_NSTATUS; s++) {
		json_t *v = json_object_get(c, ep_status_name(s));

		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return bad(err, "predicate counts.%s is not a count",
			    ep_status_name(s));
		a->counts[s] = (size_t)json_integer_value(v);
	}
	return 0;
}

int
ep_attest_parse(struct ep_attestation **out, const void *body, size_t n,
    struct ep_err *err)
{
	struct ep_attestation *a = xcalloc(1, sizeof *a);
	json_error_t je;
	json_t *st, *p, *f;
	const char *type;
	int rc = -1;

	*out = NULL;
	if ((st = json_loadb(body, n, JSON_REJECT_DUPLICATES, &je)) == NULL) {
		bad(err, "the statement is not JSON: line %d column %d: %s",
		    je.line, je.column, je.text);
		goto done;
	}
	type = json_string_value(json_object_get(st, "_type"));
	if (type == NULL || strcmp(type, EP_INTOTO_STATEMENT) != 0) {
		bad(err, "not an in-toto Statement v1 (_type \"%.200s\")",
		    type != NULL ? type : "");
		goto done;
	}
	type = json_string_value(json_object_get(st, "predicateType"));
	if (type == NULL || strcmp(type, EP_ATTEST_PREDICATE) != 0) {
		bad(err, "predicateType \"%.200s\" is not %s", type != NULL ?
		    type : "", EP_ATTEST_PREDICATE);
		goto done;
	}
	p = json_object_get(st, "predicate");
	if (!json_is_object(p)) {
		bad(err, "\"predicate\" is not an object");
		goto done;
	}
	if (read_subjects(a, json_object_get(st, "subject"), err) < 0 ||
	    get_str(&a->command, p, "command", 0, err) < 0 ||
	    get_str(&a->verdict, p, "verdict", 0, err) < 0 ||
	    get_str(&a->profile, p, "profile", 1, err) < 0 ||
	    get_str(&a->store, p, "store", 1, err) < 0 ||
	    get_str(&a->ref, p, "ref", 1, err) < 0 ||
	    get_str(&a->commit, p, "commit", 1, err) < 0 ||
	    get_str(&a->host, p, "host", 0, err) < 0 ||
	    get_str(&a->version, p, "envparityVersion", 0, err) < 0 ||
	    get_str(&a->time_text, p, "time", 0, err) < 0 ||
	    read_counts(a, json_object_get(p, "counts"), err) < 0 ||
	    read_images(a, json_object_get(p, "images"), err) < 0)
		goto done;
	if (rfc3339(&a->time, a->time_text) < 0) {
		bad(err, "predicate \"time\" \"%.64s\" is not an RFC 3339 "
		    "date-time", a->time_text);
		goto done;
	}
	/* The verdict is the counts' (a signer's own contradiction is
	 * malformed, whichever of the two is right). */
	if (strcmp(a->verdict, ep_attest_verdict(a->counts)) != 0) {
		bad(err, "the verdict \"%.32s\" is not what its counts give "
		    "(%s)", a->verdict, ep_attest_verdict(a->counts));
		goto done;
	}
	f = json_object_get(p, "failing");
	if (!json_is_array(f)) {
		bad(err, "predicate \"failing\" is not an array");
		goto done;
	}
	if (json_is_string(json_array_get(f, 0)))
		a->first_failing = xstrdup(json_string_value(
		    json_array_get(f, 0)));
	*out = a;
	a = NULL;
	rc = 0;
done:
	json_decref(st);
	ep_attestation_free(a);
	return rc;
}

int
ep_attest_open(struct ep_attestation **out, const char *text, size_t n,
    struct ep_sigkey *const *keys, size_t nkeys, struct ep_err *err)
{
	unsigned char *body = NULL;
	size_t len, which;
	int rc;

	*out = NULL;
	if (ep_dsse_open(&body, &len, &which, text, n, EP_DSSE_INTOTO, keys,
	    nkeys, err) < 0)
		return -1;
	rc = ep_attest_parse(out, body, len, err);
	free(body);
	if (rc == 0)
		(*out)->key = which;
	return rc;
}

static int
denied(struct ep_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
denied(struct ep_err *err, const char *fmt, ...)
{
	va_list ap;
	char *m;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	ep_err_set(err, EP_E_DENIED, "%s", m);
	free(m);
	return -1;
}

int
ep_attest_require_verdict(const struct ep_attestation *a, int require,
    struct ep_err *err)
{
	const size_t *c = a->counts;

	if (strcmp(a->verdict, "PASSED") == 0)
		return 0;
	if (strcmp(a->verdict, "WARNED") == 0) {
		if (require == EP_REQUIRE_NOFAIL)
			return 0;
		return denied(err, "verdict WARNED (%zu warned, %zu waived): "
		    "--require parity accepts PASSED only (--require no-fail "
		    "also accepts WARNED)", c[EP_WARN], c[EP_WAIVED]);
	}
	return denied(err, "verdict FAILED (%zu failed, %zu errors%s%s): "
	    "--require %s accepts %s", c[EP_FAIL], c[EP_ERROR],
	    a->first_failing ? "; first " : "",
	    a->first_failing ? a->first_failing : "",
	    require == EP_REQUIRE_NOFAIL ? "no-fail" : "parity",
	    require == EP_REQUIRE_NOFAIL ? "PASSED or WARNED" :
	    "PASSED only");
}

char *
ep_attest_duration_text(long long secs)
{
	static const struct { const char *u; long long s; } units[] = {
		{ "d", 86400 }, { "h", 3600 }, { "m", 60 }, { "s", 1 },
	};
	char *out = xstrdup(""), *t;

	if (secs < 0)
		secs = -secs;
	if (secs == 0) {
		free(out);
		return xstrdup("0s");
	}
	for (size_t i = 0; i < 4; i++) {
		if (secs < units[i].s)
			continue;
		t = xasprintf("%s%s%lld%s", out, *out ? " " : "",
		    secs / units[i].s, units[i].u);
		free(out);
		out = t;
		secs %= units[i].s;
	}
	return out;
}

int
ep_attest_require_age(const struct ep_attestation *a, time_t now,
    long long max_age, struct ep_err *err)
{
	long long age = (long long)now - (long long)a->time;
	char *t, *m;
	int rc;

	if (age < -(long long)EP_ATTEST_SKEW) {
		t = ep_attest_duration_text(age);
		rc = denied(err, "made at %s, %s in the future: this clock or "
		    "the signer's is wrong", a->time_text, t);
		free(t);
		return rc;
	}
	if (age <= max_age)
		return 0;
	t = ep_attest_duration_text(age);
	m = ep_attest_duration_text(max_age);
	rc = denied(err, "made at %s, %s ago: older than --max-age %s",
	    a->time_text, t, m);
	free(t);
	free(m);
	return rc;
}

int
ep_attest_require_subject(const struct ep_attestation *a, const char *alg,
    const char *hex, struct ep_err *err)
{
	int blob = strcmp(alg, "gitBlob") == 0;

	for (size_t i = 0; i < a->nsubjects; i++) {
		const char *d = blob ? a->subjects[i].gitblob :
		    a->subjects[i].sha256;

		if (d != NULL && strcmp(d, hex) == 0)
			return 0;
	}
	return denied(err, "no subject has digest %s:%s (the statement has "
	    "%zu subject%s)", alg, hex, a->nsubjects,
	    a->nsubjects == 1 ? "" : "s");
}

int
ep_attest_require_profile(const struct ep_attestation *a,
    const char *profile, struct ep_err *err)
{
	if (a->profile != NULL && strcmp(a->profile, profile) == 0)
		return 0;
	if (a->profile == NULL)
		return denied(err, "profile: the statement names none (a "
		    "fleet judged without a store), --profile %s asked",
		    profile);
	return denied(err, "profile %s, not %s", a->profile, profile);
}

int
ep_attest_require_store(const struct ep_attestation *a, const char *store,
    struct ep_err *err)
{
	if (a->store != NULL && strcmp(a->store, store) == 0)
		return 0;
	if (a->store == NULL)
		return denied(err, "store: the statement names none (a fleet "
		    "judged without a store), --store %s asked", store);
	return denied(err, "judged against store %s, not %s", a->store,
	    store);
}

int
ep_attest_require_commit(const struct ep_attestation *a, const char *commit,
    struct ep_err *err)
{
	if (a->commit != NULL && strcasecmp(a->commit, commit) == 0)
		return 0;
	if (a->commit == NULL)
		return denied(err, "golden commit: the statement names none "
		    "(no store, or an empty one), --golden-commit %s asked",
		    commit);
	return denied(err, "judged against golden commit %s%s%s, not %s",
	    a->commit, a->ref != NULL ? " on " : "", a->ref != NULL ? a->ref :
	    "", commit);
}

int
ep_attest_commit_parse(const char *text, struct ep_err *err)
{
	size_t n = strlen(text);

	if ((n != 40 && n != 64) || strspn(text, "0123456789abcdefABCDEF") != n)
		return ep_err_set(err, EP_E_INPUT, "--golden-commit '%s': the "
		    "full commit id, 40 hex digits (64 in a SHA-256 "
		    "repository): a prefix is not a pin, another commit can be "
		    "made to share it", text);
	return 0;
}

int
ep_attest_digest_parse(const char **alg, char hex[65], const char *text,
    struct ep_err *err)
{
	const char *colon = strchr(text, ':');
	size_t want, i;

	if (colon != NULL && (size_t)(colon - text) == 6 &&
	    strncmp(text, "sha256", 6) == 0) {
		*alg = "sha256";
		want = 64;
	} else if (colon != NULL && (size_t)(colon - text) == 7 &&
	    strncasecmp(text, "gitBlob", 7) == 0) {
		*alg = "gitBlob";
		want = 40;
	} else
		return ep_err_set(err, EP_E_INPUT, "'%s' is not a digest "
		    "(sha256:<64 hex digits> or gitBlob:<40 hex digits>)",
		    text);
	if (strlen(colon + 1) != want)
		return ep_err_set(err, EP_E_INPUT, "'%s': %s needs %zu hex "
		    "digits", text, *alg, want);
	for (i = 0; i < want; i++) {
		char c = colon[1 + i];

		if (c >= 'A' && c <= 'F')
			c = (char)(c - 'A' + 'a');
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return ep_err_set(err, EP_E_INPUT, "'%s' is not a "
			    "digest: '%c' is not a hex digit", text,
			    colon[1 + i]);
		hex[i] = c;
	}
	hex[want] = '\0';
	return 0;
}

int
ep_attest_duration(long long *secs, const char *text, struct ep_err *err)
{
	const long long max = 100LL * 366 * 86400;
	const char *p = text;
	long long total = 0;

	*secs = 0;
	if (*p == '\0')
		goto bad;
	while (*p != '\0') {
		long long v = 0, unit;

		if (!ep_ascii_digit(*p))
			goto bad;
		for (; ep_ascii_digit(*p); p++) {
			v = v * 10 + (*p - '0');
			if (v > max)
				goto big;
		}
		switch (*p) {
		case 's': unit = 1; break;
		case 'm': unit = 60; break;
		case 'h': unit = 3600; break;
		case 'd': unit = 86400; break;
		case 'w': unit = 7 * 86400; break;
		default: goto bad;
		}
		p++;
		if (v > max / unit || (total += v * unit) > max)
			goto big;
	}
	if (total == 0)
		return ep_err_set(err, EP_E_INPUT, "--max-age %s: a duration "
		    "of zero", text);
	*secs = total;
	return 0;
bad:
	return ep_err_set(err, EP_E_INPUT, "--max-age '%s' is not a duration "
	    "(a number and a unit, s m h d or w: 30m, 24h, 7d, 1d12h)", text);
big:
	return ep_err_set(err, EP_E_INPUT, "--max-age %s: more than 100 "
	    "years", text);
}
