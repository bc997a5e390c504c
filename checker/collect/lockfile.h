/*
 * lockfile.h: the lockfile formats envparity reads pins from, as pure
 * functions over a buffer: the choice of format, by name or by content,
 * and the dispatch (lockfile.c) on top of the parsers, requirements files
 * (lockfile_req.c), poetry.lock, uv.lock, pdm.lock and pylock.toml
 * (lockfile_toml.c, lockfile_tomlsyn.c), Pipfile.lock
 * (lockfile_pipfile.c), conda explicit files, as conda-lock's "explicit"
 * render and `conda list --explicit` write them (lockfile_conda.c), and
 * conda-lock.yml and pixi.lock (lockfile_yaml.c, through libyaml);
 * beneath them all the pin list, names and URL
 * scrubbing (lockfile_pins.c) and the text (lockfile_text.c).  The parsers
 * never call the dispatch.  collect_lockfile.c decides which files to read
 * and what a failure means; nothing here touches the file system.
 *
 * Errors are EP_E_INPUT with the message "NAME:LINE: problem", NAME being
 * whatever the caller passed (the path as the user wrote it).  Messages
 * quote at most an option's or a package's name, never a value: lockfiles
 * carry index and channel URLs, and those can carry credentials.
 */
#ifndef EP_LOCKFILE_H
#define EP_LOCKFILE_H

#include <stddef.h>

#include "errors.h"
#include "strv.h"

/* Files larger than this are hashed but not parsed (the 2 GB file that
 * happens to be called requirements.txt must not be read into memory). */
#define EP_LOCK_PARSE_MAX	((size_t)64 << 20)

enum ep_lock_format {
	EP_LOCK_OTHER = 0,	/* not a format we read: hashed only */
	EP_LOCK_REQUIREMENTS,	/* requirements*.txt */
	EP_LOCK_POETRY,		/* poetry.lock */
	EP_LOCK_UV,		/* uv.lock */
	EP_LOCK_PIPFILE,	/* Pipfile.lock */
	EP_LOCK_CONDA,		/* conda-*.lock, *.explicit.txt */
	EP_LOCK_PYLOCK,		/* pylock.toml, pylock.*.toml (PEP 751) */
	EP_LOCK_PDM,		/* pdm.lock */
	EP_LOCK_CONDA_LOCK,	/* conda-lock.yml, *.conda-lock.yml */
	EP_LOCK_PIXI,		/* pixi.lock */
};

/* The formats read, as a message names them to a user. */
#define EP_LOCK_FORMATS_KNOWN	"requirements files, poetry.lock, uv.lock, " \
	"pdm.lock, pylock.toml, Pipfile.lock, conda-lock.yml, pixi.lock, " \
	"conda explicit files"


/* One pin: a package name (PEP 503 normalized for the Python formats, as
 * written for conda) and its version.  The version is the exact version
 * for "==V" and "===V" pins, "@ URL" (credentials, query and fragment
 * removed) for direct references, the specifier text without blanks for
 * anything looser (">=1.0,<2"), and "*" for a bare name. */
struct ep_pin {
	char *name;
	char *version;
	/* Where the format says so (NULL elsewhere): what the pin applies
	 * to (conda-lock.yml's "linux-64 main", platform and category;
	 * pixi.lock's "ENV:PLATFORM" pairs joined with ","; Pipfile.lock's
	 * category; pylock.toml's and pdm.lock's marker), where it comes
	 * from (conda-lock.yml's and pixi.lock's package URL, pylock.toml's
	 * index, credentials, query and fragment removed; Pipfile.lock's
	 * index name) and its hash (conda-lock.yml, pixi.lock: "sha256:HEX",
	 * else "md5:HEX"; Pipfile.lock: its first). */
	char *where;
	char *source;
	char *hash;
	/* The category or groups it belongs to, where the format says
	 * (Pipfile.lock's category; poetry.lock's category, or its groups
	 * joined with ",", and " optional" after them for a package only
	 * an extra installs; pdm.lock's groups joined with ","), else
	 * NULL. */
	char *group;
	/* poetry.lock's [package.dependencies] (what installs the packages
	 * it needs, for a lockfile whose packages carry no marker of their
	 * own): one line per dependency, "NAME\tO\tMARKER" (NAME PEP 503
	 * normalized, O "1" when only an extra asks for it, else "0",
	 * MARKER empty when the dependency holds everywhere), lines joined
	 * with "\n"; NULL elsewhere. */
	char *deps;
};

