/*
 * pyprobe.c: ask an interpreter for its version and site directories by
 * running it once with a small script, with a timeout, and cache the
 * answer under the identity of the real executable and everything else
 * the answer depends on.  A crash, a hang or garbage is an error that
 * names the interpreter, never trouble for envparity itself.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "hash.h"
#include "python.h"

extern char **environ;

#define PROBE_MARK	"envparity-probe-v1 "
#define PROBE_OUT_MAX	(256 * 1024)	/* more than any real answer */

/*
 * Runs on Python 2.7 and 3.x.  sys.version's first word is what
 * platform.python_version() returns, without importing platform (a few
 * ms).  The user site is reported whether or not it exists yet, so that a
 * cached answer stays right when it is created later; the caller looks.
 * json.dumps escapes everything outside ASCII, so the answer is one line.
 */
const char ep_pyprobe_script[] =
    "import sys, site, json\n"
    "u = None\n"
    "if getattr(site, 'ENABLE_USER_SITE', False):\n"
    "    u = site.getusersitepackages()\n"
    "s = list(getattr(site, 'getsitepackages', lambda: [])())\n"
    "sys.stdout.write('" PROBE_MARK "' + json.dumps({'version': "
    "sys.version.split()[0], 'user': u, 'site': s}) + '\\n')\n";

/* What the probe's answer depends on besides the executable itself. */
static const char *const probe_env[] = {
	"PYTHONPATH", "PYTHONHOME", "PYTHONNOUSERSITE", "PYTHONUSERBASE",
	"PYTHONPLATLIBDIR", "HOME", NULL,
};

void
ep_pyprobe_clear(struct ep_pyprobe *p)
{
	free(p->version);
	free(p->user_site);
	ep_strv_clear(&p->sites);
	p->version = p->user_site = NULL;
}

int
ep_pyprobe_parse(struct ep_pyprobe *out, const char *text, size_t len,
    struct ep_err *err)
{
	const char *p = text, *end = text + len, *le;
	json_t *j = NULL, *v, *s;
	json_error_t jerr;
	size_t i;
	int rc = -1;

	memset(out, 0, sizeof *out);
	/* sitecustomize may print; find our line among whatever else. */
	for (;;) {
		le = memchr(p, '\n', (size_t)(end - p));
		if ((size_t)(end - p) >= sizeof PROBE_MARK - 1 &&
		    memcmp(p, PROBE_MARK, sizeof PROBE_MARK - 1) == 0)
			break;
		if (le == NULL)
			return ep_err_set(err, EP_E_IO, "no answer in its "
			    "output");
		p = le + 1;
	}
	p += sizeof PROBE_MARK - 1;
	if (le == NULL)
		le = end;
	if ((j = json_loadb(p, (size_t)(le - p), 0, &jerr)) == NULL) {
		ep_err_set(err, EP_E_IO, "garbled answer: %s", jerr.text);
		goto done;
	}
	v = json_object_get(j, "version");
	if (!json_is_string(v) || !isdigit((unsigned char)
	    *json_string_value(v)) || strchr(json_string_value(v), '.') ==
	    NULL) {
		ep_err_set(err, EP_E_IO, "garbled answer: no version");
		goto done;
	}
	out->version = xstrdup(json_string_value(v));
	if (json_is_string(v = json_object_get(j, "user")))
		out->user_site = xstrdup(json_string_value(v));
	else if (!json_is_null(v)) {
		ep_err_set(err, EP_E_IO, "garbled answer: bad user site");
		goto done;
	}
	if (!json_is_array(s = json_object_get(j, "site"))) {
		ep_err_set(err, EP_E_IO, "garbled answer: no site list");
		goto done;
	}
	json_array_foreach(s, i, v) {
		if (!json_is_string(v)) {
			ep_err_set(err, EP_E_IO, "garbled answer: bad site");
			goto done;
		}
		ep_strv_push(&out->sites, json_string_value(v));
	}
	rc = 0;
done:
	if (rc < 0)
		ep_pyprobe_clear(out);
	json_decref(j);
	return rc;
}

/* The last non-empty line of what the child wrote on stderr. */
static char *
last_line(char *buf, size_t n)
{
	char *e, *b;

	buf[n] = '\0';
	ep_trim(buf);
	b = (e = strrchr(buf, '\n')) != NULL ? e + 1 : buf;
	if (strlen(b) > 200)
		b[200] = '\0';
	return b;
}

/*
 * Read the child's stdout and stderr until both close or time runs out.
 * Returns 0, or 1 when it timed out, 2 when stdout overflowed.
 */
static int
drain(int fdo, int fde, char *out, size_t *on, char *errb, size_t *en,
    size_t ecap, uint64_t deadline)
{
	struct pollfd pfd[2] = { { fdo, POLLIN, 0 }, { fde, POLLIN, 0 } };
	char tmp[4096];
	ssize_t r;

	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		uint64_t now = ep_now_ns();
		int ms;

		if (now >= deadline)
			return 1;
		ms = (int)((deadline - now + 999999) / 1000000);
		if (poll(pfd, 2, ms) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		for (int i = 0; i < 2; i++) {
			if (pfd[i].fd < 0 || pfd[i].revents == 0)
				continue;
			r = read(pfd[i].fd, tmp, sizeof tmp);
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (r <= 0) {
				pfd[i].fd = -1;
				continue;
			}
			if (i == 0) {
				if (*on + (size_t)r > PROBE_OUT_MAX)
					return 2;
				memcpy(out + *on, tmp, (size_t)r);
				*on += (size_t)r;
			} else {
				/* Keep the tail: the error is at the end. */
				if ((size_t)r >= ecap) {
					memcpy(errb, tmp + (size_t)r - ecap,
					    ecap);
					*en = ecap;
				} else {
					if (*en + (size_t)r > ecap) {
						size_t drop = *en + (size_t)r -
						    ecap;
						memmove(errb, errb + drop,
						    *en - drop);
						*en -= drop;
					}
					memcpy(errb + *en, tmp, (size_t)r);
					*en += (size_t)r;
				}
			}
		}
	}
	return 0;
}

