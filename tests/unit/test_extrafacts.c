/*
 * test_extrafacts.c: what a policy's "capture" and --env add to a
 * capture, judged by name: which names look like a credential's (the
 * variables that carry secrets in CI, clouds, model hubs), patterns and
 * paths refused with the message a user reads, a prefix never excused,
 * an exact name excused only when named as not secret, and the policy
 * member parsed, merged over files and refused as check refuses it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "extrafacts.h"
#include "policy.h"

static void
test_secret_words(void **state)
{
	static const char *const secret[] = { "AWS_SECRET_ACCESS_KEY",
	    "AWS_SESSION_TOKEN", "AWS_ACCESS_KEY_ID", "HF_TOKEN",
	    "HUGGING_FACE_HUB_TOKEN", "WANDB_API_KEY", "OPENAI_API_KEY",
	    "GITHUB_TOKEN", "CI_JOB_TOKEN", "ENVPARITY_GIT_TOKEN",
	    "AZURE_CLIENT_SECRET", "DOCKER_PASSWORD", "PGPASSWORD",
	    "DATABASE_URL", "MLFLOW_TRACKING_URI", "HTTPS_PROXY",
	    "https_proxy", "SENTRY_DSN", "GOOGLE_APPLICATION_CREDENTIALS",
	    "NPM_AUTH_TOKEN", "SSH_AUTH_SOCK", "ssh_passphrase",
	    "GPG_PRIVATE_KEY", "JUPYTER_COOKIE_SECRET", NULL };
	static const char *const plain[] = { "NCCL_IB_HCA", "NCCL_IB_PKEY",
	    "NCCL_SOCKET_IFNAME", "HF_HOME", "HF_HUB_OFFLINE",
	    "TOKENIZERS_PARALLELISM", "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS",
	    "TORCH_HOME", NULL };

	(void)state;
	for (size_t i = 0; secret[i] != NULL; i++)
		if (ep_extra_secret_word(secret[i]) == NULL)
			fail_msg("%s does not look like a credential", secret[i]);
	for (size_t i = 0; plain[i] != NULL; i++)
		if (ep_extra_secret_word(plain[i]) != NULL)
			fail_msg("%s looks like a credential (%s)", plain[i],
			    ep_extra_secret_word(plain[i]));
	assert_string_equal(ep_extra_secret_word("HF_TOKEN_PATH"), "TOKEN");
	assert_string_equal(ep_extra_secret_word("wandb_api_key"), "KEY");
}

/* What nobody may call not secret, what only the command line may, and
 * the words added after a review: PASS, PWD (not PWD itself), JWT,
 * WEBHOOK; NCCL's variables spared the weak words only. */
static void
test_secret_strength(void **state)
{
	static const char *const never[] = { "ENVPARITY_STORE",
	    "ENVPARITY_GIT_TOKEN", "GITHUB_TOKEN", "CI_JOB_JWT",
	    "AWS_SECRET_ACCESS_KEY", "HF_TOKEN", NULL };
	static const char *const more[] = { "MYSQL_PWD", "SSHPASS",
	    "REDIS_PASS", "CI_JOB_JWT_V3", "SLACK_WEBHOOK", "NCCL_X_SECRET",
	    NULL };
	struct ep_extra x = { 0 };
	struct ep_err err = { 0 };

	(void)state;
	for (size_t i = 0; never[i] != NULL; i++) {
		assert_true(ep_extra_never(never[i]));
		assert_non_null(ep_extra_secret_word(never[i]));
		memset(&err, 0, sizeof err);
		ep_strv_push(&x.not_secret, never[i]);
		if (ep_extra_env_check(never[i], &x.not_secret, &err) != -1)
			fail_msg("%s taken when called not secret", never[i]);
		assert_non_null(strstr(err.msg, "never recorded"));
		ep_strv_push(&x.env, "ENVPARITY_*");
		ep_strv_push(&x.env, never[i]);
		assert_int_equal(ep_extra_env_pick(&x, never[i]),
		    EP_EXTRA_SECRET);
	}
	ep_extra_clear(&x);
	for (size_t i = 0; more[i] != NULL; i++)
		if (ep_extra_secret_word(more[i]) == NULL)
			fail_msg("%s does not look like a credential", more[i]);
	assert_null(ep_extra_secret_word("PWD"));
	assert_null(ep_extra_secret_word("OLDPWD"));
	assert_false(ep_extra_never("HF_TOKEN_PATH"));
	assert_null(ep_extra_strong_word("HF_TOKEN_PATH"));
	assert_string_equal(ep_extra_strong_word("DB_PASSWORD"), "PASSWORD");
	assert_string_equal(ep_extra_strong_word("OPENAI_API_KEY"),
	    "API_KEY");
}

