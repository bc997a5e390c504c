/*
 * secret.h: secrets that enter late and leave early.  A credential given
 * in the environment is copied out of it once, at start, and its bytes
 * are overwritten where the kernel keeps showing them: unsetenv(3) only
 * drops a pointer from environ, while /proc/PID/environ reads the block
 * execve(2) wrote, which still holds the value.  A copy in memory is
 * wiped before it is freed.
 */
#ifndef EP_SECRET_H
#define EP_SECRET_H

#include <stddef.h>

/* The value of the environment variable name, moved out of the
 * environment: a new string (wipe it with ep_secret_free), or NULL when
 * the variable is unset.  Every NAME= entry leaves environ (no child can
 * inherit it), and the value's bytes are overwritten with zeros in the
 * block the kernel shows as /proc/self/environ (from /proc/self/stat's
 * env_start and env_end), each entry of that name, whatever environ
 * pointed to.  Call it before another thread starts, and before anything
 * else reads the environment.  Never fails: without /proc the variable
 * still leaves environ, and only the block is left as it was. */
char *ep_secret_env_take(const char *name);

/* Overwrite n bytes at p with zeros, in a way the compiler keeps. */
void ep_secret_wipe(void *p, size_t n);

/* Wipe the string s up to its NUL, then free it; accepts NULL. */
void ep_secret_free(char *s);

#endif
