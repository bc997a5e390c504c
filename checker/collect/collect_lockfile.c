/*
 * collect_lockfile.c: lockfile.<path>.sha256 and lockfile.<path>.pin.<name>
 * for the lockfiles named with --lockfile and those found in the current
 * directory (unless --no-discover).
 *
 * This file decides which files are read, what their keys are, and what
 * trouble means: a file the user named that is missing, unreadable or
 * malformed stops the capture (exit 2), while one we merely found gets a
 * warning and, where it can be read, still its hash.  The formats
 * themselves are read by lockfile.c; the hashing is queued, so that it
 * runs in parallel and through the cache with every other file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"
#include "lockfile.h"
#include "errors.h"
#include "files.h"
#include "strv.h"
#include "xalloc.h"

/* At most this many lockfiles are picked up from the current directory,
 * and those are hashed up to this size. */
#define EP_LOCK_DISCOVER_MAX	64
#define EP_LOCK_HASH_MAX	((uintmax_t)256 << 20)

/* Trouble with one file: an error for a named file (returns -1), a
 * warning for a found one (returns 0); either way the file is done. */
static int trouble(struct ep_collect *, int, struct ep_err *, const char *,
    ...) __attribute__((format(printf, 4, 5)));

static int
trouble(struct ep_collect *c, int named, struct ep_err *err, const char *fmt,
    ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (named)
		ep_err_set(err, EP_E_INPUT, "%s", msg);
	else
		ep_manifest_warn(c->m, "%s", msg);
	free(msg);
	return named ? -1 : 0;
}

/* The key for a file: its path relative to the current directory cwd
 * (already resolved) when its directory is under it, so that "./x",
 * "x" and "$PWD/x" are one key; else the path as given.  The file name
 * itself is not resolved: a symbolic link keeps its own name. */
static char *
lock_key(const char *path, const char *cwd)
{
	const char *slash = strrchr(path, '/'), *base, *rel;
	char *dir, *rdir, *key;
	size_t n;

	base = slash != NULL ? slash + 1 : path;
	dir = ep_path_dir(path);
	rdir = realpath(dir, NULL);
	free(dir);
	if (rdir != NULL && cwd != NULL && (n = strlen(cwd)) > 0 &&
	    strncmp(rdir, cwd, n) == 0 &&
	    (rdir[n] == '\0' || rdir[n] == '/' || cwd[n - 1] == '/')) {
		rel = rdir + n;
		if (*rel == '/')
			rel++;
		key = *rel != '\0' ? xasprintf("%s/%s", rel, base) :
		    xstrdup(base);
	} else {
		while (path[0] == '.' && path[1] == '/') {
			path += 2;
			while (*path == '/')
				path++;
		}
		key = xstrdup(path);
	}
	free(rdir);
	return key;
}

static void
lock_pins(struct ep_collect *c, const char *key, struct ep_pins *pins)
{
	char *fact;

	ep_pins_merge(pins);
	for (size_t i = 0; i < pins->n; i++) {
		fact = xasprintf("lockfile.%s.pin.%s", key, pins->v[i].name);
		ep_manifest_set(c->m, fact, pins->v[i].version);
		free(fact);
	}
}

/* One lockfile: checks, the hash queued, the pins read. */
static int
lock_one(struct ep_collect *c, const char *path, int named, const char *cwd,
    struct ep_err *err)
{
	enum ep_lock_format fmt = ep_lock_format_of(path);
	struct ep_pins pins = { 0 };
	struct ep_err perr = { 0 };
	struct stat st;
	char *key = NULL, *fact = NULL, *buf = NULL;
	size_t len;
	int fd, rc = 0;

	/* Opened once, never blocking: a FIFO or /proc/kmsg that happens
	 * to be called uv.lock (or a link to one) must not hang the
	 * capture; the pins are read from this very descriptor. */
	if ((fd = ep_open_regular(path, &st, &perr)) < 0)
		return trouble(c, named, err, "%s", perr.msg);

