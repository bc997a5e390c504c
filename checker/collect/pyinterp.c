/*
 * pyinterp.c: find out an interpreter's version and site-packages
 * directories as cheaply as the answer allows.
 *
 * Starting CPython costs ~60 ms and a pyenv shim ~260 ms, against 50 ms
 * for a whole warm capture.  So a virtual environment is read, not run:
 * its pyvenv.cfg gives the version, and its packages live in
 * <venv>/lib/pythonX.Y/site-packages.  Any other interpreter is asked
 * once, through the cache (pyprobe.c).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "child.h"
#include "python.h"

static void
markers_clear(char *m[EP_MV_N])
{
	for (size_t i = 0; i < EP_MV_N; i++) {
		free(m[i]);
		m[i] = NULL;
	}
}

static void
marker_set(char *m[EP_MV_N], int var, char *value)
{
	free(m[var]);
	m[var] = value;
}

void
ep_pyenv_clear(struct ep_pyenv *e)
{
	free(e->version);
	free(e->warning);
	free(e->venv);
	ep_strv_clear(&e->sites);
	markers_clear(e->markers);
	e->version = e->warning = e->venv = NULL;
	e->markers_from = NULL;
}

/* platform.machine(), release(), system() and version(): uname(2)'s
 * fields, as Python's platform module reads them.  The sysname, or NULL
 * when uname fails. */
static const char *
markers_uname(char *m[EP_MV_N], struct utsname *u)
{
	if (uname(u) < 0)
		return NULL;
	marker_set(m, EP_MV_PLATFORM_MACHINE, xstrdup(u->machine));
	marker_set(m, EP_MV_PLATFORM_RELEASE, xstrdup(u->release));
	marker_set(m, EP_MV_PLATFORM_SYSTEM, xstrdup(u->sysname));
	marker_set(m, EP_MV_PLATFORM_VERSION, xstrdup(u->version));
	return u->sysname;
}

void
ep_pymarkers_derive(char *markers[EP_MV_N], const char *version, int pypy)
{
	struct utsname u;
	const char *sys = markers_uname(markers, &u);
	unsigned a, b;
	int py2 = version != NULL && ep_startswith(version, "2.");

	/* sys.platform: "linux" since Python 3.3 ("linux2" before), else
	 * the lowercased system and its major release (freebsd14). */
	marker_set(markers, EP_MV_OS_NAME, xstrdup("posix"));
	if (sys != NULL && strcmp(sys, "Linux") == 0)
		marker_set(markers, EP_MV_SYS_PLATFORM, xstrdup(py2 ? "linux2" :
		    "linux"));
	else if (sys != NULL && strcmp(sys, "Darwin") == 0)
		marker_set(markers, EP_MV_SYS_PLATFORM, xstrdup("darwin"));
	else if (sys != NULL) {
		char *p = xasprintf("%s%.*s", sys, (int)strcspn(u.release, "."),
		    u.release);

		for (char *c = p; *c != '\0'; c++)
			*c = (char)tolower((unsigned char)*c);
		marker_set(markers, EP_MV_SYS_PLATFORM, p);
	}
	if (version == NULL || sscanf(version, "%u.%u", &a, &b) != 2)
		return;
	marker_set(markers, EP_MV_PYTHON_VERSION, xasprintf("%u.%u", a, b));
	marker_set(markers, EP_MV_PYTHON_FULL_VERSION, xstrdup(version));
	if (pypy)
		return;	/* PyPy's own version is not in pyvenv.cfg */
	marker_set(markers, EP_MV_IMPLEMENTATION_NAME, xstrdup(py2 ? "" :
	    "cpython"));
	marker_set(markers, EP_MV_IMPLEMENTATION_VERSION, xstrdup(py2 ? "0" :
	    version));
	marker_set(markers, EP_MV_PLATFORM_PYTHON_IMPLEMENTATION,
	    xstrdup("CPython"));
}

/* The interpreter's own answer, with uname(2)'s fields read now. */
static void
markers_from_probe(struct ep_pyenv *out, struct ep_pyprobe *p)
{
	struct utsname u;

	for (size_t i = 0; i < EP_MV_N; i++)
		if (p->markers[i] != NULL) {
			marker_set(out->markers, (int)i, p->markers[i]);
			p->markers[i] = NULL;
		}
	markers_uname(out->markers, &u);
	out->markers_from = EP_MARKERS_RUN;
}

static int
is_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int
ep_pyinterp_which(char **out, const char *name, struct ep_err *err)
{
	struct stat st;

	*out = NULL;
	if (*name == '\0')
		return ep_err_set(err, EP_E_INPUT, "python: empty name");
	if (strchr(name, '/') != NULL) {
		if (stat(name, &st) < 0)
			return ep_err_set(err, EP_E_INPUT, "python: %s: %s",
			    name, errno == ENOENT ? "not found" :
			    strerror(errno));
		if (S_ISDIR(st.st_mode))
			return ep_err_set(err, EP_E_INPUT,
			    "python: %s: is a directory", name);
		if (!S_ISREG(st.st_mode) || access(name, X_OK) < 0)
			return ep_err_set(err, EP_E_INPUT,
			    "python: %s: not executable", name);
		*out = xstrdup(name);
		return 0;
	}
	/* Never through ".", "" or another relative entry: on a CI runner
	 * the current directory is the checkout of a pull request. */
	if (ep_child_which(out, name, NULL) == 0)
		return 0;
	return ep_err_set(err, EP_E_INPUT, "python: %s: not found on PATH",
	    name);
}