static void
test_patterns(void **state)
{
	static const struct {
		const char *pattern;
		const char *msg;	/* NULL: taken */
	} v[] = {
		{ "NCCL_IB_*", NULL },
		{ "HF_*", NULL },
		{ "HF_HOME", NULL },
		{ "_X", NULL },
		{ "HF_API_TOKEN", "'HF_API_TOKEN': looks like a credential's name "
		    "(TOKEN), and a credential never reaches a manifest; if it "
		    "is none, name it as not secret too (--env-not-secret "
		    "HF_API_TOKEN, or the policy's capture.env_not_secret)" },
		{ "AWS_SECRET_*", "'AWS_SECRET_*': looks like a credential's "
		    "name (SECRET): a prefix that does is refused; name the "
		    "variables one by one" },
		{ "HF*", "'HF*': a prefix of 3 characters or more" },
		{ "*", "not a variable name" },
		{ "", "not a variable name" },
		{ "A*B", "not a variable name" },
		{ "1X", "not a variable name" },
		{ "A-B", "not a variable name" },
		{ "A B", "not a variable name" },
	};
	struct ep_strv ns = { 0 };
	struct ep_err err;

	(void)state;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		int rc;

		memset(&err, 0, sizeof err);
		rc = ep_extra_env_check(v[i].pattern, &ns, &err);
		if (v[i].msg == NULL && rc != 0)
			fail_msg("'%s' refused: %s", v[i].pattern, err.msg);
		if (v[i].msg != NULL && (rc != -1 || err.kind != EP_E_INPUT ||
		    strstr(err.msg, v[i].msg) == NULL))
			fail_msg("'%s': '%s' lacks '%s'", v[i].pattern, err.msg,
			    v[i].msg);
	}
	/* Named exactly as not secret: taken; a prefix never. */
	ep_strv_push(&ns, "HF_TOKEN_PATH");
	assert_int_equal(ep_extra_env_check("HF_TOKEN_PATH", &ns, &err), 0);
	ep_strv_push(&ns, "HF_TOKEN*");
	assert_int_equal(ep_extra_env_check("HF_TOKEN*", &ns, &err), -1);
	assert_int_equal(ep_extra_env_check("HF_TOKEN", &ns, &err), -1);
	ep_strv_clear(&ns);
}

static void
test_pick(void **state)
{
	struct ep_extra x = { 0 };

	(void)state;
	ep_strv_push(&x.env, "HF_*");
	ep_strv_push(&x.env, "NCCL_IB_*");
	ep_strv_push(&x.env, "MY_VAR");
	ep_strv_push(&x.not_secret, "HF_TOKEN_PATH");
	assert_int_equal(ep_extra_env_pick(&x, "HF_HOME"), EP_EXTRA_YES);
	assert_int_equal(ep_extra_env_pick(&x, "NCCL_IB_PKEY"), EP_EXTRA_YES);
	assert_int_equal(ep_extra_env_pick(&x, "MY_VAR"), EP_EXTRA_YES);
	/* A prefix that takes a credential's name: left out, said. */
	assert_int_equal(ep_extra_env_pick(&x, "HF_TOKEN"), EP_EXTRA_SECRET);
	assert_int_equal(ep_extra_env_pick(&x, "HF_TOKEN_PATH"), EP_EXTRA_YES);
	assert_int_equal(ep_extra_env_pick(&x, "MY_VAR2"), EP_EXTRA_NO);
	assert_int_equal(ep_extra_env_pick(&x, "HF"), EP_EXTRA_NO);
	assert_int_equal(ep_extra_env_pick(&x, "PATH"), EP_EXTRA_NO);
	ep_extra_clear(&x);
}

