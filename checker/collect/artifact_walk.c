/*
 * artifact_walk.c: the files of one directory named with --artifact,
 * found as `find -L DIR -type f` finds them (collect_artifact.c has the
 * digest they make and why): a relative link that stays inside is
 * followed, any other entry but a file, a directory or such a link is
 * refused, naming it.
 *
 * The walk is iterative: the artifact is the judged environment's, and
 * neither a deep tree nor a chain of links to directories may grow the
 * C stack.  Its own stack is bounded as the kernel bounds a name:
 * ART_MAX_LINKS links on the way to one entry (sha256sum could not open
 * a name past that: ELOOP) and ART_MAX_DEPTH directories down; and the
 * whole walk by the caller's count of files and directories.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_walk.h"
#include "errors.h"
#include "files.h"
#include "strv.h"
#include "xalloc.h"

/* Symbolic links followed on the way from the top to one entry: the
 * kernel's own limit (MAXSYMLINKS; one more is ELOOP), so that every
 * name the digest lists is one sha256sum can open. */
#define ART_MAX_LINKS		40
/* Directories from the top down to one entry, the top included. */
#define ART_MAX_DEPTH		1024

/* A directory being walked: its entries, read and sorted before going
 * down, and the next one to look at. */
struct frame {
	char *path;		/* where it is read: DIR/REL, or the real
				   path a link was checked to reach */
	char *name;		/* "." or "./REL" */
	dev_t dev;		/* a link to a directory being walked is a loop */
	ino_t ino;
	unsigned links;		/* links followed on the way from the top */
	struct ep_strv ents;
	size_t next;
};

/* The walk of one directory artifact: iterative, so that neither a deep
 * tree nor a chain of links to directories can grow the C stack; its
 * own stack is the directories from the top down to the one read now. */
struct walk {
	const char *arg;	/* as given */
	char *real;		/* its real path */
	size_t max;		/* files, and directories, at most */
	size_t ndirs;
	struct ep_strv names;	/* "./REL" of each file */
	struct ep_strv paths;	/* what to hash: DIR/REL, or for a link
				   the real path it was checked to reach */
	struct frame *up;	/* outermost first */
	size_t nup, capup;
	struct ep_err *err;
};

static void
frame_clear(struct frame *f)
{
	free(f->path);
	free(f->name);
	ep_strv_clear(&f->ents);
}

static void
walk_clear(struct walk *w)
{
	free(w->real);
	ep_strv_clear(&w->names);
	ep_strv_clear(&w->paths);
	for (size_t i = 0; i < w->nup; i++)
		frame_clear(&w->up[i]);
	free(w->up);
}

static int
walk_add(struct walk *w, const char *name, const char *path)
{
	if (w->names.n >= w->max)
		return ep_err_set(w->err, EP_E_INPUT, "--artifact %s: more than "
		    "%zu files (ENVPARITY_ARTIFACT_MAX_FILES raises the limit)",
		    w->arg, w->max);
	ep_strv_push(&w->names, name);
	ep_strv_push(&w->paths, path);
	return 0;
}

/* 1 if st is a directory being walked: going into it again would loop. */
static int
walk_holds(const struct walk *w, const struct stat *st)
{
	for (size_t i = 0; i < w->nup; i++)
		if (w->up[i].dev == st->st_dev && w->up[i].ino == st->st_ino)
			return 1;
	return 0;
}

/*
 * The directory at path (named name inside the artifact; st its stat,
 * links the links followed to reach it) read, its entries sorted, and
 * pushed to be walked next.  Takes path and name, also on failure.
 */
