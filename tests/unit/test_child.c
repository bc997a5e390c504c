/*
 * test_child.c: what a child process of envparity gets and how it ends
 * (child.h): which variables are credentials, the environment a helper
 * of each kind gets (an allowlist), PATH searched without relative
 * entries, running a program with a deadline, and killing a child with a
 * grandchild that left its session (setsid) and outlived its parent.
 * The confinement itself is test_childjail.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "testutil.h"
#include "clock.h"
#include "errors.h"
#include "strv.h"
#include "xalloc.h"

#define SECRET	"s3cr3t-v4lue"

static char tmp[256];

static int
setup_tmp(void **state)
{
	(void)state;
	return tu_scratch_make(tmp, sizeof tmp, "child");
}

static int
teardown_tmp(void **state)
{
	(void)state;
	return tu_scratch_remove(tmp);
}

static void
test_secret(void **state)
{
	static const char *const secret[] = {
		"ENVPARITY_GIT_TOKEN=x", "ENVPARITY_SSH_KEY=/k",
		"ENVPARITY_STORE=https://git.example/golden.git",
		"SSH_AUTH_SOCK=/tmp/agent", "GITHUB_TOKEN=x", "GH_TOKEN=x",
		"ACTIONS_RUNTIME_TOKEN=x", "ACTIONS_ID_TOKEN_REQUEST_TOKEN=x",
		"ACTIONS_ID_TOKEN_REQUEST_URL=https://x", "CI_JOB_TOKEN=x",
		"CI_JOB_JWT_V2=x", "CI_REGISTRY_PASSWORD=x",
		"CI_REPOSITORY_URL=https://gitlab.example/a.git",
		"REGISTRY_AUTH_FILE=/a", "DOCKER_CONFIG=/d",
		"DOCKER_AUTH_CONFIG={}", "GIT_ASKPASS=/bin/true",
		"GIT_CONFIG_PARAMETERS='http.extraheader'='x'",
		"GIT_CONFIG_VALUE_0=AUTHORIZATION: basic x",
		"AWS_SECRET_ACCESS_KEY=x", "AWS_REGION=eu-west-1",
		"AZURE_CLIENT_SECRET=x", "GOOGLE_APPLICATION_CREDENTIALS=/c",
		"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE=/t",
		/* By word: anyone's naming of a credential. */
		"HF_TOKEN=x", "GITLAB_OIDC_TOKEN=x", "WANDB_API_KEY=x",
		"TWINE_PASSWORD=x", "npm_config__auth=x", "MY_SECRET=x",
		"DB_PASSWD=x", "SLACK_WEBHOOK_URL=https://hooks.example/x",
		"token=x", "Vault_Token=x",
		/* By value: a URL with user information. */
		"PIP_INDEX_URL=https://user:" SECRET "@pypi.example/simple",
		"HTTPS_PROXY=http://u:p@proxy:3128",
		"X=see git clone https://" SECRET "@github.com/a/b",
		/* A bare name is judged by its name. */
		"GITHUB_TOKEN", "CI_JOB_TOKEN", "GITHUB_TOKEN_X",
		/* The databases', sshpass's and the usual personal tokens. */
		"PGPASSWORD=x", "MYSQL_PWD=x", "SSHPASS=x", "GITHUB_PAT=x",
		"GH_PAT=x", "CR_PAT=x", "LDAP_BIND_PW=x", "DOCKER_PASS=x",
		"REGISTRY_PASS=x", "LDAPBINDPW=x",
		/* By value: a URL whose query names a credential. */
		"PIP_EXTRA_INDEX_URL=https://pypi.example/simple?token=qS3CRET",
		"DATA_URL=https://b.example/o?X-Amz-Signature=abc&a=1",
		"X=https://h/p?a=1&api_key=z",
	};
	static const char *const kept[] = {
		"PATH=/usr/bin:/bin", "HOME=/root", "LD_LIBRARY_PATH=/x",
		"CUDA_VISIBLE_DEVICES=0", "NVIDIA_VISIBLE_DEVICES=all",
		"NCCL_ALGO=Ring", "CUBLAS_WORKSPACE_CONFIG=:4096:8",
		"PYENV_VERSION=3.11.7", "PYENV_ROOT=/root/.pyenv",
		"VIRTUAL_ENV=/v", "TOKENIZERS_PARALLELISM=false",
		"ENVPARITY_AUTHOR=A <a@example.com>", "ENVPARITY_PROFILE=p",
		"ENVPARITY_LOAD_TIMEOUT_MS=100", "KEYBOARD=us",
		"HTTPS_PROXY=http://proxy:3128", "MAIL=a@b",
		"GIT_SSH_COMMAND=ssh", "LANG=C.UTF-8", "SOMETHING=",
		"SSH_CONNECTION=1 2 3 4", "MONKEY=x", "PYTHONPATH=/x",
		"PATH", "PWD=/work", "OLDPWD=/", "PATTERN=x", "PASSES=3",
		"INDEX_URL=https://pypi.example/simple?format=json",
	};

	(void)state;
	for (size_t i = 0; i < sizeof secret / sizeof secret[0]; i++)
		if (!ep_child_secret(secret[i]))
			fail_msg("not a secret: %s", secret[i]);
	for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
		if (ep_child_secret(kept[i]))
			fail_msg("taken for a secret: %s", kept[i]);
	assert_true(ep_child_secret("=x"));
}

