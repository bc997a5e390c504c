/*
 * progress.c: the progress line (progress.h).  One write(2) per drawing,
 * "\r" then the line padded with spaces over a longer one before it, so
 * that a line never mixes with another's bytes even from several
 * threads.
 */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ci.h"
#include "clock.h"

#define PROGRESS_EVERY_NS	100000000ull	/* at most 10 a second */
#define PROGRESS_LINE_MAX	160

static int progress_mode = EP_PROGRESS_AUTO;

void
ep_progress_mode(int mode)
{
	progress_mode = mode;
}

static int
progress_wanted(void)
{
	switch (progress_mode) {
	case EP_PROGRESS_ALWAYS:
		return 1;
	case EP_PROGRESS_NEVER:
		return 0;
	}
	return isatty(STDERR_FILENO) && ep_ci_var() == NULL;
}

void
ep_progress_start(struct ep_progress *p, const char *label,
    const char *unit, size_t total, unsigned long long bytes_total)
{
	p->label = label;
	p->unit = unit;
	p->total = total;
	p->bytes_total = bytes_total;
	atomic_init(&p->done, 0);
	atomic_init(&p->bytes, 0);
	p->on = progress_wanted();
	p->last_ns = ep_now_ns();
	p->shown = 0;
	pthread_mutex_init(&p->mu, NULL);
}

/* "1.5 GiB" for n bytes. */
static void
human(char *buf, size_t len, unsigned long long n)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB",
	    "TiB" };
	double v = (double)n;
	size_t u = 0;

	while (v >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", n);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
}

/* With p->mu held. */
static void
draw(struct ep_progress *p)
{
	char line[PROGRESS_LINE_MAX + 2], done[32], total[32];
	size_t d = atomic_load(&p->done), len;
	int n;

	if (d > p->total)
		d = p->total;
	n = snprintf(line, sizeof line, "\r%s: %zu/%zu %s", p->label, d,
	    p->total, p->unit);
	if (n > 0 && p->bytes_total > 0 && (size_t)n < sizeof line) {
		human(done, sizeof done, atomic_load(&p->bytes));
		human(total, sizeof total, p->bytes_total);
		n += snprintf(line + n, sizeof line - (size_t)n, ", %s of %s",
		    done, total);
	}
	if (n < 0)
		return;
	len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
	/* Spaces over what a longer line before left. */
	while (len - 1 < p->shown && len < sizeof line - 1)
		line[len++] = ' ';
	(void)!write(STDERR_FILENO, line, len);
	p->shown = len - 1;
}

static void
maybe_draw(struct ep_progress *p)
{
	uint64_t now;

	if (!p->on || pthread_mutex_trylock(&p->mu) != 0)
		return;
	now = ep_now_ns();
	if (p->on && now - p->last_ns >= PROGRESS_EVERY_NS) {
		p->last_ns = now;
		draw(p);
	}
	pthread_mutex_unlock(&p->mu);
}

void
ep_progress_add(struct ep_progress *p, size_t n, unsigned long long bytes)
{
	if (n > 0)
		atomic_fetch_add(&p->done, n);
	if (bytes > 0)
		atomic_fetch_add(&p->bytes, bytes);
	maybe_draw(p);
}

void
ep_progress_set(struct ep_progress *p, size_t done)
{
	atomic_store(&p->done, done);
	maybe_draw(p);
}

void
ep_progress_end(struct ep_progress *p)
{
	char line[PROGRESS_LINE_MAX + 2];
	size_t len = 0;

	pthread_mutex_lock(&p->mu);
	if (p->on && p->shown > 0) {
		line[len++] = '\r';
		while (len <= p->shown && len < sizeof line - 1)
			line[len++] = ' ';
		line[len++] = '\r';
		(void)!write(STDERR_FILENO, line, len);
	}
	p->on = 0;
	p->shown = 0;
	pthread_mutex_unlock(&p->mu);
	pthread_mutex_destroy(&p->mu);
}