/* A lockfile gives at most this many pins; the rest are counted in
 * dropped (a real lockfile has a few thousand at most: 5 million from a
 * pull request's generated file must not become 5 million facts). */
#define EP_LOCK_PINS_MAX	10000

/* A logical line (continuations joined) longer than this is an error, so
 * that one 60 MiB line cannot be copied around. */
#define EP_LOCK_LINE_MAX	((size_t)1 << 20)

struct ep_pins {
	struct ep_pin *v;
	size_t n, cap;
	size_t dropped;		/* pins past EP_LOCK_PINS_MAX */
	int partial;		/* the file installs more than its pins
				   say (a requirements file's -r, or a
				   line that installs a URL or a path) */
	struct ep_strv warnings;	/* "NAME:LINE: ..." about pins read
					   (a version that is not one), for
					   the caller to pass on */
};

/* Append a pin (both strings are copied), or count it in p->dropped when
 * p already holds EP_LOCK_PINS_MAX. */
void ep_pins_add(struct ep_pins *p, const char *name, const char *version);

/* The same, with where, source and hash (each copied, or NULL). */
void ep_pins_add_at(struct ep_pins *p, const char *name,
    const char *version, const char *where, const char *source,
    const char *hash);

/* The group of the pin added last, if the pins held n0 before it was
 * added (a dropped pin gets none); group copied, NULL does nothing. */
void ep_pins_set_group(struct ep_pins *p, size_t n0, const char *group);

/* The dependencies (struct ep_pin's deps) of the pin added last, as
 * ep_pins_set_group() does. */
void ep_pins_set_deps(struct ep_pins *p, size_t n0, const char *deps);

