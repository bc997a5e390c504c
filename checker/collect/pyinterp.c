/*
 * pyinterp.c: find out an interpreter's version and site-packages
 * directories, from the interpreter itself.
 *
 * Starting CPython costs ~25 ms (~50 ms on a loaded machine), against
 * ~11 ms for a whole warm capture, so the answer is cached under the
 * binary's identity (pyquery.c) and a warm capture runs nothing.  A virtual environment's pyvenv.cfg is not
 * taken for the answer, cheap as reading it would be: any wheel can
 * install a pyvenv.cfg of its own into the venv's root (a "data" file),
 * and the patch level it names could not be told from the interpreter's
 * without running it anyway (nor could a base upgraded since the venv
 * was made).  So the binary the venv's python really is gets asked, from
 * where it lies, about the venv (pyvenv.c says which binary, and when the
 * venv's python is none: then the venv's packages are still read where
 * that needs no interpreter's word).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "child.h"
#include "python.h"
#include "errors.h"
#include "files.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

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
	free(e->unavailable);
	ep_strv_clear(&e->sites);
	markers_clear(e->markers);
	e->version = e->warning = e->venv = e->unavailable = NULL;
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
ep_pymarkers_uname(char *markers[EP_MV_N])
{
	struct utsname u;
	const char *sys = markers_uname(markers, &u);

	/* sys.platform: "linux" since Python 3.3, else the lowercased
	 * system and its major release (freebsd14). */
	marker_set(markers, EP_MV_OS_NAME, xstrdup("posix"));
	if (sys != NULL && strcmp(sys, "Linux") == 0)
		marker_set(markers, EP_MV_SYS_PLATFORM, xstrdup("linux"));
	else if (sys != NULL && strcmp(sys, "Darwin") == 0)
		marker_set(markers, EP_MV_SYS_PLATFORM, xstrdup("darwin"));
	else if (sys != NULL) {
		char *p = xasprintf("%s%.*s", sys, (int)strcspn(u.release, "."),
		    u.release);

		for (char *c = p; *c != '\0'; c++)
			*c = (char)tolower((unsigned char)*c);
		marker_set(markers, EP_MV_SYS_PLATFORM, p);
	}
}

/* The interpreter's own answer, with uname(2)'s fields read now. */
static void
markers_from_query(struct ep_pyenv *out, struct ep_pyquery *p)
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

/* The site-packages of a venv whose python is no interpreter: its one
 * lib/python*\/site-packages (or lib/pypy*\/...), pushed onto sites;
 * with several, none, since nothing says which its interpreter would
 * take (a wheel may have added one).  What was done, for a warning. */
static char *
venv_lone_site(struct ep_strv *sites, const char *root)
{
	struct ep_strv found = { 0 };
	struct dirent *de;
	char *lib, *p, *msg;
	DIR *d;

	lib = xasprintf("%s/lib", root);
	if ((d = opendir(lib)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (!ep_startswith(de->d_name, "python") &&
			    !ep_startswith(de->d_name, "pypy"))
				continue;
			p = xasprintf("%s/%s/site-packages", lib, de->d_name);
			if (is_dir(p))
				ep_strv_push_owned(&found, p);
			else
				free(p);
		}
		closedir(d);
	}
	free(lib);
	ep_strv_sort(&found);
	if (found.n == 1) {
		ep_strv_push(sites, found.v[0]);
		msg = xasprintf("%s: read without an interpreter to say it is "
		    "the one this virtual environment uses", found.v[0]);
	} else if (found.n == 0)
		msg = xasprintf("%s: no lib/python*/site-packages in this "
		    "virtual environment", root);
	else
		msg = xasprintf("%s: %zu lib/*/site-packages (%s, %s%s) and no "
		    "interpreter to say which this virtual environment uses: "
		    "none read", root, found.n, found.v[0], found.v[1],
		    found.n > 2 ? ", ..." : "");
	ep_strv_clear(&found);
	return msg;
}

