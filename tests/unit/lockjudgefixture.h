/*
 * lockjudgefixture.h: what the tests of the environment against its own
 * lockfile share (test_lockjudge.c, test_lockjudge_formats.c): a marker
 * environment, the judgement of a lockfile's text against a manifest,
 * its findings, and a Python environment's facts.  Header-only.
 */
#ifndef EP_LOCKJUDGEFIXTURE_H
#define EP_LOCKJUDGEFIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "lockfile.h"
#include "lockjudge.h"
#include "manifest.h"
#include "errors.h"

#define LJFX_UNUSED __attribute__((unused))

/* CPython 3.11 on Linux x86_64. */
static LJFX_UNUSED struct ep_markerenv linux311 = { {
	[EP_MV_IMPLEMENTATION_NAME] = "cpython",
	[EP_MV_OS_NAME] = "posix",
	[EP_MV_PLATFORM_MACHINE] = "x86_64",
	[EP_MV_PLATFORM_SYSTEM] = "Linux",
	[EP_MV_PYTHON_FULL_VERSION] = "3.11.7",
	[EP_MV_PYTHON_VERSION] = "3.11",
	[EP_MV_SYS_PLATFORM] = "linux",
} };

/* The judgement of text (format f) against m, with groups (NULL: the
 * default). */
static LJFX_UNUSED json_t *
judge(const struct ep_manifest *m, enum ep_lock_format f, const char *text,
    const char *const *groups)
{
	struct ep_pins pins = { 0 };
	struct ep_err err = { 0 };
	struct ep_strv g = { 0 };
	struct ep_lockjudge lj = { .groups = &g, .env = &linux311,
	    .conda_platform = "linux-64" };
	json_t *j;

	for (size_t i = 0; groups != NULL && groups[i] != NULL; i++)
		ep_strv_push(&g, groups[i]);
	if (ep_lock_parse(&pins, f, text, strlen(text), "lock", &err) < 0)
		fail_msg("%s", err.msg);
	j = ep_lock_judge(m, f, &pins, &lj);
	ep_pins_clear(&pins);
	ep_strv_clear(&g);
	return j;
}

/* "kind pin installed" of name's finding, "" when there is none. */
static LJFX_UNUSED const char *
found(json_t *j, const char *name)
{
	static char buf[256];
	json_t *f = json_object_get(json_object_get(j, "findings"), name);
	const char *pin, *have;

	if (f == NULL)
		return "";
	pin = json_string_value(json_object_get(f, "pin"));
	have = json_string_value(json_object_get(f, "installed"));
	snprintf(buf, sizeof buf, "%s %s %s",
	    json_string_value(json_object_get(f, "kind")), pin ? pin : "-",
	    have ? have : "-");
	return buf;
}

static LJFX_UNUSED size_t
nfound(json_t *j)
{
	return json_object_size(json_object_get(j, "findings"));
}

static LJFX_UNUSED struct ep_manifest *
python_env(void)
{
	struct ep_manifest *m = ep_manifest_new();

	ep_manifest_set(m, "python.pkg.alpha", "2.0");
	ep_manifest_set(m, "python.pkg.gamma", "1.0.0");
	ep_manifest_set(m, "python.pkg.delta", "1.0");
	ep_manifest_set(m, "python.pkg.pip", "23.0.1");
	ep_manifest_set(m, "python.pkg.setuptools", "66.1.1");
	ep_manifest_set(m, "python.pkg.mine", "0.1");
	json_object_set_new(m->meta, "python", json_pack("{s:{s:s}}",
	    "editable", "mine", "/src/mine"));
	return m;
}

/* poetry.lock 1.x: category, optional; what poetry install --sync would
 * change, by default and with --lock-group. */

#endif
