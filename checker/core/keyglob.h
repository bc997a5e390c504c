/*
 * keyglob.h: the globs policies match fact keys with (keyglob.c):
 * matching, telling a malformed one, and what a usable one can match,
 * which policy_guard.c judges rules and waivers by.  (Not <glob.h>,
 * whose name every folder's -I would hide.)
 */
#ifndef EP_GLOB_H
#define EP_GLOB_H

/* 1 if key matches the glob pattern, else 0.  fnmatch-style, but '*'
 * matches any run of bytes, dots included ("lib.*.sha256" matches
 * "lib.cudnn_ops.sha256"); '?' matches one byte; [abc], [a-z], [!a-z]
 * (or [^a-z]) a class; '\\' quotes the next byte.  A malformed pattern
 * matches nothing (ep_policy_parse rejects one). */
int ep_glob_match(const char *pattern, const char *key);

/* NULL if pattern is a usable glob, else what is wrong with it ("is
 * empty", "has a '[' class that is not closed", ...). */
const char *ep_glob_problem(const char *pattern);

/* What a usable glob can match, its classes ([...]) taken as any one
 * byte, as '?' is (a class narrows one byte among a few; it names
 * nothing).  ep_glob_names: 1 when the glob holds a literal byte other
 * than '.', that is, it picks keys by something besides their shape
 * ("*.sha256" does; "*", "?*", "*.*", "[!r]*" and "*[!]]" do not).
 * ep_glob_covers: 1 when it matches every key that starts with prefix
 * and is longer ("" for every key; "python." for every key of the area
 * python).
 * Decided from the glob's tokens in time quadratic in its length. */
int ep_glob_names(const char *pattern);
int ep_glob_covers(const char *pattern, const char *prefix);

#endif