/* A venv's python puts its own site-packages ahead of the user site
 * (site.venv(): "venv takes precedence over user-site"), then the
 * base's: those of p's sites under root first. */
static void
add_venv_sites(struct ep_pyenv *out, const struct ep_pyquery *p,
    const char *root)
{
	size_t n = strlen(root);

	for (int own = 1; own >= 0; own--) {
		for (size_t i = 0; i < p->sites.n; i++)
			if ((strncmp(p->sites.v[i], root, n) == 0 &&
			    p->sites.v[i][n] == '/') == own)
				ep_strv_push(&out->sites, p->sites.v[i]);
		if (own && p->user_site != NULL)
			ep_strv_push(&out->sites, p->user_site);
	}
}

static void
add_query_sites(struct ep_pyenv *out, const struct ep_pyquery *p)
{
	/* site.main() puts the user site ahead of the system ones. */
	if (p->user_site != NULL)
		ep_strv_push(&out->sites, p->user_site);
	for (size_t i = 0; i < p->sites.n; i++)
		ep_strv_push(&out->sites, p->sites.v[i]);
}

/* The venv's python, asked as the binary it really is (pyvenv.c), from
 * where that lies: run at the venv's path, CPython would take its
 * standard library from pyvenv.cfg's home, which a wheel can write. */
static int
venv_resolve(struct ep_pyenv *out, const char *exe, const char *root,
    struct ep_cache *cache, int timeout_ms, struct ep_err *err)
{
	struct ep_pyvenv cfg = { 0 };
	struct ep_pyquery p = { 0 };
	struct ep_pyquery_venv v = { 0 };
	struct ep_err perr = { 0 };
	char *path, *text = NULL, *base = NULL, *warn = NULL, *aroot = NULL;
	char *cwd = NULL;
	size_t len = 0;
	int rc = -1;

	path = xasprintf("%s/pyvenv.cfg", root);
	if (ep_read_regular(&text, &len, path, 1 << 20, &perr) == 0)
		ep_pyvenv_parse(&cfg, text, len);
	if (ep_pyvenv_interp(&base, &warn, exe, root, &cfg, &perr) < 0) {
		out->unavailable = xstrdup(perr.msg);
		out->warning = venv_lone_site(&out->sites, root);
		rc = 0;
		goto done;
	}
	/* The interpreter runs from "/": the root it is told is absolute. */
	if (root[0] == '/')
		aroot = xstrdup(root);
	else if ((cwd = getcwd(NULL, 0)) != NULL)
		aroot = xasprintf("%s/%s", cwd, root);
	else {
		ep_err_set(err, EP_E_IO, "%s: %s", root, strerror(errno));
		goto done;
	}
	v.root = aroot;
	v.system_site = cfg.system_site;
	if (ep_pyquery_cached(&p, base, &v, cache, timeout_ms, err) < 0)
		goto done;
	out->version = p.version;
	p.version = NULL;
	add_venv_sites(out, &p, aroot);
	markers_from_query(out, &p);
	out->warning = warn;
	warn = NULL;
	rc = 0;
done:
	ep_pyvenv_clear(&cfg);
	ep_pyquery_clear(&p);
	free(path);
	free(text);
	free(base);
	free(warn);
	free(aroot);
	free(cwd);
	return rc;
}

int
ep_pyinterp_resolve(struct ep_pyenv *out, const char *exe,
    struct ep_cache *cache, int timeout_ms, struct ep_err *err)
{
	struct ep_pyquery p = { 0 };
	char *root;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if ((root = ep_pyvenv_root(exe)) != NULL) {
		out->venv = root;
		rc = venv_resolve(out, exe, root, cache, timeout_ms, err);
		goto done;
	}
	if (ep_pyquery_cached(&p, exe, NULL, cache, timeout_ms, err) < 0)
		goto done;
	out->version = p.version;
	p.version = NULL;
	add_query_sites(out, &p);
	markers_from_query(out, &p);
	rc = 0;
done:
	if (rc < 0)
		ep_pyenv_clear(out);
	ep_pyquery_clear(&p);
	return rc;
}
