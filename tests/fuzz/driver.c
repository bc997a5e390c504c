/*
 * driver.c: a main() for a fuzz harness built without libFuzzer, so that
 * the normal build (gcc, plain and under the sanitizers) replays saved
 * inputs through the same harness code:
 *
 *	build/fuzz/fuzz_TARGET FILE|DIR...
 *
 * runs LLVMFuzzerTestOneInput once on each file (a directory: on each
 * file in it, in name order), naming each on standard error first, and
 * prints "TARGET: N inputs".  A broken promise aborts, as it does under
 * libFuzzer.  Exit 2 when a file cannot be read.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "errors.h"
#include "files.h"
#include "strv.h"
#include "xalloc.h"

/* The harnesses that need one define it; the rest get this. */
__attribute__((weak)) int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

static int
run_file(const char *path, size_t *count)
{
	struct ep_err err = { 0 };
	char *buf;
	size_t len;

	/* Inputs are kept small; 16 MiB is far beyond any of them. */
	if (ep_read_file(&buf, &len, path, (size_t)16 << 20, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	fprintf(stderr, "input %s\n", path);
	LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
	free(buf);
	(*count)++;
	return 0;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
run_dir(const char *dir, size_t *count)
{
	struct ep_strv names = { 0 };
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if ((d = opendir(dir)) == NULL) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			ep_strv_push_owned(&names, xasprintf("%s/%s", dir,
			    de->d_name));
	closedir(d);
	if (names.n > 1)
		qsort(names.v, names.n, sizeof *names.v, by_name);
	for (size_t i = 0; i < names.n && rc == 0; i++)
		rc = run_file(names.v[i], count);
	ep_strv_clear(&names);
	return rc;
}

int
main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/');
	struct stat st;
	size_t count = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			return 2;
		}
		if ((S_ISDIR(st.st_mode) ? run_dir(argv[i], &count) :
		    run_file(argv[i], &count)) < 0)
			return 2;
	}
	printf("%s: %zu inputs\n", name != NULL ? name + 1 : argv[0], count);
	return 0;
}
