/*
 * test_childjail.c: what a helper of envparity is allowed (child.h): the
 * variables each kind gets, and the confinement between fork and exec,
 * seen from inside a real helper (/bin/sh reading its own
 * /proc/self/status, trying files): no_new_privs, no capability, the
 * user nobody or root without power when we are root, and under Landlock
 * no file outside its trees, not even one its own user owns, nor our
 * environment; on a kernel without Landlock (made so with seccomp), the
 * jail says what it does not fence, and helpers still run.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <jansson.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "child_int.h"
#include "collect.h"
#include "outfile.h"
#include "testutil.h"

#define SECRET	"s3cr3t-of-the-parent"

static char tmp[256];

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static int
setup_tmp(void **state)
{
	(void)state;
	return tu_scratch_make(tmp, sizeof tmp, "childjail");
}

static int
teardown_tmp(void **state)
{
	(void)state;
	return tu_scratch_remove(tmp);
}

static void
test_allowlist(void **state)
{
	static const struct {
		const char *entry;
		int plain, python, loader, probe;
	} v[] = {
		{ "PATH=/usr/bin", 0, 0, 0, 0 },	/* rebuilt, never copied */
		{ "HOME=/root", 1, 1, 1, 1 },
		{ "LANG=C.UTF-8", 1, 1, 1, 1 },
		{ "LC_ALL=C", 1, 1, 1, 1 },
		{ "TZ=UTC", 1, 1, 1, 1 },
		{ "LD_LIBRARY_PATH=/x", 0, 1, 1, 1 },
		{ "PYTHONNOUSERSITE=1", 0, 1, 0, 0 },
		{ "PYTHONUSERBASE=/u", 0, 1, 0, 0 },
		{ "PYENV_VERSION=3.11.7", 0, 1, 0, 0 },
		{ "PYTHONPATH=/x", 0, 0, 0, 0 },
		{ "PYTHONSTARTUP=/x", 0, 0, 0, 0 },
		{ "BASH_ENV=/x", 0, 0, 0, 0 },
		{ "LD_PRELOAD=/x.so", 0, 0, 0, 0 },
		{ "CUDA_VISIBLE_DEVICES=0", 0, 0, 1, 1 },
		{ "NVIDIA_VISIBLE_DEVICES=all", 0, 0, 1, 1 },
		{ "CUBLAS_WORKSPACE_CONFIG=:4096:8", 0, 0, 1, 1 },
		{ "OMP_NUM_THREADS=4", 0, 0, 0, 1 },
		{ "XLA_FLAGS=--x", 0, 0, 0, 1 },
		{ "TF_VAR_db=anything", 0, 0, 0, 0 },
		{ "ACME_DEPLOY=whatever-it-holds", 0, 0, 0, 0 },
		{ "TMPDIR=/tmp", 0, 0, 0, 0 },	/* the jail's own */
		/* On an allowlist, and still a credential. */
		{ "CUDA_X=https://u:t@h/", 0, 0, 0, 0 },
		{ "NCCL_SOCKET_TOKEN=x", 0, 0, 0, 0 },
		{ "PYENV_GITHUB_TOKEN=x", 0, 0, 0, 0 },
	};
	char *e;

	(void)state;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		int want[] = { v[i].plain, v[i].python, v[i].loader,
		    v[i].probe };

		for (int k = EP_CHILD_PLAIN; k <= EP_CHILD_PROBE; k++)
			if (ep_child_env_allowed(v[i].entry, k) != want[k])
				fail_msg("%s for kind %d: %d", v[i].entry, k,
				    !want[k]);
	}
	/* The probe runs with every variable the manifest records as
	 * changing numerics (env.*). */
	for (size_t i = 0; ep_env_allowlist[i] != NULL; i++) {
		e = xasprintf("%s=1", ep_env_allowlist[i]);
		if (!ep_child_env_allowed(e, EP_CHILD_PROBE))
			fail_msg("probe does not get %s", ep_env_allowlist[i]);
		free(e);
	}
	/* The user's additions, by name and by prefix, to every kind; a
	 * credential even so never. */
	setenv(EP_CHILD_ENV_VAR, "WRAPPER_LOG, FAKE_*:HF_TOKEN", 1);
	for (int k = EP_CHILD_PLAIN; k <= EP_CHILD_PROBE; k++) {
		assert_true(ep_child_env_allowed("WRAPPER_LOG=/l", k));
		assert_true(ep_child_env_allowed("FAKE_NVML_MODE=ok", k));
		assert_false(ep_child_env_allowed("WRAPPER_LOGX=/l", k));
		assert_false(ep_child_env_allowed("HF_TOKEN=x", k));
	}
	setenv(EP_CHILD_ENV_VAR, "*", 1);
	assert_false(ep_child_env_allowed("ANYTHING=1", EP_CHILD_PLAIN));
	unsetenv(EP_CHILD_ENV_VAR);
}

