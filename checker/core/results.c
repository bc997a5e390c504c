/*
 * results.c: the results every comparison, check and probe run gives
 * (results.h): the list, its order, its bounds and its counts, and what
 * the policy's waivers do to it (waived findings, stale and expiring
 * waivers), and the capture's warnings as results of their own.
 */
#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "errors.h"
#include "xalloc.h"

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

char *
ep_result_area(const char *key)
{
	const char *dot = strchr(key, '.');

	return dot != NULL ? xstrndup(key, (size_t)(dot - key)) :
	    xstrdup(key);
}

void
ep_results_add(struct ep_results *rs, const struct ep_result *r)
{
	struct ep_result *d;

	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 64;
		rs->v = xreallocarray(rs->v, rs->cap, sizeof *rs->v);
	}
	d = &rs->v[rs->n++];
	d->key = xstrdup(r->key != NULL ? r->key : "");
	d->area = r->area != NULL ? xstrdup(r->area) : ep_result_area(d->key);
	d->status = r->status;
	d->expected = dup_or_null(r->expected);
	d->actual = dup_or_null(r->actual);
	d->rule = dup_or_null(r->rule);
	d->message = dup_or_null(r->message);
	d->waiver_reason = dup_or_null(r->waiver_reason);
	d->waiver_owner = dup_or_null(r->waiver_owner);
	d->waiver_expires = dup_or_null(r->waiver_expires);
	d->waiver = r->waiver;
	d->node = dup_or_null(r->node);
}

static void
result_free(struct ep_result *r)
{
	free(r->key);
	free(r->area);
	free(r->expected);
	free(r->actual);
	free(r->rule);
	free(r->message);
	free(r->waiver_reason);
	free(r->waiver_owner);
	free(r->waiver_expires);
	free(r->node);
}

void
ep_results_clear(struct ep_results *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		result_free(&rs->v[i]);
	free(rs->v);
	for (size_t i = 0; i < rs->nign; i++) {
		free(rs->ign[i].key);
		free(rs->ign[i].expected);
		free(rs->ign[i].actual);
		free(rs->ign[i].reason);
	}
	free(rs->ign);
	memset(rs, 0, sizeof *rs);
}

void
ep_results_ignored_add(struct ep_results *rs, const char *key,
    const char *expected, const char *actual, const char *reason)
{
	struct ep_ignored *d;

	if (rs->nign == rs->ign_cap) {
		rs->ign_cap = rs->ign_cap ? rs->ign_cap * 2 : 8;
		rs->ign = xreallocarray(rs->ign, rs->ign_cap, sizeof *rs->ign);
	}
	d = &rs->ign[rs->nign++];
	d->key = xstrdup(key);
	d->expected = expected != NULL ? xstrdup(expected) : NULL;
	d->actual = actual != NULL ? xstrdup(actual) : NULL;
	d->reason = reason != NULL ? xstrdup(reason) : NULL;
}