/* Add a warning to p->warnings. */
void ep_pins_warn(struct ep_pins *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Move every pin of from (its dropped count and warnings too) to the end
 * of out, under out's limit; from is left empty. */
void ep_pins_take(struct ep_pins *out, struct ep_pins *from);

/* Free every pin and warning and reset p to empty; p itself is not
 * freed. */
void ep_pins_clear(struct ep_pins *p);

/* Sort by name and fold pins of the same name (a package pinned twice
 * under different markers) into one whose version is the sorted,
 * de-duplicated versions joined with ","; where, source, hash, group
 * and deps are dropped (a fact holds the versions alone). */
void ep_pins_merge(struct ep_pins *p);

/* The format a file is read as, from its base name alone. */
enum ep_lock_format ep_lock_format_of(const char *path);

/* The format the len bytes at buf are written in, from their content
 * alone (for a file named with --lockfile whose name says nothing): a
 * JSON object is Pipfile.lock; an @EXPLICIT line a conda explicit file;
 * YAML's top-level "package:" conda-lock.yml, "environments:" pixi.lock;
 * TOML's [[packages]] pylock.toml, [[package]] with lock_version pdm.lock,
 * with a root "version =" uv.lock, else poetry.lock.  Only lines that
 * start in the first column are looked at; linear in len.  EP_LOCK_OTHER
 * when none of these: the caller may then try it as a requirements file
 * (which has no mark of its own). */
enum ep_lock_format ep_lock_format_sniff(const char *buf, size_t len);

/* "requirements", "poetry", ...; "other" for EP_LOCK_OTHER. */
const char *ep_lock_format_name(enum ep_lock_format f);

/* Parse buf (len bytes, need not be NUL-terminated; a UTF-8 byte order
 * mark and CRLF line ends are accepted) as format f, appending its pins to
 * *out.  On failure returns -1 with err set (EP_E_INPUT, "name:LINE: ...")
 * and *out holds no pins from this call.  EP_LOCK_OTHER yields no pins. */
int ep_lock_parse(struct ep_pins *out, enum ep_lock_format f,
    const char *buf, size_t len, const char *name, struct ep_err *err);

/* The individual parsers, same contract as ep_lock_parse(). */
int ep_lock_parse_requirements(struct ep_pins *out, const char *buf,
    size_t len, const char *name, struct ep_err *err);
int ep_lock_parse_pipfile(struct ep_pins *out, const char *buf, size_t len,
    const char *name, struct ep_err *err);
int ep_lock_parse_conda(struct ep_pins *out, const char *buf, size_t len,
    const char *name, struct ep_err *err);
/* poetry.lock and uv.lock: the [[package]] tables' name and version.  With
 * uv set, a package without a version whose source is editable, virtual,
 * a directory or a path (a workspace member with a dynamic version) is
 * skipped; otherwise a package without a version is an error. */
int ep_lock_parse_toml(struct ep_pins *out, const char *buf, size_t len,
    const char *name, int uv, struct ep_err *err);
/* pylock.toml (PEP 751, [[packages]]) and pdm.lock ([[package]]): each
 * package's name and version.  A package without a version is an error,
 * unless it comes from a source tree (pylock.toml: vcs, directory or
 * archive; pdm.lock: path, url or git), which gives a warning and no
 * pin. */
int ep_lock_parse_pylock(struct ep_pins *out, const char *buf, size_t len,
    const char *name, struct ep_err *err);
int ep_lock_parse_pdm(struct ep_pins *out, const char *buf, size_t len,
    const char *name, struct ep_err *err);
/* conda-lock.yml (conda-lock's lockfile, version 1) and pixi.lock
 * (versions 4 to 6), YAML read with libyaml: every package of every
 * platform, category and environment, conda packages under their conda
 * name, PyPI ones PEP 503 normalized (a name at two versions on two
 * platforms folds into one pin at both, as ep_pins_merge says). */
int ep_lock_parse_conda_lock(struct ep_pins *out, const char *buf,
    size_t len, const char *name, struct ep_err *err);
int ep_lock_parse_pixi(struct ep_pins *out, const char *buf, size_t len,
    const char *name, struct ep_err *err);

/* lockfile_conda.c: the name and version in a conda package's file name
 * at the end of the n bytes at url (.../NAME-VERSION-BUILD.conda or
 * .tar.bz2, percent-escapes decoded, any #fragment dropped), as new
 * strings; -1 when it is not one. */
int ep_lock_conda_filename(char **pkg, char **version, const char *url,
    size_t n);

/* PEP 503 normalization of the n bytes at s: lowercase, each run of "-",
 * "_" and "." becomes one "-".  A new string. */
char *ep_lock_pep503(const char *s, size_t n);

/* 1 if the n bytes at s are a valid PEP 508 distribution name. */
int ep_lock_valid_name(const char *s, size_t n);

/* The n bytes of url at s without what can hold a secret: anaconda.org
 * "/t/TOKEN" path segments first (a cut cannot then join what is left into
 * a new user:password@), user:password@ (up to the last '@' of the
 * authority; a password with an unencoded '/', '?' or '#' too), then the
 * query and the fragment (a "://" after a '?' or '#' is in them).  Linear
 * in n.  A new string. */
char *ep_lock_url_scrub(const char *s, size_t n);

/* lockfile_text.c.  cp (at most U+10FFFF) as UTF-8 into out; returns
 * how many bytes that is. */

/* The length (1 to 4) of the UTF-8 character at s, n bytes being there;
 * 0 when they are not UTF-8 (a stray byte, an overlong form, a surrogate,
 * past U+10FFFF, cut short). */
size_t ep_lock_utf8_len(const char *s, size_t n);

/* A text that starts with a UTF-16 or UTF-32 byte order mark (either byte
 * order), decoded to UTF-8: *out (NUL-terminated, the caller's to free)
 * and *outlen, returning 1.  0 when there is no such mark; -1 when what
 * follows it is not that encoding (an odd length, a lone surrogate). */
int ep_lock_decode_bom(char **out, size_t *outlen, const char *buf,
    size_t len);

/* buf without a leading UTF-8 byte order mark (len adjusted). */
const char *ep_lock_skip_bom(const char *buf, size_t *len);

/* The physical lines of a buffer (after any byte order mark), each
 * without its "\n" or "\r\n", for the line-oriented formats. */
struct ep_lock_lines {
	const char *p, *end;
	unsigned no;		/* number of the line last returned */
};
void ep_lock_lines_init(struct ep_lock_lines *l, const char *buf,
    size_t len);
/* The next line in *s, *n (not NUL-terminated); 0 at the end. */
int ep_lock_next_line(struct ep_lock_lines *l, const char **s, size_t *n);

#endif
