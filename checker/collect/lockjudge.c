/*
 * lockjudge.c: the installed distributions against a lockfile's pins
 * (lockjudge.h), judged at capture where the pins still say what they
 * apply to.
 *
 * What applies is what the tool that wrote the lockfile installs: its
 * default selection of categories, groups or environments (or the
 * user's, --lock-group), then each pin's marker against the inspected
 * interpreter and, for conda's formats, this platform; for a poetry.lock
 * whose packages carry no marker (poetry 1.x), its dependency edges
 * (lockreach.c).  A pin whose marker cannot be decided, or that is no
 * exact version (">=1.0" in a requirements file), is counted as
 * unjudged, never guessed; it still keeps its package from being an
 * extra.
 */
#include <stdlib.h>
#include <string.h>

#include "lockjudge.h"
#include "lockreach.h"
#include "str.h"
#include "vercmp.h"
#include "xalloc.h"

const char *
ep_lock_default_groups(enum ep_lock_format f)
{
	switch (f) {
	case EP_LOCK_POETRY:
		return "main and every group, optional packages (extras) "
		    "left out, as poetry install";
	case EP_LOCK_PIPFILE:
		return "the default category, as pipenv sync";
	case EP_LOCK_UV:
		return "every package, one not installed a warning (uv sync "
		    "installs the default and dev groups; uv.lock does not say "
		    "which package is an extra's or another group's)";
	case EP_LOCK_PDM:
		return "every group, one not installed and only in groups other "
		    "than default a warning (pdm sync installs the default and "
		    "dev groups; pdm.lock does not say which group is an "
		    "optional one)";
	case EP_LOCK_CONDA_LOCK:
		return "the main and dev categories on this platform, as "
		    "conda-lock install";
	case EP_LOCK_PIXI:
		return "the default environment on this platform, as pixi "
		    "install";
	case EP_LOCK_PYLOCK:
		return "the packages whose marker holds here, as an installer "
		    "of pylock.toml without extras or groups";
	case EP_LOCK_REQUIREMENTS:
		return "the == pins whose marker holds here, as pip install "
		    "-r";
	case EP_LOCK_CONDA:
		return "every package, as conda create --file";
	default:
		return "nothing";
	}
}

const char *
ep_lock_conda_platform(const char *system, const char *machine)
{
	static const struct {
		const char *system, *machine, *platform;
	} map[] = {
		{ "Linux", "x86_64", "linux-64" },
		{ "Linux", "aarch64", "linux-aarch64" },
		{ "Linux", "ppc64le", "linux-ppc64le" },
		{ "Linux", "s390x", "linux-s390x" },
		{ "Linux", "i686", "linux-32" },
		{ "Darwin", "arm64", "osx-arm64" },
		{ "Darwin", "x86_64", "osx-64" },
		{ "Windows", "AMD64", "win-64" },
		{ "Windows", "ARM64", "win-arm64" },
	};

	if (system == NULL || machine == NULL)
		return NULL;
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(map[i].system, system) == 0 &&
		    strcmp(map[i].machine, machine) == 0)
			return map[i].platform;
	return NULL;
}

static char *
join(const struct ep_strv *sv, const char *sep)
{
	size_t len = 1;
	char *out, *w;

	for (size_t i = 0; i < sv->n; i++)
		len += strlen(sv->v[i]) + strlen(sep);
	w = out = xmalloc(len);
	*w = '\0';
	for (size_t i = 0; i < sv->n; i++)
		w = stpcpy(i > 0 ? stpcpy(w, sep) : w, sv->v[i]);
	return out;
}

static int
has(const struct ep_strv *sv, const char *s, size_t n)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strlen(sv->v[i]) == n && strncmp(sv->v[i], s, n) == 0)
			return 1;
	return 0;
}

/* 1 if one of the ','-separated names of list (up to a ' ') is in sel. */
static int
any_in(const struct ep_strv *sel, const char *list)
{
	const char *p = list, *e;

	while (*p != '\0' && *p != ' ') {
		for (e = p; *e != '\0' && *e != ',' && *e != ' '; e++)
			;
		if (e > p && has(sel, p, (size_t)(e - p)))
			return 1;
		p = *e == ',' ? e + 1 : e;
	}
	return 0;
}

