/*
 * secret.c: credentials out of the environment and wiped from memory
 * (secret.h).
 *
 * The environment block execve(2) copied onto the stack is what
 * /proc/PID/environ shows for the whole life of the process, whatever
 * setenv and unsetenv do to environ; so the value is overwritten there,
 * in place, and the entry dropped from environ.  A process that can read
 * ours (root; or the same user, were we dumpable) then finds the name
 * followed by zeros.
 */
#include "secret.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procstat.h"
#include "xalloc.h"

extern char **environ;

void
ep_secret_wipe(void *p, size_t n)
{
	if (p != NULL && n > 0)
		explicit_bzero(p, n);
}

void
ep_secret_free(char *s)
{
	if (s == NULL)
		return;
	ep_secret_wipe(s, strlen(s));
	free(s);
}

/* Where the environment block lies: fields 50 and 51 of /proc/self/stat
 * (env_start, env_end; proc(5)).  0 when they cannot be read. */
static int
env_block(uintptr_t *start, uintptr_t *end)
{
	char buf[4096];
	const char *s;
	unsigned long long a, b;

	if ((s = ep_proc_stat(buf, sizeof buf, 0)) == NULL)
		return 0;
	for (int k = 0; k < 48 && s != NULL; k++)
		s = strchr(s + 1, ' ');
	if (s == NULL || sscanf(s, " %llu %llu", &a, &b) != 2 || a == 0 ||
	    b <= a)
		return 0;
	*start = (uintptr_t)a;
	*end = (uintptr_t)b;
	return 1;
}

/* Zero the value of every NAME= entry of the block [p, end). */
static void
wipe_block(char *p, char *end, const char *name, size_t nlen)
{
	while (p < end) {
		size_t n = strnlen(p, (size_t)(end - p));

		if (n > nlen && memcmp(p, name, nlen) == 0 && p[nlen] == '=')
			ep_secret_wipe(p + nlen + 1, n - nlen - 1);
		p += n + 1;
	}
}

char *
ep_secret_env_take(const char *name)
{
	size_t nlen = strlen(name);
	const char *v = getenv(name);
	char *copy = v != NULL ? xstrdup(v) : NULL;
	uintptr_t start, end;

	if (env_block(&start, &end))
		wipe_block((char *)start, (char *)end, name, nlen);
	unsetenv(name);
	return copy;
}
