/*
 * gpudrv.h: the GPU half of the CUDA stack collector (gpudrv.c): find
 * NVML and queue the child that asks it, then turn its answer into gpu.*
 * facts or meta.unavailable.gpu.
 */
#ifndef EP_GPUDRV_H
#define EP_GPUDRV_H

#include "collect.h"
#include "dynload.h"
#include "libsearch.h"

/* Look for libnvidia-ml.so.1 where dlopen would (drv is filled with those
 * places; s, the CUDA libraries' search, only to name a stub found beside
 * them).  Returns 1 with *job set up to load it (and *nvml, *cuda, owned
 * by the caller, holding the paths the job borrows), or 0 after setting
 * meta.unavailable.gpu to why the GPU cannot be looked at. */
int ep_gpu_start(struct ep_collect *c, const struct ep_libsearch *s,
    struct ep_libsearch *drv, struct ep_libfound *nvml,
    struct ep_libfound *cuda, struct ep_dynload_job *job);

/* Set gpu.* facts, warnings and meta.unavailable.gpu from the finished
 * job. */
void ep_gpu_finish(struct ep_collect *c, const struct ep_dynload_job *j);

#endif
