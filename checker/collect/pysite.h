/*
 * pysite.h: the Python collector's reading of installed distributions,
 * shared by collect_python.c (which judges and records what they give),
 * pysite.c (the directories: site-packages, egg-links, PYTHONPATH) and
 * pydist.c (one distribution's metadata).  Internal to checker/collect/.
 */
#ifndef EP_PYSITE_H
#define EP_PYSITE_H

#include <dirent.h>
#include <sys/types.h>

#include <jansson.h>

#include "collect.h"
#include "pep508.h"
#include "strv.h"

/* What a scan found so far; collect_python.c owns and frees it all. */
struct ep_pyscan {
	struct ep_collect *c;
	json_t *seen;		/* normalized name -> index into where */
	json_t *requires;	/* normalized name -> its requirements */
	struct ep_markerenv env;	/* the marker environment */
	struct ep_strv where;	/* metadata path each name came from */
	struct ep_strv where_dir;	/* and the directory it was in */
	json_t *twice;		/* normalized name -> the distributions of
				   that name in one directory */
	json_t *editable;	/* normalized name -> its project's location */
	struct ep_strv pypath;	/* PYTHONPATH directories read */
	dev_t *dev;		/* directories scanned, by identity */
	ino_t *ino;
	size_t ndirs;
	char *buf;		/* EP_PYMETA_MAX bytes */
};

/* One *.dist-info or *.egg-info entry ent of the directory dir open at
 * dfd (dtype its d_type): python.pkg.<name> set, or a warning saying why
 * it was skipped, into s.  linked: when an egg-link led there, the
 * project directory it names (the distribution is editable), else NULL.
 * Never fails. */
void ep_pydist_read(struct ep_pyscan *s, int dfd, const char *dir,
    const char *ent, int egg, unsigned char dtype, const char *linked);

/* The whole of a small file rel (relative to dfd) into buf, at most max
 * bytes: 0, an errno value, or EFBIG when it is larger. */
int ep_pydist_read_small(int dfd, const char *rel, char *buf, size_t max,
    size_t *len);

/* A path as it is, as a new JSON string (bytes that are not UTF-8 become
 * U+FFFD, as in fact values). */
json_t *ep_pydist_path_json(const char *path);

/* Scan the directory dir one level deep, then the projects its
 * *.egg-link files name; dir is pushed onto into (c->site_dirs or
 * s->pypath) unless it was scanned already.  A directory that does not
 * exist is skipped quietly, another failure is a warning.  Never fails. */
void ep_pysite_scan(struct ep_pyscan *s, const char *dir,
    struct ep_strv *into);

/* The directories of the PYTHONPATH environment variable, in order,
 * into s->pypath; an entry that is not a directory is a warning (zip
 * files are not read).  Never fails. */
void ep_pysite_scan_pythonpath(struct ep_pyscan *s);

#endif
