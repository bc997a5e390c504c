/*
 * hostlist_int.h: what hostlist.c (expansion) and hostlist_compress.c
 * share, and nothing else includes.
 */
#ifndef EP_HOSTLIST_INT_H
#define EP_HOSTLIST_INT_H

#include <stddef.h>
#include <stdint.h>

/* The decimal digits of v (1 for 0). */
size_t ep_hostlist_ndigits(uint64_t v);

#endif
