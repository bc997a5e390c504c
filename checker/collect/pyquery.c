/*
 * pyquery.c: ask an interpreter for its version and site directories by
 * running it once with a small script (pyscript.c), with a timeout, and
 * cache the answer under the identity of the real executable and
 * everything else the answer depends on.  A crash, a hang or garbage is an error that
 * names the interpreter, never trouble for envparity itself.
 *
 * The interpreter may be the checkout's own (a venv in it, a wrapper
 * script), and any interpreter imports whatever a checkout puts in its
 * way (json.py in the current directory, sitecustomize.py on PYTHONPATH,
 * a .pth file in site-packages, which site.py executes).  So it runs
 * isolated: -I -S where the interpreter has -I (3.4 and later), else
 * -E -s -S (2.7: there is no -P either, and the current directory is
 * what sys.path[0] names); from "/"; as a confined helper (child.h): an
 * interpreter's environment (no credential, no PYTHON* variable but the
 * two the user site depends on), and where Landlock is, only its own
 * files and the system's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "child.h"
#include "hash.h"
#include "python.h"
#include "errors.h"
#include "files.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

#define QUERY_OUT_MAX	(256 * 1024)	/* more than any real answer */
#define QUERY_ERR_KEEP	1024
#define QUERY_GRACE_MS	2000

/* What the query's answer depends on besides the executable itself (an
 * isolated interpreter reads no other PYTHON* variable). */
static const char *const query_env[] = {
	"PYTHONNOUSERSITE", "PYTHONUSERBASE", "HOME", NULL,
};

/* The last non-empty line of what the child wrote on stderr. */
static char *
last_line(char *buf)
{
	char *e, *b;

	ep_trim(buf);
	b = (e = strrchr(buf, '\n')) != NULL ? e + 1 : buf;
	if (strlen(b) > 200)
		b[200] = '\0';
	return b;
}

/* The environment of the interpreter: a helper's of its kind (no
 * credential, no PYTHON* variable but those site.py reads itself, no
 * start-up file for a shell script in front of it), and the directory a
 * pyenv shim looks for .python-version from, since it runs from "/". */
static void
python_env(struct ep_strv *env)
{
	char *cwd;

	ep_child_env(env, EP_CHILD_PYTHON);
	if (ep_child_env_get(env, "PYENV_DIR") == NULL &&
	    (cwd = getcwd(NULL, 0)) != NULL) {
		ep_child_env_set(env, "PYENV_DIR", cwd);
		free(cwd);
	}
}

/* The tree an executable at path belongs to: its directory, or the one
 * above when that is bin, sbin or shims (a prefix, a venv, a pyenv root),
 * pushed onto v. */
static void
push_prefix(struct ep_strv *v, const char *path)
{
	char *dir = ep_path_dir(path), *base = strrchr(dir, '/');

	if (base != NULL && base != dir && (strcmp(base, "/bin") == 0 ||
	    strcmp(base, "/sbin") == 0 || strcmp(base, "/shims") == 0))
		*base = '\0';
	if (*dir == '/' && !ep_strv_contains(v, dir))
		ep_strv_push_owned(v, dir);
	else
		free(dir);
}

/* A venv's base interpreter tree, from pyvenv.cfg's home: the judged
 * venv's own file, so only a folder that holds an interpreter (a python3
 * or python that is an executable file), never one that merely names the
 * place of a key. */
static void
push_home(struct ep_strv *v, const char *home)
{
	static const char *const names[] = { "python3", "python", NULL };
	struct stat st;

	for (size_t i = 0; names[i] != NULL; i++) {
		char *exe = xasprintf("%s/%s", home, names[i]);
		int ok = stat(exe, &st) == 0 && S_ISREG(st.st_mode) &&
		    (st.st_mode & 0111) != 0;

		if (ok)
			push_prefix(v, exe);
		free(exe);
		if (ok)
			return;
	}
}

/* What the interpreter at path may read: its tree and its real file's
 * (a venv's python is a link into the base's; a pyenv shim's tree is
 * pyenv's root), a virtual environment's base (pyvenv.cfg's home, for a
 * copy rather than a link), the .python-version files a shim reads,
 * from env's PYENV_DIR up; and for a script in front of an interpreter,
 * what it may run in turn: the folders of env's PATH, the tree of the
 * python3 found there, and PYENV_ROOT. */
