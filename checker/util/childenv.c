/*
 * childenv.c: the environment a child of envparity gets, and finding a
 * program on PATH without looking in the current directory (child.h).
 *
 * A child gets what its kind of work needs, by name (an allowlist per
 * kind: an interpreter, the dynamic loader with CUDA and the driver, the
 * probe), never our environment less what looks secret: a credential
 * under a name nobody foresaw (ACME_DEPLOY, a URL in a variable of any
 * name) must not reach code a pull request controls.  The denylist of
 * credential names stays as a second gate: a name on an allowlist, or
 * one the user adds with ENVPARITY_CHILD_ENV, that holds a credential
 * (CUDA_SOMETHING=https://user:token@host) is still refused.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "child.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

extern char **environ;

static char *absolute_entries(const char *value, unsigned *dropped);

/* Credentials by name: envparity's own, ssh and git, GitHub Actions,
 * GitLab CI, registries, and files that hold credentials. */
static const char *const deny_names[] = {
	"ENVPARITY_GIT_TOKEN", "ENVPARITY_SSH_KEY",
	"ENVPARITY_STORE",		/* a URL may carry user:token@ */
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "SSH_ASKPASS", "GIT_ASKPASS",
	"SUDO_ASKPASS", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
	"GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN",
	"ACTIONS_RUNTIME_TOKEN", "ACTIONS_RUNTIME_URL",
	"ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL",
	"ACTIONS_CACHE_URL", "ACTIONS_RESULTS_URL",
	"CI_JOB_TOKEN", "CI_JOB_JWT", "CI_JOB_JWT_V1", "CI_JOB_JWT_V2",
	"CI_BUILD_TOKEN", "CI_REGISTRY_PASSWORD", "CI_DEPLOY_PASSWORD",
	"CI_DEPENDENCY_PROXY_PASSWORD", "CI_REPOSITORY_URL",
	"REGISTRY_AUTH_FILE", "DOCKER_CONFIG", "DOCKER_AUTH_CONFIG",
	"NETRC", "KUBECONFIG", "KRB5CCNAME", "XAUTHORITY",
	"PGPASSWORD", "PGPASSFILE", "PGSERVICEFILE", "MYSQL_PWD", "SSHPASS",
	"LDAPBINDPW", "VAULT_ADDR", "CONSUL_HTTP_AUTH",
	NULL,
};

/* Whole families: cloud credentials and git's config from the
 * environment (http.extraHeader can carry a token). */
static const char *const deny_prefixes[] = {
	"AWS_", "AZURE_", "GOOGLE_", "CLOUDSDK_", "GIT_CONFIG_KEY_",
	"GIT_CONFIG_VALUE_", NULL,
};

/* A name with one of these between underscores (or as the whole name),
 * in any case: GITLAB_OIDC_TOKEN, HF_TOKEN, WANDB_API_KEY, TWINE_PASSWORD,
 * npm_config__auth.  Whole words only: TOKENIZERS_PARALLELISM stays. */
static const char *const deny_words[] = {
	"TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWORDS",
	"PASSWD", "PASSPHRASE", "PASS", "PWD", "PW", "CREDENTIAL",
	"CREDENTIALS", "CREDS", "AUTH", "JWT", "KEY", "KEYS", "APIKEY",
	"COOKIE", "WEBHOOK", "PAT", "OTP", "BEARER", NULL,
};

/* Whole names a word above would catch that are no secret: the shell's
 * working directories. */
static const char *const keep_names[] = { "PWD", "OLDPWD", NULL };

static int
name_has_word(const char *name, size_t len)
{
	const char *p = name, *end = name + len;

	while (p < end) {
		const char *u = memchr(p, '_', (size_t)(end - p));
		size_t n = (size_t)((u != NULL ? u : end) - p);

		for (size_t i = 0; n > 0 && deny_words[i] != NULL; i++)
			if (strlen(deny_words[i]) == n &&
			    strncasecmp(p, deny_words[i], n) == 0)
				return 1;
		if (u == NULL)
			break;
		p = u + 1;
	}
	return 0;
}