static int
walk_push(struct walk *w, char *path, char *name, const struct stat *st,
    unsigned links)
{
	struct frame f = { .path = path, .name = name, .dev = st->st_dev,
	    .ino = st->st_ino, .links = links };
	struct dirent *de;
	DIR *d = NULL;
	int rc = -1;

	/* Links are checked before they get here; a bind mount is not. */
	if (walk_holds(w, st)) {
		ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s: a directory "
		    "that holds itself (a loop; refused)", w->arg, path);
		goto done;
	}
	if (w->nup >= ART_MAX_DEPTH) {
		/* Its path is long (two bytes a level at least): the message
		 * says where it starts and ends, so that its one line keeps
		 * the reason. */
		size_t len = strlen(path), h = len < 160 ? len : 64,
		    t = len < 160 ? len : len - 64;

		while (h < len && h > 1 && path[h - 1] != '/')
			h--;
		while (t < len - 1 && path[t] != '/')
			t++;
		ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %.*s%s%s: more "
		    "than %d directories deep (refused)", w->arg, (int)h, path,
		    t < len ? "[...]" : "", path + t, ART_MAX_DEPTH);
		goto done;
	}
	if (++w->ndirs > w->max) {
		ep_err_set(w->err, EP_E_INPUT, "--artifact %s: more than %zu "
		    "directories (ENVPARITY_ARTIFACT_MAX_FILES raises the "
		    "limit)", w->arg, w->max);
		goto done;
	}
	/* Names first, the directory closed before going down: a deep tree
	 * must not hold a descriptor per level. */
	if ((d = opendir(path)) == NULL) {
		ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s: cannot list "
		    "the directory: %s", w->arg, path, strerror(errno));
		goto done;
	}
	for (errno = 0; (de = readdir(d)) != NULL; errno = 0)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			ep_strv_push(&f.ents, de->d_name);
	if (errno != 0) {
		ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s: cannot list "
		    "the directory: %s", w->arg, path, strerror(errno));
		goto done;
	}
	/* The first entry refused is the same on every file system. */
	ep_strv_sort(&f.ents);
	if (w->nup == w->capup) {
		w->capup = w->capup ? 2 * w->capup : 16;
		w->up = xreallocarray(w->up, w->capup, sizeof *w->up);
	}
	w->up[w->nup++] = f;
	f = (struct frame){ 0 };
	rc = 0;
done:
	if (d != NULL)
		closedir(d);
	frame_clear(&f);
	return rc;
}

/*
 * A symbolic link at path (named name inside the artifact, reached
 * through links links): followed when it is relative and, read as
 * written and as the kernel resolves it, stays inside; then a file is
 * hashed at its real path (so the hasher follows no link) and a
 * directory pushed to be walked under the link's name.
 */
static int
walk_link(struct walk *w, const char *path, const char *name,
    unsigned links)
{
	char target[PATH_MAX], *real = NULL;
	const char *p, *e;
	struct stat st;
	ssize_t len;
	long depth = 0;
	size_t rl = strlen(w->real);
	int rc = -1;

	if ((len = readlink(path, target, sizeof target - 1)) < 0)
		return ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s: cannot "
		    "read the link: %s", w->arg, path, strerror(errno));
	target[len] = '\0';
	if (target[0] == '/')
		return ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s -> %s: "
		    "an absolute symbolic link (refused: only a relative link "
		    "that stays inside the artifact is followed)", w->arg,
		    path, target);
	/* The name ./REL is what sha256sum opens: the kernel follows at
	 * most ART_MAX_LINKS links in it. */
	if (links >= ART_MAX_LINKS)
		return ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s -> %s: "
		    "more than %d symbolic links on the way from the top (the "
		    "kernel's limit, ELOOP; refused)", w->arg, path, target,
		    ART_MAX_LINKS);
	/* As written, from the link's folder: never above the top. */
	for (p = name + 2; (e = strchr(p, '/')) != NULL; p = e + 1)
		depth++;
	for (p = target; *p != '\0'; p = *e ? e + 1 : e) {
		if ((e = strchr(p, '/')) == NULL)
			e = p + strlen(p);
		if (e - p == 2 && p[0] == '.' && p[1] == '.') {
			if (--depth < 0)
				break;
		} else if (e > p && !(e - p == 1 && *p == '.'))
			depth++;
	}
	if (depth >= 0 && (real = realpath(path, NULL)) == NULL) {
		if (errno == ENOENT)
			return ep_err_set(w->err, EP_E_INPUT, "--artifact %s: "
			    "%s -> %s: a symbolic link to nothing", w->arg, path,
			    target);
		return ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s -> %s: "
		    "%s", w->arg, path, target, strerror(errno));
	}
	/* As the kernel resolves it, through any other link. */
	if (depth < 0 || !(strcmp(w->real, "/") == 0 ||
	    (strncmp(real, w->real, rl) == 0 &&
	    (real[rl] == '/' || real[rl] == '\0')))) {
		ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s -> %s: a "
		    "symbolic link that leaves the artifact (refused: only a "
		    "relative link that stays inside it is followed)", w->arg,
		    path, target);
		goto done;
	}
	if (stat(real, &st) < 0) {
		ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s -> %s: %s",
		    w->arg, path, target, strerror(errno));
		goto done;
	}
	if (S_ISREG(st.st_mode))
		rc = walk_add(w, name, real);
	else if (S_ISDIR(st.st_mode) && walk_holds(w, &st))
		ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s -> %s: a "
		    "symbolic link to a directory that holds it (a loop; "
		    "refused)", w->arg, path, target);
	else if (S_ISDIR(st.st_mode)) {
		rc = walk_push(w, real, xstrdup(name), &st, links + 1);
		real = NULL;
	} else
		ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s -> %s: a link "
		    "to %s (refused: only regular files are hashed)", w->arg,
		    path, target, ep_mode_kind(st.st_mode));
