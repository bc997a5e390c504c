/*
 * child.h: what every child process of envparity gets, and how it ends.
 *
 * envparity runs code it does not own: an interpreter (and the shim in
 * front of it), CUDA libraries found under site-packages and --lib-path,
 * the reference workload.  On a CI runner those come from the checkout of
 * a pull request, while envparity holds the store token and, later, the
 * signing key.  So (OpenSSH's privilege separation is the model):
 *
 *  - such code runs only in a freshly executed helper, never in a fork()
 *    copy of our memory: nothing we read (a token, a key, libgit2's and
 *    libcurl's buffers) is in its address space;
 *  - a helper's environment is an allowlist for its kind of work
 *    (ep_child_env), with a denylist of credentials (ep_child_secret)
 *    as a second gate;
 *  - between fork and exec a helper is confined (ep_child_jail_enter):
 *    no_new_privs; as root, another user or no capability at all; and
 *    where the kernel has Landlock, only the files its work needs, no
 *    TCP, no signal or ptrace-style access to us;
 *  - a program is never found through a relative PATH entry (".", "bin",
 *    or an empty entry, which means "."): the checkout is the current
 *    directory;
 *  - when a child ends, by itself or killed at its deadline, everything it
 *    started goes with it: envparity is the subreaper of its descendants,
 *    so even one that left the process group and session (setsid) and
 *    outlived its parent is found and killed.
 *
 * Implemented in childenv.c (the environment, PATH), childjail.c (the
 * confinement), child_run.c (running programs) and child.c (killing a
 * tree).
 */
#ifndef EP_CHILD_H
#define EP_CHILD_H

#include <stddef.h>
#include <sys/types.h>

#include "errors.h"
#include "strv.h"

/* --- the environment (childenv.c) ---------------------------------- */

/* The kinds of helper, each with the variables its work needs. */
enum ep_child_kind {
	EP_CHILD_PLAIN,		/* a program of ours: the common ones */
	EP_CHILD_PYTHON,	/* an interpreter asked for its paths */
	EP_CHILD_LOADER,	/* a library loaded to ask its version */
	EP_CHILD_PROBE,		/* envparity-probe, the reference workload */
	EP_CHILD_NKINDS,
};

/* Extra variables for every helper: names, or NAME* for a prefix,
 * separated by commas, colons or white space (a probe wrapper's
 * settings, a test double's). */
#define EP_CHILD_ENV_VAR	"ENVPARITY_CHILD_ENV"

/* 1 when the environment entry ("NAME=value"; a bare NAME is judged by
 * its name alone) must not reach a child: a name on the denylist, under a
 * denied prefix (AWS_, GOOGLE_, ...), with a word such as TOKEN, SECRET,
 * PASSWORD, AUTH or KEY between its underscores, or a value holding a URL
 * with user information ("https://user:token@host").  The list is
 * docs/manifest.md, "What child processes see". */
int ep_child_secret(const char *entry);

/* 1 when the entry may reach a helper of this kind: its name is on the
 * kind's allowlist (docs/manifest.md, "What child processes see") or in
 * ENVPARITY_CHILD_ENV, and ep_child_secret does not refuse it. */
int ep_child_env_allowed(const char *entry, enum ep_child_kind kind);

/* Fill out (emptied first) with the entries of our environment that
 * ep_child_env_allowed lets through, in their order, and PATH less its
 * relative and empty entries; out->v is an envp even when empty.  Never
 * fails. */
void ep_child_env(struct ep_strv *out, enum ep_child_kind kind);

/* Set NAME=value in env, replacing an entry of that name; unset removes
 * every entry of that name. */
void ep_child_env_set(struct ep_strv *env, const char *name,
    const char *value);
void ep_child_env_unset(struct ep_strv *env, const char *name);

/* The value of name in env (borrowed), or NULL. */
const char *ep_child_env_get(const struct ep_strv *env, const char *name);

/* Find the executable file name on PATH (or /usr/local/bin:/usr/bin:/bin
 * when PATH is unset), looking only in absolute directories.  *out is a
 * new string; 0 when found.  -1 when not, with *relative (may be NULL)
 * set to the number of relative or empty PATH entries passed over. */
int ep_child_which(char **out, const char *name, unsigned *relative);