static void
test_env(void **state)
{
	struct ep_strv env = { 0 };
	char *path = xstrdup(getenv("PATH") ? getenv("PATH") : "/bin");

	(void)state;
	setenv("ENVPARITY_GIT_TOKEN", SECRET, 1);
	setenv("CI_JOB_TOKEN", SECRET, 1);
	setenv("EP_TEST_KEEP", "kept", 1);
	setenv("LANG", "C.UTF-8", 1);
	setenv("PATH", ".:/usr/bin::bin:/bin", 1);
	ep_child_env(&env, EP_CHILD_PLAIN);
	assert_non_null(env.v);
	assert_null(env.v[env.n]);
	assert_null(ep_child_env_get(&env, "ENVPARITY_GIT_TOKEN"));
	assert_null(ep_child_env_get(&env, "CI_JOB_TOKEN"));
	/* Not on any allowlist: not given, secret or not. */
	assert_null(ep_child_env_get(&env, "EP_TEST_KEEP"));
	assert_string_equal(ep_child_env_get(&env, "LANG"), "C.UTF-8");
	/* PATH without what names the current directory. */
	assert_string_equal(ep_child_env_get(&env, "PATH"), "/usr/bin:/bin");
	setenv("PATH", path, 1);
	free(path);
	for (size_t i = 0; i < env.n; i++)
		assert_null(strstr(env.v[i], SECRET));
	ep_strv_clear(&env);

	/* Named by the user, it is given; a credential still is not. */
	setenv(EP_CHILD_ENV_VAR, "EP_TEST_*, ENVPARITY_GIT_TOKEN", 1);
	ep_child_env(&env, EP_CHILD_PLAIN);
	assert_string_equal(ep_child_env_get(&env, "EP_TEST_KEEP"), "kept");
	assert_null(ep_child_env_get(&env, "ENVPARITY_GIT_TOKEN"));
	unsetenv(EP_CHILD_ENV_VAR);

	ep_child_env_set(&env, "EP_TEST_KEEP", "again");
	ep_child_env_set(&env, "EP_TEST_NEW", "new");
	assert_string_equal(ep_child_env_get(&env, "EP_TEST_KEEP"), "again");
	assert_string_equal(ep_child_env_get(&env, "EP_TEST_NEW"), "new");
	ep_child_env_unset(&env, "EP_TEST_KEEP");
	assert_null(ep_child_env_get(&env, "EP_TEST_KEEP"));
	assert_null(env.v[env.n]);
	/* A name that is the start of another is not that other. */
	assert_null(ep_child_env_get(&env, "EP_TEST_NE"));
	ep_strv_clear(&env);

	/* Nothing at all to keep is still an envp. */
	{
		extern char **environ;
		char **saved = environ, *none[] = { NULL };

		environ = none;
		ep_child_env(&env, EP_CHILD_PROBE);
		environ = saved;
		assert_int_equal(env.n, 0);
		assert_non_null(env.v);
		assert_null(env.v[0]);
		ep_strv_clear(&env);
	}
	unsetenv("ENVPARITY_GIT_TOKEN");
	unsetenv("CI_JOB_TOKEN");
	unsetenv("EP_TEST_KEEP");
}