/* A URL whose query names a credential ("...?token=", "&sig=",
 * "?api_key="): the parameter's name holds one of these, in any case. */
static int
value_has_query_secret(const char *v)
{
	static const char *const words[] = { "token", "key", "secret",
	    "password", "passwd", "pass", "pwd", "sig", "auth", "credential",
	    "session", NULL };
	const char *p = strstr(v, "://"), *q;

	if (p == NULL || (q = strchr(p, '?')) == NULL)
		return 0;
	for (q++; *q != '\0' && !isspace((unsigned char)*q); ) {
		size_t n = strcspn(q, "=&;# \t");

		for (size_t i = 0; words[i] != NULL; i++) {
			size_t w = strlen(words[i]);

			for (size_t k = 0; k + w <= n; k++)
				if (strncasecmp(q + k, words[i], w) == 0)
					return 1;
		}
		q += n;
		q += strcspn(q, "&;# \t");
		if (*q == '&' || *q == ';')
			q++;
		else
			break;
	}
	return 0;
}

/* A URL with user information: "scheme://" then '@' before the host
 * ends ('/', '?', '#' or white space). */
static int
value_has_userinfo(const char *v)
{
	const char *p = v;

	while ((p = strstr(p, "://")) != NULL) {
		p += 3;
		for (const char *q = p; *q != '\0'; q++) {
			if (*q == '@')
				return 1;
			if (*q == '/' || *q == '?' || *q == '#' ||
			    isspace((unsigned char)*q))
				break;
		}
	}
	return 0;
}

int
ep_child_secret(const char *entry)
{
	const char *eq = strchr(entry, '=');
	size_t n = eq != NULL ? (size_t)(eq - entry) : strlen(entry);

	if (n == 0)
		return 1;
	for (size_t i = 0; keep_names[i] != NULL; i++)
		if (strlen(keep_names[i]) == n &&
		    strncmp(entry, keep_names[i], n) == 0)
			return 0;
	for (size_t i = 0; deny_names[i] != NULL; i++)
		if (strlen(deny_names[i]) == n &&
		    strncmp(entry, deny_names[i], n) == 0)
			return 1;
	for (size_t i = 0; deny_prefixes[i] != NULL; i++) {
		size_t pn = strlen(deny_prefixes[i]);

		if (n >= pn && strncmp(entry, deny_prefixes[i], pn) == 0)
			return 1;
	}
	if (name_has_word(entry, n))
		return 1;
	return eq != NULL && (value_has_userinfo(eq + 1) ||
	    value_has_query_secret(eq + 1));
}

/* What every helper gets: where programs are (absolute PATH entries
 * only), the locale, the time zone, HOME (an interpreter's user site, a
 * CUDA cache) and a sanitizer's settings (a build with them). */
static const char *const common_names[] = {
	"HOME", "LANG", "LANGUAGE", "TZ", "ASAN_OPTIONS", "UBSAN_OPTIONS",
	"LSAN_OPTIONS", NULL,
};

/* An interpreter asked for its paths: what site.py and a pyenv shim read
 * (PYENV_VERSION, PYENV_ROOT, PYENV_DIR, ...), and the loader's path for
 * a libpython outside the system directories. */
static const char *const python_names[] = {
	"PYTHONNOUSERSITE", "PYTHONUSERBASE", "LD_LIBRARY_PATH", NULL,
};
static const char *const python_prefixes[] = { "PYENV_", NULL };

/* A library asked for its version (dlopen): the loader's path, and what
 * the CUDA libraries and the driver read. */
static const char *const loader_names[] = { "LD_LIBRARY_PATH", NULL };
static const char *const loader_prefixes[] = {
	"CUDA_", "NVIDIA_", "CUBLAS", "CUDNN_", "NCCL_", NULL,
};

