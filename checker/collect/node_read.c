/*
 * node_read.c: how the node collector reads the machine (node.h): sysfs
 * and procfs attributes under a root prefix, a small file at a time,
 * only regular files and never blocking, so that a fixture tree (or a
 * FIFO planted in one) cannot hang a capture.  Sysfs attributes are
 * regular files of at most a page (Documentation/filesystems/sysfs.rst:
 * "Attributes should be ASCII text files, preferably with only one value
 * per file"; a show() method fills one PAGE_SIZE buffer).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "node.h"
#include "str.h"
#include "xalloc.h"

#define ATTR_MAX 4095

char *
ep_node_path(const struct ep_node *n, const char *path)
{
	return xasprintf("%s%s", n->root, path);
}

int
ep_node_read(char **out, const char *full)
{
	char buf[ATTR_MAX + 2];
	struct stat st;
	ssize_t r;
	size_t len = 0;
	int fd, saved;

	*out = NULL;
	if ((fd = open(full, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		saved = errno;
	else
		saved = S_ISREG(st.st_mode) ? 0 : EINVAL;
	if (saved != 0) {
		close(fd);
		errno = saved;
		return -1;
	}
	while (len <= ATTR_MAX) {
		r = read(fd, buf + len, ATTR_MAX + 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			/* netdev speed of a link that is down: EINVAL. */
			saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (len > ATTR_MAX) {
		errno = EFBIG;	/* not an attribute: none is cut short */
		return -1;
	}
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' ' ||
	    buf[len - 1] == '\t'))
		len--;
	buf[len] = '\0';
	if (memchr(buf, '\0', len) != NULL) {
		errno = EINVAL;
		return -1;
	}
	*out = xstrndup(buf, len);
	return 0;
}

int
ep_node_attr(char **out, const struct ep_node *n, const char *dir,
    const char *name)
{
	char *full = xasprintf("%s%s/%s", n->root, dir, name);
	int rc = ep_node_read(out, full);

	free(full);
	return rc;
}

int
ep_node_name_ok(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len > 64)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!ep_ascii_alnum((unsigned char)name[i]) &&
		    strchr("_-:", name[i]) == NULL)
			return 0;
	return 1;
}
