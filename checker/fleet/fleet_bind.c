/*
 * fleet_bind.c: which node a manifest speaks for, and whether it may.
 * By default a manifest says so itself (meta.node, else its file's
 * name), which is all a directory every node can write offers: any
 * writer speaks for any node.  Under a binding the caller says instead,
 * through the file's name, NODE.json, as the scheduler's own channel
 * delivered it (--bind-filenames), or through NODE's signature over it
 * (--node-keys, opened by the command's ep_fleet_open_fn); a meta.node
 * that names another node is then that node's error, naming both.  And
 * a manifest captured longer ago than --max-age, a replay of yesterday's,
 * is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clean.h"
#include "fleet_int.h"
#include "hostlist.h"
#include "errors.h"
#include "xalloc.h"

/* Clocks of the nodes and of the aggregation differ a little. */
#define SKEW	300

char *
ep_fl_file_stem(const char *path)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b != NULL ? b + 1 : path;
	n = strlen(b);
	if (n > 5 && strcmp(b + n - 5, ".json") == 0)
		n -= 5;
	return xstrndup(b, n);
}

int
ep_fl_open(char **text, size_t *len, const struct ep_fleet_opts *o,
    const char *path, struct ep_err *err)
{
	char *node, *body = NULL;
	size_t blen;
	int rc = -1;

	if (o->open_signed == NULL)
		return 0;
	node = ep_fl_file_stem(path);
	if (!ep_hostlist_name_ok(node)) {
		ep_err_set(err, EP_E_INPUT, "%s: the file's name is not a node "
		    "name (letters, digits, '.', '_' and '-'): with "
		    "--node-keys a file is named after its node, NODE.json",
		    path);
		goto done;
	}
	if (o->open_signed(&body, &blen, o->open_arg, node, path, *text,
	    *len, err) < 0)
		goto done;
	free(*text);
	*text = body;
	*len = blen;
	rc = 0;
done:
	free(node);
	return rc;
}

void
ep_fl_envelope_said(const char *path, const char *text, size_t len,
    struct ep_err *err)
{
	json_t *j = json_loadb(text, len, 0, NULL);

	if (json_is_string(json_object_get(j, "payloadType")) &&
	    json_object_get(j, "facts") == NULL)
		ep_err_set(err, EP_E_INPUT, "%s: a signed manifest (a DSSE "
		    "envelope, capture --sign-key): name the nodes' public keys "
		    "with --node-keys DIR to open it", path);
	json_decref(j);
}

/* "YYYY-MM-DDTHH:MM:SSZ", as capture writes meta.captured_at. */
static int
parse_time(time_t *t, const char *s)
{
	struct tm tm = { 0 }, back;
	int n = 0;

	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon,
	    &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6 ||
	    n != 20 || s[n] != '\0')
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	back = tm;
	if ((*t = timegm(&tm)) == (time_t)-1 || tm.tm_mday != back.tm_mday ||
	    tm.tm_mon != back.tm_mon || tm.tm_hour != back.tm_hour ||
	    tm.tm_min != back.tm_min || tm.tm_sec != back.tm_sec)
		return -1;
	return 0;
}

static int
age_ok(const struct ep_fleet_opts *o, const char *path, json_t *meta,
    time_t now, struct ep_err *err)
{
	const char *at = json_string_value(json_object_get(meta,
	    "captured_at"));
	time_t t;

	if (o->max_age <= 0)
		return 0;
	if (at == NULL)
		return ep_err_set(err, EP_E_INPUT, "%s: no meta.captured_at, so "
		    "its age cannot be told (--max-age %s)", path,
		    o->max_age_text);
	if (parse_time(&t, at) < 0)
		return ep_err_set(err, EP_E_INPUT, "%s: meta.captured_at "
		    "'%.64s' is not a time (YYYY-MM-DDTHH:MM:SSZ)", path, at);
	if (t > now + SKEW)
		return ep_err_set(err, EP_E_INPUT, "%s: captured at %s, later "
		    "than this run (a clock more than %d s ahead?)", path, at,
		    SKEW);
	if ((long long)now - (long long)t > o->max_age)
		return ep_err_set(err, EP_E_INPUT, "%s: captured at %s, more "
		    "than %s before this run (--max-age)", path, at,
		    o->max_age_text);
	return 0;
}

int
ep_fl_name(char **name, const struct ep_fleet_opts *o, const char *path,
    json_t *meta, time_t now, struct ep_err *err)
{
	const char *said = json_string_value(json_object_get(meta, "node"));
	int bound = o->bind_names || o->open_signed != NULL;

	*name = bound || said == NULL ? ep_fl_file_stem(path) : xstrdup(said);
	if (!ep_hostlist_name_ok(*name))
		return ep_err_set(err, EP_E_INPUT, bound ? "%s: the file's name "
		    "'%.255s' is not a node name (letters, digits, '.', '_' and "
		    "'-'; not '.' or '..'), and the file's name names the node "
		    "(--bind-filenames)" : "%s: node name '%.255s' is not a node "
		    "name (letters, digits, '.', '_' and '-'; not '.' or '..')",
		    path, *name);
	if (bound && said != NULL && strcmp(said, *name) != 0)
		return ep_err_set(err, EP_E_INPUT, "%s: the manifest says it is "
		    "node '%.255s', but it came as node %s's (%s): a node "
		    "speaks only for itself", path, said, *name,
		    o->open_signed != NULL ? "its file's name and its "
		    "signature, --node-keys" : "its file's name, "
		    "--bind-filenames");
	return age_ok(o, path, meta, now, err);
}
