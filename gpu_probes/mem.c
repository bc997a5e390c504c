/*
 * mem.c: buffers for workload data, in transparent huge pages where the
 * kernel offers them.  On virtual machines that hand freed memory back to
 * the host (free page reporting, as on the Firecracker hosts we test on),
 * every first touch of a 4 KiB page costs microseconds: a 1024^3 gemm's
 * 12 MiB took longer to fault in than to compute.  With 2 MiB pages that
 * cost all but goes, and elsewhere nothing changes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "probe.h"

#define HUGE_SZ	((size_t)2 << 20)

static size_t
round_up(size_t len)
{
	return (len + HUGE_SZ - 1) / HUGE_SZ * HUGE_SZ;
}

void *
probe_buf_alloc(size_t len)
{
	size_t n = round_up(len ? len : 1), head, tail;
	char *raw, *p;

	raw = mmap(NULL, n + HUGE_SZ, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED) {
		fprintf(stderr, "envparity-probe: out of memory (%zu bytes)\n",
		    len);
		abort();
	}
	/* Keep the 2 MiB-aligned middle; give back the ends. */
	p = (char *)(((uintptr_t)raw + HUGE_SZ - 1) &
	    ~(uintptr_t)(HUGE_SZ - 1));
	head = (size_t)(p - raw);
	tail = HUGE_SZ - head;
	if (head > 0)
		munmap(raw, head);
	if (tail > 0)
		munmap(p + n, tail);
	/* Advice only: a kernel without THP still gives plain pages. */
	madvise(p, n, MADV_HUGEPAGE);
	return p;
}

void
probe_buf_free(void *p, size_t len)
{
	if (p != NULL)
		munmap(p, round_up(len ? len : 1));
}
