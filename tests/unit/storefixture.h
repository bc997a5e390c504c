/*
 * storefixture.h: what the store unit tests (test_store.c,
 * test_store_bless.c) share: a scratch directory with a git config of its
 * own, shell commands run in it, and opening, blessing and reading a store.
 */
#ifndef EP_STOREFIXTURE_H
#define EP_STOREFIXTURE_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store.h"
#include "testutil.h"

#define STFX_UNUSED __attribute__((unused))

static STFX_UNUSED char dir[128];
static STFX_UNUSED char cwd[4096];
static STFX_UNUSED const struct ep_author ada = { "Ada Lovelace", "ada@example.org" };

/* Run a shell command in the scratch directory; its exit status. */
static STFX_UNUSED __attribute__((format(printf, 1, 2))) int
sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd, *full;
	int rc;

	va_start(ap, fmt);
	cmd = xvasprintf(fmt, ap);
	va_end(ap);
	full = xasprintf("cd '%s' && { %s; } >/dev/null 2>&1", dir, cmd);
	rc = system(full);
	free(cmd);
	free(full);
	return rc == 0 ? 0 : 1;
}

/* The first line a shell command prints, or "" (a static buffer). */
static STFX_UNUSED __attribute__((format(printf, 1, 2))) const char *
sh_out(const char *fmt, ...)
{
	static char line[4096];
	va_list ap;
	char *cmd, *full;
	FILE *p;

	va_start(ap, fmt);
	cmd = xvasprintf(fmt, ap);
	va_end(ap);
	full = xasprintf("cd '%s' && %s 2>/dev/null", dir, cmd);
	line[0] = '\0';
	if ((p = popen(full, "r")) != NULL) {
		if (fgets(line, sizeof line, p) == NULL)
			line[0] = '\0';
		pclose(p);
	}
	line[strcspn(line, "\n")] = '\0';
	free(cmd);
	free(full);
	return line;
}

static STFX_UNUSED int
setup(void **state)
{
	char *cache;

	(void)state;
	if (getcwd(cwd, sizeof cwd) == NULL ||
	    tu_scratch_make(dir, sizeof dir, "store") < 0)
		return -1;
	cache = xasprintf("%s/cache", dir);
	setenv("XDG_CACHE_HOME", cache, 1);
	free(cache);
	/* git config of our own: no user.name unless a test sets one. */
	setenv("HOME", dir, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	unsetenv("ENVPARITY_STORE");
	unsetenv("ENVPARITY_PROFILE");
	return chdir(dir);
}

static STFX_UNUSED int
teardown(void **state)
{
	(void)state;
	ep_store_before_update = NULL;
	if (chdir(cwd) < 0)
		return -1;
	return tu_scratch_remove(dir);
}

static STFX_UNUSED struct ep_store *
open_store(const char *spec, const char *ref)
{
	struct ep_store_opts o = { spec, ref, 0 };
	struct ep_store *s = NULL;
	struct ep_err err = { 0 };

	if (ep_store_open(&s, &o, &err) < 0)
		fail_msg("open %s: %s", spec ? spec : "(default)", err.msg);
	return s;
}

static STFX_UNUSED void
bless_ok(char commit[41], struct ep_store *s, const char *profile,
    const char *text)
{
	struct ep_err err = { 0 };

	if (ep_store_bless(commit, s, profile, text, "test bless", &ada,
	    &err) < 0)
		fail_msg("bless %s: %s", profile, err.msg);
	assert_int_equal(strlen(commit), 40);
}

/* The manifest of profile at the head, or NULL. */
static STFX_UNUSED char *
read_manifest(struct ep_store *s, const char *profile, char commit[41])
{
	struct ep_store_info info = { 0 };
	struct ep_store_policies p = { 0 };
	struct ep_err err = { 0 };
	char *m = NULL;

	if (ep_store_read(&m, &p, &info, s, profile, &err) < 0)
		fail_msg("read %s: %s", profile, err.msg);
	if (commit != NULL)
		strcpy(commit, info.commit);
	ep_store_policies_clear(&p);
	ep_store_info_clear(&info);
	return m;
}

#endif
