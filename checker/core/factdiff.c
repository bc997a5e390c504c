/*
 * factdiff.c: the keys added, removed and changed between two manifests'
 * facts.
 */
#include "factdiff.h"

void
ep_factdiff_compute(struct ep_factdiff *d, const struct ep_manifest *old,
    const struct ep_manifest *new_)
{
	json_t *of = old != NULL ? old->facts : NULL;
	json_t *nf = new_ != NULL ? new_->facts : NULL;
	const char *k;
	json_t *v, *w;

	json_object_foreach(nf, k, v) {
		if ((w = json_object_get(of, k)) == NULL)
			ep_strv_push(&d->added, k);
		else if (!json_equal(v, w))
			ep_strv_push(&d->changed, k);
	}
	json_object_foreach(of, k, v)
		if (json_object_get(nf, k) == NULL)
			ep_strv_push(&d->removed, k);
	ep_strv_sort(&d->added);
	ep_strv_sort(&d->removed);
	ep_strv_sort(&d->changed);
}

void
ep_factdiff_clear(struct ep_factdiff *d)
{
	ep_strv_clear(&d->added);
	ep_strv_clear(&d->removed);
	ep_strv_clear(&d->changed);
}