/* Run script in /bin/sh under jail, with env; its standard output. */
static char *
run_in(const struct ep_child_jail *jail, const char *script,
    char *const *env, int *status)
{
	struct ep_child_opts o = { .timeout_ms = 20000, .out_max = 1 << 20,
	    .err_keep = 1024, .grace_ms = 2000, .dir = "/", .jail = jail,
	    .envp = env };
	char *argv[] = { (char *)"/bin/sh", (char *)"-c", (char *)script,
	    NULL };
	struct ep_child_result r;
	struct ep_err err = { 0 };
	char *out;

	if (ep_child_run(&r, "/bin/sh", argv, &o, &err) < 0)
		fail_msg("%s", err.msg);
	*status = WIFEXITED(r.status) ? WEXITSTATUS(r.status) : 128;
	out = r.out;
	r.out = NULL;
	ep_child_result_clear(&r);
	return out;
}

/* The value of a field of /proc/self/status as the helper printed it. */
static char *
field(const char *out, const char *name)
{
	char *want = xasprintf("\n%s:\t", name);
	const char *p = strstr(out, want);
	char *v;

	free(want);
	if (p == NULL)
		return NULL;
	p += strlen(name) + 3;
	v = xstrndup(p, strcspn(p, "\n"));
	return v;
}

static void
assert_field(const char *out, const char *name, const char *want)
{
	char *v = field(out, name);

	if (v == NULL || strcmp(v, want) != 0)
		fail_msg("%s: %s, not %s", name, v ? v : "(none)", want);
	free(v);
}

/* No privilege in the helper, as root or not; as root, nobody where
 * nobody can read what it needs, else root without power. */
