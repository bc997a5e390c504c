/*
 * python.h: the Python collector's parts (collect_python.c, pyinterp.c):
 * finding an interpreter and its site-packages directories, and reading
 * the distributions installed there without running pip.
 *
 * The parsers are pure functions on buffers, exposed for the unit tests.
 * Implemented in collect_python.c (distributions), pymeta.c (METADATA,
 * names), pyinterp.c (choosing the interpreter), pyvenv.c (virtual
 * environments' pyvenv.cfg, and the interpreter a venv's python is),
 * pyscript.c (what an interpreter is asked) and pyquery.c (running
 * one).
 */
#ifndef EP_PYTHON_H
#define EP_PYTHON_H

#include <stddef.h>

#include "cache.h"
#include "pep508.h"
#include "errors.h"
#include "strv.h"

/* How long an interpreter may take to answer before it is killed. */
#define EP_PYTHON_TIMEOUT_MS	10000

/* Bytes of a METADATA or PKG-INFO file read at most: the header block
 * sits at the top, and the long description after it may be huge. */
#define EP_PYMETA_MAX		(64 * 1024)

/* --- distributions ------------------------------------------------- */

/* ep_pep503_normalize and ep_pep508_name_valid: pep508.h, in core (a
 * check reads requirements too). */

struct ep_pymeta {
	char *name;		/* "Name:" value, or NULL */
	char *version;		/* "Version:" value, or NULL */
	struct ep_strv requires;	/* every "Requires-Dist:" value */
	int binary;		/* a NUL byte in the header block */
};

/* Parse the header block of core metadata (METADATA, PKG-INFO): RFC 822
 * style "Field: value" lines up to the first blank line, field names
 * matched without regard to case.  buf need not be NUL-terminated.  When
 * complete is 0 the buffer was cut off, so a last line without its
 * newline is ignored.  Requires-Dist values are taken as pip takes them
 * (email's compat32 parser, then str.strip()): a continuation line is
 * kept after a newline, blanks around the whole are dropped, and the
 * bytes are made valid UTF-8.  Fills *out (strings owned by the caller,
 * freed by ep_pymeta_clear); never fails. */
void ep_pymeta_parse(struct ep_pymeta *out, const char *buf, size_t len,
    int complete);
void ep_pymeta_clear(struct ep_pymeta *m);

/* An egg-info's requires.txt (setuptools' format: requirements, then
 * "[extra]", "[:marker]" or "[extra:marker]" sections) as the
 * Requires-Dist lines pip makes of it when PKG-INFO has none
 * ("pycairo>=1.16", "pytest ; extra == \"test\"",
 * "pywin32 ; (sys_platform == \"win32\") and extra == \"x\"").  Pushed
 * onto *out; never fails. */
void ep_requires_txt_parse(struct ep_strv *out, const char *buf, size_t len);

/* The name part of a "NAME-VERSION.dist-info" or "NAME-VERSION-pyX.Y.egg-
 * info" directory entry (everything before the first '-', or before the
 * suffix), a new string, or NULL if it is empty. */
char *ep_pydist_entry_name(const char *entry);

/* The version part of a "NAME-VERSION.dist-info" entry (everything after
 * the first '-'), as current pip takes it: a new string, or NULL for an
 * egg-info or a dist-info name without one. */
char *ep_pydist_entry_version(const char *entry);

/* --- virtual environments ------------------------------------------ */

struct ep_pyvenv {
	char *home;		/* "home": the base interpreter's directory */
	char *version;		/* "X.Y.Z" (from version_info, else version) */
	char *executable;	/* "executable" or "base-executable" */
	int system_site;	/* include-system-site-packages = true */
};

/* Parse pyvenv.cfg text (keys matched without regard to case, as site.py
 * does).  Missing keys stay NULL; never fails.  Free with
 * ep_pyvenv_clear. */
void ep_pyvenv_parse(struct ep_pyvenv *out, const char *text, size_t len);
void ep_pyvenv_clear(struct ep_pyvenv *v);

/* "3.11.7.final.0" -> "3.11.7", "3.13.0.candidate.1" -> "3.13.0rc1"
 * (what platform.python_version() prints); a plain "3.11.7" is kept.  A
 * new string, or NULL if s does not start with "DIGITS.DIGITS". */
char *ep_python_version_norm(const char *s);

/* The directory holding the pyvenv.cfg of the interpreter at exe (beside
 * it or one level up, as CPython looks), a new string, or NULL when exe
 * is not in a virtual environment. */
char *ep_pyvenv_root(const char *exe);

/* Which interpreter exe, the python of the virtual environment at root
 * whose pyvenv.cfg says cfg, really runs, told without running anything:
 * the real file exe leads to when that lies outside root (venv links its
 * python to the base's binary), or for a copy inside root (venv
 * --copies) the binary in cfg->home, outside root, with the same bytes.
 * *base is a new string; *warn (new, or NULL) says when cfg->home holds
 * another interpreter than that one (a pyvenv.cfg not written for it,
 * whose home then chooses the standard library its python runs).  -1
 * with err (EP_E_IO) naming exe when it is no interpreter: not an
 * executable file, a script ("#!"), or a file of the venv that is no copy
 * of its base's binary (a wheel's scripts install into bin/). */
int ep_pyvenv_interp(char **base, char **warn, const char *exe,
    const char *root, const struct ep_pyvenv *cfg, struct ep_err *err);

