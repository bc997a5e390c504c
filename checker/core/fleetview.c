/*
 * fleetview.c: freeing what fleetview.h describes.
 */
#include <stdlib.h>

#include "fleetview.h"

void
ep_fleet_view_free(struct ep_fleet_view *v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; i < v->nnodes; i++) {
		free(v->nodes[i].name);
		free(v->nodes[i].file);
		free(v->nodes[i].error);
	}
	free(v->nodes);
	for (size_t i = 0; i < v->nsplits; i++) {
		struct ep_fleet_split *s = &v->splits[i];

		free(s->key);
		free(s->domain);
		for (size_t j = 0; j < s->ngroups; j++) {
			free(s->groups[j].value);
			free(s->groups[j].nodes);
		}
		free(s->groups);
		for (size_t j = 0; j < s->ncauses; j++)
			free(s->causes[j]);
		free(s->causes);
	}
	free(v->splits);
	free(v->expect);
	free(v);
}
