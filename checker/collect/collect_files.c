/*
 * collect_files.c: file.<PATH>.sha256 and file.<PATH>.line, the files a
 * profile's policy or the command line names as facts (extrafacts.h):
 * /etc/nccl.conf, a site's launcher configuration.  A file is read as
 * data, never run, whole up to EP_FILE_FACT_MAX bytes.  It may be reached
 * through a symbolic link (images link /etc/nccl.conf to where a package
 * put it): the fact is what a job reading the path reads.  What the link
 * leads to must be a regular file on a real file system (util/files.c's
 * ep_open_regular): a FIFO, a device, a directory, /proc's files, or a
 * larger file is an error naming the path (exit 2), never a hang; a path
 * that does not exist is a warning, and its fact is missing, which the
 * policy's rule for it judges (missing fail by default: drift).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collect.h"
#include "extrafacts.h"
#include "files.h"
#include "hash.h"
#include "str.h"
#include "xalloc.h"

/* The bytes of the first line of text (n of them), up to the first
 * newline, without a carriage return before it, valid UTF-8.  New. */
static char *
first_line(const char *text, size_t n)
{
	size_t k = 0;

	while (k < n && text[k] != '\n')
		k++;
	if (k > 0 && text[k - 1] == '\r')
		k--;
	return ep_utf8_sanitize(text, k);
}

/* One file's fact: 0, 1 when it does not exist (said), -1 with err. */
static int
file_fact(struct ep_collect *c, const char *path, int line,
    struct ep_err *err)
{
	struct stat st;
	char *text = NULL, *key, *value, *real;
	char hex[EP_SHA256_HEX];
	size_t n;

	if (stat(path, &st) < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		ep_manifest_warn(c->m, "file %s: no such file, so no "
		    "file.%s.%s fact", path, path, line ? "line" : "sha256");
		return 1;
	}
	/* A first line is refused for a credential's file by its name
	 * (extrafacts.c); the judged machine may link an innocent name to
	 * one, so what the path leads to is judged by its name too. */
	if (line && (real = realpath(path, NULL)) != NULL) {
		struct ep_err e = { 0 };

		if (strcmp(real, path) != 0 &&
		    ep_extra_line_path_check(real, &e) < 0) {
			ep_err_set(err, EP_E_INPUT, "file %s leads to %s", path,
			    e.msg);
			free(real);
			return -1;
		}
		free(real);
	}
	if (ep_read_regular(&text, &n, path, EP_FILE_FACT_MAX, err) < 0)
		return -1;
	key = xasprintf("file.%s.%s", path, line ? "line" : "sha256");
	if (line)
		value = first_line(text, n);
	else {
		ep_hash_buf(hex, text, n);
		value = xstrdup(hex);
	}
	ep_manifest_set(c->m, key, value);
	free(value);
	free(key);
	free(text);
	return 0;
}

int
ep_collect_files(struct ep_collect *c, struct ep_err *err)
{
	for (size_t i = 0; i < c->extra.sha256.n; i++)
		if (file_fact(c, c->extra.sha256.v[i], 0, err) < 0)
			return -1;
	for (size_t i = 0; i < c->extra.line.n; i++)
		if (file_fact(c, c->extra.line.v[i], 1, err) < 0)
			return -1;
	return 0;
}