static void
python_fs(struct ep_child_fs *fs, const char *path,
    const struct ep_strv *env)
{
	const char *v;
	char *real = realpath(path, NULL), *root, *cfg, *text = NULL, *dir;
	struct ep_pyvenv venv = { 0 };
	struct stat st;
	size_t len;

	push_prefix(&fs->read, path);
	ep_strv_push(&fs->need, path);
	if (real != NULL) {
		push_prefix(&fs->read, real);
		ep_strv_push_owned(&fs->need, real);
	}
	if ((root = ep_pyvenv_root(path)) != NULL) {
		cfg = xasprintf("%s/pyvenv.cfg", root);
		if (ep_read_regular(&text, &len, cfg, 1 << 20, NULL) == 0) {
			ep_pyvenv_parse(&venv, text, len);
			if (venv.home != NULL && *venv.home == '/')
				push_home(&fs->read, venv.home);
		}
		ep_pyvenv_clear(&venv);
		free(text);
		free(cfg);
		free(root);
	}
	ep_child_fs_path(fs, ep_child_env_get(env, "PATH"));
	if (ep_child_which(&real, "python3", NULL) == 0) {
		char *r = realpath(real, NULL);

		push_prefix(&fs->read, real);
		if (r != NULL)
			push_prefix(&fs->read, r);
		free(r);
		free(real);
	}
	if ((v = ep_child_env_get(env, "PYENV_ROOT")) != NULL && *v == '/')
		ep_strv_push(&fs->read, v);
	if ((v = ep_child_env_get(env, "PYENV_DIR")) == NULL || *v != '/')
		return;
	for (dir = xstrdup(v);; ) {
		char *f = xasprintf("%s/.python-version", strcmp(dir, "/") == 0 ?
		    "" : dir), *up;

		/* Only a file: a link (the checkout's, "-> /") would open
		 * whatever it names to the helper. */
		if (lstat(f, &st) == 0 && S_ISREG(st.st_mode))
			ep_strv_push_owned(&fs->read, f);
		else
			free(f);
		if (strcmp(dir, "/") == 0)
			break;
		up = ep_path_dir(dir);
		free(dir);
		dir = up;
	}
	free(dir);
}

/* 1 when the interpreter refused -I: Python 2, or 3 before 3.4. */
static int
no_isolated_mode(const struct ep_child_result *r)
{
	return !r->timed_out && !r->overflow && WIFEXITED(r->status) &&
	    WEXITSTATUS(r->status) == 2 && strstr(r->err, "-I") != NULL &&
	    strstr(r->out, EP_PYQUERY_MARK) == NULL;
}

/* exe as an absolute path: it runs from "/", where a relative path would
 * change meaning.  Not realpath(): a venv's python is a symlink, and it
 * is the link's place that makes it the venv's.  A new string, or NULL
 * with EP_E_IO. */
static char *
query_path(const char *exe, struct ep_err *err)
{
	char *cwd, *path;

	if (exe[0] == '/')
		return xstrdup(exe);
	if ((cwd = getcwd(NULL, 0)) == NULL) {
		ep_err_set(err, EP_E_IO, "%s: cannot run: %s", exe,
		    strerror(errno));
		return NULL;
	}
	path = xasprintf("%s/%s", cwd, exe);
	free(cwd);
	return path;
}

/* What the interpreter's run r gave: its answer in *out, or EP_E_IO
 * naming exe and what went wrong (a hang, too much output, a signal, a
 * failure, no answer). */