static void
test_privileges(void **state)
{
	struct ep_child_jail jail;
	struct ep_child_fs fs = { 0 };
	struct ep_err err = { 0 };
	const char *caps[] = { "CapInh", "CapPrm", "CapEff", "CapBnd",
	    "CapAmb" };
	char *out, *uid, *hidden, *f;
	int st;

	(void)state;
	/* Nothing in particular needed: nobody can. */
	assert_int_equal(ep_child_jail_init(&jail, EP_CHILD_PYTHON, NULL,
	    &err), 0);
	assert_non_null(jail.said);
	out = run_in(&jail, "echo; cat /proc/self/status; echo \"tmp=$TMPDIR\"; "
	    "touch \"$TMPDIR/w\" && echo wrote", NULL, &st);
	assert_int_equal(st, 0);
	assert_field(out, "NoNewPrivs", "1");
	for (size_t i = 0; i < 5; i++)
		if (geteuid() == 0 || strcmp(caps[i], "CapBnd") != 0)
			assert_field(out, caps[i], "0000000000000000");
	uid = field(out, "Uid");
	assert_non_null(uid);
	if (geteuid() == 0) {
		assert_true(jail.as_user);
		assert_non_null(strstr(jail.said, "user nobody"));
		assert_int_equal(strtol(uid, NULL, 10), (long)jail.uid);
		assert_int_not_equal(jail.uid, 0);
	} else
		assert_int_equal(strtol(uid, NULL, 10), (long)geteuid());
	/* Its TMPDIR is its own, and writable. */
	assert_non_null(strstr(out, "wrote"));
	f = xasprintf("tmp=%s\n", jail.tmpdir);
	assert_non_null(strstr(out, f));
	free(f);
	f = xstrdup(jail.tmpdir);
	free(uid);
	free(out);
	ep_child_jail_clear(&jail);
	/* Removed with what the helper left in it. */
	assert_int_equal(access(f, F_OK), -1);
	free(f);
	assert_non_null(ep_child_confinement(EP_CHILD_PYTHON));

	if (geteuid() != 0)
		skip();
	/* A file nobody cannot read: root, but without any capability. */
	hidden = xasprintf("%s/private", tmp);
	assert_int_equal(mkdir(hidden, 0700), 0);
	f = xasprintf("%s/python", hidden);
	write_file(f, "#!/bin/sh\n");
	ep_strv_push_owned(&fs.need, f);
	assert_int_equal(ep_child_jail_init(&jail, EP_CHILD_PYTHON, &fs,
	    &err), 0);
	assert_false(jail.as_user);
	assert_true(jail.drop_caps);
	assert_non_null(strstr(jail.said, "root without capabilities"));
	assert_non_null(strstr(jail.said, f));
	out = run_in(&jail, "echo; cat /proc/self/status; touch \"$TMPDIR/w\" "
	    "&& echo wrote", NULL, &st);
	assert_int_equal(st, 0);
	assert_field(out, "NoNewPrivs", "1");
	for (size_t i = 0; i < 5; i++)
		assert_field(out, caps[i], "0000000000000000");
	uid = field(out, "Uid");
	assert_int_equal(strtol(uid, NULL, 10), 0);
	assert_non_null(strstr(out, "wrote"));
	free(uid);
	free(out);
	ep_child_jail_clear(&jail);
	ep_child_fs_clear(&fs);
	free(hidden);
}

/* The environment a helper sees: its kind's, nothing else. */
static void
test_helper_env(void **state)
{
	struct ep_child_jail jail;
	struct ep_strv env = { 0 };
	struct ep_err err = { 0 };
	char *out;
	int st;

	(void)state;
	setenv("ENVPARITY_GIT_TOKEN", SECRET, 1);
	setenv("ACME_DEPLOY", SECRET, 1);
	setenv("CUDA_VISIBLE_DEVICES", "1", 1);
	setenv("PYENV_VERSION", "3.11.7", 1);
	ep_child_env(&env, EP_CHILD_LOADER);
	assert_int_equal(ep_child_jail_init(&jail, EP_CHILD_LOADER, NULL,
	    &err), 0);
	out = run_in(&jail, "env", env.v, &st);
	assert_int_equal(st, 0);
	assert_null(strstr(out, SECRET));
	assert_non_null(strstr(out, "CUDA_VISIBLE_DEVICES=1\n"));
	assert_null(strstr(out, "PYENV_VERSION"));
	free(out);
	ep_child_jail_clear(&jail);
	ep_strv_clear(&env);
	unsetenv("ENVPARITY_GIT_TOKEN");
	unsetenv("ACME_DEPLOY");
	unsetenv("CUDA_VISIBLE_DEVICES");
	unsetenv("PYENV_VERSION");
}

/* Under Landlock a file outside the helper's trees cannot be opened even
 * by its owner, a tree it may read cannot be written, and our
 * environment cannot be read through /proc. */