/* conda-lock's "PLATFORM CATEGORY" or pixi's "ENV:PLATFORM,...": 1 if a
 * selected category or environment on this platform is among them. */
static int
conda_where(const char *where, enum ep_lock_format f,
    const struct ep_strv *sel, int all, const char *plat)
{
	const char *p = where, *e, *sep;
	size_t pl = plat != NULL ? strlen(plat) : 0;

	if (where == NULL || plat == NULL)
		return 0;
	if (f == EP_LOCK_CONDA_LOCK) {
		if ((sep = strchr(where, ' ')) == NULL ||
		    (size_t)(sep - where) != pl || strncmp(where, plat, pl) != 0)
			return 0;
		return all || has(sel, sep + 1, strlen(sep + 1));
	}
	for (; *p != '\0'; p = *e == ',' ? e + 1 : e) {
		e = p + strcspn(p, ",");
		if ((sep = memchr(p, ':', (size_t)(e - p))) == NULL)
			continue;
		if ((size_t)(e - sep - 1) == pl && strncmp(sep + 1, plat,
		    pl) == 0 && (all || has(sel, p, (size_t)(sep - p))))
			return 1;
	}
	return 0;
}

/* 1 if the pin's group (not its marker) selects it. */
static int
group_applies(const struct ep_pin *pin, enum ep_lock_format f,
    const struct ep_strv *sel, int all, const char *plat)
{
	static const struct ep_strv none = { 0 };
	const char *g = pin->group;

	switch (f) {
	case EP_LOCK_POETRY:
		if (g != NULL && strstr(g, " optional") != NULL)
			return all;
		return all || sel->n == 0 || g == NULL || any_in(sel, g);
	case EP_LOCK_PIPFILE:
		if (sel->n == 0)
			return g != NULL && strcmp(g, "default") == 0;
		return all || (g != NULL && has(sel, g, strlen(g)));
	case EP_LOCK_PDM:
		return all || sel->n == 0 || g == NULL || any_in(sel, g);
	case EP_LOCK_CONDA_LOCK:
	case EP_LOCK_PIXI:
		if (sel->n == 0) {
			struct ep_strv def = { 0 };
			int r;

			/* conda-lock install: --dev by default (its
			 * DEFAULT_INSTALL_OPT_DEV), extras only with -E. */
			ep_strv_push(&def, f == EP_LOCK_PIXI ? "default" :
			    "main");
			if (f == EP_LOCK_CONDA_LOCK)
				ep_strv_push(&def, "dev");
			r = conda_where(pin->where, f, &def, 0, plat);
			ep_strv_clear(&def);
			return r;
		}
		return conda_where(pin->where, f, all ? &none : sel, all, plat);
	default:
		return 1;
	}
}

/* 1 for a conda package (a conda explicit file, or a conda-lock.yml or
 * pixi.lock package whose URL is a conda archive), 0 for a Python one. */
static int
is_conda(const struct ep_pin *pin, enum ep_lock_format f)
{
	if (f == EP_LOCK_CONDA)
		return 1;
	if (f != EP_LOCK_CONDA_LOCK && f != EP_LOCK_PIXI)
		return 0;
	return pin->source == NULL || ep_endswith(pin->source, ".conda") ||
	    ep_endswith(pin->source, ".tar.bz2");
}

/* 1 if the pin's version is one exact version (not "@ URL", not a
 * specifier, not "*", not several). */
static int
exact(const char *v)
{
	return *v != '\0' && *v != '@' && strpbrk(v, "<>=!~*, ") == NULL;
}

static int
same_version(const char *pin, const char *have, int conda)
{
	if (strcmp(pin, have) == 0)
		return 1;
	if (conda || !ep_version_pep440(pin) || !ep_version_pep440(have))
		return 0;
	return ep_vercmp(pin, have) == 0;
}

/* The state of one name among the pins that apply. */
struct name_state {
	int conda;		/* compared with conda.pkg */
	int ok;			/* one pin is installed at its version */
	int unjudged;		/* one pin could not be judged */
	int sure;		/* one pin is of what the tool surely
				   installs (not uv.lock's, nor one of
				   pdm.lock's only in groups other than
				   default, which may be optional ones) */
	struct ep_strv pins;	/* the versions pinned that apply */
};

