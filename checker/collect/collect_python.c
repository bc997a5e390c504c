/*
 * collect_python.c: python.version, python.pkg.<name> for every
 * distribution in the interpreter's site-packages (or in the directories
 * given with --site-packages).
 *
 * Distributions are found as importlib.metadata finds them, without
 * running pip or anything of the environment: the job's PYTHONPATH
 * first, then each site-packages directory and the projects its
 * egg-links name (pysite.c), one distribution's metadata at a time
 * (pydist.c), the first of a name in search order winning.
 *
 * Each distribution's requirements are judged as pip check judges them
 * once all are read (core/requires.h); only the findings are kept, in
 * meta.python.requires, with the PEP 508 marker environment they were
 * judged under in meta.python.markers.  Beside them meta.python says what
 * was inspected: the interpreter, its virtual environment and the
 * directories read, in search order (meta is never compared).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "collect.h"
#include "pysite.h"
#include "python.h"
#include "requires.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

/* meta.python: "markers" (the marker environment, where known),
 * "markers_from" (EP_MARKERS_*), "requires" (what pip check would find:
 * requires.h), "duplicates" (twice, where a directory holds a name
 * twice), "editable" (name -> project location, for editable installs),
 * "pythonpath" (the PYTHONPATH directories read first); and what was inspected: "interpreter" (exe, when there was
 * one), "venv" (its virtual environment, if any), "site_packages" (the
 * directories read, in search order).  Meta: never compared. */
static void
python_meta(struct ep_collect *c, const struct ep_pyenv *env,
    const char *exe, json_t *requires, const struct ep_pyscan *s)
{
	struct ep_manifest *m = c->m;
	json_t *py = json_object(), *mk = json_object(), *sp = json_array();

	for (size_t i = 0; i < EP_MV_N; i++)
		if (env->markers[i] != NULL) {
			char *v = ep_utf8_sanitize(env->markers[i],
			    strlen(env->markers[i]));

			json_object_set_new(mk, ep_marker_vars[i],
			    json_string(v));
			free(v);
		}
	json_object_set_new(py, "markers", mk);
	json_object_set_new(py, "markers_from",
	    json_string(env->markers_from));
	json_object_set_new(py, "requires", requires);
	if (exe != NULL)
		json_object_set_new(py, "interpreter", ep_pydist_path_json(exe));
	if (env->venv != NULL)
		json_object_set_new(py, "venv", ep_pydist_path_json(env->venv));
	for (size_t i = 0; i < c->site_dirs.n; i++)
		json_array_append_new(sp, ep_pydist_path_json(c->site_dirs.v[i]));
	json_object_set_new(py, "site_packages", sp);
	if (s->pypath.n > 0) {
		json_t *pp = json_array();

		for (size_t i = 0; i < s->pypath.n; i++)
			json_array_append_new(pp, ep_pydist_path_json(s->pypath.v[i]));
		json_object_set_new(py, "pythonpath", pp);
	}
	if (json_object_size(s->twice) > 0)
		json_object_set(py, "duplicates", s->twice);
	if (json_object_size(s->editable) > 0)
		json_object_set(py, "editable", s->editable);
	json_object_set_new(m->meta, "python", py);
}

/* The interpreter to ask when none was named: the active virtual
 * environment, else python3 on PATH.  NULL when there is none. */
static char *
default_python(struct ep_collect *c)
{
	const char *venv = getenv("VIRTUAL_ENV");
	char *cfg, *exe = NULL;
	struct stat st;

	if (venv != NULL && *venv != '\0') {
		cfg = xasprintf("%s/pyvenv.cfg", venv);
		if (stat(cfg, &st) == 0 && S_ISREG(st.st_mode))
			exe = xasprintf("%s/bin/python", venv);
		else
			ep_manifest_warn(c->m, "VIRTUAL_ENV=%s has no "
			    "pyvenv.cfg; using python3 on PATH", venv);
		free(cfg);
		if (exe != NULL)
			return exe;
	}
	if (ep_pyinterp_which(&exe, "python3", NULL) < 0)
		ep_manifest_unavailable(c->m, "python",
		    "python3 not found on PATH");
	return exe;
}

