/*
 * files.c: the file helpers every module shares: reading a file whole
 * within a size cap, opening only regular files, a file's identity,
 * making folders (files.h); the cache folder envparity trusts
 * (cachedir.h); a process's /proc/PID/stat (procstat.h).
 */
#include "cachedir.h"
#include "ci.h"
#include "errors.h"
#include "files.h"
#include "procstat.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

int
ep_read_fd(char **out, size_t *len, int fd, const char *path, size_t max,
    struct ep_err *err)
{
	struct stat st;
	char *buf = NULL;
	size_t cap, n = 0;
	ssize_t r;
	int rc = -1;

	*out = NULL;
	if (len != NULL)
		*len = 0;
	if (fstat(fd, &st) < 0)
		return ep_err_set(err, EP_E_INPUT, "%s: %s", path,
		    strerror(errno));
	if (S_ISDIR(st.st_mode))
		return ep_err_set(err, EP_E_INPUT, "%s: is a directory", path);
	if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > max)
		return ep_err_set(err, EP_E_INPUT,
		    "%s: too large (%jd bytes, limit %zu)", path,
		    (intmax_t)st.st_size, max);
	cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 4096;
	buf = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			if (cap > max) {
				ep_err_set(err, EP_E_INPUT,
				    "%s: too large (limit %zu bytes)", path,
				    max);
				goto done;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ep_err_set(err, EP_E_INPUT, "%s: %s", path,
			    strerror(errno));
			goto done;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		ep_err_set(err, EP_E_INPUT, "%s: too large (limit %zu bytes)",
		    path, max);
		goto done;
	}
	buf[n] = '\0';
	*out = buf;
	buf = NULL;
	if (len != NULL)
		*len = n;
	rc = 0;
done:
	free(buf);
	return rc;
}

int
ep_read_file(char **out, size_t *len, const char *path, size_t max,
    struct ep_err *err)
{
	int fd, rc;

	*out = NULL;
	if (len != NULL)
		*len = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return ep_err_set(err, EP_E_INPUT, "%s: %s", path,
		    strerror(errno));
	rc = ep_read_fd(out, len, fd, path, max, err);
	close(fd);
	return rc;
}

int
ep_read_regular(char **out, size_t *len, const char *path, size_t max,
    struct ep_err *err)
{
	struct stat st;
	int fd, rc;

	*out = NULL;
	if (len != NULL)
		*len = 0;
	if ((fd = ep_open_regular(path, &st, err)) < 0)
		return -1;
	rc = ep_read_fd(out, len, fd, path, max, err);
	close(fd);
	return rc;
}

const char *
ep_mode_kind(mode_t m)
{
	if (S_ISREG(m))
		return "a regular file";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISLNK(m))
		return "a symbolic link";
	return "not a regular file";
}

const char *
ep_fd_pseudo_fs(int fd)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} pseudo[] = {
		{ 0x9fa0, "proc" },		/* PROC_SUPER_MAGIC */
		{ 0x62656572, "sysfs" },	/* SYSFS_MAGIC */
		{ 0x64626720, "debugfs" },	/* DEBUGFS_MAGIC */
		{ 0x74726163, "tracefs" },	/* TRACEFS_MAGIC */
		{ 0x73636673, "securityfs" },	/* SECURITYFS_MAGIC */
		{ 0x27e0eb, "cgroup" },		/* CGROUP_SUPER_MAGIC */
		{ 0x63677270, "cgroup2" },	/* CGROUP2_SUPER_MAGIC */
		{ 0xcafe4a11, "bpf" },		/* BPF_FS_MAGIC */
		{ 0x62656570, "configfs" },	/* CONFIGFS_MAGIC */
		{ 0xde5e81e4, "efivarfs" },	/* EFIVARFS_MAGIC */
		{ 0x6165676c, "pstore" },	/* PSTOREFS_MAGIC */
	};
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return NULL;
	for (size_t i = 0; i < sizeof pseudo / sizeof pseudo[0]; i++)
		if ((unsigned long)sf.f_type == pseudo[i].magic)
			return pseudo[i].name;
	return NULL;
}

