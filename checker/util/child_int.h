/*
 * child_int.h: what the child*.c files share, and no one else: the
 * Landlock ruleset a jail is built on (childland.c), the seccomp filter
 * (childfilter.c), and one child forked, confined and executed
 * (childspawn.c).
 */
#ifndef EP_CHILD_INT_H
#define EP_CHILD_INT_H

#include "child.h"

/* The directories the dynamic loader may take a library from besides the
 * system's: those of the libraries this process was started with (a
 * relocatable build's own lib/), LD_LIBRARY_PATH's absolute entries and
 * those /etc/ld.so.conf lists (its includes followed), appended to out. */
void ep_child_loader_dirs(struct ep_strv *out);

/* A Landlock ruleset for kernel ABI abi (1 or more) that lets a helper of
 * this kind read and execute the system's files, the loader's
 * directories and read, read /proc and /sys, use /dev/null and the NVIDIA
 * devices, and write only the trees of write; no TCP from ABI 4 on, no
 * signal or abstract socket beyond its own processes from ABI 6 on.  A
 * path that does not exist is left out, and so is one that is or holds
 * a protected file (outfile.h: the signing key), whoever named it: it is
 * added to refused as "PATH (holds WHAT)".  *out is a close-on-exec
 * descriptor; -1 with err (EP_E_IO) when the kernel refuses the ruleset. */
int ep_child_landlock_make(int *out, int abi, enum ep_child_kind kind,
    const struct ep_strv *read, const struct ep_strv *write,
    struct ep_strv *refused, struct ep_err *err);

/* Restrict this process to ruleset (after no_new_privs): 0 or -errno.
 * A system call only, for the child between fork and exec. */
int ep_child_landlock_enter(int ruleset);

/* --- the seccomp filter (childfilter.c) ---------------------------- */

/* 1 where this build has a filter for its architecture (x86-64, arm64). */
int ep_child_filter_available(void);

/* 1 when helpers of kind keep Unix sockets: the probe, where a GPU is
 * shared through MPS (CUDA_MPS_PIPE_DIRECTORY set, or /tmp/nvidia-mps). */
int ep_child_filter_unix(enum ep_child_kind kind);

/* Install the filter (after no_new_privs): socket(2) of any family but
 * netlink (and Unix when allow_unix) fails with EACCES, io_uring_setup
 * with ENOSYS, a system call of another ABI kills the process.  0 or
 * -errno; 0 and nothing installed where none is available.  System
 * calls only, for the child between fork and exec. */
int ep_child_filter_enter(int allow_unix);

/* --- one child forked, confined, executed (childspawn.c) ----------- */

/* What a child needs between fork and exec, all made before the fork:
 * after it, only system calls (another thread of ours may hold a lock of
 * the C library's, or the allocator's, forever in the copy).  report is
 * ep_child_spawn's own. */
struct ep_child_spawn {
	const char *path;
	char *const *argv, *const *envp;
	const char *dir;
	const struct ep_child_jail *jail;
	int nullfd, outfd, errfd, report;
};

/* Fork s->path in its own process group, with standard input nullfd,
 * output outfd and error errfd, in dir, confined by jail
 * (ep_child_jail_enter), no other descriptor of ours, and exec it: 0
 * with its pid in *pid (the caller reaps it), or an errno when it could
 * not start, with the step that failed in step ("" for the exec itself;
 * the child is then reaped).  The descriptors of s stay the caller's. */
int ep_child_spawn(pid_t *pid, const struct ep_child_spawn *s, char *step,
    size_t stepsize);

#endif