static int
query_answer(struct ep_pyquery *out, const char *exe,
    const struct ep_child_result *r, int timeout_ms, struct ep_err *err)
{
	struct ep_err perr = { 0 };
	int status = r->status;

	if (r->timed_out)
		return ep_err_set(err, EP_E_IO, "%s: no answer after %d ms; "
		    "killed", exe, timeout_ms);
	if (r->overflow)
		return ep_err_set(err, EP_E_IO, "%s: more than %d bytes of "
		    "output; killed", exe, QUERY_OUT_MAX);
	if (WIFSIGNALED(status))
		return ep_err_set(err, EP_E_IO, "%s: killed by signal %d "
		    "(%s)", exe, WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		const char *l = last_line(r->err);

		return ep_err_set(err, EP_E_IO, "%s: exited with status "
		    "%d%s%s", exe, WEXITSTATUS(status), *l ? ": " : "", l);
	}
	if (ep_pyquery_parse(out, r->out, r->out_len, &perr) < 0)
		return ep_err_set(err, EP_E_IO, "%s: %s", exe, perr.msg);
	return 0;
}

int
ep_pyquery_run(struct ep_pyquery *out, const char *exe,
    const struct ep_pyquery_venv *venv, int timeout_ms, struct ep_err *err)
{
	struct ep_child_opts o = {
		.timeout_ms = timeout_ms > 0 ? (unsigned)timeout_ms : 1,
		.out_max = QUERY_OUT_MAX,
		.err_keep = QUERY_ERR_KEEP,
		.grace_ms = QUERY_GRACE_MS,
		.dir = "/",
		.kind = EP_CHILD_PYTHON,
	};
	struct ep_child_result r = { 0 };
	struct ep_child_jail jail = { .ruleset = -1 };
	struct ep_child_fs fs = { 0 };
	struct ep_strv env = { 0 };
	struct ep_err perr = { 0 };
	char *path;
	char *argv[] = { NULL, (char *)"-I", (char *)"-S", (char *)"-c",
	    (char *)ep_pyquery_script, NULL, NULL, NULL, NULL };
	char *root = venv != NULL ? (char *)venv->root : NULL;
	char *flag = venv == NULL ? NULL : venv->system_site ?
	    (char *)"true" : (char *)"false";
	int rc = -1;

	memset(out, 0, sizeof *out);
	if ((path = query_path(exe, err)) == NULL)
		goto done;
	argv[0] = path;
	argv[5] = root;
	argv[6] = flag;
	python_env(&env);
	o.envp = env.v;
	python_fs(&fs, path, &env);
	if (ep_child_jail_init(&jail, EP_CHILD_PYTHON, &fs, &perr) < 0) {
		ep_err_set(err, EP_E_IO, "%s: cannot run: %s", exe, perr.msg);
		goto done;
	}
	o.jail = &jail;
	if (ep_child_run(&r, path, argv, &o, &perr) < 0) {
		ep_err_set(err, EP_E_IO, "%s", perr.msg);
		goto done;
	}
	if (no_isolated_mode(&r)) {
		/* -E: no PYTHON* variable; -s: no user site; -S: no site.py
		 * run at start. */
		argv[1] = (char *)"-E";
		argv[2] = (char *)"-s";
		argv[3] = (char *)"-S";
		argv[4] = (char *)"-c";
		argv[5] = (char *)ep_pyquery_script;
		argv[6] = root;
		argv[7] = flag;
		ep_child_result_clear(&r);
		if (ep_child_run(&r, path, argv, &o, &perr) < 0) {
			ep_err_set(err, EP_E_IO, "%s", perr.msg);
			goto done;
		}
	}
	if (query_answer(out, exe, &r, timeout_ms, err) < 0)
		goto done;
	rc = 0;
done:
	ep_child_result_clear(&r);
	ep_child_jail_clear(&jail);
	ep_child_fs_clear(&fs);
	ep_strv_clear(&env);
	free(path);
	return rc;
}

/* 1 if the file starts with "#!": a script, not the interpreter. */
static int
is_script(const char *path)
{
	char b[2];
	int fd, r = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return 0;
	r = read(fd, b, 2) == 2 && b[0] == '#' && b[1] == '!';
	close(fd);
	return r;
}

/* The cache kind: the path run and the environment the answer depends
 * on, hashed so that any bytes in them are safe in the cache file. */