/* Called first in main(): when LD_LIBRARY_PATH holds a relative or empty
 * entry (".", "lib", "", each the current directory, the checkout under
 * test), drop them and exec this program again, since the dynamic loader
 * reads its search path only at start: otherwise every library a child
 * loads could pull its dependencies from the checkout.  Returns 0 when
 * there is nothing to drop; -1 with err (EP_E_IO) when the new process
 * cannot start. */
int ep_child_sane_loader(char **argv, struct ep_err *err);

/* --- confinement (childjail.c) ------------------------------------- */

/* Directories every helper may also read and write, separated by colons
 * (a probe wrapper's logs). */
#define EP_CHILD_DIRS_VAR	"ENVPARITY_CHILD_DIRS"

/* What a helper's work touches, besides the system's programs and
 * libraries, the loader's directories (LD_LIBRARY_PATH, /etc/ld.so.conf),
 * /proc, /sys, /dev/null and the NVIDIA devices, which every helper may
 * read (childjail.c lists them). */
struct ep_child_fs {
	struct ep_strv read;	/* files and trees to read and execute */
	struct ep_strv write;	/* trees to read and write */
	struct ep_strv need;	/* files it cannot work without (the program,
				   the libraries): as root, the helper runs
				   as nobody only if nobody can read them */
};
void ep_child_fs_clear(struct ep_child_fs *fs);

/* Add the absolute folders of path (a PATH value; NULL is fine) to
 * fs->read: what a script in front of a program may execute by name. */
void ep_child_fs_path(struct ep_child_fs *fs, const char *path);

/* How helpers are confined, decided once in the parent and applied in
 * each child between fork and exec (ep_child_jail_enter). */
struct ep_child_jail {
	enum ep_child_kind kind;
	int ruleset;		/* Landlock ruleset, -1 without one */
	int abi;		/* the kernel's Landlock ABI, 0 without */
	int as_user;		/* become uid/gid (we are root) */
	uid_t uid;
	gid_t gid;
	int drop_caps;		/* stay root, without any capability */
	int filter;		/* install the seccomp filter */
	int filter_unix;	/* and keep Unix sockets (MPS) */
	char *tmpdir;		/* private and writable: the helper's TMPDIR,
				   removed with its content by _clear */
	char *said;		/* what applies, in a phrase (owned) */
};

/* Decide how helpers of this kind are confined, for the work fs
 * describes (may be NULL: the system only):
 *  - always no_new_privs, and no ambient capability;
 *  - when we are root: the user nobody when nobody can read every file
 *    of fs->need and write the helper's directories (checked by trying),
 *    else root without any capability (effective, permitted,
 *    inheritable, ambient and bounding sets empty, securebits locked so
 *    that exec cannot give them back);
 *  - a seccomp filter (where this build has one) that refuses every
 *    socket but netlink, and Unix ones but for a probe under MPS;
 *  - where the kernel has Landlock: a ruleset that allows reading only
 *    the system's files, the loader's directories and fs->read, writing
 *    only the private TMPDIR, fs->write and ENVPARITY_CHILD_DIRS, and
 *    (with ABI 4 and later) no TCP, (6 and later) no signal or abstract
 *    socket beyond the helper's own processes.
 * j->said says which applied; ep_child_confinement() reports it later.
 * -1 with err (EP_E_IO) when the private directory cannot be made or the
 * check of the user cannot run.  ep_child_jail_clear frees it. */
int ep_child_jail_init(struct ep_child_jail *j, enum ep_child_kind kind,
    const struct ep_child_fs *fs, struct ep_err *err);

/* In the child, between fork and exec: apply j.  Only system calls
 * (async-signal-safe).  0, or -errno with *step naming what failed; the
 * caller must then not exec. */
int ep_child_jail_enter(const struct ep_child_jail *j, const char **step);

void ep_child_jail_clear(struct ep_child_jail *j);

/* What confined the helpers of kind this process ran (their jails' said,
 * distinct ones joined by "; then "), or NULL when none ran: for
 * meta.confinement.  Borrowed, valid until the next jail of that kind. */
const char *ep_child_confinement(enum ep_child_kind kind);

/* The kernel's Landlock ABI version, 0 when it has none (cached). */
int ep_child_landlock_abi(void);

/* --- processes (child.c, child_run.c) ------------------------------- */

/* Make this process the reaper of its orphaned descendants
 * (PR_SET_CHILD_SUBREAPER), once; harmless to call again.  Call before a
 * child starts: its orphans then become ours to kill, not init's. */
void ep_child_reaper(void);