int
ep_pyprobe_run(struct ep_pyprobe *out, const char *exe, int timeout_ms,
    struct ep_err *err)
{
	char *argv[] = { (char *)exe, (char *)"-c",
	    (char *)ep_pyprobe_script, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	char *obuf = xmalloc(PROBE_OUT_MAX + 1), ebuf[1024];
	size_t on = 0, en = 0;
	struct ep_err perr = { 0 };
	uint64_t deadline;
	pid_t pid = -1, w;
	int status = 0, e, how, rc = -1;

	memset(out, 0, sizeof *out);
	if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
		ep_err_set(err, EP_E_IO, "%s: pipe: %s", exe, strerror(errno));
		goto done;
	}
	/*
	 * posix_spawn rather than fork: exec failures come back as an error
	 * number, and nothing of this (possibly sanitizer-sized) address
	 * space is copied.  A process group of its own lets a timeout kill
	 * whatever a shim started, too.
	 */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&attr, 0);
	e = posix_spawn(&pid, exe, &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	if (e != 0) {
		pid = -1;
		ep_err_set(err, EP_E_IO, "%s: cannot run: %s", exe,
		    strerror(e));
		goto done;
	}

	deadline = ep_now_ns() + (uint64_t)timeout_ms * 1000000u;
	how = drain(po[0], pe[0], obuf, &on, ebuf, &en, sizeof ebuf - 1,
	    deadline);
	/* It closed its output; give it until the deadline to exit. */
	while (how == 0 && (w = waitpid(pid, &status, WNOHANG)) == 0) {
		struct timespec ts = { 0, 1000000 };

		if (ep_now_ns() >= deadline) {
			how = 1;
			break;
		}
		nanosleep(&ts, NULL);
	}
	if (how != 0) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		pid = -1;
		if (how == 1)
			ep_err_set(err, EP_E_IO, "%s: no answer after %d ms; "
			    "killed", exe, timeout_ms);
		else
			ep_err_set(err, EP_E_IO, "%s: more than %d bytes of "
			    "output; killed", exe, PROBE_OUT_MAX);
		goto done;
	}
	pid = -1;
	if (WIFSIGNALED(status)) {
		ep_err_set(err, EP_E_IO, "%s: killed by signal %d (%s)", exe,
		    WTERMSIG(status), strsignal(WTERMSIG(status)));
		goto done;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		const char *l = last_line(ebuf, en);

		ep_err_set(err, EP_E_IO, "%s: exited with status %d%s%s", exe,
		    WEXITSTATUS(status), *l ? ": " : "", l);
		goto done;
	}
	if (ep_pyprobe_parse(out, obuf, on, &perr) < 0) {
		ep_err_set(err, EP_E_IO, "%s: %s", exe, perr.msg);
		goto done;
	}
	rc = 0;
done:
	if (pid > 0) {
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	for (int i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
	free(obuf);
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
probe_kind(const char *exe)
{
	struct ep_strv parts = { 0 };
	char hex[EP_SHA256_HEX], *buf;
	size_t len = 0, off = 0;

	ep_strv_push(&parts, exe);
	for (size_t i = 0; probe_env[i] != NULL; i++) {
		const char *v = getenv(probe_env[i]);

		ep_strv_push_owned(&parts, v == NULL ?
		    xasprintf("%s unset", probe_env[i]) :
		    xasprintf("%s=%s", probe_env[i], v));
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
	return xasprintf("python-probe-v1:%s", hex);
}

static char *
probe_encode(const struct ep_pyprobe *p)
{
	json_t *j = json_object(), *s = json_array();
	char *t, *out;

	json_object_set_new(j, "version", json_string(p->version));
	json_object_set_new(j, "user", p->user_site != NULL ?
	    json_string(p->user_site) : json_null());
	for (size_t i = 0; i < p->sites.n; i++)
		json_array_append_new(s, json_string(p->sites.v[i]));
	json_object_set_new(j, "site", s);
	t = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_SORT_KEYS);
	json_decref(j);
	if (t == NULL)
		return NULL;
	out = xasprintf(PROBE_MARK "%s", t);
	free(t);
	return out;
}

int
ep_pyprobe_cached(struct ep_pyprobe *out, const char *exe,
    struct ep_cache *cache, int timeout_ms, struct ep_err *err)
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
			rc = ep_pyprobe_cached(out, target, cache, timeout_ms,
			    err);
			free(target);
			goto done;
		}
	} else if (cache != NULL) {
		kind = probe_kind(exe);
		hit = ep_cache_get(cache, kind, &st);
		if (hit != NULL && ep_pyprobe_parse(out, hit, strlen(hit),
		    NULL) == 0) {
			rc = 0;
			goto done;
		}
	}
	if (ep_pyprobe_run(out, exe, timeout_ms, err) < 0)
		goto done;
	if (kind != NULL && (val = probe_encode(out)) != NULL) {
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