static char *
make_exec(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs("#!/bin/sh\n", f);
	fclose(f);
	chmod(p, 0755);
	return p;
}

static void
test_which(void **state)
{
	char *cwd = getcwd(NULL, 0), *out = NULL, *rel, *abs, *path;
	const char *old = getenv("PATH");
	char *saved = old ? xstrdup(old) : NULL;
	unsigned relative = 0;

	(void)state;
	rel = xasprintf("%s/rel", tmp);
	abs = xasprintf("%s/abs", tmp);
	mkdir(rel, 0755);
	mkdir(abs, 0755);
	free(make_exec(tmp, "ep-which"));
	free(make_exec(rel, "ep-which"));
	assert_int_equal(chdir(tmp), 0);

	/* ".", "" and "rel" would each find one; none is looked in. */
	setenv("PATH", ".::rel", 1);
	assert_int_equal(ep_child_which(&out, "ep-which", &relative), -1);
	assert_null(out);
	assert_int_equal(relative, 3);
	setenv("PATH", "", 1);
	assert_int_equal(ep_child_which(&out, "ep-which", &relative), -1);
	assert_int_equal(relative, 1);

	/* An absolute directory after them is. */
	free(make_exec(abs, "ep-which"));
	path = xasprintf(".:rel::%s", abs);
	setenv("PATH", path, 1);
	assert_int_equal(ep_child_which(&out, "ep-which", NULL), 0);
	assert_non_null(out);
	assert_true(strncmp(out, abs, strlen(abs)) == 0);
	free(out);
	/* A directory is not a program. */
	assert_int_equal(ep_child_which(&out, "rel", NULL), -1);

	assert_int_equal(chdir(cwd), 0);
	if (saved != NULL)
		setenv("PATH", saved, 1);
	free(saved);
	free(path);
	free(rel);
	free(abs);
	free(cwd);
}

/* 1 while pid is a process that has not died (a zombie has). */
static int
alive(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	int r = 0;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	if (fgets(buf, sizeof buf, f) != NULL && (p = strrchr(buf, ')')) !=
	    NULL)
		r = p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
	fclose(f);
	return r;
}

static pid_t
read_pid(const char *file)
{
	struct timespec ts = { 0, 10000000 };
	long v = 0;

	for (int i = 0; i < 500; i++) {
		FILE *f = fopen(file, "r");

		if (f != NULL) {
			int ok = fscanf(f, "%ld", &v) == 1;

			fclose(f);
			if (ok && v > 0)
				return (pid_t)v;
		}
		nanosleep(&ts, NULL);
	}
	return -1;
}

/* A child that starts a grandchild in a session of its own, which writes
 * its pid to file and sleeps; the middle process exits, so the grandchild
 * is an orphan (ours, as the subreaper).  The child then sleeps too. */
static pid_t
start_tree(const char *file)
{
	pid_t pid = fork();

	if (pid == 0) {
		setpgid(0, 0);
		if (fork() == 0) {
			setsid();
			if (fork() == 0) {
				FILE *f = fopen(file, "w");

				fprintf(f, "%d\n", (int)getpid());
				fclose(f);
				for (;;)
					pause();
			}
			_exit(0);
		}
		for (;;)
			pause();
	}
	setpgid(pid, pid);
	return pid;
}

static void
test_kill_tree(void **state)
{
	char *file = xasprintf("%s/orphan.pid", tmp);
	char *file2 = xasprintf("%s/other.pid", tmp);
	unsigned long long since;
	pid_t root, other, orphan, orphan2;
	int st;

	(void)state;
	ep_child_reaper();
	other = start_tree(file2);
	orphan2 = read_pid(file2);
	/* Start times count in clock ticks: root's must come later. */
	nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
	root = start_tree(file);
	since = ep_child_start_time(root);
	assert_true(since > 0);
	orphan = read_pid(file);
	assert_true(orphan > 0 && orphan2 > 0);
	assert_true(alive(orphan));
	/* It left the group and the session: a group kill misses it. */
	assert_int_not_equal(getpgid(orphan), root);
	assert_int_not_equal(getsid(orphan), getsid(0));

	/* other is a child at work: it and its tree are kept, though its
	 * orphan is ours too. */
	ep_child_kill_tree(root, since, &other, 1, 2000);
	assert_int_equal(waitpid(root, &st, 0), root);
	assert_true(WIFSIGNALED(st));
	assert_false(alive(orphan));
	/* Reaped, not left a zombie. */
	assert_int_equal(kill(orphan, 0), -1);
	assert_int_equal(errno, ESRCH);
	assert_true(alive(other));

	/* An orphan older than the child being killed is not its. */
	ep_child_kill_tree(other, ep_child_start_time(other) + 1000000, NULL,
	    0, 2000);
	assert_int_equal(waitpid(other, &st, 0), other);
	assert_true(alive(orphan2));
	kill(orphan2, SIGKILL);
	waitpid(orphan2, NULL, 0);
	free(file);
	free(file2);
}

