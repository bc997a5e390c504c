/*
 * hostname.h: this machine's name, as every caller reads it: what
 * gethostname(2) gives, always terminated, and one fallback when there
 * is none.  Shown as any value is, cleaned where it is printed
 * (clean.h): cleaning here would clean it twice.
 */
#ifndef EP_HOSTNAME_H
#define EP_HOSTNAME_H

#include <stddef.h>

/* What buf holds when the machine has no name. */
#define EP_HOSTNAME_UNKNOWN	"unknown"

/* This machine's name in buf (size > 0 bytes; a longer name is cut,
 * never left unterminated).  0 when it is the machine's name; -1 when
 * gethostname fails or gives an empty name, buf then holding
 * EP_HOSTNAME_UNKNOWN (cut to size), for a caller that wants its own. */
int ep_hostname(char *buf, size_t size);

#endif