static void
test_paths(void **state)
{
	static const char *const bad[] = { "etc/nccl.conf", "", "/a/../b",
	    "/a/./b", "/a/..", "/a//b", "/a/", "/a b", "/a\nb", NULL };
	struct ep_err err;

	(void)state;
	assert_int_equal(ep_extra_path_check("/etc/nccl.conf", &err), 0);
	assert_int_equal(ep_extra_path_check("/", &err), 0);
	for (size_t i = 0; bad[i] != NULL; i++) {
		memset(&err, 0, sizeof err);
		if (ep_extra_path_check(bad[i], &err) != -1)
			fail_msg("'%s' taken", bad[i]);
		assert_int_equal(err.kind, EP_E_INPUT);
	}
}

/* A first line would carry what a credential file holds: refused by the
 * file's name, with the way out (its SHA-256) named. */
static void
test_line_paths(void **state)
{
	static const char *const bad[] = { "/root/.netrc", "/home/u/.ssh/config",
	    "/home/u/.ssh2/id_ed25519", "/home/u/id_rsa.old", "/etc/ssl/a.pem",
	    "/run/secrets/db", "/var/run/secrets/kubernetes.io/serviceaccount/x",
	    "/home/u/.docker/config.json", "/home/u/.kube/config",
	    "/etc/hf_token", "/etc/app/Client-Secret.txt", "/etc/shadow",
	    "/home/u/.aws/credentials", "/opt/wandb/api_key", "/srv/app/.env",
	    "/etc/ssl/private/server.key", NULL };
	static const char *const good[] = { "/etc/nccl.conf", "/etc/os-release",
	    "/etc/default/keyboard", "/etc/pam.d/common-auth",
	    "/opt/launcher/site.yaml", NULL };
	struct ep_err err;

	(void)state;
	for (size_t i = 0; good[i] != NULL; i++)
		if (ep_extra_line_path_check(good[i], &err) != 0)
			fail_msg("'%s' refused: %s", good[i], err.msg);
	for (size_t i = 0; bad[i] != NULL; i++) {
		memset(&err, 0, sizeof err);
		if (ep_extra_line_path_check(bad[i], &err) != -1)
			fail_msg("'%s' taken", bad[i]);
		assert_int_equal(err.kind, EP_E_INPUT);
		assert_non_null(strstr(err.msg, "record its SHA-256 instead"));
	}
}

#define HEAD	"{\"schema\": \"envparity/policy@1\", "

