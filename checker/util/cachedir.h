/*
 * cachedir.h: where envparity keeps what it caches, and whether that
 * folder can be trusted.  files.c implements it.
 */
#ifndef EP_CACHEDIR_H
#define EP_CACHEDIR_H

/* $XDG_CACHE_HOME/envparity or $HOME/.cache/envparity (not created).
 * Returns a new string, or NULL when neither variable is usable. */
char *ep_cache_dir(void);

/* The same, for answers envparity trusts (file hashes, library versions,
 * image documents): made 0700 when missing, and returned only when it is
 * a directory owned by this user that nobody else can write, in a parent
 * owned by this user or root that others cannot write (unless sticky).
 * Otherwise NULL with *why saying what is wrong (a new string, for a
 * warning): whoever can write the cache could make a trojaned library
 * report the golden SHA-256.  NULL with *why NULL when there is no cache
 * to keep: neither variable is usable, or this runs in CI (ep_ci_var)
 * and XDG_CACHE_HOME names no cache, since the default
 * ~/.cache/envparity is the runner user's, where an earlier job may have
 * planted an answer; the caller then keeps answers for this run alone,
 * or none. */
char *ep_cache_dir_trusted(char **why);

#endif