static void
test_run(void **state)
{
	struct ep_child_opts o = { .timeout_ms = 10000, .out_max = 4096,
	    .err_keep = 64, .grace_ms = 2000, .dir = "/" };
	struct ep_child_result r;
	struct ep_err err = { 0 };
	char *pidfile = xasprintf("%s/stray.pid", tmp), *script;
	char *argv[] = { (char *)"/bin/sh", (char *)"-c", NULL, NULL };
	uint64_t t0;
	pid_t stray;

	(void)state;
	setenv("ENVPARITY_GIT_TOKEN", SECRET, 1);
	setenv("EP_TEST_KEEP", "kept", 1);
	setenv(EP_CHILD_ENV_VAR, "EP_TEST_KEEP", 1);
	/* The children write their pid files there. */
	setenv(EP_CHILD_DIRS_VAR, tmp, 1);
	/* Output, the end of stderr, the status, where and with what. */
	argv[2] = (char *)"pwd; env; i=0; while [ $i -lt 40 ]; do "
	    "echo line$i >&2; i=$((i+1)); done; exit 7";
	assert_int_equal(ep_child_run(&r, "/bin/sh", argv, &o, &err), 0);
	assert_true(WIFEXITED(r.status));
	assert_int_equal(WEXITSTATUS(r.status), 7);
	assert_int_equal(r.timed_out + r.overflow, 0);
	assert_true(strncmp(r.out, "/\n", 2) == 0);
	assert_non_null(strstr(r.out, "EP_TEST_KEEP=kept"));
	assert_null(strstr(r.out, SECRET));
	assert_true(r.err_len <= 4 * 64);
	assert_non_null(strstr(r.err, "line39\n"));
	assert_null(strstr(r.err, "line0\n"));
	ep_child_result_clear(&r);

	/* It exits, leaving a grandchild in a session of its own that holds
	 * its output open: that one is killed at once, and the call returns
	 * long before the deadline. */
	script = xasprintf("setsid sh -c 'echo $$ > %s; exec sleep 100' & "
	    "while [ ! -s %s ]; do sleep 0.01; done; echo done", pidfile,
	    pidfile);
	argv[2] = script;
	t0 = ep_now_ns();
	assert_int_equal(ep_child_run(&r, "/bin/sh", argv, &o, &err), 0);
	assert_true(ep_now_ns() - t0 < 5000000000u);
	assert_string_equal(r.out, "done\n");
	stray = read_pid(pidfile);
	assert_true(stray > 0);
	assert_false(alive(stray));
	ep_child_result_clear(&r);
	free(script);
	unlink(pidfile);

	/* The same at the deadline. */
	o.timeout_ms = 300;
	script = xasprintf("setsid sh -c 'echo $$ > %s; exec sleep 100' & "
	    "sleep 100", pidfile);
	argv[2] = script;
	assert_int_equal(ep_child_run(&r, "/bin/sh", argv, &o, &err), 0);
	assert_true(r.timed_out);
	assert_true(r.reaped);
	stray = read_pid(pidfile);
	assert_true(stray > 0);
	assert_false(alive(stray));
	ep_child_result_clear(&r);
	free(script);

	/* Too much output. */
	o.timeout_ms = 10000;
	argv[2] = (char *)"head -c 100000 /dev/zero; sleep 100";
	assert_int_equal(ep_child_run(&r, "/bin/sh", argv, &o, &err), 0);
	assert_true(r.overflow);
	assert_false(r.timed_out);
	assert_true(r.out_len <= o.out_max);
	ep_child_result_clear(&r);

	/* Cannot be started. */
	argv[0] = (char *)"/nonexistent/prog";
	assert_int_equal(ep_child_run(&r, argv[0], argv, &o, &err), -1);
	assert_int_equal(err.kind, EP_E_IO);
	assert_string_equal(err.msg, "/nonexistent/prog: cannot run: "
	    "No such file or directory");
	unsetenv("ENVPARITY_GIT_TOKEN");
	unsetenv("EP_TEST_KEEP");
	unsetenv(EP_CHILD_ENV_VAR);
	unsetenv(EP_CHILD_DIRS_VAR);
	free(pidfile);
}