static void
test_landlock(void **state)
{
	struct ep_child_jail jail;
	struct ep_child_fs fs = { 0 };
	struct ep_err err = { 0 };
	char *key, *ro, *rofile, *script, *out;
	int st;

	(void)state;
	if (ep_child_landlock_abi() == 0)
		skip();
	setenv("ENVPARITY_GIT_TOKEN", SECRET, 1);
	key = xasprintf("%s/key.pem", tmp);
	write_file(key, SECRET "\n");
	chmod(key, 0600);
	ro = xasprintf("%s/ro", tmp);
	assert_int_equal(mkdir(ro, 0755), 0);
	rofile = xasprintf("%s/file", ro);
	write_file(rofile, "readable\n");
	ep_strv_push(&fs.read, ro);
	/* A needed file nobody cannot read keeps the helper root: only
	 * Landlock stands between it and a file of root's. */
	if (geteuid() == 0) {
		char *hidden = xasprintf("%s/private", tmp), *f;

		assert_int_equal(mkdir(hidden, 0700), 0);
		f = xasprintf("%s/python", hidden);
		write_file(f, "#!/bin/sh\n");
		ep_strv_push_owned(&fs.need, f);
		free(hidden);
	}
	assert_int_equal(ep_child_jail_init(&jail, EP_CHILD_PLAIN, &fs,
	    &err), 0);
	assert_true(jail.ruleset >= 0);
	assert_non_null(strstr(jail.said, "Landlock ABI"));
	script = xasprintf("cat %s && echo read-ro; "
	    "cat %s && echo read-key; "
	    "echo x > %s/new && echo wrote-ro; "
	    "cat /proc/$PPID/environ && echo read-environ; "
	    "ls %s >/dev/null && echo listed-tmp; "
	    "echo x > \"$TMPDIR/f\" && echo wrote-tmp; "
	    "exit 0", rofile, key, ro, tmp);
	out = run_in(&jail, script, NULL, &st);
	assert_int_equal(st, 0);
	assert_non_null(strstr(out, "readable\nread-ro\n"));
	assert_non_null(strstr(out, "wrote-tmp\n"));
	assert_null(strstr(out, SECRET));
	assert_null(strstr(out, "read-key"));
	assert_null(strstr(out, "wrote-ro"));
	assert_null(strstr(out, "read-environ"));
	assert_null(strstr(out, "listed-tmp"));
	assert_int_equal(access(rofile, F_OK), 0);
	free(out);
	free(script);
	ep_child_jail_clear(&jail);
	ep_child_fs_clear(&fs);
	unsetenv("ENVPARITY_GIT_TOKEN");
	free(key);
	free(ro);
	free(rofile);
}

/* In a fresh execution of this binary whose kernel "has no Landlock"
 * (test_no_landlock): exit 0 when the jail says so and a helper runs. */
static int
no_landlock_check(void)
{
	struct ep_child_jail jail;
	struct ep_err err = { 0 };
	char *argv[] = { (char *)"/bin/sh", (char *)"-c",
	    (char *)"echo ran", NULL };
	struct ep_child_opts o = { .timeout_ms = 20000, .out_max = 4096,
	    .err_keep = 256, .grace_ms = 2000, .jail = &jail };
	struct ep_child_result r;
	int rc = 0;

	if (ep_child_landlock_abi() != 0)
		return 1;
	if (ep_child_jail_init(&jail, EP_CHILD_PYTHON, NULL, &err) < 0)
		return 2;
	if (jail.ruleset != -1 || jail.abi != 0 ||
	    strstr(jail.said, "no Landlock in this kernel: files, TCP and "
	    "signals not fenced") == NULL ||
	    strstr(jail.said, "no_new_privs") == NULL)
		rc = 3;
	else if (strcmp(ep_child_confinement(EP_CHILD_PYTHON), jail.said) != 0)
		rc = 4;
	else if (ep_child_run(&r, "/bin/sh", argv, &o, &err) < 0)
		rc = 5;
	else {
		rc = strcmp(r.out, "ran\n") == 0 ? 0 : 6;
		ep_child_result_clear(&r);
	}
	ep_child_jail_clear(&jail);
	return rc;
}