static char *
venv_site(const char *root, const char *version)
{
	unsigned a, b;
	char *p, *best = NULL, *lib;
	struct dirent *de;
	DIR *d;

	if (version != NULL && sscanf(version, "%u.%u", &a, &b) == 2) {
		p = xasprintf("%s/lib/python%u.%u/site-packages", root, a, b);
		if (is_dir(p))
			return p;
		free(p);
	}
	lib = xasprintf("%s/lib", root);
	if ((d = opendir(lib)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (!ep_startswith(de->d_name, "python") &&
			    !ep_startswith(de->d_name, "pypy"))
				continue;
			p = xasprintf("%s/%s/site-packages", lib, de->d_name);
			if (is_dir(p) && (best == NULL || strcmp(p, best) < 0)) {
				free(best);
				best = p;
			} else
				free(p);
		}
		closedir(d);
	}
	free(lib);
	return best;
}

/* The base interpreter of a venv that includes the system packages. */
static char *
venv_base(const struct ep_pyvenv *cfg)
{
	static const char *const names[] = { "python3", "python", NULL };
	char *p;

	if (cfg->executable != NULL && is_regular(cfg->executable) &&
	    access(cfg->executable, X_OK) == 0)
		return xstrdup(cfg->executable);
	for (size_t i = 0; cfg->home != NULL && names[i] != NULL; i++) {
		p = xasprintf("%s/%s", cfg->home, names[i]);
		if (is_regular(p) && access(p, X_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

static void
add_probe_sites(struct ep_pyenv *out, const struct ep_pyprobe *p)
{
	/* site.main() puts the user site ahead of the system ones. */
	if (p->user_site != NULL)
		ep_strv_push(&out->sites, p->user_site);
	for (size_t i = 0; i < p->sites.n; i++)
		ep_strv_push(&out->sites, p->sites.v[i]);
}

int
ep_pyinterp_resolve(struct ep_pyenv *out, const char *exe,
    struct ep_cache *cache, int timeout_ms, struct ep_err *err)
{
	struct ep_pyvenv cfg = { 0 };
	struct ep_pyprobe p = { 0 };
	struct ep_err perr = { 0 };
	char *root, *path = NULL, *text = NULL, *site = NULL, *base = NULL;
	size_t len = 0;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if ((root = ep_pyvenv_root(exe)) != NULL) {
		path = xasprintf("%s/pyvenv.cfg", root);
		if (ep_read_regular(&text, &len, path, 1 << 20, &perr) == 0)
			ep_pyvenv_parse(&cfg, text, len);
	}
	if (root != NULL)
		out->venv = xstrdup(root);
	/* Without a version in pyvenv.cfg, only running it can tell. */
	if (cfg.version == NULL) {
		if (ep_pyprobe_cached(&p, exe, cache, timeout_ms, err) < 0)
			goto done;
		out->version = p.version;
		p.version = NULL;
		add_probe_sites(out, &p);
		markers_from_probe(out, &p);
		rc = 0;
		goto done;
	}

	out->version = cfg.version;
	cfg.version = NULL;
	if ((site = venv_site(root, out->version)) != NULL)
		ep_strv_push(&out->sites, site);
	/* Not run: what pyvenv.cfg and uname say.  A PyPy venv keeps its
	 * packages under lib/pypy*, and names PyPy's home. */
	ep_pymarkers_derive(out->markers, out->version, (site != NULL &&
	    strstr(site, "/lib/pypy") != NULL) || (cfg.home != NULL &&
	    strcasestr(cfg.home, "pypy") != NULL));
	out->markers_from = EP_MARKERS_DERIVED;
	if (site == NULL)
		out->warning = xasprintf("%s: no lib/python*/site-packages "
		    "in this virtual environment", root);
	if (cfg.system_site) {
		/* The venv's own packages come first, then the base's. */
		if ((base = venv_base(&cfg)) == NULL)
			ep_err_set(&perr, EP_E_IO, "no base interpreter in "
			    "home = %s", cfg.home ? cfg.home : "(unset)");
		if (base == NULL || ep_pyprobe_cached(&p, base, cache,
		    timeout_ms, &perr) < 0) {
			free(out->warning);
			out->warning = xasprintf("%s includes the system "
			    "site-packages, but they could not be found: %s",
			    path, perr.msg);
		} else {
			add_probe_sites(out, &p);
			/* The venv runs the base's interpreter. */
			markers_from_probe(out, &p);
		}
	}
	rc = 0;
done:
	if (rc < 0)
		ep_pyenv_clear(out);
	ep_pyvenv_clear(&cfg);
	ep_pyprobe_clear(&p);
	free(root);
	free(path);
	free(text);
	free(site);
	free(base);
	return rc;
}
