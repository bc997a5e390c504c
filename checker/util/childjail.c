/*
 * childjail.c: how a helper is confined (child.h): decided once in the
 * parent (ep_child_jail_init), applied in each child between fork and
 * exec (ep_child_jail_enter), and reported (ep_child_confinement).
 *
 * A helper runs code a pull request may control.  It must not keep any
 * power over envparity, which holds the store token and will hold the
 * signing key:
 *  - no_new_privs, so that nothing it executes gains a privilege (a
 *    set-user-ID program, file capabilities);
 *  - as root (CI containers run as root), the user nobody when nobody can
 *    read what the helper must read (tried, not guessed: a pyenv under
 *    /root is not), else root without any capability, its securebits
 *    locked so that exec cannot give root's capabilities back: it cannot
 *    read a non-dumpable process's memory or environment, nor override
 *    a file's mode;
 *  - Landlock where the kernel has it (childland.c): only the files its
 *    work needs, even those of its own user;
 *  - a seccomp filter (childfilter.c): no socket, which Landlock does not
 *    fence (a Unix socket reached by its path, UDP).
 * A kernel without Landlock is no error; the report says so
 * (meta.confinement).
 */
#include "child_int.h"
#include "errors.h"
#include "strv.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT			47
#define PR_CAP_AMBIENT_CLEAR_ALL	4
#endif

/* Root gets no capability from exec (NOROOT), a change of user changes
 * none (NO_SETUID_FIXUP), none is kept across one (KEEP_CAPS off) or
 * raised as ambient: each locked. */
#define LOCKED_BITS	(SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | \
	SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED | \
	SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE | \
	SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

/* The last capability the kernel may know; higher numbers are refused
 * with EINVAL, which is harmless. */
#define CAP_MAX	63

/* What the helpers of each kind were confined by, this process. */
static char *said_by_kind[EP_CHILD_NKINDS];

void
ep_child_fs_clear(struct ep_child_fs *fs)
{
	ep_strv_clear(&fs->read);
	ep_strv_clear(&fs->write);
	ep_strv_clear(&fs->need);
}

void
ep_child_fs_path(struct ep_child_fs *fs, const char *path)
{
	while (path != NULL && *path != '\0') {
		size_t n = strcspn(path, ":");
		char *d;

		if (n > 0 && *path == '/') {
			d = xstrndup(path, n);
			if (!ep_strv_contains(&fs->read, d))
				ep_strv_push_owned(&fs->read, d);
			else
				free(d);
		}
		path += n + (path[n] == ':');
	}
}

/* Remove name under dirfd and everything below it, never following a
 * link: what a helper left there may be a link to anywhere. */
static void
remove_at(int at, const char *name, int depth)
{
	struct dirent *de;
	DIR *d;
	int fd;

	if (unlinkat(at, name, 0) == 0 || errno == ENOENT || depth > 64)
		return;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			remove_at(dirfd(d), de->d_name, depth + 1);
	closedir(d);
	(void)unlinkat(at, name, AT_REMOVEDIR);
}

/* A new private directory under $TMPDIR (when absolute) or /tmp. */
static int
make_tmpdir(char **out, struct ep_err *err)
{
	const char *base = getenv("TMPDIR");
	char *dir;

	if (base == NULL || *base != '/')
		base = "/tmp";
	dir = xasprintf("%s/envparity-helper.XXXXXX", base);
	if (mkdtemp(dir) == NULL) {
		ep_err_set(err, EP_E_IO, "%s: cannot make a directory for a "
		    "helper: %s", base, strerror(errno));
		free(dir);
		return -1;
	}
	*out = dir;
	return 0;
}

/* The unprivileged user helpers of root run as. */
static void
nobody(uid_t *uid, gid_t *gid)
{
	struct passwd *pw = getpwnam("nobody");

	*uid = pw != NULL ? pw->pw_uid : 65534;
	*gid = pw != NULL ? pw->pw_gid : 65534;
}

/* Become uid and gid, with gid as the only group (we are root). */
static int
become(uid_t uid, gid_t gid)
{
	if (syscall(SYS_setgroups, 1, &gid) < 0 ||
	    syscall(SYS_setresgid, gid, gid, gid) < 0 ||
	    syscall(SYS_setresuid, uid, uid, uid) < 0)
		return -errno;
	return 0;
}

/* In user_can's child: 0 when path may be used as asked: a file of
 * need read (and executed, when it has an execute bit); a tree of read
 * reached and read, unless it does not exist; a tree of write written. */