static const char *
installed(const struct ep_manifest *m, const char *name, int conda)
{
	char *key = xasprintf("%s.pkg.%s", conda ? "conda" : "python", name);
	const char *v = ep_manifest_get(m, key);

	free(key);
	return v;
}

/* A JSON string of s, which need not be UTF-8 (a pin's URL is the
 * file's bytes): invalid bytes become U+FFFD, as in the facts. */
static json_t *
jstr(const char *s)
{
	char *clean = ep_utf8_sanitize(s, strlen(s));
	json_t *j = json_string(clean);

	free(clean);
	return j;
}

/* The finding of name into fs (borrowed from it).  A PyPI package's
 * whose name a conda package's finding holds already (conda-lock.yml,
 * pixi.lock) is keyed "pypi:NAME" (':' is in no conda or PEP 503 name):
 * neither overwrites the other. */
static json_t *
finding(json_t *fs, const char *name, const char *kind, const char *pin,
    const char *have)
{
	json_t *f = json_object();
	char *key = ep_utf8_sanitize(name, strlen(name)), *py;

	if (json_object_get(fs, key) != NULL) {
		py = xasprintf("pypi:%s", key);
		free(key);
		key = py;
	}

	json_object_set_new(f, "kind", json_string(kind));
	if (pin != NULL)
		json_object_set_new(f, "pin", jstr(pin));
	if (have != NULL)
		json_object_set_new(f, "installed", jstr(have));
	json_object_set_new(fs, key, f);
	free(key);
	return f;
}

/* Installed distributions (python.pkg or conda.pkg) not among the names
 * that apply. */
static void
extras(json_t *fs, const struct ep_manifest *m, json_t *names, int conda)
{
	static const char *const own[] = { "pip", "setuptools", "wheel",
	    "distribute", NULL };
	const char *prefix = conda ? "conda.pkg." : "python.pkg.", *k, *name;
	json_t *v, *editable = json_object_get(json_object_get(m->meta,
	    "python"), "editable");
	size_t pl = strlen(prefix), i;

	json_object_foreach(m->facts, k, v) {
		if (strncmp(k, prefix, pl) != 0 || !json_is_string(v))
			continue;
		name = k + pl;
		if (json_object_get(names, name) != NULL)
			continue;
		if (!conda) {
			for (i = 0; own[i] != NULL && strcmp(own[i], name); i++)
				;
			if (own[i] != NULL || json_object_get(editable,
			    name) != NULL)
				continue;
		}
		finding(fs, name, "extra", NULL, json_string_value(v));
	}
}

/* One judgement under way: the names that apply, each with its state
 * (names[c]: name -> index into st; c 1 for conda, 0 for Python). */
struct judge {
	const struct ep_manifest *m;
	enum ep_lock_format f;
	const struct ep_lockjudge *j;
	const struct ep_strv *sel;
	int all;		/* --lock-group all */
	json_t *names[2];
	struct name_state *st;
	size_t n;
	int kinds[2];		/* a Python, a conda pin applies */
	int loose;		/* a requirements pin is no exact version */
	int nomark;		/* pdm.lock: no pin has a marker */
	const struct ep_pins *pins;
	size_t *node;		/* poetry.lock without markers: pin -> name */
	unsigned char *reach;	/* name -> 2 installed here, 1 perhaps, 0 not */
};

/* Whether pin p (c: a conda one) applies here: 1, 0, or -1 when its
 * marker cannot be decided.  Conda's formats say it with the platform
 * (in the group), the Python ones with a marker. */
static int
pin_applies(struct judge *jd, const struct ep_pin *p, int c)
{
	struct ep_err err = { 0 };
	struct ep_marker *mk;
	int mv;

	if (!group_applies(p, jd->f, jd->sel, jd->all, jd->j->conda_platform))
		return 0;
	if (p->where == NULL || c || jd->f == EP_LOCK_CONDA_LOCK ||
	    jd->f == EP_LOCK_PIXI)
		return 1;
	if (jd->j->env == NULL || ep_marker_parse(&mk, p->where, &err) < 0)
		return -1;
	mv = ep_marker_eval(mk, jd->j->env, &err);
	ep_marker_free(mk);
	return mv == EP_MARKER_FALSE ? 0 : mv == EP_MARKER_TRUE ? 1 : -1;
}

