/*
 * extrafacts.c: the environment variables and files a policy or the
 * command line adds to a capture (extrafacts.h), judged by name alone.
 *
 * Which names look like a credential's: those that hold one of the words
 * below, in any case, anywhere in the name.  They come from the
 * variables that carry secrets in the places envparity runs: cloud and
 * registry keys (AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
 * AZURE_CLIENT_SECRET, DOCKER_PASSWORD), model hubs and trackers
 * (HF_TOKEN, HUGGING_FACE_HUB_TOKEN, WANDB_API_KEY, OPENAI_API_KEY), CI
 * (GITHUB_TOKEN, CI_JOB_TOKEN, NPM_AUTH_TOKEN, ENVPARITY_GIT_TOKEN), and
 * the ones that hold a password inside a value (DATABASE_URL,
 * MLFLOW_TRACKING_URI, HTTPS_PROXY=http://user:pass@..., SENTRY_DSN).
 * The list errs on the side of refusing; what is known to be no
 * credential is excused here: NCCL's own variables (configuration only;
 * NCCL_IB_PKEY is an InfiniBand partition key) and Hugging Face
 * tokenizers' TOKENIZERS_PARALLELISM.  Any other name that only looks like a
 * credential's is named exactly as not secret.  A prefix can never be
 * excused: it would take whatever name the environment holds.
 */
#include <ctype.h>
#include <string.h>

#include "extrafacts.h"

static const char *const secret_words[] = { "TOKEN", "SECRET", "PASSWORD",
    "PASSWD", "PASSPHRASE", "PASS", "PWD", "KEY", "CREDENTIAL", "AUTH",
    "COOKIE", "SESSION", "PRIVATE", "JWT", "WEBHOOK", "DSN", "PROXY", "URL",
    "URI", NULL };

/* Words that make a name a credential's whatever else it says: NCCL's own
 * variables are spared the rest (NCCL_IB_PKEY is a partition key), and
 * only the command line may call such a name not secret (a store's
 * policy may not: ep_extra_strong_word). */
static const char *const strong_words[] = { "SECRET", "PASSWORD", "PASSWD",
    "PASSPHRASE", "CREDENTIAL", "PRIVATE", "JWT", "API_KEY", "APIKEY",
    "ACCESS_KEY", NULL };

/* Never recorded, whoever calls them not secret: envparity's own
 * settings (its store's token, its signing key's file descriptor) and the
 * credentials CI systems and clouds hand every job. */
static const char *const never_names[] = { "GITHUB_TOKEN", "GH_TOKEN",
    "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL", "CI_JOB_TOKEN", "CI_JOB_JWT",
    "CI_JOB_JWT_V2", "CI_REGISTRY_PASSWORD", "CI_DEPLOY_PASSWORD",
    "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
    "AWS_WEB_IDENTITY_TOKEN_FILE", "AZURE_CLIENT_SECRET", "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN", "WANDB_API_KEY", "NGC_API_KEY",
    "VAULT_TOKEN", "SSH_AUTH_SOCK", NULL };

/* 1 if upper-case word occurs in s, in any case. */
static int
has_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (; *s != '\0'; s++) {
		size_t i = 0;

		while (i < n && s[i] != '\0' &&
		    toupper((unsigned char)s[i]) == word[i])
			i++;
		if (i == n)
			return 1;
	}
	return 0;
}

static const char *
word_in(const char *name, const char *const *words)
{
	for (size_t i = 0; words[i] != NULL; i++)
		if (has_word(name, words[i]))
			return words[i];
	return NULL;
}

int
ep_extra_never(const char *name)
{
	if (strncmp(name, "ENVPARITY_", 10) == 0)
		return 1;
	for (size_t i = 0; never_names[i] != NULL; i++)
		if (strcmp(name, never_names[i]) == 0)
			return 1;
	return 0;
}

const char *
ep_extra_strong_word(const char *name)
{
	return word_in(name, strong_words);
}

const char *
ep_extra_secret_word(const char *name)
{
	if (ep_extra_never(name))
		return strncmp(name, "ENVPARITY_", 10) == 0 ? "ENVPARITY_" :
		    name;
	if (strcmp(name, "PWD") == 0 || strcmp(name, "OLDPWD") == 0)
		return NULL;
	if (strncmp(name, "NCCL_", 5) == 0 ||
	    strcmp(name, "TOKENIZERS_PARALLELISM") == 0)
		return word_in(name, strong_words);
	return word_in(name, secret_words);
}

