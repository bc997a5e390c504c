/*
 * clock.h: the monotonic clock durations are measured with.  util.c
 * implements it.
 */
#ifndef EP_CLOCK_H
#define EP_CLOCK_H

#include <stdint.h>

/* Monotonic clock in nanoseconds. */
uint64_t ep_now_ns(void);

#endif