/* When pid started, in clock ticks since boot (/proc/PID/stat), or 0
 * when that cannot be read. */
unsigned long long ep_child_start_time(pid_t pid);

/* 1 when our child pid has exited, without reaping it: its pid and
 * process group id stay reserved until the caller waits for it. */
int ep_child_exited(pid_t pid);

/* Kill with SIGKILL root (not reaped: the caller waits for it), its
 * process group, all its descendants, and every process this one adopted
 * as an orphan that started at or after since (root's start time), except
 * the processes in keep[0..nkeep) (children of ours still at work) and
 * their descendants.  Adopted orphans are reaped; the scan repeats until
 * nothing but root is left, for at most grace_ms.  Does nothing for a
 * root of 1 or less.  Never fails. */
void ep_child_kill_tree(pid_t root, unsigned long long since,
    const pid_t *keep, size_t nkeep, int grace_ms);

struct ep_child_opts {
	char *const *envp;	/* the environment; NULL: ep_child_env(kind) */
	enum ep_child_kind kind;	/* the environment's, and the default
				   jail's */
	/* How the children are confined; NULL: a jail of kind made for the
	 * call, for the system's files only.  Each child's TMPDIR is the
	 * jail's private directory. */
	const struct ep_child_jail *jail;
	const char *dir;	/* working directory; NULL: ours */
	unsigned timeout_ms;	/* from its start; then killed */
	size_t out_max;		/* more standard output than this: killed */
	size_t err_keep;	/* the last bytes of standard error kept */
	int grace_ms;		/* after SIGKILL, how long to wait for it */
	size_t max_jobs;	/* ep_child_run_all: at most this many at
				   work at once; 0: all of them */
	size_t group_max;	/* and at most this many of one group
				   (ep_child_run_job.group); 0: no limit */
	/* ep_child_run_all: called once as job i ends (exited, or killed,
	 * and its output read), in the order they end; may be NULL. */
	void (*on_end)(void *arg, size_t i);
	/* ep_child_run_all: called about every 100 ms while they run (a
	 * progress line redrawn while nothing ends); may be NULL.  Both get
	 * on_end_arg. */
	void (*on_wait)(void *arg);
	void *on_end_arg;
};

struct ep_child_result {
	int status;		/* waitpid status, when reaped */
	int timed_out;		/* still running at the deadline: killed */
	int overflow;		/* wrote more than out_max: killed */
	int reaped;		/* 0: it would not die within grace_ms */
	char *out;		/* standard output, NUL-terminated (owned) */
	size_t out_len;
	char *err;		/* the end of standard error, likewise */
	size_t err_len;
};
void ep_child_result_clear(struct ep_child_result *r);

/* Run path with argv (argv[0] included) in a process group of its own,
 * standard input /dev/null, output and error on pipes, no other
 * descriptor of ours, default signal dispositions, in o->dir with
 * o->envp, confined by o->jail (forked, confined, then executed: never
 * run in the forked copy of us).  When it exits, at its deadline, or when it writes too much,
 * it and everything it started are killed (ep_child_kill_tree).  Fills
 * *r (ep_child_result_clear frees it).  -1 with err (EP_E_IO) naming path
 * only when it cannot be started ("PATH: cannot run: REASON", where
 * REASON may name the confinement step that failed) or a pipe or poll
 * fails; how it ended is in *r. */
int ep_child_run(struct ep_child_result *r, const char *path,
    char *const argv[], const struct ep_child_opts *o, struct ep_err *err);

/* Several programs at once, as ep_child_run runs one: each with its own
 * argv and environment (envp NULL: ep_child_env(o->kind)), under o's
 * deadline
 * (from each one's own start), dir and limits (o->envp is not used).  At
 * most o->max_jobs are at work at once (0: all), and at most o->group_max
 * of one group; as one ends, the first of v not yet started whose group
 * has room starts.  When one ends, its tree is killed and the others'
 * trees are kept.  v[i].r is filled for every i.  -1 with err (EP_E_IO)
 * when one cannot be started (the others are then killed and every r is
 * empty) or a pipe or poll fails. */
struct ep_child_run_job {
	const char *path;
	char *const *argv;
	char *const *envp;
	size_t group;		/* 0: none; else o->group_max applies to
				   the jobs of this group */
	struct ep_child_result r;	/* out */
};
int ep_child_run_all(struct ep_child_run_job *v, size_t n,
    const struct ep_child_opts *o, struct ep_err *err);

#endif