static int
strcmp_null(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int
result_order(const void *va, const void *vb)
{
	const struct ep_result *a = va, *b = vb;
	int c;

	if ((c = strcmp_null(a->node, b->node)) != 0 ||
	    (c = strcmp(a->area, b->area)) != 0 ||
	    (c = strcmp(a->key, b->key)) != 0)
		return c;
	if (a->status != b->status)
		return a->status < b->status ? -1 : 1;
	return strcmp_null(a->message, b->message);
}

void
ep_results_sort(struct ep_results *rs)
{
	if (rs->n > 1)
		qsort(rs->v, rs->n, sizeof *rs->v, result_order);
}

/* Error, fail, warn, waived, skip, pass: what a reader must see first. */
#define NRANKS	6
static int
status_rank(int status)
{
	switch (status) {
	case EP_ERROR: return 0;
	case EP_FAIL: return 1;
	case EP_WARN: return 2;
	case EP_WAIVED: return 3;
	case EP_SKIP: return 4;
	default: return 5;
	}
}

void
ep_results_truncate(struct ep_results *rs, size_t max,
    size_t omitted[EP_NSTATUS])
{
	size_t per[NRANKS] = { 0 }, room = max, o = 0;
	size_t keep[NRANKS];

	memset(omitted, 0, EP_NSTATUS * sizeof omitted[0]);
	if (rs->n <= max)
		return;
	/* How many of each rank fit, most important first; then one pass
	 * that keeps the order of rs. */
	for (size_t i = 0; i < rs->n; i++)
		per[status_rank(rs->v[i].status)]++;
	for (int r = 0; r < NRANKS; r++) {
		keep[r] = per[r] < room ? per[r] : room;
		room -= keep[r];
	}
	for (size_t i = 0; i < rs->n; i++) {
		int r = status_rank(rs->v[i].status);

		if (keep[r] > 0) {
			keep[r]--;
			rs->v[o++] = rs->v[i];
		} else {
			if (rs->v[i].status >= 0 && rs->v[i].status < EP_NSTATUS)
				omitted[rs->v[i].status]++;
			result_free(&rs->v[i]);
		}
	}
	rs->n = o;
}

void
ep_results_count(const struct ep_results *rs, size_t counts[EP_NSTATUS])
{
	memset(counts, 0, EP_NSTATUS * sizeof counts[0]);
	for (size_t i = 0; i < rs->n; i++)
		if (rs->v[i].status >= 0 && rs->v[i].status < EP_NSTATUS)
			counts[rs->v[i].status]++;
}

int
ep_results_exit(const struct ep_results *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		if (rs->v[i].status == EP_FAIL || rs->v[i].status == EP_ERROR)
			return EP_EXIT_DRIFT;
	return EP_EXIT_OK;
}

const char *
ep_status_name(int status)
{
	static const char *const names[] = { "pass", "fail", "skip", "waived",
	    "error", "warn" };

	if (status < 0 || status >= EP_NSTATUS)
		return "unknown";
	return names[status];
}

static void
set_owned(char **field, char *value)
{
	free(*field);
	*field = value;
}

/* " (shared policy)" or " (train/policy.json)" for a waiver that is not
 * the profile's own, "" for one that is (as messages always said). */
static void
from_where(char *buf, size_t size, const struct ep_waiver *w)
{
	if (w->scope == EP_SCOPE_SHARED)
		snprintf(buf, size, " (shared policy)");
	else if (w->scope == EP_SCOPE_INHERITED)
		snprintf(buf, size, " (%.140s)", w->origin);
	else
		buf[0] = '\0';
}

/* The key of a result about waiver w: policy.waivers[I] for the
 * profile's own, shared.policy.waivers[I] for the store root's,
 * DIR/policy.waivers[I] for a folder's above the profile. */
static void
waiver_key(char *buf, size_t size, const struct ep_waiver *w)
{
	size_t n;

	if (w->scope == EP_SCOPE_SHARED)
		snprintf(buf, size, "shared.policy.waivers[%zu]", w->index);
	else if (w->scope == EP_SCOPE_INHERITED) {
		n = strlen(w->origin);
		if (n > 5 && strcmp(w->origin + n - 5, ".json") == 0)
			n -= 5;
		snprintf(buf, size, "%.*s.waivers[%zu]", (int)(n > 200 ? 200 :
		    n), w->origin, w->index);
	} else
		snprintf(buf, size, "policy.waivers[%zu]", w->index);
}

void
ep_results_waive(struct ep_results *rs, size_t from,
    const struct ep_policy *policy, time_t now)
{
	for (size_t i = from; i < rs->n; i++) {
		struct ep_result *r = &rs->v[i];
		const struct ep_waiver *w;
		char *msg, where[160];
		int state;

		/* A failure, or a warning someone has accepted by name. */
		if ((r->status != EP_FAIL && r->status != EP_WARN) ||
		    (w = ep_policy_waiver(policy, r->key, r->actual, now,
		    &state)) == NULL)
			continue;
		msg = r->message != NULL ? r->message : r->key;
		if (state == EP_WAIVER_OTHER_VALUE) {
			/* Not this value: the failure stands, and says which
			 * value the waiver was for. */
			set_owned(&r->message, xasprintf("%s; the waiver by %s "
			    "covers only %s, not %s", msg, w->owner,
			    w->accepts, r->actual != NULL ? r->actual :
			    "a missing key"));
			continue;
		}
		set_owned(&r->waiver_reason, xstrdup(w->reason));
		set_owned(&r->waiver_owner, xstrdup(w->owner));
		set_owned(&r->waiver_expires, xstrdup(w->expires));
		r->waiver = (int)w->seq + 1;
		from_where(where, sizeof where, w);
		if (state == EP_WAIVER_EXPIRED)
			msg = xasprintf("%s; waiver%s by %s expired on %s: %s",
			    msg, where, w->owner, w->expires, w->reason);
		else {
			r->status = EP_WAIVED;
			msg = xasprintf("%s; waived%s by %s until %s: %s", msg,
			    where, w->owner, w->expires, w->reason);
		}
		set_owned(&r->message, msg);
	}
}

void
ep_waivers_review(struct ep_results *rs, const struct ep_policy *policy,
    time_t now, int expiry_days)
{
	const struct ep_waiver *w;
	size_t nw, n = rs->n;
	char *used, key[256];
	int left;

	w = ep_policy_waivers(policy, &nw);
	if (nw == 0)
		return;
	used = xcalloc(nw, 1);
	for (size_t i = 0; i < n; i++) {
		int ix = rs->v[i].waiver - 1;

		for (size_t k = 0; ix >= 0 && k < nw; k++)
			if ((int)w[k].seq == ix)
				used[k] = 1;
	}
	for (size_t k = 0; k < nw; k++) {
		struct ep_result r = { 0 };
		char *msg = NULL;

		waiver_key(key, sizeof key, &w[k]);
		if (!used[k])
			msg = xasprintf("%s: the waiver for %s (%s, until %s) "
			    "waived nothing in this run: the drift it was for "
			    "is gone, or it never matched; remove it", key,
			    w[k].key, w[k].owner, w[k].expires);
		else if (ep_waiver_expires_within(&w[k], now, expiry_days,
		    &left))
			msg = left == 0 ? xasprintf("%s: the waiver for %s "
			    "(%s) expires today, %s", key, w[k].key,
			    w[k].owner, w[k].expires) : xasprintf("%s: the "
			    "waiver for %s (%s) expires on %s, in %d day%s",
			    key, w[k].key, w[k].owner, w[k].expires, left,
			    left == 1 ? "" : "s");
		if (msg == NULL)
			continue;
		r.key = key;
		r.area = "policy";
		r.status = EP_WARN;
		r.rule = "check:waivers";
		r.expected = (char *)w[k].expires;
		r.message = msg;
		r.waiver_reason = (char *)w[k].reason;
		r.waiver_owner = (char *)w[k].owner;
		r.waiver_expires = (char *)w[k].expires;
		ep_results_add(rs, &r);
		free(msg);
	}
	free(used);
}

int
ep_expiry_days(int *days, const char *text, struct ep_err *err)
{
	char *end;
	long d = -1;

	if (text[0] >= '0' && text[0] <= '9')
		d = strtol(text, &end, 10);
	if (d < 0 || *end != '\0' || d > 3650)
		return ep_err_set(err, EP_E_INPUT, "--expiry-warning %s: not "
		    "a number of days from 0 to 3650", text);
	*days = (int)d;
	return 0;
}

void
ep_results_capture_warnings(struct ep_results *rs,
    const struct ep_manifest *m)
{
	json_t *w = m != NULL && m->meta != NULL ?
	    json_object_get(m->meta, "warnings") : NULL;
	char key[48];
	json_t *v;
	size_t i;

	json_array_foreach(w, i, v) {
		struct ep_result r = { 0 };

		if (!json_is_string(v))
			continue;
		snprintf(key, sizeof key, "capture.warning[%zu]", i);
		r.key = key;
		r.area = "capture";
		r.status = EP_WARN;
		r.rule = "capture";
		r.message = xasprintf("%s: %s", key, json_string_value(v));
		ep_results_add(rs, &r);
		free(r.message);
	}
}
