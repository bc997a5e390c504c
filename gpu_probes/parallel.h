/*
 * parallel.h: one function on N threads (parallel.c).
 */
#ifndef EP_PROBE_PARALLEL_H
#define EP_PROBE_PARALLEL_H

/* Call fn(arg, t, nthreads) for t in [0, nthreads), each on its own
 * thread; t = 0 runs in the caller, as does any t whose thread cannot be
 * created.  Returns when all are done. */
void probe_parallel(int nthreads, void (*fn)(void *, int, int), void *arg);

#endif
