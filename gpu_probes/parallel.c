/*
 * parallel.c: running one function on N threads, beneath the cpu
 * backend's workloads (cpu.c) and its gemm (gemm.c).
 */
#include <pthread.h>
#include <stdlib.h>

#include "parallel.h"
#include "xalloc.h"

struct par_arg {
	void (*fn)(void *, int, int);
	void *arg;
	int t, nt;
};

static void *
par_main(void *p)
{
	struct par_arg *pa = p;

	pa->fn(pa->arg, pa->t, pa->nt);
	return NULL;
}

void
probe_parallel(int nthreads, void (*fn)(void *, int, int), void *arg)
{
	struct par_arg *pa;
	pthread_t *tid;
	int *started, t;

	if (nthreads <= 1) {
		fn(arg, 0, 1);
		return;
	}
	pa = xcalloc(nthreads, sizeof *pa);
	tid = xcalloc(nthreads, sizeof *tid);
	started = xcalloc(nthreads, sizeof *started);
	for (t = 0; t < nthreads; t++)
		pa[t] = (struct par_arg){ fn, arg, t, nthreads };
	for (t = 1; t < nthreads; t++)
		started[t] = pthread_create(&tid[t], NULL, par_main,
		    &pa[t]) == 0;
	fn(arg, 0, nthreads);
	for (t = 1; t < nthreads; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
		else
			fn(arg, t, nthreads);
	}
	free(started);
	free(tid);
	free(pa);
}