static void
test_policy_capture(void **state)
{
	static const char own[] = HEAD "\"capture\": {\"env\": [\"NCCL_IB_*\","
	    " \"HF_TOKEN_PATH\"], \"env_not_secret\": [\"HF_TOKEN_PATH\"],"
	    " \"files\": [{\"path\": \"/etc/nccl.conf\", \"fact\": \"sha256\"},"
	    " {\"path\": \"/etc/os-release\", \"fact\": \"line\"}]}}";
	static const char shared[] = HEAD "\"capture\": {\"env\": "
	    "[\"NCCL_IB_*\", \"HF_*\"]}}";
	const struct ep_policy_layer l[] = {
		{ own, sizeof own - 1, "p/policy.json", NULL, EP_SCOPE_PROFILE },
		{ shared, sizeof shared - 1, "policy.json", NULL,
		    EP_SCOPE_SHARED },
	};
	static const struct {
		const char *text;
		const char *msg;
	} bad[] = {
		{ HEAD "\"capture\": {\"env\": [\"HF_API_TOKEN\"]}}",
		    "p.json: capture: 'HF_API_TOKEN': looks like a credential's "
		    "name (TOKEN)" },
		{ HEAD "\"capture\": {\"env\": [\"AWS_*\", \"AWS_SECRET*\"]}}",
		    "p.json: capture: 'AWS_SECRET*': looks like a credential's "
		    "name (SECRET): a prefix" },
		{ HEAD "\"capture\": {\"env\": \"HF_*\"}}",
		    "p.json: capture.env is not an array of strings" },
		{ HEAD "\"capture\": {\"env\": [1]}}",
		    "p.json: capture.env[0]: not a non-empty string" },
		{ HEAD "\"capture\": {\"envs\": []}}",
		    "p.json: capture: unknown member \"envs\"" },
		{ HEAD "\"capture\": []}", "p.json: \"capture\" is not an "
		    "object" },
		{ HEAD "\"capture\": {\"files\": [{\"path\": \"/a\", "
		    "\"fact\": \"md5\"}]}}",
		    "p.json: capture.files[0]: unknown fact \"md5\" (sha256 or "
		    "line)" },
		{ HEAD "\"capture\": {\"files\": [{\"path\": \"a\", "
		    "\"fact\": \"line\"}]}}",
		    "p.json: capture: 'a': not an absolute path" },
		{ HEAD "\"capture\": {\"files\": [\"/a\"]}}",
		    "p.json: capture.files[0]: not {\"path\": PATH" },
		{ HEAD "\"capture\": {\"env\": [\"DB_PASSWORD\"]}}",
		    "p.json: capture: 'DB_PASSWORD': looks like a credential's "
		    "name (PASSWORD), and a credential never reaches a manifest; "
		    "if it is none, name it as not secret on the job's command "
		    "line too (--env-not-secret DB_PASSWORD; a policy may not)" },
		{ HEAD "\"capture\": {\"env\": [\"DB_PASSWORD\"], "
		    "\"env_not_secret\": [\"DB_PASSWORD\"]}}",
		    "p.json: capture.env_not_secret: 'DB_PASSWORD' holds "
		    "PASSWORD: a policy may not call such a name not secret; "
		    "only the job's command line may" },
		{ HEAD "\"capture\": {\"env\": [\"GITHUB_TOKEN\"], "
		    "\"env_not_secret\": [\"GITHUB_TOKEN\"]}}",
		    "p.json: capture: 'GITHUB_TOKEN': a credential CI systems "
		    "and clouds hand every job, never recorded" },
	};
	struct ep_policy *p = NULL;
	const struct ep_extra *x;
	struct ep_err err = { 0 };

	(void)state;
	assert_int_equal(ep_policy_parse_layers(&p, l, 2, &err), 0);
	x = ep_policy_capture(p);
	/* Every file's, each once. */
	assert_int_equal(x->env.n, 3);
	assert_true(ep_strv_contains(&x->env, "HF_*"));
	assert_true(ep_strv_contains(&x->env, "HF_TOKEN_PATH"));
	assert_int_equal(x->sha256.n, 1);
	assert_string_equal(x->sha256.v[0], "/etc/nccl.conf");
	assert_int_equal(x->line.n, 1);
	assert_int_equal(ep_extra_env_pick(x, "HF_TOKEN"), EP_EXTRA_SECRET);
	ep_policy_free(p);
	/* None: nothing added. */
	p = ep_policy_default();
	assert_int_equal(ep_policy_capture(p)->env.n, 0);
	ep_policy_free(p);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(&err, 0, sizeof err);
		p = NULL;
		if (ep_policy_parse(&p, bad[i].text, strlen(bad[i].text),
		    "p.json", &err) != -1)
			fail_msg("policy %zu taken", i);
		assert_null(p);
		if (strstr(err.msg, bad[i].msg) == NULL)
			fail_msg("policy %zu: '%s' lacks '%s'", i, err.msg,
			    bad[i].msg);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_secret_words),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_secret_strength),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_line_paths),
		cmocka_unit_test(test_policy_capture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