static int
usable(const char *path, int what)
{
	struct stat sb;
	int mode = R_OK;

	if (what == 'w')
		return access(path, R_OK | W_OK | X_OK);
	if (stat(path, &sb) < 0)
		return what == 'r' && errno == ENOENT ? 0 : -1;
	if (S_ISDIR(sb.st_mode) || (S_ISREG(sb.st_mode) &&
	    (sb.st_mode & 0111)))
		mode |= X_OK;
	return access(path, mode);
}

/*
 * Whether uid can read every file of need and every tree of read (the
 * helper's own, and the loader's directories), and write every
 * directory of write: tried in a child that becomes that user, so that
 * every rule of the filesystem (modes, access lists, the directories
 * above) is the kernel's own answer.  The child runs only this code,
 * never a helper's.  *failed (borrowed) names the first path refused; -1
 * when the check itself could not run.
 */
static int
user_can(uid_t uid, gid_t gid, const struct ep_strv *lists[3],
    const char **failed)
{
	static const char what[3] = { 'n', 'r', 'w' };
	pid_t pid;
	int st;

	*failed = NULL;
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		size_t k = 0;

		if (become(uid, gid) < 0)
			_exit(255);
		for (int l = 0; l < 3; l++)
			for (size_t i = 0; i < lists[l]->n; i++, k++)
				if (usable(lists[l]->v[i], what[l]) < 0)
					_exit(k < 250 ? (int)k + 1 : 250);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st) == 255)
		return -1;
	if (WEXITSTATUS(st) == 0)
		return 1;
	st = WEXITSTATUS(st) - 1;
	for (int l = 0; l < 3; l++) {
		if ((size_t)st < lists[l]->n) {
			*failed = lists[l]->v[st];
			break;
		}
		st -= (int)lists[l]->n;
	}
	if (*failed == NULL)
		*failed = "a path";
	return 0;
}

/* 1 when we hold CAP_SETPCAP, which locking the securebits takes. */
static int
have_setpcap(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof d);
	if (syscall(SYS_capget, &h, d) < 0)
		return 0;
	return (d[CAP_SETPCAP / 32].effective >> (CAP_SETPCAP % 32)) & 1;
}

/* Remember what confined a helper of this kind; distinct phrases are
 * kept, in order. */
static void
record(enum ep_child_kind kind, const char *said)
{
	char *old = said_by_kind[kind];

	if (old == NULL)
		said_by_kind[kind] = xstrdup(said);
	else if (strstr(old, said) == NULL) {
		said_by_kind[kind] = xasprintf("%s; then %s", old, said);
		free(old);
	}
}

const char *
ep_child_confinement(enum ep_child_kind kind)
{
	return kind < EP_CHILD_NKINDS ? said_by_kind[kind] : NULL;
}

/* Decide the user: nobody, root without capabilities, or ours.  Writes
 * the phrase to *who. */
static int
decide_user(struct ep_child_jail *j, const struct ep_child_fs *fs,
    const struct ep_strv *write, char **who, struct ep_err *err)
{
	static const struct ep_strv none = { 0 };
	struct ep_strv read = { 0 };
	const struct ep_strv *lists[3];
	const char *failed = NULL;
	char *why = NULL;
	int can, rc = -1;

	if (geteuid() != 0) {
		*who = xasprintf("user %u (envparity's), no capability",
		    (unsigned)geteuid());
		return 0;
	}
	nobody(&j->uid, &j->gid);
	if (chown(j->tmpdir, j->uid, j->gid) < 0) {
		ep_err_set(err, EP_E_IO, "%s: %s", j->tmpdir, strerror(errno));
		goto done;
	}
	for (size_t i = 0; fs != NULL && i < fs->read.n; i++)
		ep_strv_push(&read, fs->read.v[i]);
	ep_child_loader_dirs(&read);
	lists[0] = fs != NULL ? &fs->need : &none;
	lists[1] = &read;
	lists[2] = write;
	if ((can = user_can(j->uid, j->gid, lists, &failed)) < 0) {
		ep_err_set(err, EP_E_IO, "cannot check what user nobody may "
		    "read: %s", strerror(errno));
		goto done;
	}
	if (can) {
		j->as_user = 1;
		*who = xasprintf("user nobody (%u)", (unsigned)j->uid);
		rc = 0;
		goto done;
	}
	why = xstrdup(failed);
	/* Ours again: root without CAP_DAC_OVERRIDE writes only its own. */
	if (chown(j->tmpdir, 0, 0) < 0) {
		ep_err_set(err, EP_E_IO, "%s: %s", j->tmpdir, strerror(errno));
		goto done;
	}
	j->drop_caps = 1;
	*who = xasprintf("root without capabilities%s (nobody cannot open "
	    "%s)", have_setpcap() ? ", securebits locked" : "", why);
	rc = 0;
done:
	ep_strv_clear(&read);
	free(why);
	return rc;
}