/* No socket but netlink in a helper: Landlock fences none but TCP and
 * abstract Unix ones, and a Unix socket reached by its path is another
 * process's power (a container runtime's, an agent's).  The probe keeps
 * Unix sockets where a GPU is shared through MPS, the others never. */
static void
test_sockets(void **state)
{
	static const char script[] = "exec /usr/bin/python3 -I -S -c '"
	    "import socket\n"
	    "for n, f, t in ((\"inet\", socket.AF_INET, socket.SOCK_DGRAM),\n"
	    "    (\"inet6\", socket.AF_INET6, socket.SOCK_STREAM),\n"
	    "    (\"unix\", socket.AF_UNIX, socket.SOCK_STREAM),\n"
	    "    (\"netlink\", socket.AF_NETLINK, socket.SOCK_RAW)):\n"
	    "    try:\n"
	    "        socket.socket(f, t).close()\n"
	    "        print(n, \"open\")\n"
	    "    except OSError as e:\n"
	    "        print(n, \"refused\", e.errno)\n'";
	static const struct {
		enum ep_child_kind kind;
		int mps, unix_open;
	} v[] = {
		{ EP_CHILD_PYTHON, 0, 0 },
		{ EP_CHILD_LOADER, 0, 0 },
		{ EP_CHILD_PROBE, 0, 0 },
		{ EP_CHILD_PYTHON, 1, 0 },
		{ EP_CHILD_PROBE, 1, 1 },
	};
	struct ep_child_jail jail;
	struct ep_err err = { 0 };
	char *out, *want;
	int st;

	(void)state;
#if !defined(__x86_64__) && !defined(__aarch64__)
	skip();
#endif
	if (access("/tmp/nvidia-mps", F_OK) == 0)
		skip();	/* MPS in use on this host */
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		if (v[i].mps)
			setenv("CUDA_MPS_PIPE_DIRECTORY", "/tmp/mps", 1);
		else
			unsetenv("CUDA_MPS_PIPE_DIRECTORY");
		assert_int_equal(ep_child_jail_init(&jail, v[i].kind, NULL,
		    &err), 0);
		assert_non_null(strstr(jail.said, v[i].unix_open ?
		    "no socket but Unix (MPS) and netlink" :
		    "no socket but netlink"));
		out = run_in(&jail, script, NULL, &st);
		assert_int_equal(st, 0);
		want = xasprintf("inet refused %d\ninet6 refused %d\n%s"
		    "netlink open\n", EACCES, EACCES, v[i].unix_open ?
		    "unix open\n" : "unix refused 13\n");
		if (strcmp(out, want) != 0)
			fail_msg("kind %d, MPS %d: %s", v[i].kind, v[i].mps,
			    out);
		free(want);
		free(out);
		ep_child_jail_clear(&jail);
	}
	unsetenv("CUDA_MPS_PIPE_DIRECTORY");
	/* Our own programs are not filtered. */
	assert_int_equal(ep_child_jail_init(&jail, EP_CHILD_PLAIN, NULL,
	    &err), 0);
	assert_null(strstr(jail.said, "socket"));
	ep_child_jail_clear(&jail);
}

/* A tree that holds the signing key (outfile.h's protected files) is
 * never one a helper may read, whoever names it: the rule is left out,
 * and said. */