/* poetry.lock without markers (poetry 1.x): each name's reach from the
 * roots of the selected groups, through edges true here. */
static void
poetry_reach(struct judge *jd)
{
	unsigned char *root = xcalloc(jd->pins->n + 1, 1);

	for (size_t i = 0; i < jd->pins->n; i++)
		root[i] = (unsigned char)group_applies(&jd->pins->v[i], jd->f,
		    jd->sel, jd->all, NULL);
	jd->reach = ep_lock_reach(&jd->node, jd->pins, root, jd->j->env);
	free(root);
}

/* 1 if the ','-separated groups g hold "default". */
static int
has_default(const char *g)
{
	struct ep_strv def = { 0 };
	int r;

	ep_strv_push(&def, "default");
	r = any_in(&def, g);
	ep_strv_clear(&def);
	return r;
}

/* Pin p into the state of its name, if it applies. */
static void
judge_pin(struct judge *jd, const struct ep_pin *p)
{
	int c = is_conda(p, jd->f), mv = pin_applies(jd, p, c);
	struct name_state *s;
	const char *have;
	json_t *ref;

	if (jd->reach != NULL && mv > 0)
		mv = jd->reach[jd->node[p - jd->pins->v]] > 0;
	if (mv == 0)
		return;
	jd->kinds[c] = 1;
	if ((ref = json_object_get(jd->names[c], p->name)) == NULL) {
		ref = json_integer((json_int_t)jd->n);
		json_object_set_new(jd->names[c], p->name, ref);
		jd->st[jd->n++].conda = c;
	}
	s = &jd->st[json_integer_value(ref)];
	if (jd->f != EP_LOCK_UV && (jd->f != EP_LOCK_PDM || jd->sel->n > 0 ||
	    p->group == NULL || has_default(p->group)) && !jd->nomark &&
	    (jd->reach == NULL || jd->reach[jd->node[p - jd->pins->v]] > 1))
		s->sure = 1;
	if (mv < 0 || !exact(p->version)) {
		s->unjudged = 1;
		if (jd->f == EP_LOCK_REQUIREMENTS && mv > 0)
			jd->loose = 1;
		/* "@ URL": installed or not is still known. */
		if (p->version[0] != '@')
			return;
	}
	if (!ep_strv_contains(&s->pins, p->version))
		ep_strv_push(&s->pins, p->version);
	if ((have = installed(jd->m, p->name, c)) != NULL &&
	    (p->version[0] == '@' || same_version(p->version, have, c)))
		s->ok = 1;
}

/* The names of ecosystem c (1 conda, 0 Python) not installed as pinned,
 * into fs; returns how many could not be judged. */
static size_t
judge_findings(struct judge *jd, json_t *fs, int c)
{
	size_t nunjudged = 0;
	const char *key, *have;
	char *joined;
	json_t *ref, *f;

	json_object_foreach(jd->names[c], key, ref) {
		struct name_state *s = &jd->st[json_integer_value(ref)];

		have = installed(jd->m, key, c);
		if (s->unjudged && !s->ok) {
			nunjudged++;
			if (s->pins.n == 0 || have != NULL)
				continue;
		}
		if (s->ok)
			continue;
		ep_strv_sort(&s->pins);
		joined = join(&s->pins, ",");
		f = finding(fs, key, have == NULL ? "missing" :
		    "version", joined, have);
		/* uv.lock pins every extra's and group's packages
		 * and does not say whose, pdm.lock does not say which
		 * group is an optional one: one missing may be one
		 * uv sync or pdm sync leaves out. */
		if (have == NULL && !s->sure)
			json_object_set_new(f, "maybe_optional",
			    json_true());
		free(joined);
	}
	return nunjudged;
}

/* A requirements file's extras past EP_LOCK_EXTRAS_MAX: out of fs, into
 * one {"count": N, "names": [the first EP_LOCK_EXTRAS_NAMED]} (a file
 * of == pins written by hand lists what was asked for, not each
 * dependency: hundreds of warnings would bury the one that matters). */