/* 1 if s[0..n) is [A-Za-z_][A-Za-z0-9_]*. */
static int
name_ok(const char *s, size_t n)
{
	if (n == 0 || isdigit((unsigned char)s[0]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

int
ep_extra_name_check(const char *name, struct ep_err *err)
{
	if (!name_ok(name, strlen(name)))
		return ep_err_set(err, EP_E_INPUT, "'%s': not a variable name "
		    "(letters, digits and '_', not first a digit)", name);
	return 0;
}

int
ep_extra_env_check(const char *pattern, const struct ep_strv *not_secret,
    struct ep_err *err)
{
	size_t n = strlen(pattern);
	int prefix = n > 0 && pattern[n - 1] == '*';
	const char *word;

	if (prefix)
		n--;
	if (!name_ok(pattern, n))
		return ep_err_set(err, EP_E_INPUT, "'%s': not a variable name "
		    "or a prefix of one followed by '*' (letters, digits and "
		    "'_')", pattern);
	if (prefix && n < 3)
		return ep_err_set(err, EP_E_INPUT, "'%s': a prefix of 3 "
		    "characters or more ('HF_*'): a shorter one takes much of "
		    "the environment", pattern);
	if ((word = ep_extra_secret_word(pattern)) == NULL)
		return 0;
	if (prefix)
		return ep_err_set(err, EP_E_INPUT, "'%s': looks like a "
		    "credential's name (%s): a prefix that does is refused; "
		    "name the variables one by one", pattern, word);
	if (ep_extra_never(pattern))
		return ep_err_set(err, EP_E_INPUT, "'%s': %s, never recorded, "
		    "even when called not secret", pattern,
		    strncmp(pattern, "ENVPARITY_", 10) == 0 ? "one of "
		    "envparity's own settings" : "a credential CI systems and "
		    "clouds hand every job");
	if ((not_secret == NULL || !ep_strv_contains(not_secret, pattern)) &&
	    ep_extra_strong_word(pattern) != NULL)
		return ep_err_set(err, EP_E_INPUT, "'%s': looks like a "
		    "credential's name (%s), and a credential never reaches a "
		    "manifest; if it is none, name it as not secret on the "
		    "job's command line too (--env-not-secret %s; a policy may "
		    "not)", pattern, word, pattern);
	if (not_secret == NULL || !ep_strv_contains(not_secret, pattern))
		return ep_err_set(err, EP_E_INPUT, "'%s': looks like a "
		    "credential's name (%s), and a credential never reaches a "
		    "manifest; if it is none, name it as not secret too "
		    "(--env-not-secret %s, or the policy's "
		    "capture.env_not_secret)", pattern, word, pattern);
	return 0;
}

int
ep_extra_path_check(const char *path, struct ep_err *err)
{
	size_t n = strlen(path);

	if (path[0] != '/')
		return ep_err_set(err, EP_E_INPUT, "'%s': not an absolute "
		    "path", path);
	if (n > 4096)
		return ep_err_set(err, EP_E_INPUT, "'%.64s...': a path of "
		    "more than 4096 bytes", path);
	for (const char *p = path; *p != '\0'; p++)
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p))
			return ep_err_set(err, EP_E_INPUT, "'%s': a path with "
			    "a blank or a control character", path);
	if (strstr(path, "/./") != NULL || strstr(path, "/../") != NULL ||
	    (n >= 2 && strcmp(path + n - 2, "/.") == 0) ||
	    (n >= 3 && strcmp(path + n - 3, "/..") == 0) ||
	    strstr(path, "//") != NULL || (n > 1 && path[n - 1] == '/'))
		return ep_err_set(err, EP_E_INPUT, "'%s': not a plain path "
		    "(no '.', '..', '//' or trailing '/')", path);
	return 0;
}

/* Files that hold credentials by what they are called: a suffix of the
 * path's last part (or its start, for SSH keys), a word in it, or a
 * folder on the way. */
static const char *const secret_files[] = { ".netrc", ".pgpass", ".env",
    ".key",
    ".git-credentials", ".npmrc", ".pypirc", ".htpasswd", "id_rsa",
    "id_dsa", "id_ecdsa", "id_ed25519", ".pem", ".p12", ".pfx", "shadow",
    "gshadow", NULL };
static const char *const secret_names[] = { "TOKEN", "SECRET",
    "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE", "APIKEY", "API_KEY",
    NULL };
static const char *const secret_dirs[] = { "/.ssh/", "/.aws/", "/.gnupg/",
    "/.docker/", "/.kube/", "/run/secrets/", "/var/run/secrets/", NULL };

int
ep_extra_line_path_check(const char *path, struct ep_err *err)
{
	const char *base = strrchr(path, '/'), *word = NULL;
	size_t n;

	base = base != NULL ? base + 1 : path;
	n = strlen(base);
	for (size_t i = 0; secret_dirs[i] != NULL && word == NULL; i++)
		if (strstr(path, secret_dirs[i]) != NULL)
			word = secret_dirs[i];
	for (size_t i = 0; secret_files[i] != NULL && word == NULL; i++) {
		size_t k = strlen(secret_files[i]);

		if (n >= k && strcmp(base + n - k, secret_files[i]) == 0)
			word = secret_files[i];
		else if (strncmp(base, secret_files[i], k) == 0 &&
		    secret_files[i][0] == 'i')
			word = secret_files[i];	/* id_rsa.old */
	}
	for (size_t i = 0; secret_names[i] != NULL && word == NULL; i++)
		if (has_word(base, secret_names[i]))
			word = secret_names[i];
	if (word == NULL)
		return 0;
	return ep_err_set(err, EP_E_INPUT, "'%s': looks like a file that "
	    "holds a credential (%s), and its first line would reach the "
	    "manifest; record its SHA-256 instead (--file-sha256, or "
	    "\"fact\": \"sha256\")", path, word);
}


int
ep_extra_env_pick(const struct ep_extra *x, const char *name)
{
	int secret = ep_extra_never(name) ||
	    (ep_extra_secret_word(name) != NULL &&
	    !ep_strv_contains(&x->not_secret, name));
	int hit = 0;

	for (size_t i = 0; i < x->env.n && !hit; i++) {
		const char *p = x->env.v[i];
		size_t n = strlen(p);

		if (n > 0 && p[n - 1] == '*')
			hit = strncmp(p, name, n - 1) == 0;
		else if (strcmp(p, name) == 0)
			/* Named exactly: checked when it was given. */
			return secret ? EP_EXTRA_SECRET : EP_EXTRA_YES;
	}
	if (!hit)
		return EP_EXTRA_NO;
	return secret ? EP_EXTRA_SECRET : EP_EXTRA_YES;
}

int
ep_extra_check(const struct ep_extra *x, const char *where,
    struct ep_err *err)
{
	struct ep_err e = { 0 };

	for (size_t i = 0; i < x->not_secret.n; i++)
		if (ep_extra_name_check(x->not_secret.v[i], &e) < 0)
			goto bad;
	for (size_t i = 0; i < x->env.n; i++)
		if (ep_extra_env_check(x->env.v[i], &x->not_secret, &e) < 0)
			goto bad;
	for (size_t i = 0; i < x->sha256.n; i++)
		if (ep_extra_path_check(x->sha256.v[i], &e) < 0)
			goto bad;
	for (size_t i = 0; i < x->line.n; i++)
		if (ep_extra_path_check(x->line.v[i], &e) < 0 ||
		    ep_extra_line_path_check(x->line.v[i], &e) < 0)
			goto bad;
	return 0;
bad:
	return ep_err_set(err, EP_E_INPUT, "%s: %s", where, e.msg);
}

static void
merge(struct ep_strv *into, const struct ep_strv *from)
{
	for (size_t i = 0; i < from->n; i++)
		if (!ep_strv_contains(into, from->v[i]))
			ep_strv_push(into, from->v[i]);
}

void
ep_extra_merge(struct ep_extra *into, const struct ep_extra *from)
{
	merge(&into->env, &from->env);
	merge(&into->not_secret, &from->not_secret);
	merge(&into->sha256, &from->sha256);
	merge(&into->line, &from->line);
}

void
ep_extra_clear(struct ep_extra *x)
{
	ep_strv_clear(&x->env);
	ep_strv_clear(&x->not_secret);
	ep_strv_clear(&x->sha256);
	ep_strv_clear(&x->line);
}
