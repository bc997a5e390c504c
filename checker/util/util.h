/*
 * util.h: allocation that aborts on out-of-memory, the error type every
 * fallible function fills, string vectors, and small file helpers.
 *
 * Conventions: functions that can fail return int (0 ok, negative on
 * failure) and fill a caller-supplied struct ep_err with one message that
 * names the input and the problem.  Only main.c and the cmd_*.c exec
 * functions print errors and choose exit codes.
 */
#ifndef EP_UTIL_H
#define EP_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ASCII character classes, whatever the locale: formats that other
 * projects own (PEP 440, TOML, image references) define theirs in ASCII,
 * and <ctype.h> answers by the locale. */
static inline int
ep_ascii_digit(int c)
{
	return c >= '0' && c <= '9';
}

static inline int
ep_ascii_alnum(int c)
{
	return ep_ascii_digit(c) || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z');
}

/* Exit codes: the command-line contract (DESIGN.md). */
enum ep_exit {
	EP_EXIT_OK = 0,		/* parity (waived findings included) */
	EP_EXIT_DRIFT = 1,	/* drift or a failed check */
	EP_EXIT_USAGE = 2,	/* usage or malformed input */
	EP_EXIT_NORUN = 3,	/* could not run: I/O error, store unreachable */
};

/* What an error means for the caller; maps one to one onto exit codes. */
enum ep_errkind {
	EP_E_DENIED = EP_EXIT_DRIFT,	/* well-formed input that does not
					   prove what was asked (verify: no
					   signature holds, a verdict or a
					   subject that does not match) */
	EP_E_INPUT = EP_EXIT_USAGE,	/* bad input the user gave us */
	EP_E_IO = EP_EXIT_NORUN,	/* the environment failed us */
};

struct ep_err {
	int kind;		/* enum ep_errkind; 0 while unset */
	char msg[1024];
};

/* Fill err (when err is not NULL) and return -1, so callers can write
 * "return ep_err_set(err, EP_E_INPUT, "%s: ...", path);". */
int ep_err_set(struct ep_err *err, int kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Abort with a message on out-of-memory; never return NULL. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* A growable NULL-terminated vector of owned strings. */
struct ep_strv {
	char **v;		/* v[n] == NULL */
	size_t n, cap;
};
void ep_strv_push(struct ep_strv *sv, const char *s);	/* copies s */
void ep_strv_push_owned(struct ep_strv *sv, char *s);	/* takes s */
int ep_strv_contains(const struct ep_strv *sv, const char *s);
void ep_strv_sort(struct ep_strv *sv);
void ep_strv_clear(struct ep_strv *sv);

/* Read a whole regular file of at most max bytes into a NUL-terminated
 * buffer (*out, *len) owned by the caller.  A larger file, a directory or
 * an unreadable path is an EP_E_INPUT error naming the path. */
int ep_read_file(char **out, size_t *len, const char *path, size_t max,
    struct ep_err *err);

/* The same from an open descriptor; path names it in messages. */
int ep_read_fd(char **out, size_t *len, int fd, const char *path,
    size_t max, struct ep_err *err);

struct stat;

/* Open path for reading only if it is a regular file on a real file
 * system: never blocking (O_NONBLOCK stays set), never a controlling
 * terminal, and not a FIFO, device, directory, or a file of /proc, /sys
 * and the like, whose "regular" files are not files (reading /proc/kmsg
 * blocks, and as root consumes the kernel's log).  Returns the
 * descriptor with *st filled, or -1 with err (EP_E_INPUT) naming path. */
int ep_open_regular(const char *path, struct stat *st, struct ep_err *err);

/* "a directory", "a FIFO", "a character device", ... for messages. */
const char *ep_mode_kind(mode_t m);

/* ep_read_file for a file found rather than named, such as what a
 * checkout, a site-packages or a cache holds: only a regular file on a
 * real file system (ep_open_regular), so a FIFO or /proc/kmsg planted
 * there cannot hang the run. */
int ep_read_regular(char **out, size_t *len, const char *path, size_t max,
    struct ep_err *err);

/* The pseudo file system fd is on ("proc", "sysfs", ...), or NULL. */
const char *ep_fd_pseudo_fs(int fd);

/* The identity of the file at path, as text ("dev:ino:size:mtime:ctime",
 * nanoseconds included), for cached values that depend on more files than
 * the one they are keyed on; "-" when the file cannot be stat'd.  A new
 * string. */
char *ep_file_identity(const char *path);

/* The directory part of path as a new string: "." when it has no '/',
 * "/" for a file in the root. */
char *ep_path_dir(const char *path);

/* mkdir -p with mode 0755 (or mode, less the umask, for each directory
 * it makes); EP_E_IO on failure. */
int ep_mkdirs(const char *path, struct ep_err *err);
int ep_mkdirs_mode(const char *path, mode_t mode, struct ep_err *err);

/* The name of the environment variable that says this runs in CI ("CI",
 * "GITHUB_ACTIONS", ...; set, not empty, not "false" or "0"), or NULL.
 * Static; only the name, never the value (JENKINS_URL may hold
 * credentials).  The list is docs/ci.md's. */
const char *ep_ci_var(void);

/* /proc/PID/stat (pid 0: this process's) read into buf (size bytes),
 * from the last ')' on: the command name before it is in parentheses and
 * may hold anything, so field k + 2 opens at the k-th space after the
 * returned pointer (the state is field 3, the parent field 4).  NULL when
 * the process is gone or the file cannot be read. */
const char *ep_proc_stat(char *buf, size_t size, pid_t pid);

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

/* Copy of s with invalid UTF-8 replaced by U+FFFD, so that any byte
 * string read from the machine can become a JSON string. */
char *ep_utf8_sanitize(const char *s, size_t len);

/* The code point of the well-formed UTF-8 sequence at s (at most n > 0
 * bytes) in *cp, and its length; 0 if it is not well formed (overlong,
 * surrogate, beyond U+10FFFF, cut short). */
size_t ep_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* The length of the white space character at p (before e) as Python's
 * str.isspace() and a regular expression's \s see it: ASCII, or U+0085,
 * U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000
 * in UTF-8; 0 if there is none.  PEP 440 versions are read with such
 * blanks around them stripped ("  v1.0\n" is 1.0), and PEP 508's
 * specifiers allow them after the operator, as packaging reads both. */
size_t ep_pyspace_len(const unsigned char *p, const unsigned char *e);

/* Those blanks off both ends of s, in place (Python's str.strip());
 * returns s. */
char *ep_pystrip(char *s);

/* Trim ASCII white space at both ends, in place; returns s. */
char *ep_trim(char *s);

/* 1 if s starts with prefix / ends with suffix. */
int ep_startswith(const char *s, const char *prefix);
int ep_endswith(const char *s, const char *suffix);

/* Monotonic clock in nanoseconds. */
uint64_t ep_now_ns(void);

#endif
