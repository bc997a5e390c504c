/*
 * xalloc.h: allocation that aborts on out-of-memory (after tmux's
 * xmalloc.c), so that no caller tests for NULL.  util.c implements it.
 */
#ifndef EP_XALLOC_H
#define EP_XALLOC_H

#include <stdarg.h>
#include <stddef.h>

/* Abort with a message on out-of-memory; never return NULL. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
