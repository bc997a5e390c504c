/*
 * hostname.c: this machine's name (hostname.h), the one reading that
 * capture (meta.host, meta.node), check, probe, fleet, bless and the
 * store's commit author share.
 */
#include <string.h>
#include <unistd.h>

#include "hostname.h"

int
ep_hostname(char *buf, size_t size)
{
	if (size == 0)
		return -1;
	/* POSIX leaves a cut name unterminated. */
	buf[size - 1] = '\0';
	if (size > 1 && gethostname(buf, size - 1) == 0 && buf[0] != '\0')
		return 0;
	strncpy(buf, EP_HOSTNAME_UNKNOWN, size - 1);
	buf[size - 1] = '\0';
	return -1;
}
