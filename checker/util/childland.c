/*
 * childland.c: the Landlock ruleset that confines a helper to the files
 * its work needs (child_int.h), and the loader's directories it is built
 * from.
 *
 * Landlock (Linux 5.13 and later) lets an unprivileged process give up
 * access to every file outside a list of trees, for itself and whatever
 * it executes; a process so confined also loses ptrace-style access
 * (/proc/PID/environ, mem, fd) to processes outside its domain, such as
 * envparity itself.  So a key in the user's home or the job's temporary
 * directory cannot be opened by a helper even when it runs as the same
 * user, and the cache, the store and the outputs cannot be written.
 *
 * The constants and structures are the kernel's ABI (linux/landlock.h),
 * spelled out here because the C library's headers may predate the ABI
 * the kernel speaks: the rights of each ABI are asked for only when the
 * kernel says it has them.
 */
#include "child_int.h"
#include "outfile.h"
#include "errors.h"
#include "files.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset	444
#define SYS_landlock_add_rule		445
#define SYS_landlock_restrict_self	446
#endif

#define LL_CREATE_RULESET_VERSION	(1u << 0)
#define LL_RULE_PATH_BENEATH		1

/* Filesystem rights, by the ABI that brought them. */
#define LL_EXECUTE	(1ull << 0)
#define LL_WRITE_FILE	(1ull << 1)
#define LL_READ_FILE	(1ull << 2)
#define LL_READ_DIR	(1ull << 3)
#define LL_ABI1_ALL	((1ull << 13) - 1)	/* up to MAKE_SYM */
#define LL_REFER	(1ull << 13)		/* ABI 2 */
#define LL_TRUNCATE	(1ull << 14)		/* ABI 3 */
#define LL_IOCTL_DEV	(1ull << 15)		/* ABI 5 */
/* Network rights (ABI 4) and scopes (ABI 6). */
#define LL_NET_BIND_TCP		(1ull << 0)
#define LL_NET_CONNECT_TCP	(1ull << 1)
#define LL_SCOPE_ABSTRACT_UNIX	(1ull << 0)
#define LL_SCOPE_SIGNAL		(1ull << 1)

/* The rights a rule on a file (not a directory) may carry. */
#define LL_FILE_RIGHTS	(LL_EXECUTE | LL_WRITE_FILE | LL_READ_FILE | \
	LL_TRUNCATE | LL_IOCTL_DEV)

#define RX	(LL_EXECUTE | LL_READ_FILE | LL_READ_DIR)
#define RO	(LL_READ_FILE | LL_READ_DIR)
#define DEV	(LL_READ_FILE | LL_WRITE_FILE | LL_TRUNCATE)
#define GPU	(DEV | LL_IOCTL_DEV | LL_READ_DIR)

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;	/* ABI 4 */
	uint64_t scoped;		/* ABI 6 */
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

/* The system's programs and libraries, and the few files under /etc that
 * the loader, the C library and an interpreter read at start (never
 * /etc as a whole: it holds the host's keys). */
static const char *const system_rx[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
	"/etc/ld.so.preload", "/etc/localtime", "/etc/passwd", "/etc/group",
	"/etc/nsswitch.conf", "/etc/alternatives", "/etc/nvidia", NULL,
};

static const char *const system_ro[] = { "/proc", "/sys", NULL };

static const char *const devices[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	NULL,
};

struct ruleset {
	int fd;
	uint64_t handled;
	struct ep_strv *refused;	/* "PATH (holds WHAT)" */
};

/* Allow access beneath path (or to the file path), as far as the kernel
 * handles it.  A path that cannot be opened is left out: it cannot be
 * needed, and a jail without it is only stricter.  So is a tree that
 * holds a protected file (the signing key: outfile.h), whoever named it:
 * a library folder the judged environment linked to the key's, or a
 * folder of ENVPARITY_CHILD_DIRS the key lies in, never opens the key to
 * a helper; the rule is left out and said. */
static void
allow(const struct ruleset *rs, const char *path, uint64_t access)
{
	struct ll_path_beneath_attr pb;
	struct stat st;
	const char *what;
	int fd;

	if ((fd = open(path, O_PATH | O_CLOEXEC)) < 0)
		return;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return;
	}
	if ((what = ep_out_protected_within(&st)) != NULL) {
		char *r = xasprintf("%s (holds %s)", path, what);

		if (!ep_strv_contains(rs->refused, r))
			ep_strv_push(rs->refused, r);
		free(r);
		close(fd);
		return;
	}
	if (!S_ISDIR(st.st_mode))
		access &= LL_FILE_RIGHTS;
	pb.allowed_access = access & rs->handled;
	pb.parent_fd = fd;
	if (pb.allowed_access != 0)
		(void)syscall(SYS_landlock_add_rule, rs->fd,
		    LL_RULE_PATH_BENEATH, &pb, 0);
	close(fd);
}

static void
allow_list(const struct ruleset *rs, const char *const *v, uint64_t access)
{
	for (size_t i = 0; v[i] != NULL; i++)
		allow(rs, v[i], access);
}

static void
allow_strv(const struct ruleset *rs, const struct ep_strv *v,
    uint64_t access)
{
	for (size_t i = 0; v != NULL && i < v->n; i++)
		allow(rs, v->v[i], access);
}

