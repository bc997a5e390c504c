/*
 * policy_query.c: what a parsed policy says about a key: the first rule
 * whose glob matches it, the waiver that covers it at a date, and every
 * live waiver that still would (for unwaive).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "policy.h"
#include "keyglob.h"
#include "policy_int.h"
#include "verrange.h"

const struct ep_rule *
ep_policy_match(const struct ep_policy *p, const char *key)
{
	for (size_t i = 0; i < p->nrules; i++)
		if (ep_glob_match(p->rules[i].key, key))
			return &p->rules[i];
	return &p->rules[p->nrules - 1];	/* the catch-all */
}

const struct ep_rule *
ep_policy_rules(const struct ep_policy *p, size_t *n)
{
	*n = p->nrules;
	return p->rules;
}

/* Today's date in UTC as YYYY-MM-DD into buf (16 bytes); -1 if now
 * cannot be written so. */
static int
utc_date(char *buf, time_t now)
{
	struct tm tm;

	if (gmtime_r(&now, &tm) == NULL ||
	    strftime(buf, 16, "%Y-%m-%d", &tm) != 10)
		return -1;
	return 0;
}

static int
accepts(const struct ep_waiver *w, const char *actual)
{
	if (w->actual == NULL && w->range == NULL)
		return 1;
	if (actual == NULL)
		return 0;
	if (w->actual != NULL)
		return strcmp(w->actual, actual) == 0;
	return ep_verrange_match(w->range, actual) == 1;
}

const struct ep_waiver *
ep_policy_waiver(const struct ep_policy *p, const char *key,
    const char *actual, time_t now, int *state)
{
	const struct ep_waiver *old = NULL, *other = NULL;
	char today[16];

	*state = EP_WAIVER_NONE;
	if (utc_date(today, now) < 0)
		return NULL;
	for (size_t i = 0; i < p->nwaivers; i++) {
		const struct ep_waiver *w = &p->waivers[i];
		/* YYYY-MM-DD strings order as the dates do. */
		int live = strcmp(w->expires, today) >= 0;

		if (!ep_glob_match(w->key, key))
			continue;
		if (!accepts(w, actual)) {
			if (live && other == NULL)
				other = w;
			continue;
		}
		if (live) {
			*state = EP_WAIVER_LIVE;
			return w;
		}
		if (old == NULL)
			old = w;
	}
	if (old != NULL) {
		*state = EP_WAIVER_EXPIRED;
		return old;
	}
	if (other != NULL)
		*state = EP_WAIVER_OTHER_VALUE;
	return other;
}

int
ep_waiver_expires_within(const struct ep_waiver *w, time_t now, int days,
    int *left)
{
	struct tm tm = { 0 };
	char today[16];
	time_t end, start;

	*left = 0;
	if (utc_date(today, now) < 0 || strcmp(w->expires, today) < 0)
		return 0;
	tm.tm_year = atoi(w->expires) - 1900;
	tm.tm_mon = atoi(w->expires + 5) - 1;
	tm.tm_mday = atoi(w->expires + 8);
	end = timegm(&tm);
	memset(&tm, 0, sizeof tm);
	tm.tm_year = atoi(today) - 1900;
	tm.tm_mon = atoi(today + 5) - 1;
	tm.tm_mday = atoi(today + 8);
	start = timegm(&tm);
	*left = (int)((end - start) / 86400);
	return *left <= days;
}

const struct ep_waiver *
ep_policy_waivers(const struct ep_policy *p, size_t *n)
{
	*n = p->nwaivers;
	return p->waivers;
}

const struct ep_waiver *
ep_policy_waiver_covering(const struct ep_policy *p, const char *key,
    time_t now, size_t *n)
{
	const struct ep_waiver *first = NULL;
	char today[16];

	*n = 0;
	if (utc_date(today, now) < 0)
		return NULL;
	for (size_t i = 0; i < p->nwaivers; i++) {
		const struct ep_waiver *w = &p->waivers[i];

		if (strcmp(w->expires, today) < 0 ||
		    !ep_glob_match(w->key, key))
			continue;
		if (first == NULL)
			first = w;
		(*n)++;
	}
	return first;
}
