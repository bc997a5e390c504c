/*
 * casefile.h: the parser of the case files (tests/unit/cases/NAME.test)
 * that test_cases.c runs: decision tables kept as data, as jq keeps its
 * tests (tests/jq.test).  Header-only: test_cases.c is its one user, and
 * its own tests (test_driver_*) parse strings with it.
 *
 * The format (blocks separated by blank lines; '#' starts a comment
 * line; a line that starts with a space or a tab continues the field
 * above it, after a newline, so a policy may span lines):
 *
 *   golden: {"KEY": "VALUE", ...}       the golden manifest's facts
 *   golden.unavailable: {"AREA": "WHY"} optional: its meta.unavailable
 *   current: {...}                      this machine's facts
 *   current.unavailable: {...}          optional
 *   policy: -                           the defaults, or the policy file's
 *                                       text as it is ("policy.json")
 *   now: 2026-11-22T12:00:00Z           optional (this is the default):
 *                                       the clock waivers are judged by
 *   STATUS [RULE] MESSAGE               one line per result, in the order
 *                                       ep_compare gives them
 *
 * or, for a policy that must be refused, only
 *
 *   policy: TEXT
 *   refused: MESSAGE                    ep_policy_parse's message, whole
 *
 * or, for the globs rules and waivers name keys with, only
 *
 *   glob: PATTERN                       the rest of the line, as it is
 *   match: KEY / no match: KEY          ep_glob_match, KEY as it is
 *   names: yes|no                       ep_glob_names
 *   covers PREFIX: yes|no               ep_glob_covers (PREFIX "every
 *                                       key" is the prefix "")
 *
 * A malformed block (an unknown line, a field given twice, a field
 * missing, facts that are no JSON object of strings, a time that is none)
 * is refused with the file and line, never skipped.
 */
#ifndef EP_CASEFILE_H
#define EP_CASEFILE_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "compare.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

/* One block of a case file.  Strings are owned; NULL: not given. */
struct tc_case {
	int line;		/* its first line */
	char *golden, *golden_unavail, *current, *current_unavail;
	char *policy;		/* "-": the defaults */
	char *now;
	char *refused;
	struct ep_strv want;	/* the expected result lines */
	char *glob;		/* a glob block's pattern */
	struct ep_strv ask;	/* its questions, each "LINE\tTEXT" */
	char **last;		/* the field a continuation line extends */
};

struct tc_file {
	struct tc_case *v;
	size_t n;
};

static void
tc_case_clear(struct tc_case *c)
{
	free(c->golden);
	free(c->golden_unavail);
	free(c->current);
	free(c->current_unavail);
	free(c->policy);
	free(c->now);
	free(c->refused);
	free(c->glob);
	ep_strv_clear(&c->want);
	ep_strv_clear(&c->ask);
	memset(c, 0, sizeof *c);
}