static void
test_protected_tree(void **state)
{
	struct ep_child_jail jail;
	struct ep_child_fs fs = { 0 };
	struct ep_err err = { 0 };
	struct stat st;
	char *keys, *key, *lib, *script, *out, *want;
	int status;

	(void)state;
	if (ep_child_landlock_abi() == 0)
		skip();
	keys = xasprintf("%s/keys", tmp);
	key = xasprintf("%s/key.pem", keys);
	lib = xasprintf("%s/lib", keys);
	assert_int_equal(mkdir(keys, 0700), 0);
	assert_int_equal(mkdir(lib, 0755), 0);
	write_file(key, SECRET);
	assert_int_equal(stat(key, &st), 0);
	ep_out_protect(&st, "the signing key (key.pem)");
	ep_out_protect_path(&st, key);
	/* The key's folder, asked for; a folder inside it is fine. */
	ep_strv_push(&fs.read, keys);
	ep_strv_push(&fs.read, lib);
	assert_int_equal(ep_child_jail_init(&jail, EP_CHILD_LOADER, &fs,
	    &err), 0);
	want = xasprintf("not allowed: %s (holds the signing key (key.pem))",
	    keys);
	assert_non_null(strstr(jail.said, want));
	free(want);
	assert_null(strstr(jail.said, lib));
	script = xasprintf("cat %s || echo refused; ls %s >/dev/null && "
	    "echo lib", key, lib);
	out = run_in(&jail, script, NULL, &status);
	assert_null(strstr(out, SECRET));
	assert_non_null(strstr(out, "refused"));
	assert_non_null(strstr(out, "lib"));
	free(out);
	free(script);
	ep_child_jail_clear(&jail);
	ep_child_fs_clear(&fs);
	free(keys);
	free(key);
	free(lib);
}

/* A kernel without Landlock, as seccomp makes one: landlock's system
 * calls fail with ENOSYS, in a fresh execution of this binary. */
static void
test_no_landlock(void **state)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		    SYS_landlock_create_ruleset, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof f / sizeof f[0], f };
	pid_t pid;
	int st;

	(void)state;
	if ((pid = fork()) == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
			_exit(126);
		execl("/proc/self/exe", "test_childjail", "--no-landlock",
		    (char *)NULL);
		_exit(127);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* The loader's folders a helper may read: those of the libraries this
 * process has mapped (a relocatable build's lib/, on no system list:
 * played by a copy of jansson in a folder of the test's own, mapped with
 * dlopen as the loader maps a RUNPATH's), and LD_LIBRARY_PATH's absolute
 * entries, never a relative one. */
static void
test_loader_dirs(void **state)
{
	struct ep_strv v = { 0 };
	char dir[] = "/tmp/ep-test-lib.XXXXXX", *copy, *cmd;
	Dl_info info;
	void *h;

	(void)state;
	assert_true(dladdr((void *)json_object, &info) != 0);
	assert_non_null(mkdtemp(dir));
	copy = xasprintf("%s/libjansson-copy.so", dir);
	cmd = xasprintf("cp '%s' '%s'", info.dli_fname, copy);
	assert_int_equal(system(cmd), 0);
	h = dlopen(copy, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	setenv("LD_LIBRARY_PATH", "/opt/ep-test-lib:rel/lib::/opt/ep-test-lib2", 1);
	ep_child_loader_dirs(&v);
	unsetenv("LD_LIBRARY_PATH");
	assert_true(ep_strv_contains(&v, dir));
	assert_true(ep_strv_contains(&v, "/opt/ep-test-lib"));
	assert_true(ep_strv_contains(&v, "/opt/ep-test-lib2"));
	assert_false(ep_strv_contains(&v, "rel/lib"));
	for (size_t i = 0; i < v.n; i++)
		assert_int_equal(v.v[i][0], '/');
	ep_strv_clear(&v);
	dlclose(h);
	unlink(copy);
	rmdir(dir);
	free(copy);
	free(cmd);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allowlist),
		cmocka_unit_test_setup_teardown(test_privileges, setup_tmp,
		    teardown_tmp),
		cmocka_unit_test(test_helper_env),
		cmocka_unit_test(test_loader_dirs),
		cmocka_unit_test_setup_teardown(test_landlock, setup_tmp,
		    teardown_tmp),
		cmocka_unit_test(test_no_landlock),
		cmocka_unit_test(test_sockets),
		cmocka_unit_test_setup_teardown(test_protected_tree, setup_tmp,
		    teardown_tmp),
	};

	if (argc == 2 && strcmp(argv[1], "--no-landlock") == 0)
		return no_landlock_check();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