int
ep_child_jail_init(struct ep_child_jail *j, enum ep_child_kind kind,
    const struct ep_child_fs *fs, struct ep_err *err)
{
	struct ep_strv write = { 0 }, refused = { 0 };
	struct ep_err lerr = { 0 };
	const char *dirs = getenv(EP_CHILD_DIRS_VAR);
	char *who = NULL, *fence = NULL, *sock = NULL;
	int rc = -1;

	memset(j, 0, sizeof *j);
	j->kind = kind;
	j->ruleset = -1;
	if (make_tmpdir(&j->tmpdir, err) < 0)
		goto done;
	ep_strv_push(&write, j->tmpdir);
	while (dirs != NULL && *dirs != '\0') {
		size_t n = strcspn(dirs, ":");

		if (n > 0 && *dirs == '/')
			ep_strv_push_owned(&write, xstrndup(dirs, n));
		dirs += n + (dirs[n] == ':');
	}
	for (size_t i = 0; fs != NULL && i < fs->write.n; i++)
		ep_strv_push(&write, fs->write.v[i]);
	if (decide_user(j, fs, &write, &who, err) < 0)
		goto done;
	if ((j->abi = ep_child_landlock_abi()) == 0)
		fence = xstrdup("no Landlock in this kernel: files, TCP and "
		    "signals not fenced");
	else if (ep_child_landlock_make(&j->ruleset, j->abi, kind,
	    fs != NULL ? &fs->read : NULL, &write, &refused, &lerr) < 0) {
		fence = xasprintf("no Landlock (%s): files, TCP and signals "
		    "not fenced", lerr.msg);
		j->abi = 0;
	} else {
		fence = xasprintf("Landlock ABI %d: its own files only%s%s",
		    j->abi, j->abi >= 4 ? ", no TCP" : "", j->abi >= 6 ?
		    ", no signal out" : "");
		for (size_t i = 0; i < refused.n; i++) {
			char *f = xasprintf("%s%s%s", fence, i == 0 ?
			    "; not allowed: " : ", ", refused.v[i]);

			free(fence);
			fence = f;
		}
	}
	if (kind != EP_CHILD_PLAIN && ep_child_filter_available()) {
		j->filter = 1;
		j->filter_unix = ep_child_filter_unix(kind);
		sock = xstrdup(j->filter_unix ? "no socket but Unix (MPS) and "
		    "netlink" : "no socket but netlink");
	} else
		sock = xstrdup(kind != EP_CHILD_PLAIN ? "sockets not fenced (no "
		    "seccomp filter for this architecture)" : "");
	j->said = xasprintf("%s; no_new_privs; %s%s%s", who, fence,
	    *sock != '\0' ? "; " : "", sock);
	record(kind, j->said);
	rc = 0;
done:
	if (rc < 0)
		ep_child_jail_clear(j);
	ep_strv_clear(&write);
	ep_strv_clear(&refused);
	free(who);
	free(fence);
	free(sock);
	return rc;
}

int
ep_child_jail_enter(const struct ep_child_jail *j, const char **step)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	int e;

	*step = "no_new_privs";
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	/* Ambient capabilities survive exec; older kernels have none. */
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (j->as_user || j->drop_caps)
		for (int cap = 0; cap <= CAP_MAX; cap++)
			(void)prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
	if (j->as_user) {
		*step = "becoming nobody";
		if ((e = become(j->uid, j->gid)) < 0)
			return e;
	} else {
		/* Locked, exec as root gives nothing back (no_new_privs
		 * already keeps it from gaining more than it has). */
		if (j->drop_caps)
			(void)prctl(PR_SET_SECUREBITS, LOCKED_BITS, 0, 0, 0);
		*step = "dropping capabilities";
		memset(d, 0, sizeof d);
		if (syscall(SYS_capset, &h, d) < 0)
			return -errno;
	}
	*step = "Landlock";
	if (j->ruleset >= 0 && (e = ep_child_landlock_enter(j->ruleset)) < 0)
		return e;
	*step = "seccomp";
	if (j->filter && (e = ep_child_filter_enter(j->filter_unix)) < 0)
		return e;
	return 0;
}

void
ep_child_jail_clear(struct ep_child_jail *j)
{
	if (j->ruleset >= 0)
		close(j->ruleset);
	if (j->tmpdir != NULL)
		remove_at(AT_FDCWD, j->tmpdir, 0);
	free(j->tmpdir);
	free(j->said);
	memset(j, 0, sizeof *j);
	j->ruleset = -1;
}
