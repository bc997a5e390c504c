/*
 * md_int.h: what the Markdown writers share (markdown.c for check and
 * diff, fleet_md.c for the fleet): the bounded report, rows rendered
 * before they are written, escaped cells.
 */
#ifndef EP_MD_INT_H
#define EP_MD_INT_H

#include <stdio.h>

#include "report.h"

#define CELL_MAX	512	/* bytes of a value shown in a cell */
/* Bytes kept, out of a limit, for what follows the rows: each table's
 * heading and "… and N more", the </details>, the footer. */
#define TAIL_MAX	2048

struct md {
	FILE *f;		/* the report */
	size_t left;		/* bytes the rows may still take (SIZE_MAX:
				   no limit) */
	size_t max_rows;	/* rows per table; 0: no limit */
};

/* A row is rendered to its own stream first. */
struct row {
	FILE *f;
	char *buf;
	size_t len;
};

FILE *md_memstream(char **buf, size_t *len);	/* aborts on ENOMEM */
void md_memstream_close(FILE *f, char **buf);

/* Open a row's stream; md_row_put writes it if it fits (1), else ends
 * every table's rows (0). */
FILE *md_row_open(struct row *w);
int md_row_put(struct md *m, struct row *w);

/* Whether another row of a table that has shown `shown` may be tried. */
int md_row_room(const struct md *m, size_t shown);

/* s escaped for a cell (ep_md_escape, cut to CELL_MAX). */
void md_plain(FILE *f, const char *s);

/* A value: <code>…</code>, or what its absence means. */
void md_code(FILE *f, const char *s);

/* PARITY, DRIFT or ERROR. */
const char *md_verdict(const struct ep_report_ctx *ctx,
    const size_t c[EP_NSTATUS]);

/* The heading, the golden, the current side and the counts. */
void md_header(FILE *f, const struct ep_report_ctx *ctx,
    const size_t c[EP_NSTATUS]);

/* "… and N more" when shown < n. */
void md_more(FILE *f, size_t shown, size_t n);

/* The fleet's sections (fleet_md.c), after the counts: the nodes by
 * verdict in hostlist syntax, then the matrix of the facts that differ,
 * a row per fact and a cell per value group (its value, how many nodes,
 * which), with the likely cause beside a probe hash that splits. */
void md_fleet(struct md *m, const struct ep_fleet_view *v);

/* A result that fleet_md.c's matrix shows already: a split fact, or the
 * odd value of one node (rules fleet:majority, fleet:probe, fleet:tie,
 * fleet:domain). */
int md_fleet_shown(const struct ep_result *r);

#endif