/* /dev/nvidia0, /dev/nvidiactl, /dev/nvidia-uvm, /dev/nvidia-caps/...:
 * the driver's devices, opened read-write and driven by ioctl. */
static void
allow_gpus(const struct ruleset *rs)
{
	glob_t g;

	if (glob("/dev/nvidia*", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			allow(rs, g.gl_pathv[i], GPU);
		globfree(&g);
	}
}

/* One file of the ld.so.conf syntax: a directory per line, "include
 * GLOB" (relative to /etc), comments after '#'. */
static void
read_ldconf(struct ep_strv *out, const char *path, int depth)
{
	char line[4096], *p, *e;
	FILE *f;

	if (depth > 8 || (f = fopen(path, "re")) == NULL)
		return;
	while (fgets(line, sizeof line, f) != NULL) {
		if ((p = strchr(line, '#')) != NULL)
			*p = '\0';
		p = ep_trim(line);
		if (strncmp(p, "include", 7) == 0 && (p[7] == ' ' ||
		    p[7] == '\t')) {
			glob_t g;
			char *pat;

			e = ep_trim(p + 8);
			pat = *e == '/' ? xstrdup(e) : xasprintf("/etc/%s", e);
			if (glob(pat, 0, NULL, &g) == 0) {
				for (size_t i = 0; i < g.gl_pathc; i++)
					read_ldconf(out, g.gl_pathv[i],
					    depth + 1);
				globfree(&g);
			}
			free(pat);
		} else if (*p == '/' && !ep_strv_contains(out, p))
			ep_strv_push(out, p);
	}
	fclose(f);
}

/* dl_iterate_phdr's callback: the folder of each library mapped. */
static int
own_dir(struct dl_phdr_info *info, size_t size, void *data)
{
	struct ep_strv *out = data;
	char *d;

	(void)size;
	if (info->dlpi_name == NULL || info->dlpi_name[0] != '/' ||
	    (d = ep_path_dir(info->dlpi_name)) == NULL)
		return 0;
	if (*d == '/' && !ep_strv_contains(out, d))
		ep_strv_push_owned(out, d);
	else
		free(d);
	return 0;
}

void
ep_child_loader_dirs(struct ep_strv *out)
{
	const char *ld = getenv("LD_LIBRARY_PATH");

	/* Where this process's own libraries were taken from: the helpers
	 * it execs (itself, envparity-probe beside it) load them too, and a
	 * relocatable build's lib/ (tools/reloc.sh) is on no system list.
	 * Only what the loader mapped at start is there: envparity itself
	 * dlopens nothing of the environment it judges. */
	dl_iterate_phdr(own_dir, out);

	while (ld != NULL && *ld != '\0') {
		size_t n = strcspn(ld, ":");

		/* Relative entries are the checkout's (child.h). */
		if (n > 0 && *ld == '/') {
			char *d = xstrndup(ld, n);

			if (!ep_strv_contains(out, d))
				ep_strv_push_owned(out, d);
			else
				free(d);
		}
		ld += n + (ld[n] == ':');
	}
	read_ldconf(out, "/etc/ld.so.conf", 0);
}

int
ep_child_landlock_make(int *out, int abi, enum ep_child_kind kind,
    const struct ep_strv *read, const struct ep_strv *write,
    struct ep_strv *refused, struct ep_err *err)
{
	struct ll_ruleset_attr attr;
	struct ep_strv loader = { 0 };
	struct ruleset rs;
	size_t size = sizeof attr.handled_access_fs;
	uint64_t rw;

	*out = -1;
	memset(&attr, 0, sizeof attr);
	attr.handled_access_fs = LL_ABI1_ALL | (abi >= 2 ? LL_REFER : 0) |
	    (abi >= 3 ? LL_TRUNCATE : 0) | (abi >= 5 ? LL_IOCTL_DEV : 0);
	if (abi >= 4) {
		attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
		size = offsetof(struct ll_ruleset_attr, scoped);
	}
	if (abi >= 6) {
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
		size = sizeof attr;
	}
	rs.handled = attr.handled_access_fs;
	rs.refused = refused;
	rs.fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (rs.fd < 0)
		return ep_err_set(err, EP_E_IO, "Landlock ruleset: %s",
		    strerror(errno));
	(void)fcntl(rs.fd, F_SETFD, FD_CLOEXEC);
	/* Everything but running what it wrote. */
	rw = rs.handled & ~LL_EXECUTE;
	allow_list(&rs, system_rx, RX);
	allow_list(&rs, system_ro, RO);
	allow_list(&rs, devices, DEV);
	allow_gpus(&rs);
	/* CUDA's processes share memory there. */
	if (kind == EP_CHILD_PROBE)
		allow(&rs, "/dev/shm", rw);
	ep_child_loader_dirs(&loader);
	allow_strv(&rs, &loader, RX);
	allow_strv(&rs, read, RX);
	allow_strv(&rs, write, rw);
	ep_strv_clear(&loader);
	*out = rs.fd;
	return 0;
}

int
ep_child_landlock_enter(int ruleset)
{
	if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
		return -errno;
	return 0;
}

int
ep_child_landlock_abi(void)
{
	static int abi = -1;
	long v;

	if (abi < 0) {
		v = syscall(SYS_landlock_create_ruleset, NULL, 0,
		    LL_CREATE_RULESET_VERSION);
		abi = v > 0 ? (int)v : 0;
	}
	return abi;
}
