/*
 * fleet_md.c: the fleet's sections of the Markdown report.  Readable at
 * 10,000 nodes: nodes are never listed one per row but in hostlist
 * syntax ("n[001-047,049]"), one row per verdict; the matrix has one row
 * per fact that differs, whose cells are the value groups, largest
 * first, each with its node count and nodes.  A cell's node list is cut
 * at NODES_MAX bytes (the JSON report has them whole), and rows obey the
 * report's bounds (GitHub's 1 MiB); the splits the run itself left out
 * (fleetview.h's bounds) are counted under the matrix.
 */
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "md_int.h"
#include "xalloc.h"

#define GROUPS_SHOWN	3	/* value groups shown as cells of a row */
#define NODES_MAX	300	/* bytes of a node list in a cell */

int
md_fleet_shown(const struct ep_result *r)
{
	return ep_fleet_split_kind(r->rule) >= 0;
}

/* A node list for a cell: escaped, cut at NODES_MAX with an ellipsis. */
static void
nodes_cell(FILE *f, const char *nodes)
{
	fputs("<code>", f);
	if (strlen(nodes) <= NODES_MAX)
		md_plain(f, nodes);
	else {
		char *cut = xstrndup(nodes, NODES_MAX);
		char *e = ep_md_escape(cut, 0);

		fputs(e, f);
		fputs("…", f);
		free(e);
		free(cut);
	}
	fputs("</code>", f);
}

static void
by_verdict(struct md *m, const struct ep_fleet_view *v)
{
	const char **list = xcalloc(v->nnodes ? v->nnodes : 1, sizeof *list);
	char *hl;
	size_t n;

	fprintf(m->f, "**Nodes:** %zu reported, %zu missing, %zu unreadable, "
	    "%zu with odd facts, over %zu distinct facts", v->nreported,
	    v->nmissing, v->nerror, v->nodd, v->nkeys);
	if (v->expect != NULL) {
		fputs("; expected ", m->f);
		md_code(m->f, v->expect);
	}
	fputs("\n\n| Verdict | Nodes | Which |\n| --- | ---: | --- |\n", m->f);
	for (int k = 0; k < EP_NVERDICTS; k++) {
		n = 0;
		for (size_t i = 0; i < v->nnodes; i++)
			if (ep_fleet_node_verdict(&v->nodes[i]) == k)
				list[n++] = v->nodes[i].name;
		if (n == 0)
			continue;
		hl = ep_hostlist_compress(list, n);
		fprintf(m->f, "| %s | %zu | ", ep_fleet_verdict_name(k), n);
		nodes_cell(m->f, hl);
		fputs(" |\n", m->f);
		free(hl);
	}
	fputc('\n', m->f);
	free(list);
}

/* The nodes whose changes a built-in rule does not judge (os.kernel), in
 * one line as check's summary says its own: never silent, never a
 * table of them (the JSON report lists them per node). */
static void
ignored_line(struct md *m, const struct ep_fleet_view *v)
{
	const struct ep_fleet_node *first = NULL;

	for (size_t i = 0; i < v->nnodes && first == NULL; i++)
		if (v->nodes[i].ignored.nign > 0)
			first = &v->nodes[i];
	if (first == NULL)
		return;
	fprintf(m->f, "**Ignored changes:** %zu %s changes a built-in rule "
	    "does not judge (", v->nignored, v->nignored == 1 ? "node has" :
	    "nodes have");
	md_code(m->f, first->ignored.ign[0].key);
	fputs(" on ", m->f);
	md_code(m->f, first->name);
	fprintf(m->f, "%s): the JSON report lists them per node.\n\n",
	    v->nignored > 1 || first->ignored.nign > 1 ? ", ..." : "");
}

void
md_fleet(struct md *m, const struct ep_fleet_view *v)
{
	size_t shown = 0;

	by_verdict(m, v);
	ignored_line(m, v);
	if (v->nsplits == 0) {
		fputs("Every node reported the same value for every fact "
		    "compared.\n\n", m->f);
		return;
	}
	fprintf(m->f, "### Facts that differ across nodes: %zu\n\n",
	    v->nsplits + v->nsplits_omitted);
	fputs("| Fact | Status | Majority | Other values | Likely cause |\n"
	    "| --- | --- | --- | --- | --- |\n", m->f);
	for (size_t i = 0; i < v->nsplits && md_row_room(m, shown); i++) {
		const struct ep_fleet_split *s = &v->splits[i];
		struct row w;
		FILE *f = md_row_open(&w);

		fputs("| ", f);
		md_code(f, s->key);
		if (s->domain != NULL) {
			fputs("<br>in domain ", f);
			md_plain(f, s->domain);
		}
		fprintf(f, " | %s %s | ", ep_status_name(s->status),
		    ep_fleet_split_label(s->kind));
		for (size_t g = 0; g < s->ngroups && g < GROUPS_SHOWN; g++) {
			if (g == 1)
				fputs(" | ", f);
			else if (g > 1)
				fputs("<br>", f);
			md_code(f, s->groups[g].value);
			fprintf(f, " ×%zu ", s->groups[g].count);
			nodes_cell(f, s->groups[g].nodes);
		}
		if (s->ngroups + s->groups_omitted > GROUPS_SHOWN)
			fprintf(f, "<br>and %zu more values",
			    s->ngroups + s->groups_omitted - GROUPS_SHOWN);
		fputs(" | ", f);
		for (size_t c = 0; c < s->ncauses; c++) {
			if (c > 0)
				fputs("<br>", f);
			md_code(f, s->causes[c]);
		}
		fputs(" |\n", f);
		if (!md_row_put(m, &w))
			break;
		shown++;
	}
	md_more(m->f, shown, v->nsplits);
	if (v->nsplits_omitted > 0)
		fprintf(m->f, "\n%zu more facts that differ across nodes are "
		    "not listed (a run lists at most %d, at most %d that set "
		    "apart the same nodes): see `fleet.splits_omitted`.\n",
		    v->nsplits_omitted, EP_FLEET_SPLITS_MAX,
		    EP_FLEET_SPLITS_SAME);
	fputc('\n', m->f);
}
