/*
 * cmd.c: the subcommand table and the messages every subcommand shares.
 */
#include "cmd.h"
#include "clean.h"
#include "manifest.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct ep_cmd *const ep_cmd_table[] = {
	&ep_cmd_capture,
	&ep_cmd_check,
	&ep_cmd_bless,
	&ep_cmd_diff,
	&ep_cmd_log,
	&ep_cmd_probe,
	&ep_cmd_digest,
	&ep_cmd_version,
	NULL,
};

const struct ep_cmd *
ep_cmd_find(const char *name)
{
	for (size_t i = 0; ep_cmd_table[i] != NULL; i++)
		if (strcmp(ep_cmd_table[i]->name, name) == 0)
			return ep_cmd_table[i];
	return NULL;
}

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