/* envparity-probe: the loader's, and every variable that changes what a
 * reference workload computes, as collect_env.c records them (env.*),
 * so that the workload runs as the manifest says. */
static const char *const probe_names[] = {
	"LD_LIBRARY_PATH", "DNNL_DEFAULT_FPMATH_MODE",
	"JAX_DEFAULT_MATMUL_PRECISION", "JAX_ENABLE_X64",
	"ONEDNN_DEFAULT_FPMATH_MODE", "PYTHONHASHSEED",
	"PYTORCH_CUDA_ALLOC_CONF", "TF_CUDNN_DETERMINISTIC",
	"TF_DETERMINISTIC_OPS", "TF_ENABLE_ONEDNN_OPTS",
	"TF_FORCE_GPU_ALLOW_GROWTH", "TF_GPU_ALLOCATOR",
	"TF_USE_CUDNN_AUTOTUNE", "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE",
	"TORCH_CUDNN_V8_API_DISABLED", "XLA_FLAGS",
	"XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_PREALLOCATE",
	NULL,
};
static const char *const probe_prefixes[] = {
	"CUDA_", "NVIDIA_", "CUBLAS", "CUDNN_", "NCCL_", "OMP_", "KMP_",
	"MKL_", "OPENBLAS_", NULL,
};

static int
name_is(const char *entry, size_t n, const char *name)
{
	return strlen(name) == n && strncmp(entry, name, n) == 0;
}

static int
in_names(const char *entry, size_t n, const char *const *names)
{
	for (size_t i = 0; names != NULL && names[i] != NULL; i++)
		if (name_is(entry, n, names[i]))
			return 1;
	return 0;
}

static int
in_prefixes(const char *entry, size_t n, const char *const *prefixes)
{
	for (size_t i = 0; prefixes != NULL && prefixes[i] != NULL; i++) {
		size_t pn = strlen(prefixes[i]);

		if (n > pn && strncmp(entry, prefixes[i], pn) == 0)
			return 1;
	}
	return 0;
}

/* 1 when ENVPARITY_CHILD_ENV (names or NAME* prefixes, separated by
 * commas, colons or white space) names the variable. */
static int
in_extra(const char *entry, size_t n)
{
	const char *p = getenv(EP_CHILD_ENV_VAR);

	while (p != NULL && *p != '\0') {
		size_t k;

		p += strspn(p, ", :\t\n");
		if ((k = strcspn(p, ", :\t\n")) == 0)
			break;
		if (p[k - 1] == '*' ? (k - 1 > 0 && n >= k - 1 &&
		    strncmp(entry, p, k - 1) == 0) : (k == n &&
		    strncmp(entry, p, n) == 0))
			return 1;
		p += k;
	}
	return 0;
}

int
ep_child_env_allowed(const char *entry, enum ep_child_kind kind)
{
	const char *eq = strchr(entry, '=');
	size_t n = eq != NULL ? (size_t)(eq - entry) : strlen(entry);
	int ok;

	if (n == 0 || ep_child_secret(entry))
		return 0;
	ok = in_names(entry, n, common_names) ||
	    (n > 3 && strncmp(entry, "LC_", 3) == 0) || in_extra(entry, n);
	switch (kind) {
	case EP_CHILD_PYTHON:
		ok = ok || in_names(entry, n, python_names) ||
		    in_prefixes(entry, n, python_prefixes);
		break;
	case EP_CHILD_LOADER:
		ok = ok || in_names(entry, n, loader_names) ||
		    in_prefixes(entry, n, loader_prefixes);
		break;
	case EP_CHILD_PROBE:
		ok = ok || in_names(entry, n, probe_names) ||
		    in_prefixes(entry, n, probe_prefixes);
		break;
	default:
		break;
	}
	return ok;
}

