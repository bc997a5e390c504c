/*
 * cmd.c: the messages every subcommand shares (their table is
 * cmdtable.c's, above them all).
 */
#include "cmd.h"
#include "clean.h"
#include "manifest.h"
#include "outfile.h"
#include "report.h"
#include "errors.h"
#include "xalloc.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
ep_cmd_usage_error(const struct ep_cmd *self, const char *fmt, ...)
{
	va_list ap;
	char *m;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	ep_say(stderr, "envparity %s: %s", self->name, m);
	ep_say(stderr, "Try 'envparity %s --help'.", self->name);
	free(m);
	return EP_EXIT_USAGE;
}

int
ep_cmd_message_check(const struct ep_cmd *self, const char *message)
{
	if (message == NULL || strspn(message, " \t\r\n") != strlen(message))
		return 0;
	return ep_cmd_usage_error(self, "the message is empty");
}

/* Longer words are never compared (nothing that long is a near miss). */
#define DIST_MAX_LEN	64

/* The optimal-string-alignment distance (Damerau-Levenshtein without
 * substring moves: insertions, deletions, substitutions and swaps of two
 * neighbours) between a and b; DIST_MAX_LEN + 1 when either is longer. */
static size_t
ep_cmd_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[3][DIST_MAX_LEN + 1];
	size_t *pp, *p, *q, v;

	if (la > DIST_MAX_LEN || lb > DIST_MAX_LEN)
		return DIST_MAX_LEN + 1;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		pp = d[(i + 1) % 3];	/* row i - 2 */
		p = d[(i + 2) % 3];	/* row i - 1 */
		q = d[i % 3];		/* row i */
		q[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			v = p[j - 1] + (a[i - 1] != b[j - 1]);
			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (q[j - 1] + 1 < v)
				v = q[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			q[j] = v;
		}
	}
	return d[la % 3][lb];
}

const char *
ep_cmd_suggest(const char *word, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t len = strlen(word), limit = len <= 3 ? 1 : 2, bd = limit + 1;
	size_t d, prefixed = 0;
	const char *prefix = NULL;

	if (len == 0)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(names[i], word, len) == 0) {
			prefixed++;
			prefix = names[i];
		}
		if ((d = ep_cmd_distance(word, names[i])) < bd) {
			bd = d;
			best = names[i];
		}
	}
	if (best == NULL && prefixed == 1)
		best = prefix;
	return best;
}

int
ep_cmd_bad_option(const struct ep_cmd *self, int c,
    const struct option *longopts, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : NULL, *eq, *hint;
	const char *names[128], *amb[8];
	char *name = NULL, *list = NULL, *t;
	size_t n = 0, namb = 0, more = 0, len;
	int rc, islong;

	/* A long option's error names it by argv[optind - 1]; a short
	 * one's (optopt, perhaps inside "-qx") by its letter.  getopt_long
	 * sets optopt to 0 for an unknown long option, and to the option's
	 * value for one that lacks or refuses a value. */
	islong = arg != NULL && strncmp(arg, "--", 2) == 0 && arg[2] != '\0';
	if (islong && optopt != 0 && c == '?' && strchr(arg, '=') == NULL)
		islong = 0;	/* "--quiet -x": the short -x is unknown */
	if (!islong) {
		if (c == ':')
			return ep_cmd_usage_error(self, "option '-%c' needs a "
			    "value", optopt);
		if (optopt > 0x20 && optopt < 0x7f)
			return ep_cmd_usage_error(self, "unknown option "
			    "'-%c'", optopt);
		return ep_cmd_usage_error(self, "unknown option '%s'",
		    arg != NULL ? arg : "");
	}
	eq = strchr(arg + 2, '=');
	len = eq != NULL ? (size_t)(eq - (arg + 2)) : strlen(arg + 2);
	name = xstrndup(arg + 2, len);
	if (c == ':') {
		rc = ep_cmd_usage_error(self, "option '--%s' needs a value",
		    name);
		goto done;
	}
	for (size_t i = 0; longopts[i].name != NULL; i++) {
		if (strcmp(longopts[i].name, name) == 0 && eq != NULL &&
		    longopts[i].has_arg == no_argument) {
			rc = ep_cmd_usage_error(self, "option '--%s' takes no "
			    "value", name);
			goto done;
		}
		if (n < sizeof names / sizeof names[0])
			names[n++] = longopts[i].name;
		if (strncmp(longopts[i].name, name, len) == 0) {
			if (namb < sizeof amb / sizeof amb[0])
				amb[namb++] = longopts[i].name;
			else
				more++;
		}
	}
	if (len > 0 && namb > 1) {
		list = xstrdup("");
		for (size_t i = 0; i < namb; i++) {
			t = xasprintf("%s%s'--%s'", list, i ? ", " : "",
			    amb[i]);
			free(list);
			list = t;
		}
		rc = ep_cmd_usage_error(self, "option '--%s' is ambiguous: "
		    "%s%s", name, list, more ? ", ..." : "");
		goto done;
	}
	if ((hint = ep_cmd_suggest(name, names, n)) != NULL)
		rc = ep_cmd_usage_error(self, "unknown option '--%s'; did you "
		    "mean '--%s'?", name, hint);
	else
		rc = ep_cmd_usage_error(self, "unknown option '--%s'", name);
done:
	free(list);
	free(name);
	return rc;
}