done:
	free(real);
	return rc;
}

/* One entry of the directory on top of the walk: a file added, a
 * directory or a link to one pushed, anything else refused. */
static int
walk_entry(struct walk *w)
{
	struct frame *f = &w->up[w->nup - 1];
	const char *ent = f->ents.v[f->next++];
	unsigned links = f->links;
	char *sub, *subname;
	struct stat lst;
	int rc = -1;

	sub = strcmp(f->path, "/") == 0 ? xasprintf("/%s", ent) :
	    xasprintf("%s/%s", f->path, ent);
	subname = xasprintf("%s/%s", f->name, ent);
	/* f is not used past here: a push may move the stack. */
	if (lstat(sub, &lst) < 0)
		ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s: %s", w->arg,
		    sub, strerror(errno));
	else if (S_ISREG(lst.st_mode))
		rc = walk_add(w, subname, sub);
	else if (S_ISDIR(lst.st_mode)) {
		rc = walk_push(w, sub, subname, &lst, links);
		sub = subname = NULL;
	} else if (S_ISLNK(lst.st_mode))
		rc = walk_link(w, sub, subname, links);
	else
		ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s: %s (refused: "
		    "only regular files, directories and links inside the "
		    "artifact are hashed)", w->arg, sub,
		    ep_mode_kind(lst.st_mode));
	free(sub);
	free(subname);
	return rc;
}

/* The directory artifact at path (st its stat), depth first in the byte
 * order of the names, as many levels down as ART_MAX_DEPTH allows. */
static int
walk_dir(struct walk *w, const char *path, const struct stat *st)
{
	if (walk_push(w, xstrdup(path), xstrdup("."), st, 0) < 0)
		return -1;
	while (w->nup > 0) {
		struct frame *f = &w->up[w->nup - 1];

		if (f->next == f->ents.n) {
			frame_clear(f);
			w->nup--;
		} else if (walk_entry(w) < 0)
			return -1;
	}
	return 0;
}

int
ep_artifact_walk(struct ep_strv *names, struct ep_strv *paths,
    const char *arg, const struct stat *st, size_t max, struct ep_err *err)
{
	struct walk w = { .arg = arg, .max = max, .err = err };
	char *base = NULL;
	size_t len;
	int rc = -1;

	if ((w.real = realpath(arg, NULL)) == NULL) {
		ep_err_set(err, EP_E_INPUT, "--artifact %s: %s", arg,
		    strerror(errno));
		goto done;
	}
	/* Its entries named DIR/NAME, not DIR//NAME. */
	base = xstrdup(arg);
	for (len = strlen(base); len > 1 && base[len - 1] == '/'; len--)
		base[len - 1] = '\0';
	if (walk_dir(&w, base, st) < 0)
		goto done;
	*names = w.names;
	*paths = w.paths;
	w.names = (struct ep_strv){ 0 };
	w.paths = (struct ep_strv){ 0 };
	rc = 0;
done:
	free(base);
	walk_clear(&w);
	return rc;
}