/* Several at once: each waits for the other's mark, so run one after the
 * other they could only time out; each gets its own environment, and the
 * end of the first does not kill the one still at work. */
static void
test_run_all(void **state)
{
	struct ep_child_opts o = { .timeout_ms = 20000, .out_max = 4096,
	    .err_keep = 256, .grace_ms = 2000 };
	struct ep_child_run_job v[3];
	struct ep_strv env[3];
	struct ep_err err = { 0 };
	char *script[3], *argv[3][4];

	(void)state;
	setenv(EP_CHILD_DIRS_VAR, tmp, 1);
	for (int i = 0; i < 3; i++) {
		script[i] = xasprintf("touch %s/up%d; for j in 0 1 2; do "
		    "while [ ! -e %s/up$j ]; do sleep 0.01; done; done; "
		    "echo \"job %d $EP_TEST_GPU\"; [ %d != 1 ] || sleep 0.3",
		    tmp, i, tmp, i, i);
		argv[i][0] = (char *)"/bin/sh";
		argv[i][1] = (char *)"-c";
		argv[i][2] = script[i];
		argv[i][3] = NULL;
		memset(&env[i], 0, sizeof env[i]);
		ep_child_env(&env[i], EP_CHILD_PLAIN);
		ep_child_env_set(&env[i], "EP_TEST_GPU", i == 0 ? "zero" :
		    i == 1 ? "one" : "two");
		v[i] = (struct ep_child_run_job){ .path = "/bin/sh",
		    .argv = argv[i], .envp = env[i].v };
	}
	assert_int_equal(ep_child_run_all(v, 3, &o, &err), 0);
	for (int i = 0; i < 3; i++) {
		char *want = xasprintf("job %d %s\n", i, i == 0 ? "zero" :
		    i == 1 ? "one" : "two");

		assert_false(v[i].r.timed_out);
		assert_true(WIFEXITED(v[i].r.status));
		assert_int_equal(WEXITSTATUS(v[i].r.status), 0);
		assert_string_equal(v[i].r.out, want);
		free(want);
		ep_child_result_clear(&v[i].r);
		ep_strv_clear(&env[i]);
		free(script[i]);
	}

	/* One that hangs is killed at the deadline; the others finish. */
	o.timeout_ms = 500;
	argv[0][2] = (char *)"echo a";
	argv[1][2] = (char *)"sleep 100";
	argv[2][2] = (char *)"echo c";
	for (int i = 0; i < 3; i++)
		v[i] = (struct ep_child_run_job){ .path = "/bin/sh",
		    .argv = argv[i] };
	assert_int_equal(ep_child_run_all(v, 3, &o, &err), 0);
	assert_false(v[0].r.timed_out);
	assert_true(v[1].r.timed_out);
	assert_false(v[2].r.timed_out);
	assert_string_equal(v[0].r.out, "a\n");
	assert_string_equal(v[2].r.out, "c\n");
	for (int i = 0; i < 3; i++)
		ep_child_result_clear(&v[i].r);
	unsetenv(EP_CHILD_DIRS_VAR);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_secret),
		cmocka_unit_test(test_env),
		cmocka_unit_test_setup_teardown(test_which, setup_tmp,
		    teardown_tmp),
		cmocka_unit_test_setup_teardown(test_kill_tree, setup_tmp,
		    teardown_tmp),
		cmocka_unit_test_setup_teardown(test_run, setup_tmp,
		    teardown_tmp),
		cmocka_unit_test_setup_teardown(test_run_all, setup_tmp,
		    teardown_tmp),
	};

	(void)argc;
	(void)argv;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