/* What a scan of the site directories holds, freed. */
static void
pyscan_clear(struct ep_pyscan *s)
{
	json_decref(s->seen);
	json_decref(s->twice);
	json_decref(s->editable);
	json_decref(s->requires);
	ep_strv_clear(&s->pypath);
	ep_strv_clear(&s->where_dir);
	ep_strv_clear(&s->where);
	free(s->dev);
	free(s->ino);
	free(s->buf);
}

/* The directories --site-packages named: each a directory envparity can
 * read, or EP_E_INPUT naming it. */
static int
check_site_dirs(const struct ep_strv *dirs, struct ep_err *err)
{
	struct stat st;

	for (size_t i = 0; i < dirs->n; i++) {
		const char *dir = dirs->v[i];

		if (stat(dir, &st) < 0)
			return ep_err_set(err, EP_E_INPUT, "site-packages %s: "
			    "%s", dir, strerror(errno));
		if (!S_ISDIR(st.st_mode))
			return ep_err_set(err, EP_E_INPUT, "site-packages %s: "
			    "not a directory", dir);
		if (access(dir, R_OK | X_OK) < 0)
			return ep_err_set(err, EP_E_INPUT, "site-packages %s: "
			    "%s", dir, strerror(errno));
	}
	return 0;
}

int
ep_collect_python(struct ep_collect *c, struct ep_err *err)
{
	const struct ep_capture_opts *o = c->opts;
	const struct ep_strv *dirs = &o->site_dirs;
	struct ep_pyenv env = { 0 };
	struct ep_err perr = { 0 };
	struct ep_pyscan s = { 0 };
	char *exe = NULL;
	int rc = -1, resolved = 0;

	/* Inputs the user named are checked before any work is done. */
	if (check_site_dirs(&o->site_dirs, err) < 0)
		goto done;
	if (o->python != NULL) {
		if (ep_pyinterp_which(&exe, o->python, err) < 0)
			goto done;
	} else if (o->site_dirs.n == 0)
		exe = default_python(c);

	/* With --site-packages and no --python, python.version is not known
	 * and is not guessed. */
	if (exe != NULL) {
		if (ep_pyinterp_resolve(&env, exe, c->cache,
		    EP_PYTHON_TIMEOUT_MS, &perr) < 0)
			ep_manifest_unavailable(c->m, "python", "%s", perr.msg);
		else {
			resolved = 1;
			if (env.warning != NULL)
				ep_manifest_warn(c->m, "%s", env.warning);
			/* A venv's python that is no interpreter: no
			 * python.version, which a golden's then fails on. */
			if (env.unavailable != NULL)
				ep_manifest_unavailable(c->m, "python", "%s",
				    env.unavailable);
			if (env.version != NULL)
				ep_manifest_set(c->m, "python.version",
				    env.version);
		}
	}
	if (o->site_dirs.n == 0)
		dirs = &env.sites;
	/* Without an interpreter, the marker environment is what uname
	 * says; python_version and the like stay unknown. */
	if (env.markers_from == NULL) {
		ep_pymarkers_uname(env.markers);
		env.markers_from = EP_MARKERS_UNAME;
	}
	s.c = c;
	s.seen = json_object();
	s.twice = json_object();
	s.requires = json_object();
	s.editable = json_object();
	for (size_t i = 0; i < EP_MV_N; i++)
		s.env.v[i] = env.markers[i];
	s.buf = xmalloc(EP_PYMETA_MAX);
	/* The interpreter's view: PYTHONPATH first; not for directories
	 * named with --site-packages. */
	if (o->site_dirs.n == 0 && resolved)
		ep_pysite_scan_pythonpath(&s);
	for (size_t i = 0; i < dirs->n; i++)
		ep_pysite_scan(&s, dirs->v[i], &c->site_dirs);
	/* What stack.requires reports, judged here where every
	 * distribution is known, in meta (comparing it is not drift);
	 * nothing when no distribution could be looked for. */
	if (o->site_dirs.n > 0 || resolved)
		python_meta(c, &env, resolved ? exe : NULL,
		    ep_requires_judge(c->m, s.requires, &s.env), &s);
	rc = 0;
done:
	pyscan_clear(&s);
	ep_pyenv_clear(&env);
	free(exe);
	return rc;
}
