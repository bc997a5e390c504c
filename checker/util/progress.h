/*
 * progress.h: one line of progress on standard error for long work
 * (hashing files, resolving image references, the probe's runs, reading
 * a fleet's node manifests), rewritten in place with
 * \r at most 10 times a second and wiped when the work ends, so that
 * nothing of it is left on the screen or in a log.
 *
 * Shown when standard error is a terminal and not in CI (CI=true,
 * GITHUB_ACTIONS, GITLAB_CI and the other services' variables), unless
 * --progress (always) or --no-progress (never) says otherwise.  The line
 * holds a label from envparity's own code and numbers, never text from
 * the input (a path, a reference), so it needs no cleaning.
 */
#ifndef EP_PROGRESS_H
#define EP_PROGRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

enum { EP_PROGRESS_AUTO, EP_PROGRESS_ALWAYS, EP_PROGRESS_NEVER };

/* Set the mode (EP_PROGRESS_*: --progress, --no-progress); the choice
 * holds for the whole process. */
void ep_progress_mode(int mode);


/* One meter: "LABEL: DONE/TOTAL UNIT[, BYTES/BYTES]".  Fill it with
 * ep_progress_start; ep_progress_add may be called from many threads. */
struct ep_progress {
	const char *label;	/* from envparity's code, never input */
	const char *unit;	/* "files", "references resolved" */
	size_t total;
	unsigned long long bytes_total;	/* 0: no bytes shown */
	atomic_size_t done;
	atomic_ullong bytes;
	int on;
	uint64_t last_ns;	/* when the line was last drawn */
	size_t shown;		/* characters on the line now */
	pthread_mutex_t mu;
};

/* Start a meter (drawn first after 100 ms: quick work shows nothing). */
void ep_progress_start(struct ep_progress *p, const char *label,
    const char *unit, size_t total, unsigned long long bytes_total);

/* Count n more items and bytes more bytes done; redraw when 100 ms have
 * passed since the last drawing (a thread that finds another drawing
 * does not wait). */
void ep_progress_add(struct ep_progress *p, size_t n,
    unsigned long long bytes);

/* Set the items done (for a loop that counts them itself), then as
 * ep_progress_add. */
void ep_progress_set(struct ep_progress *p, size_t done);

/* Wipe the line (spaces over it, then \r) and stop the meter. */
void ep_progress_end(struct ep_progress *p);

#endif
