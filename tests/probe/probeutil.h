/*
 * probeutil.h: what the probe's tests share: where the build put the
 * probe and its test double of libcuda, found from the test binary's own
 * path ($(B)/tests/test_probe_*), and where CUDA's real libraries are on
 * the build machines.  Header-only: each test binary is its own program.
 */
#ifndef EP_PROBEUTIL_H
#define EP_PROBEUTIL_H

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* CUDA 13's libraries as the build machines have them (DESIGN.md). */
#define PU_CUDA_LIB	"/usr/local/cuda/lib64"

/* $(B) from /proc/self/exe into out (PATH_MAX); 0 ok, -1 failure. */
static inline int
pu_build_dir(char *out)
{
	ssize_t n = readlink("/proc/self/exe", out, PATH_MAX - 1);
	char *slash;
	int i;

	if (n <= 0)
		return -1;
	out[n] = '\0';
	for (i = 0; i < 2; i++) {
		if ((slash = strrchr(out, '/')) == NULL)
			return -1;
		*slash = '\0';
	}
	return 0;
}

/* $(B)/rel into out (PATH_MAX). */
static inline int
pu_build_path(char *out, const char *rel)
{
	char dir[PATH_MAX];

	if (pu_build_dir(dir) == -1)
		return -1;
	return snprintf(out, PATH_MAX, "%s/%s", dir, rel) < PATH_MAX ? 0 : -1;
}

#endif