int
ep_open_regular(const char *path, struct stat *st, struct ep_err *err)
{
	const char *fs;
	int fd;

	/* What the path is, before anything is opened: opening a device
	 * can act (a watchdog, a tape); the type is checked again on what
	 * was opened, in case it changed in between. */
	if (stat(path, st) == 0 && !S_ISREG(st->st_mode))
		return ep_err_set(err, EP_E_INPUT, "%s: %s, not a regular file",
		    path, ep_mode_kind(st->st_mode));
	/* O_NONBLOCK: a FIFO opens without waiting for a writer, and stays
	 * set, so that nothing read through fd can block. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
	    O_NOCTTY)) < 0)
		return ep_err_set(err, EP_E_INPUT, "%s: cannot read: %s", path,
		    strerror(errno));
	if (fstat(fd, st) < 0) {
		ep_err_set(err, EP_E_INPUT, "%s: cannot read: %s", path,
		    strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st->st_mode)) {
		ep_err_set(err, EP_E_INPUT, "%s: %s, not a regular file", path,
		    ep_mode_kind(st->st_mode));
		goto fail;
	}
	if ((fs = ep_fd_pseudo_fs(fd)) != NULL) {
		ep_err_set(err, EP_E_INPUT, "%s: a file of %s, not a regular "
		    "file", path, fs);
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

char *
ep_file_identity(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return xstrdup("-");
	return xasprintf("%ju:%ju:%jd:%jd.%09ld:%jd.%09ld",
	    (uintmax_t)st.st_dev, (uintmax_t)st.st_ino, (intmax_t)st.st_size,
	    (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
	    (intmax_t)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
}

char *
ep_path_dir(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

int
ep_mkdirs(const char *path, struct ep_err *err)
{
	return ep_mkdirs_mode(path, 0755, err);
}

int
ep_mkdirs_mode(const char *path, mode_t mode, struct ep_err *err)
{
	char *p = xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			rc = ep_err_set(err, EP_E_IO, "%s: cannot create: %s",
			    p, strerror(errno));
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return rc;
}

/* Why a directory that holds answers we trust cannot be trusted, or
 * NULL: it must be ours and writable by nobody else (as ssh asks of
 * ~/.ssh); its parent must be ours or root's, and if others may write
 * there, sticky (so that nobody can rename ours away and put theirs in
 * its place). */
static char *
untrusted_dir(const char *dir)
{
	struct stat st;
	char *parent, *slash, *why = NULL;
	uid_t me = geteuid();

	if (lstat(dir, &st) < 0)
		return xasprintf("%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return xasprintf("%s: %s, not a directory", dir,
		    ep_mode_kind(st.st_mode));
	if (st.st_uid != me)
		return xasprintf("%s: owned by uid %ju, not by this user (uid "
		    "%ju)", dir, (uintmax_t)st.st_uid, (uintmax_t)me);
	if (st.st_mode & 022)
		return xasprintf("%s: writable by group or others (mode %04o)",
		    dir, (unsigned)(st.st_mode & 07777));
	parent = xstrdup(dir);
	if ((slash = strrchr(parent, '/')) != NULL)
		*(slash == parent ? slash + 1 : slash) = '\0';
	if (stat(parent, &st) < 0)
		why = xasprintf("%s: %s", parent, strerror(errno));
	else if (st.st_uid != me && st.st_uid != 0)
		why = xasprintf("%s: owned by uid %ju, neither this user nor "
		    "root", parent, (uintmax_t)st.st_uid);
	else if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))
		why = xasprintf("%s: writable by group or others and not "
		    "sticky (mode %04o)", parent,
		    (unsigned)(st.st_mode & 07777));
	free(parent);
	return why;
}

char *
ep_cache_dir_trusted(char **why)
{
	const char *x = getenv("XDG_CACHE_HOME");
	struct ep_err err = { 0 };
	char *dir;

	*why = NULL;
	/* In CI the default, ~/.cache/envparity of the runner's user, is
	 * where an earlier job of that user (a pull request's code) may
	 * have planted an answer, whatever wrapper runs envparity now: a
	 * cache is kept between runs only where one is named. */
	if (ep_ci_var() != NULL && (x == NULL || x[0] != '/'))
		return NULL;
	if ((dir = ep_cache_dir()) == NULL)
		return NULL;
	if (access(dir, F_OK) != 0 && ep_mkdirs_mode(dir, 0700, &err) < 0) {
		*why = xstrdup(err.msg);
		free(dir);
		return NULL;
	}
	if ((*why = untrusted_dir(dir)) != NULL) {
		free(dir);
		return NULL;
	}
	return dir;
}

char *
ep_cache_dir(void)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");

	if (x != NULL && x[0] == '/')
		return xasprintf("%s/envparity", x);
	if (h != NULL && h[0] == '/')
		return xasprintf("%s/.cache/envparity", h);
	return NULL;
}

const char *
ep_proc_stat(char *buf, size_t size, pid_t pid)
{
	char path[64];
	ssize_t r;
	int fd;

	if (pid == 0)
		snprintf(path, sizeof path, "/proc/self/stat");
	else
		snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (size < 2 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	r = read(fd, buf, size - 1);
	close(fd);
	if (r <= 0)
		return NULL;
	buf[r] = '\0';
	return strrchr(buf, ')');
}
