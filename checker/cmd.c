/*
 * cmd.c: the messages every subcommand shares (the table of them is
 * main.c's, above them all).
 */
#include "cmd.h"
#include "clean.h"
#include "manifest.h"
#include "outfile.h"
#include "report.h"

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
				return ep_err_set(err, EP_E_INPUT, "%s: given "
				    "for %s and %s", paths[i], what[k],
				    what[i]);
		for (size_t k = 0; k < 4; k++)
			if (rp[k] != NULL && ep_out_same(rp[k], paths[i],
			    EP_OUT_STDOUT))
				return ep_err_set(err, EP_E_INPUT, "%s: given "
				    "for %s and %s", paths[i], rw[k],
				    what[i]);
	}
	return 0;
}
