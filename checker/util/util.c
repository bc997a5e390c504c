/*
 * util.c: the small helpers every module shares, each declared by the
 * header of its concern: allocation that aborts on out-of-memory (after
 * tmux's xmalloc.c; xalloc.h), errors (errors.h), string vectors
 * (strv.h), strings (str.h), the clock (clock.h) and telling that this
 * runs in CI (ci.h).  The file helpers are files.c's.
 */
#include "ci.h"
#include "clock.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

int
ep_err_set(struct ep_err *err, int kind, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	err->kind = kind;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return -1;
}

static void
oom(size_t n)
{
	fprintf(stderr, "envparity: out of memory allocating %zu bytes\n", n);
	abort();
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		oom(n);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		oom(n * size);
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		oom(n);
	return q;
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		oom(SIZE_MAX);
	return xrealloc(p, n * size);
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	va_list ap2;
	int n;
	char *p;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		oom(0);
	p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void
ep_strv_push_owned(struct ep_strv *sv, char *s)
{
	if (sv->n + 2 > sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 8;
		sv->v = xreallocarray(sv->v, sv->cap, sizeof *sv->v);
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void
ep_strv_push(struct ep_strv *sv, const char *s)
{
	ep_strv_push_owned(sv, xstrdup(s));
}

int
ep_strv_contains(const struct ep_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return 1;
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
ep_strv_sort(struct ep_strv *sv)
{
	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof *sv->v, cmp_str);
}

void
ep_strv_clear(struct ep_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

/*
 * The length of the white space character at p (ASCII, or a UTF-8 one
 * Python's str.isspace() takes: U+0085, U+00A0, U+1680, U+2000..U+200A,
 * U+2028, U+2029, U+202F, U+205F, U+3000), 0 if there is none.
 */
size_t
ep_pyspace_len(const unsigned char *p, const unsigned char *e)
{
	size_t n = (size_t)(e - p);

	if (n >= 1 && ((*p >= 0x09 && *p <= 0x0d) || (*p >= 0x1c &&
	    *p <= 0x20)))
		return 1;
	if (n >= 2 && p[0] == 0xc2 && (p[1] == 0x85 || p[1] == 0xa0))
		return 2;
	if (n < 3)
		return 0;
	if ((p[0] == 0xe1 && p[1] == 0x9a && p[2] == 0x80) ||
	    (p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80))
		return 3;
	if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] <= 0x8a || p[2] == 0xa8 ||
	    p[2] == 0xa9 || p[2] == 0xaf))
		return 3;
	if (p[0] == 0xe2 && p[1] == 0x81 && p[2] == 0x9f)
		return 3;
	return 0;
}

char *
ep_pystrip(char *s)
{
	size_t n = strlen(s), i = 0, k, w;

	for (;;) {
		w = 0;
		for (k = 1; k <= 3 && k <= n; k++)
			if (ep_pyspace_len((unsigned char *)s + n - k,
			    (unsigned char *)s + n) == k) {
				w = k;
				break;
			}
		if (w == 0)
			break;
		s[n -= w] = '\0';
	}
	while ((w = ep_pyspace_len((unsigned char *)s + i,
	    (unsigned char *)s + n)) > 0)
		i += w;
	memmove(s, s + i, n - i + 1);
	return s;
}

size_t
ep_utf8_encode(char out[4], uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

size_t
ep_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		c = s[0] & 0x07;
	} else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* Length of the valid UTF-8 sequence at s (of at most n bytes), 0 if none. */
static size_t
utf8_seq(const unsigned char *s, size_t n)
{
	uint32_t cp;

	return ep_utf8_decode(s, n, &cp);
}

char *
ep_utf8_sanitize(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	char *out = xmalloc(len * 3 + 1), *o = out;

	for (size_t i = 0; i < len;) {
		size_t k = u[i] == '\0' ? 0 : utf8_seq(u + i, len - i);

		if (k == 0) {
			memcpy(o, "\xef\xbf\xbd", 3);	/* U+FFFD */
			o += 3;
			i++;
		} else {
			memcpy(o, u + i, k);
			o += k;
			i += k;
		}
	}
	*o = '\0';
	return out;
}

char *
ep_trim(char *s)
{
	size_t n = strlen(s);
	char *b = s;

	while (n > 0 && strchr(" \t\r\n\f\v", s[n - 1]) != NULL)
		s[--n] = '\0';
	while (*b != '\0' && strchr(" \t\r\n\f\v", *b) != NULL)
		b++;
	if (b != s)
		memmove(s, b, strlen(b) + 1);
	return s;
}

int
ep_startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int
ep_endswith(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

uint64_t
ep_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *
ep_ci_var(void)
{
	/* The generic CI=true most services set, and each service's own
	 * for those that do not (or not always): GitHub Actions, GitLab,
	 * Jenkins, Azure Pipelines, Buildkite, CircleCI, Travis,
	 * TeamCity, Bitbucket, Drone, AppVeyor, AWS CodeBuild, Tekton,
	 * Woodpecker. */
	static const char *const vars[] = { "CI", "GITHUB_ACTIONS",
	    "GITLAB_CI", "JENKINS_URL", "JENKINS_HOME", "TF_BUILD",
	    "BUILDKITE", "CIRCLECI", "TRAVIS", "TEAMCITY_VERSION",
	    "BITBUCKET_BUILD_NUMBER", "DRONE", "APPVEYOR",
	    "CODEBUILD_BUILD_ID", "TEKTON_PIPELINE_RUN", "CI_PIPELINE_ID",
	    "WOODPECKER", NULL };
	const char *v;

	for (size_t i = 0; vars[i] != NULL; i++)
		if ((v = getenv(vars[i])) != NULL && v[0] != '\0' &&
		    strcasecmp(v, "false") != 0 && strcmp(v, "0") != 0)
			return vars[i];
	return NULL;
}