static void
tc_file_free(struct tc_file *f)
{
	for (size_t i = 0; i < f->n; i++)
		tc_case_clear(&f->v[i]);
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

/* "2026-11-22T12:00:00Z" into *t; -1 when text is not such a time (the
 * 30th of February included). */
static int
tc_time(time_t *t, const char *text)
{
	struct tm tm = { 0 }, back;
	int n = 0;

	if (sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon,
	    &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6 ||
	    text[n] != '\0')
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	back = tm;
	if ((*t = timegm(&tm)) == (time_t)-1 || tm.tm_mday != back.tm_mday ||
	    tm.tm_hour != back.tm_hour || tm.tm_min != back.tm_min ||
	    tm.tm_sec != back.tm_sec)
		return -1;
	return 0;
}

/* 0 when text is a JSON object whose values are all strings; else -1 and
 * why (size n) says what it is not. */
static int
tc_string_object(const char *text, char *why, size_t n)
{
	json_error_t jerr;
	json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	const char *k;
	json_t *v;
	int rc = 0;

	if (o == NULL) {
		snprintf(why, n, "not JSON: %s", jerr.text);
		return -1;
	}
	if (!json_is_object(o)) {
		snprintf(why, n, "not a JSON object");
		rc = -1;
	} else
		json_object_foreach(o, k, v)
			if (!json_is_string(v) && rc == 0) {
				snprintf(why, n, "the value of \"%s\" is not a "
				    "string", k);
				rc = -1;
			}
	json_decref(o);
	return rc;
}

/* A result line: "STATUS [RULE] MESSAGE". */
static int
tc_result_line(const char *s)
{
	for (int st = 0; st < EP_NSTATUS; st++) {
		const char *name = ep_status_name(st);
		size_t n = strlen(name);

		if (strncmp(s, name, n) == 0 && strncmp(s + n, " [", 2) == 0)
			return strstr(s + n + 2, "] ") != NULL;
	}
	return 0;
}

/* A question to a glob: "match: KEY", "no match: KEY", "names: yes|no",
 * "covers PREFIX: yes|no" ("covers every key: ..." for the prefix ""). */
static int
tc_glob_question(const char *s)
{
	const char *colon;

	if (ep_startswith(s, "match: ") || ep_startswith(s, "no match: ") ||
	    strcmp(s, "match:") == 0 || strcmp(s, "no match:") == 0)
		return 1;
	if (!ep_startswith(s, "names: ") && !ep_startswith(s, "covers "))
		return 0;
	colon = strrchr(s, ':');
	return strcmp(colon, ": yes") == 0 || strcmp(colon, ": no") == 0;
}

/* The block c, ended at a blank line or the end of the file: complete? */
static int
tc_case_check(const struct tc_case *c, const char *file, struct ep_err *err)
{
	char why[200];

	if (c->glob != NULL || c->ask.n > 0) {
		if (c->glob == NULL || c->ask.n == 0 || c->policy != NULL ||
		    c->golden != NULL || c->current != NULL ||
		    c->golden_unavail != NULL || c->current_unavail != NULL ||
		    c->now != NULL || c->refused != NULL || c->want.n > 0)
			return ep_err_set(err, EP_E_INPUT, "%s:%d: a glob block "
			    "has one \"glob:\" line and its questions (match:, "
			    "no match:, names:, covers ...:), nothing else",
			    file, c->line);
		return 0;
	}
	if (c->policy == NULL)
		return ep_err_set(err, EP_E_INPUT, "%s:%d: the block has no "
		    "\"policy:\" line", file, c->line);
	if (c->refused != NULL) {
		if (c->golden != NULL || c->current != NULL ||
		    c->golden_unavail != NULL || c->current_unavail != NULL ||
		    c->now != NULL || c->want.n > 0)
			return ep_err_set(err, EP_E_INPUT, "%s:%d: a \"refused:\" "
			    "block has only \"policy:\" and \"refused:\"", file,
			    c->line);
		return 0;
	}
	if (c->golden == NULL || c->current == NULL)
		return ep_err_set(err, EP_E_INPUT, "%s:%d: the block needs "
		    "\"golden:\" and \"current:\" lines", file, c->line);
	if (c->want.n == 0)
		return ep_err_set(err, EP_E_INPUT, "%s:%d: the block expects no "
		    "result (a comparison gives one at least)", file, c->line);
	if (tc_string_object(c->golden, why, sizeof why) < 0 ||
	    tc_string_object(c->current, why, sizeof why) < 0 ||
	    (c->golden_unavail != NULL &&
	    tc_string_object(c->golden_unavail, why, sizeof why) < 0) ||
	    (c->current_unavail != NULL &&
	    tc_string_object(c->current_unavail, why, sizeof why) < 0))
		return ep_err_set(err, EP_E_INPUT, "%s:%d: facts or "
		    "unavailable areas: %s", file, c->line, why);
	return 0;
}

/* The field a "NAME: value" line sets, or NULL. */
static char **
tc_field(struct tc_case *c, const char *line, const char **value)
{
	static const struct {
		const char *name;
		size_t off;
	} f[] = {
		{ "golden:", offsetof(struct tc_case, golden) },
		{ "golden.unavailable:", offsetof(struct tc_case,
		    golden_unavail) },
		{ "current:", offsetof(struct tc_case, current) },
		{ "current.unavailable:", offsetof(struct tc_case,
		    current_unavail) },
		{ "policy:", offsetof(struct tc_case, policy) },
		{ "now:", offsetof(struct tc_case, now) },
		{ "refused:", offsetof(struct tc_case, refused) },
		{ "glob:", offsetof(struct tc_case, glob) },
	};

	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if (ep_startswith(line, f[i].name)) {
			*value = line + strlen(f[i].name);
			*value += strspn(*value, " \t");
			return (char **)((char *)c + f[i].off);
		}
	return NULL;
}

/* One line of a block (not blank, not a comment) into c. */
static int
tc_line(struct tc_case *c, char *line, const char *file, int lineno,
    struct ep_err *err)
{
	const char *value;
	char **field, *joined;
	time_t t;

	if (*line == ' ' || *line == '\t') {
		if (c->last == NULL)
			return ep_err_set(err, EP_E_INPUT, "%s:%d: a continued "
			    "line continues no field", file, lineno);
		joined = xasprintf("%s\n%s", *c->last, line);
		free(*c->last);
		*c->last = joined;
		return 0;
	}
	c->last = NULL;
	if ((field = tc_field(c, line, &value)) != NULL) {
		if (*field != NULL)
			return ep_err_set(err, EP_E_INPUT, "%s:%d: the field is "
			    "given twice in the block", file, lineno);
		if (field == &c->now && tc_time(&t, value) < 0)
			return ep_err_set(err, EP_E_INPUT, "%s:%d: \"%s\" is not "
			    "a time (2026-11-22T12:00:00Z)", file, lineno,
			    value);
		*field = xstrdup(value);
		c->last = field;
		return 0;
	}
	if (tc_result_line(line)) {
		ep_strv_push(&c->want, line);
		return 0;
	}
	if (tc_glob_question(line)) {
		ep_strv_push_owned(&c->ask, xasprintf("%d\t%s", lineno, line));
		return 0;
	}
	return ep_err_set(err, EP_E_INPUT, "%s:%d: neither a field (golden:, "
	    "current:, policy:, ...), nor a result (STATUS [RULE] MESSAGE), "
	    "nor a question to a glob, nor a comment: %.60s", file, lineno,
	    line);
}

/*
 * Parse text (a case file's contents; file names it in messages) into
 * *out, which the caller frees with tc_file_free.  -1 with err naming the
 * file and line of the first malformed block.
 */
static int
tc_parse(struct tc_file *out, const char *text, const char *file,
    struct ep_err *err)
{
	char *copy = xstrdup(text), *p = copy, *nl;
	struct tc_case c = { 0 };
	int lineno = 0, rc = 0, open = 0;

	memset(out, 0, sizeof *out);
	for (;; p = nl + 1) {
		int blank;

		lineno++;
		if ((nl = strchr(p, '\n')) != NULL)
			*nl = '\0';
		blank = p[strspn(p, " \t\r")] == '\0';
		if (!blank && *p == '#')
			;
		else if (!blank) {
			if (!open) {
				c.line = lineno;
				open = 1;
			}
			if ((rc = tc_line(&c, p, file, lineno, err)) < 0)
				goto done;
		} else if (open) {
			if ((rc = tc_case_check(&c, file, err)) < 0)
				goto done;
			c.last = NULL;
			out->v = xreallocarray(out->v, out->n + 1,
			    sizeof *out->v);
			out->v[out->n++] = c;
			memset(&c, 0, sizeof c);
			open = 0;
		}
		if (nl == NULL)
			break;
	}
	if (open) {
		if ((rc = tc_case_check(&c, file, err)) < 0)
			goto done;
		out->v = xreallocarray(out->v, out->n + 1, sizeof *out->v);
		out->v[out->n++] = c;
		memset(&c, 0, sizeof c);
	}
done:
	tc_case_clear(&c);
	if (rc < 0)
		tc_file_free(out);
	free(copy);
	return rc;
}

#endif
