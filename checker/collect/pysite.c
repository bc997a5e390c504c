/*
 * pysite.c: the directories whose distributions Python finds, read
 * without running anything: a site-packages directory one level deep
 * (its *.dist-info and *.egg-info, by name, for a stable manifest), the
 * projects its legacy egg-links name (setup.py develop: read as files,
 * easy-install.pth never run), and the job's PYTHONPATH, which Python
 * searches first and the interpreter, asked isolated, does not report.
 * Each directory once, by identity.  pydist.c reads each distribution.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"
#include "pysite.h"
#include "python.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

struct entry {
	char *name;
	unsigned char type;	/* d_type: spares a stat per egg-info */
};

static int
entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name,
	    ((const struct entry *)b)->name);
}

/* Whether the directory open as d was scanned already (listed twice,
 * or an egg-link to a site directory); if not, remember it. */
static int
seen_dir(struct ep_pyscan *s, DIR *d)
{
	struct stat st;

	if (fstat(dirfd(d), &st) < 0)
		return 0;
	for (size_t i = 0; i < s->ndirs; i++)
		if (s->dev[i] == st.st_dev && s->ino[i] == st.st_ino)
			return 1;
	s->dev = xreallocarray(s->dev, s->ndirs + 1, sizeof *s->dev);
	s->ino = xreallocarray(s->ino, s->ndirs + 1, sizeof *s->ino);
	s->dev[s->ndirs] = st.st_dev;
	s->ino[s->ndirs++] = st.st_ino;
	return 0;
}

/* The *.dist-info and *.egg-info entries of d (and its *.egg-link ones
 * where links is set), sorted by name: directory order is arbitrary,
 * the output must not be. */
static size_t
list_entries(struct entry **out, DIR *d, int links)
{
	struct entry *ents = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;

	while ((de = readdir(d)) != NULL) {
		if (!ep_endswith(de->d_name, ".dist-info") &&
		    !ep_endswith(de->d_name, ".egg-info") &&
		    !(links && ep_endswith(de->d_name, ".egg-link")))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			ents = xreallocarray(ents, cap, sizeof *ents);
		}
		ents[n].name = xstrdup(de->d_name);
		ents[n++].type = de->d_type;
	}
	if (n > 0)
		qsort(ents, n, sizeof *ents, entry_cmp);
	*out = ents;
	return n;
}

/*
 * A legacy editable install (setup.py develop, pip install -e without
 * PEP 660): NAME.egg-link in site-packages names the project directory
 * on its first non-empty line (relative to site-packages, as pip reads
 * it), where NAME.egg-info is.  Read as a file; easy-install.pth, which
 * would put the project on sys.path, is never run.  Its distributions
 * come after the directory's own, as pip and pkg_resources order them.
 */
static void
scan_linked(struct ep_pyscan *s, int dfd, const char *dir, const char *ent)
{
	struct entry *ents = NULL;
	char *line = NULL, *target = NULL, *e;
	size_t len, n = 0;
	DIR *d = NULL;
	int rc;

	if ((rc = ep_pydist_read_small(dfd, ent, s->buf, 4096, &len)) != 0) {
		ep_manifest_warn(s->c->m, "%s/%s: %s (editable install "
		    "skipped)", dir, ent, rc == EFBIG ? "larger than 4 KiB" :
		    strerror(rc));
		return;
	}
	for (const char *p = s->buf, *end = s->buf + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl != NULL ? nl : end;

		free(line);
		line = ep_trim(xstrndup(p, (size_t)(le - p)));
		if (*line != '\0')
			break;
		p = le + 1;
	}
	if (line == NULL || *line == '\0' || memchr(s->buf, '\0', len)) {
		ep_manifest_warn(s->c->m, "%s/%s: names no directory "
		    "(editable install skipped)", dir, ent);
		goto done;
	}
	target = line[0] == '/' ? xstrdup(line) : xasprintf("%s/%s", dir,
	    line);
	for (e = target + strlen(target); e > target + 1 && e[-1] == '/';)
		*--e = '\0';
	if ((d = opendir(target)) == NULL) {
		ep_manifest_warn(s->c->m, "%s/%s: %s: %s (editable install "
		    "skipped)", dir, ent, target, strerror(errno));
		goto done;
	}
	if (seen_dir(s, d))
		goto done;
	n = list_entries(&ents, d, 0);
	for (size_t i = 0; i < n; i++)
		ep_pydist_read(s, dirfd(d), target, ents[i].name,
		    ep_endswith(ents[i].name, ".egg-info"), ents[i].type,
		    target);
done:
	for (size_t i = 0; i < n; i++)
		free(ents[i].name);
	free(ents);
	if (d != NULL)
		closedir(d);
	free(line);
	free(target);
}

/* Scan one site-packages (or PYTHONPATH) directory, one level deep, then
 * the projects its egg-links name.  A directory the interpreter lists
 * but that does not exist is normal (Debian lists several); explicit
 * ones were checked by the caller.  into: the list it joins. */
void
ep_pysite_scan(struct ep_pyscan *s, const char *dir, struct ep_strv *into)
{
	struct entry *ents = NULL;
	size_t n;
	DIR *d;

	if ((d = opendir(dir)) == NULL) {
		if (errno != ENOENT)
			ep_manifest_warn(s->c->m, "%s %s: %s", into ==
			    &s->pypath ? "PYTHONPATH entry" : "site-packages",
			    dir, strerror(errno));
		return;
	}
	if (seen_dir(s, d)) {
		closedir(d);
		return;
	}
	ep_strv_push(into, dir);
	n = list_entries(&ents, d, 1);
	for (size_t i = 0; i < n; i++)
		if (!ep_endswith(ents[i].name, ".egg-link"))
			ep_pydist_read(s, dirfd(d), dir, ents[i].name,
			    ep_endswith(ents[i].name, ".egg-info"),
			    ents[i].type, NULL);
	for (size_t i = 0; i < n; i++) {
		if (ep_endswith(ents[i].name, ".egg-link"))
			scan_linked(s, dirfd(d), dir, ents[i].name);
		free(ents[i].name);
	}
	free(ents);
	closedir(d);
}

/*
 * The job's PYTHONPATH, which Python puts before site-packages (the
 * interpreter is asked isolated, so its answer leaves it out): each
 * directory entry's distributions, read as files like site-packages
 * (nothing there is imported).  A relative entry is the working
 * directory's and an empty one the working directory, as Python makes
 * them (os.path.abspath).  A zip file is not read, and said.
 */
void
ep_pysite_scan_pythonpath(struct ep_pyscan *s)
{
	const char *pp = getenv("PYTHONPATH"), *p, *colon;
	char cwd[4096], *e;
	struct stat st;

	if (pp == NULL || *pp == '\0')
		return;
	if (getcwd(cwd, sizeof cwd) == NULL)
		strcpy(cwd, ".");
	for (p = pp;; p = colon + 1) {
		size_t n;

		colon = strchr(p, ':');
		n = colon != NULL ? (size_t)(colon - p) : strlen(p);
		if (n == 0)
			e = xstrdup(cwd);
		else if (*p == '/')
			e = xstrndup(p, n);
		else
			e = xasprintf("%s/%.*s", cwd, (int)n, p);
		if (stat(e, &st) == 0 && !S_ISDIR(st.st_mode))
			ep_manifest_warn(s->c->m, "PYTHONPATH entry %s: not a "
			    "directory (its distributions are not read)", e);
		else
			ep_pysite_scan(s, e, &s->pypath);
		free(e);
		if (colon == NULL)
			break;
	}
}
