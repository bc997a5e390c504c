/*
 * driver.c: the NVIDIA driver's version for the output lines (gpu.h),
 * read from the kernel module's /proc/driver/nvidia/version rather than
 * through NVML: loading libnvidia-ml, nvmlInit_v2 (which talks to the
 * kernel driver, though it allocates no device state) and nvmlShutdown,
 * which each GPU process of `envparity probe --runs N` paid for one
 * string.  The kernel module's version is the one
 * nvmlSystemGetDriverVersion reports (the user-space libraries must match
 * it, or NVML and cuInit refuse; a cuda-compat libcuda is newer, but its
 * CUDA version comes from cuDriverGetVersion, not from here).  The file's
 * first line, in the proprietary and the open flavour of the module:
 *
 *	NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 30 10:21:29 UTC 2025
 *	NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build  (dvs-builder@U16-I3-B03-4-3)  Sun Jul 27 06:54:38 UTC 2025
 *
 * Whatever else the file says (missing, unreadable, another shape) sends
 * us to NVML, as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu.h"

#define LINE_PREFIX	"NVRM version:"
/* "580.159.04" is 10; anything much longer is not a version. */
#define VERSION_MAX	32

static int
is_space(unsigned char c)
{
	return c == ' ' || c == '\t';
}

/* digits, then one or more ".digits": "580.95.05", "390.157". */
static int
is_version(const unsigned char *t, size_t len)
{
	size_t i, dots = 0;

	if (len == 0 || len > VERSION_MAX)
		return 0;
	for (i = 0; i < len; i++) {
		if (t[i] >= '0' && t[i] <= '9')
			continue;
		if (t[i] != '.' || i == 0 || i == len - 1 || t[i - 1] == '.')
			return 0;
		dots++;
	}
	return dots > 0;
}

int
probe_driver_parse(char *out, size_t n, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text, *tok;
	size_t end, i, tlen;
	int module = 0;

	if (n > 0)
		out[0] = '\0';
	/* The first line, which must end: a file cut short before its
	 * newline may have cut the version too. */
	for (end = 0; end < len && s[end] != '\n'; end++)
		if ((s[end] < 0x20 && s[end] != '\t') || s[end] >= 0x7f)
			return -1;	/* control, NUL or not ASCII */
	if (end == len)
		return -1;
	if (end < sizeof LINE_PREFIX - 1 ||
	    memcmp(s, LINE_PREFIX, sizeof LINE_PREFIX - 1) != 0)
		return -1;
	for (i = sizeof LINE_PREFIX - 1; i < end; i += tlen) {
		while (i < end && is_space(s[i]))
			i++;
		tok = s + i;
		for (tlen = 0; i + tlen < end && !is_space(s[i + tlen]); tlen++)
			;
		if (tlen == 0)
			break;
		if (!module) {
			module = tlen == 6 && memcmp(tok, "Module", 6) == 0;
			continue;
		}
		/* After "Module" ("for x86_64" in the open flavour): the
		 * first token that is a version, ended by a blank (the end
		 * of the line is not enough: the line was complete, but a
		 * version last on it would not be NVIDIA's format). */
		if (!is_version(tok, tlen))
			continue;
		if (i + tlen == end || tlen >= n)
			return -1;
		memcpy(out, tok, tlen);
		out[tlen] = '\0';
		return 0;
	}
	return -1;
}

int
probe_driver_read(char *out, size_t n, const char *path)
{
	char buf[512];
	size_t len = 0;
	struct stat st;
	ssize_t r;
	int fd;

	if (n > 0)
		out[0] = '\0';
	/* Never a FIFO or a device, never waiting: only what a regular
	 * (/proc) file holds.  The first line is well under buf. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	while (len < sizeof buf) {
		r = read(fd, buf + len, sizeof buf - len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	return probe_driver_parse(out, n, buf, len);
}

int
probe_driver_version(char *out, size_t n, const char *procpath,
    const char *nvml)
{
	if (nvml == NULL && procpath != NULL &&
	    probe_driver_read(out, n, procpath) == 0)
		return 0;
	return probe_nvml_driver(out, n, nvml);
}