static json_t *
extras_summary(json_t *fs)
{
	struct ep_strv names = { 0 };
	json_t *f, *sum = NULL, *named;
	const char *name;

	json_object_foreach(fs, name, f)
		if (strcmp(json_string_value(json_object_get(f, "kind")),
		    "extra") == 0)
			ep_strv_push(&names, name);
	if (names.n > EP_LOCK_EXTRAS_MAX) {
		ep_strv_sort(&names);
		named = json_array();
		for (size_t i = 0; i < names.n; i++) {
			if (i < EP_LOCK_EXTRAS_NAMED)
				json_array_append_new(named, jstr(names.v[i]));
			json_object_del(fs, names.v[i]);
		}
		sum = json_pack("{s:I,s:o}", "count", (json_int_t)names.n,
		    "names", named);
	}
	ep_strv_clear(&names);
	return sum;
}

json_t *
ep_lock_judge(const struct ep_manifest *m, enum ep_lock_format f,
    const struct ep_pins *pins, const struct ep_lockjudge *j)
{
	static const struct ep_strv none = { 0 };
	struct judge jd = { .m = m, .f = f, .j = j,
	    .sel = j->groups != NULL ? j->groups : &none };
	json_t *out = json_object(), *fs = json_object(), *sum = NULL;
	size_t nunjudged, i;
	char *joined, *sel_words;
	int ext;

	jd.all = has(jd.sel, "all", 3);
	jd.names[0] = json_object();
	jd.names[1] = json_object();
	jd.st = xcalloc(pins->n + 1, sizeof *jd.st);
	jd.pins = pins;
	for (i = 0; i < pins->n && pins->v[i].where == NULL; i++)
		;
	/* No pin says where it applies: pdm.lock before pdm 2.11 (or its
	 * static_urls strategy) cannot say which is a platform's only;
	 * poetry 1.x's edges can. */
	jd.nomark = i == pins->n && f == EP_LOCK_PDM;
	if (i == pins->n && f == EP_LOCK_POETRY)
		poetry_reach(&jd);
	for (i = 0; i < pins->n; i++)
		judge_pin(&jd, &pins->v[i]);
	/* conda's findings first: a PyPI one of the same name is then
	 * keyed apart (finding()). */
	nunjudged = judge_findings(&jd, fs, 1);
	/* Everything listed: then what else is installed is extra. */
	ext = !jd.loose && pins->dropped == 0 && !pins->partial &&
	    f != EP_LOCK_UV;
	if (ext && (jd.kinds[1] || f == EP_LOCK_CONDA))
		extras(fs, m, jd.names[1], 1);
	nunjudged += judge_findings(&jd, fs, 0);
	if (ext && !jd.kinds[1] && f != EP_LOCK_CONDA &&
	    f != EP_LOCK_CONDA_LOCK && f != EP_LOCK_PIXI)
		extras(fs, m, jd.names[0], 0);
	if (ext && f == EP_LOCK_REQUIREMENTS)
		sum = extras_summary(fs);
	json_object_set_new(out, "format", json_string(ep_lock_format_name(f)));
	joined = join(jd.sel, ", ");
	sel_words = jd.sel->n == 0 ? xstrdup(ep_lock_default_groups(f)) :
	    xasprintf("the groups named with --lock-group: %s", joined);
	json_object_set_new(out, "selected", jstr(sel_words));
	json_object_set_new(out, "against", json_string(jd.kinds[0] &&
	    jd.kinds[1] ? "python and conda" : jd.kinds[1] ||
	    f == EP_LOCK_CONDA ? "conda" : "python"));
	json_object_set_new(out, "pins", json_integer((json_int_t)(jd.n -
	    nunjudged)));
	json_object_set_new(out, "unjudged", json_integer((json_int_t)
	    nunjudged));
	json_object_set_new(out, "extras", json_boolean(ext));
	json_object_set_new(out, "findings", fs);
	if (sum != NULL)
		json_object_set_new(out, "extras_summary", sum);
	free(joined);
	free(sel_words);
	for (i = 0; i < jd.n; i++)
		ep_strv_clear(&jd.st[i].pins);
	free(jd.st);
	free(jd.node);
	free(jd.reach);
	json_decref(jd.names[0]);
	json_decref(jd.names[1]);
	return out;
}