void
ep_child_env(struct ep_strv *out, enum ep_child_kind kind)
{
	const char *path = getenv("PATH");
	unsigned dropped;
	char *clean;

	ep_strv_clear(out);
	/* An execve envp even when nothing is kept: v[0] == NULL. */
	ep_strv_push_owned(out, NULL);
	out->n = 0;
	for (char **e = environ; e != NULL && *e != NULL; e++)
		if (strchr(*e, '=') != NULL && !ep_startswith(*e, "PATH=") &&
		    ep_child_env_allowed(*e, kind))
			ep_strv_push(out, *e);
	/* PATH, without the entries that name the current directory. */
	if (path != NULL) {
		clean = absolute_entries(path, &dropped);
		if (*clean != '\0')
			ep_child_env_set(out, "PATH", clean);
		free(clean);
	}
}

static int
entry_is(const char *entry, const char *name)
{
	size_t n = strlen(name);

	return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

void
ep_child_env_unset(struct ep_strv *env, const char *name)
{
	size_t j = 0;

	for (size_t i = 0; i < env->n; i++) {
		if (entry_is(env->v[i], name))
			free(env->v[i]);
		else
			env->v[j++] = env->v[i];
	}
	env->n = j;
	if (env->v != NULL)
		env->v[j] = NULL;
}

void
ep_child_env_set(struct ep_strv *env, const char *name, const char *value)
{
	ep_child_env_unset(env, name);
	ep_strv_push_owned(env, xasprintf("%s=%s", name, value));
}

const char *
ep_child_env_get(const struct ep_strv *env, const char *name)
{
	for (size_t i = 0; i < env->n; i++)
		if (entry_is(env->v[i], name))
			return env->v[i] + strlen(name) + 1;
	return NULL;
}

int
ep_child_which(char **out, const char *name, unsigned *relative)
{
	const char *path = getenv("PATH"), *p;
	struct stat st;
	unsigned skipped = 0;

	*out = NULL;
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; ) {
		size_t n = strcspn(p, ":");

		/* "", "." and "bin" are the current directory, the checkout. */
		if (n == 0 || *p != '/')
			skipped++;
		else {
			char *cand = xasprintf("%.*s/%s", (int)n, p, name);

			if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
			    access(cand, X_OK) == 0) {
				*out = cand;
				return 0;
			}
			free(cand);
		}
		if (p[n] == '\0')
			break;
		p += n + 1;
	}
	if (relative != NULL)
		*relative = skipped;
	return -1;
}

/* value's entries that are absolute folders, joined by ':' (a new
 * string), and in *dropped how many were not. */
static char *
absolute_entries(const char *value, unsigned *dropped)
{
	char *out = xmalloc(strlen(value) + 1), *o = out;
	const char *p = value;

	*dropped = 0;
	for (;;) {
		size_t n = strcspn(p, ":");

		if (n > 0 && *p == '/') {
			if (o != out)
				*o++ = ':';
			memcpy(o, p, n);
			o += n;
		} else
			(*dropped)++;
		if (p[n] == '\0')
			break;
		p += n + 1;
	}
	*o = '\0';
	return out;
}

int
ep_child_sane_loader(char **argv, struct ep_err *err)
{
	const char *ld = getenv("LD_LIBRARY_PATH");
	unsigned dropped;
	char *clean;

	if (ld == NULL)
		return 0;
	clean = absolute_entries(ld, &dropped);
	if (dropped == 0) {
		free(clean);
		return 0;
	}
	if (*clean != '\0')
		setenv("LD_LIBRARY_PATH", clean, 1);
	else
		unsetenv("LD_LIBRARY_PATH");
	free(clean);
	/* The loader read its search path when this process started: only a
	 * new one sees the clean value. */
	execv("/proc/self/exe", argv);
	return ep_err_set(err, EP_E_IO, "LD_LIBRARY_PATH has relative entries "
	    "(the current directory), and envparity cannot restart without "
	    "them: %s", strerror(errno));
}