	/* A file found unasked is hashed up to a size no lockfile reaches:
	 * a link to a terabyte file must not make the capture hash it. */
	if (!named && (uintmax_t)st.st_size > EP_LOCK_HASH_MAX) {
		ep_manifest_warn(c->m, "%s: too large to hash (%jd bytes, limit "
		    "%ju MiB for a lockfile found in the current directory; "
		    "name it with --lockfile to hash it)", path,
		    (intmax_t)st.st_size, (uintmax_t)(EP_LOCK_HASH_MAX >> 20));
		goto done;
	}
	key = lock_key(path, cwd);
	fact = xasprintf("lockfile.%s.sha256", key);
	ep_collect_hash_later(c, fact, path);
	if (fmt == EP_LOCK_OTHER)
		goto done;
	if ((uintmax_t)st.st_size > EP_LOCK_PARSE_MAX) {
		/* Not an error even when named: the hash is still taken. */
		ep_manifest_warn(c->m, "%s: too large to read pins (%jd bytes, "
		    "limit %zu MiB); only its hash is recorded", path,
		    (intmax_t)st.st_size, EP_LOCK_PARSE_MAX >> 20);
		goto done;
	}
	if (ep_read_fd(&buf, &len, fd, path, EP_LOCK_PARSE_MAX, &perr) < 0) {
		rc = trouble(c, named, err, "%s", perr.msg);
		goto done;
	}
	if (ep_lock_parse(&pins, fmt, buf, len, path, &perr) < 0) {
		if (named)
			rc = trouble(c, named, err, "%s", perr.msg);
		else
			ep_manifest_warn(c->m, "%s (%s lockfile; its pins are "
			    "not recorded)", perr.msg, ep_lock_format_name(fmt));
		goto done;
	}
	for (size_t i = 0; i < pins.warnings.n; i++)
		ep_manifest_warn(c->m, "%s", pins.warnings.v[i]);
	if (pins.dropped > 0)
		ep_manifest_warn(c->m, "%s: %zu more pins not recorded (at most "
		    "%d a lockfile)", path, pins.dropped, EP_LOCK_PINS_MAX);
	lock_pins(c, key, &pins);
done:
	ep_pins_clear(&pins);
	free(buf);
	free(fact);
	free(key);
	close(fd);
	return rc;
}

/* 1 if path names a file already done (by its real path), else remember
 * it and return 0. */
static int
lock_seen(struct ep_strv *seen, const char *path)
{
	char *id = realpath(path, NULL);

	if (id == NULL)
		id = xstrdup(path);
	if (ep_strv_contains(seen, id)) {
		free(id);
		return 1;
	}
	ep_strv_push_owned(seen, id);
	return 0;
}

/* The lockfiles in the current directory, sorted for a stable order of
 * warnings. */
static void
lock_discover(struct ep_collect *c, struct ep_strv *found)
{
	struct dirent *de;
	DIR *d;

	if ((d = opendir(".")) == NULL) {
		ep_manifest_warn(c->m, "current directory: cannot look for "
		    "lockfiles: %s", strerror(errno));
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (ep_lock_format_of(de->d_name) != EP_LOCK_OTHER)
			ep_strv_push(found, de->d_name);
	closedir(d);
	ep_strv_sort(found);
	/* A checkout with ten thousand requirements files is a flood, not
	 * a project: the first ones, by name, and a warning. */
	if (found->n > EP_LOCK_DISCOVER_MAX) {
		ep_manifest_warn(c->m, "current directory: %zu more lockfiles "
		    "not read (at most %d are found; name others with "
		    "--lockfile)", found->n - EP_LOCK_DISCOVER_MAX,
		    EP_LOCK_DISCOVER_MAX);
		while (found->n > EP_LOCK_DISCOVER_MAX)
			free(found->v[--found->n]);
		found->v[found->n] = NULL;
	}
}

int
ep_collect_lockfiles(struct ep_collect *c, struct ep_err *err)
{
	const struct ep_capture_opts *o = c->opts;
	struct ep_strv seen = { 0 }, found = { 0 };
	char *cwd = NULL, *rcwd;
	int rc = -1;

	if ((cwd = getcwd(NULL, 0)) != NULL) {
		rcwd = realpath(cwd, NULL);
		free(cwd);
		cwd = rcwd;
	}
	for (size_t i = 0; i < o->lockfiles.n; i++) {
		if (lock_seen(&seen, o->lockfiles.v[i]))
			continue;
		if (lock_one(c, o->lockfiles.v[i], 1, cwd, err) < 0)
			goto done;
	}
	if (!o->no_discover) {
		lock_discover(c, &found);
		for (size_t i = 0; i < found.n; i++)
			if (!lock_seen(&seen, found.v[i]))
				lock_one(c, found.v[i], 0, cwd, err);
	}
	rc = 0;
done:
	ep_strv_clear(&seen);
	ep_strv_clear(&found);
	free(cwd);
	return rc;
}