/* --- interpreters --------------------------------------------------- */

/* What an interpreter reports: its version, its user site directory
 * (NULL when user site-packages are off) and site.getsitepackages(). */
struct ep_pyquery {
	char *version;
	char *user_site;
	struct ep_strv sites;
	char *markers[EP_MV_N];	/* its PEP 508 marker environment; NULL
				   where it did not say */
};
void ep_pyquery_clear(struct ep_pyquery *p);

/* What starts the answer's line (its words older than this file's name:
 * answers cached before read the same). */
#define EP_PYQUERY_MARK	"envparity-probe-v1 "

/* The script the interpreter runs, and a parser for what it prints (one
 * marked JSON line among any other output): pyscript.c.  *out is filled with strings
 * the caller owns (ep_pyquery_clear).  -1 when no valid answer is in
 * text, with err (EP_E_IO, may be NULL) saying what was wrong. */
extern const char ep_pyquery_script[];
int ep_pyquery_parse(struct ep_pyquery *out, const char *text, size_t len,
    struct ep_err *err);

/* A virtual environment the interpreter is asked about from outside:
 * its root, and whether its pyvenv.cfg includes the system
 * site-packages. */
struct ep_pyquery_venv {
	const char *root;
	int system_site;
};

/* Run exe with the query script, isolated from the checkout and without
 * site.py's start-up (no .pth file runs): -I -S (-E -s -S where the
 * interpreter has no -I), from "/", as a confined helper (child.h) with
 * an interpreter's environment (pyquery.c says which PYTHON* variables
 * stay), PYENV_DIR set to the current directory for a pyenv shim.  With
 * venv (else NULL), exe is a venv's base binary run where it lies, and
 * the site directories are those a run of the venv's python would have
 * (site.venv() done with venv's root and flag: no file of the venv is
 * read).  Killed, with everything it started, when it ends or after
 * timeout_ms.  -1 with err (EP_E_IO) naming exe when it cannot be
 * started, crashes, exits non-zero, hangs or prints no answer. */
int ep_pyquery_run(struct ep_pyquery *out, const char *exe,
    const struct ep_pyquery_venv *venv, int timeout_ms, struct ep_err *err);

/* ep_pyquery_run through cache (may be NULL), keyed on the stat of the
 * real (symlink-resolved) executable under a kind that folds in the path
 * run, venv and the environment variables the answer depends on.
 * Scripts ("#!") are run every time.  Fails as ep_pyquery_run does. */
int ep_pyquery_cached(struct ep_pyquery *out, const char *exe,
    const struct ep_pyquery_venv *venv, struct ep_cache *cache,
    int timeout_ms, struct ep_err *err);

/* When exe is a pyenv shim, the interpreter it would run, found by pyenv's
 * documented rules without running anything: the first version named by
 * PYENV_VERSION, else by the nearest .python-version from dir (the current
 * directory) upwards, else by $PYENV_ROOT/version, whose
 * versions/<v>/bin/<program> exists.  A new string, or NULL when exe is
 * not a shim or the choice is not plain (no version named, "system", a
 * version not installed): then the shim itself must be run.  Implemented
 * in pyshim.c. */
char *ep_pyshim_resolve(const char *exe, const char *dir);

/* Resolve a --python argument: a path (must exist and be an executable
 * file) or a name looked up in PATH's absolute directories (never ".").
 * *out is a new string.  -1 with err (EP_E_INPUT) "python: EXE: not
 * found" and the like. */
int ep_pyinterp_which(char **out, const char *name, struct ep_err *err);

/* A Python environment: what python.version and the package scan use. */
struct ep_pyenv {
	char *version;		/* NULL if unknown */
	struct ep_strv sites;	/* search order; some may not exist */
	char *venv;		/* the virtual environment exe is in (the
				   directory of its pyvenv.cfg), or NULL */
	char *unavailable;	/* why exe was not asked (no interpreter):
				   version is then NULL; or NULL */
	char *warning;		/* trouble short of failure, or NULL */
	char *markers[EP_MV_N];	/* the marker environment (NULL:
				   not known) */
	const char *markers_from;	/* where they came from (static) */
};

/* Where meta.python.markers came from. */
#define EP_MARKERS_RUN		"interpreter"
#define EP_MARKERS_UNAME	"uname"

/* The marker environment as far as it is known without an interpreter:
 * os_name, sys_platform and platform_* from uname(2) of this machine
 * (what platform.* report).  The rest stay NULL; markers[] is filled
 * with new strings (free each). */
void ep_pymarkers_uname(char *markers[EP_MV_N]);
void ep_pyenv_clear(struct ep_pyenv *e);

/* Learn the version and site-packages directories of the interpreter at
 * exe by running it once, through cache (may be NULL).  For a virtual
 * environment's python, the binary it really is (ep_pyvenv_interp) is run
 * where it lies and asked about the venv; pyvenv.cfg's version is never
 * taken.  When that python is no interpreter, 0 with out->unavailable
 * saying why, no version, and the venv's one lib/python*\/site-packages
 * (none when it has several: nothing says which) with a warning.  -1 with
 * err (EP_E_IO) when the interpreter could not tell; the caller reports
 * it as unavailable. */
int ep_pyinterp_resolve(struct ep_pyenv *out, const char *exe,
    struct ep_cache *cache, int timeout_ms, struct ep_err *err);

#endif