static char *
query_kind(const char *exe, const struct ep_pyquery_venv *venv)
{
	struct ep_strv parts = { 0 };
	char hex[EP_SHA256_HEX], *buf;
	size_t len = 0, off = 0;

	ep_strv_push(&parts, exe);
	if (venv != NULL)
		ep_strv_push_owned(&parts, xasprintf("venv %s system-site %d",
		    venv->root, venv->system_site));
	for (size_t i = 0; query_env[i] != NULL; i++) {
		const char *v = getenv(query_env[i]);

		ep_strv_push_owned(&parts, v == NULL ?
		    xasprintf("%s unset", query_env[i]) :
		    xasprintf("%s=%s", query_env[i], v));
	}
	for (size_t i = 0; i < parts.n; i++)
		len += strlen(parts.v[i]) + 1;
	buf = xmalloc(len);
	for (size_t i = 0; i < parts.n; i++) {
		size_t n = strlen(parts.v[i]) + 1;

		memcpy(buf + off, parts.v[i], n);	/* NUL-separated */
		off += n;
	}
	ep_hash_buf(hex, buf, len);
	free(buf);
	ep_strv_clear(&parts);
	/* v3: the answer holds the marker environment.  v4: computed with
	 * -S, no .pth file executed: an answer cached before may have been
	 * made up by one (site.getsitepackages replaced, PREFIXES changed),
	 * and is not taken.  (The kind's name is older than this file's.) */
	return xasprintf("python-probe-v4:%s", hex);
}

static char *
query_encode(const struct ep_pyquery *p)
{
	json_t *j = json_object(), *s = json_array(), *m;
	char *t, *out;

	json_object_set_new(j, "version", json_string(p->version));
	json_object_set_new(j, "user", p->user_site != NULL ?
	    json_string(p->user_site) : json_null());
	for (size_t i = 0; i < p->sites.n; i++)
		json_array_append_new(s, json_string(p->sites.v[i]));
	json_object_set_new(j, "site", s);
	m = json_object();
	for (size_t i = 0; i < EP_MV_N; i++)
		if (p->markers[i] != NULL)
			json_object_set_new(m, ep_marker_vars[i],
			    json_string(p->markers[i]));
	json_object_set_new(j, "markers", m);
	t = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_SORT_KEYS);
	json_decref(j);
	if (t == NULL)
		return NULL;
	out = xasprintf(EP_PYQUERY_MARK "%s", t);
	free(t);
	return out;
}

int
ep_pyquery_cached(struct ep_pyquery *out, const char *exe,
    const struct ep_pyquery_venv *venv, struct ep_cache *cache,
    int timeout_ms, struct ep_err *err)
{
	char *real = realpath(exe, NULL), *kind = NULL, *val;
	const char *hit;
	struct stat st;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (real == NULL || stat(real, &st) < 0) {
		ep_err_set(err, EP_E_IO, "%s: %s", exe, strerror(errno));
		goto done;
	}
	/*
	 * A script in front of the interpreter (a pyenv shim, say) picks
	 * the real one at run time from the current directory's
	 * .python-version and PYENV_VERSION, which no key of ours can see.
	 * A pyenv shim whose choice can be read off those (pyshim.c) is
	 * replaced by the interpreter it would run; any other script is run
	 * every time and its answer never cached.
	 */
	if (is_script(real)) {
		const char *dir = getenv("PYENV_DIR");
		char *cwd = dir == NULL ? getcwd(NULL, 0) : NULL;
		char *target = ep_pyshim_resolve(real, dir ? dir : cwd);

		free(cwd);
		if (target != NULL) {
			rc = ep_pyquery_cached(out, target, venv, cache,
			    timeout_ms, err);
			free(target);
			goto done;
		}
	} else if (cache != NULL) {
		kind = query_kind(exe, venv);
		hit = ep_cache_get(cache, kind, &st);
		if (hit != NULL && ep_pyquery_parse(out, hit, strlen(hit),
		    NULL) == 0) {
			rc = 0;
			goto done;
		}
	}
	if (ep_pyquery_run(out, exe, venv, timeout_ms, err) < 0)
		goto done;
	if (kind != NULL && (val = query_encode(out)) != NULL) {
		ep_cache_put(cache, kind, &st, val);
		free(val);
	}
	rc = 0;
done:
	free(real);
	free(kind);
	return rc;
}

/* <root>/lib/pythonX.Y/site-packages, or failing that the first
 * lib/python*\/site-packages there (a free-threaded 3.13t, a PyPy). */