int
ep_cmd_fail(const struct ep_cmd *self, const struct ep_err *err)
{
	ep_say(stderr, "envparity %s: %s", self->name,
	    err->msg[0] ? err->msg : "failed");
	return err->kind ? err->kind : EP_EXIT_NORUN;
}

void
ep_cmd_warn(const char *fmt, ...)
{
	va_list ap;
	char *m;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	ep_say(stderr, "envparity: warning: %s", m);
	free(m);
}

void
ep_cmd_echo_meta(const struct ep_manifest *m)
{
	json_t *w = json_object_get(m->meta, "warnings");
	json_t *u = json_object_get(m->meta, "unavailable");
	const char *area;
	json_t *v;
	size_t i;

	json_array_foreach(w, i, v)
		ep_cmd_warn("%s", json_string_value(v));
	json_object_foreach(u, area, v)
		ep_cmd_warn("%s not checked: %s", area, json_string_value(v));
}

int
ep_cmd_outputs_check(int *stdout_taken, const struct ep_reportopt *ro,
    const char *const *paths, const char *const *what, size_t n,
    struct ep_err *err)
{
	const char *rp[] = { ro->json, ro->junit, ro->markdown, ro->prom };
	const char *rw[] = { "--json", "--junit", "--markdown", "--prom" };

	*stdout_taken = 0;
	for (size_t i = 0; i < n; i++) {
		if (paths[i] == NULL)
			continue;
		if (ep_out_check(paths[i], EP_OUT_STDOUT, err) < 0)
			return -1;
		if (ep_out_stream(paths[i], EP_OUT_STDOUT) == 1)
			*stdout_taken = 1;
		for (size_t k = 0; k < i; k++)
			if (paths[k] != NULL && ep_out_same(paths[k], paths[i],
			    EP_OUT_STDOUT))
				return ep_reports_clash(err, paths[i], what[k],
				    what[i]);
		for (size_t k = 0; k < 4; k++)
			if (rp[k] != NULL && ep_out_same(rp[k], paths[i],
			    EP_OUT_STDOUT))
				return ep_reports_clash(err, paths[i], rw[k],
				    what[i]);
	}
	return 0;
}

int
ep_cmd_print_json(json_t *root, struct ep_err *err)
{
	char *raw = json_dumps(root, JSON_SORT_KEYS | JSON_INDENT(2)), *text;
	int rc = 0;

	json_decref(root);
	if (raw == NULL)
		return ep_err_set(err, EP_E_IO, "cannot serialize JSON");
	text = ep_json_clean(raw);
	free(raw);
	if (printf("%s\n", text) < 0 || fflush(stdout) == EOF)
		rc = ep_err_set(err, EP_E_IO, "standard output: write failed");
	free(text);
	return rc;
}
