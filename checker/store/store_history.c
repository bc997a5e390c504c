/*
 * store_history.c: telling that a remote store's branch was rewritten.
 *
 * A golden is reviewed as a commit on top of the ones before it; a branch
 * that no longer descends from the commit the cache saw last (a force
 * push, a deleted and recreated branch) replaced history nobody here has
 * seen replaced.  The fetch that notices leaves a marker in the cache,
 * refs/envparity/rewritten/<branch>, naming the commit it saw last (the
 * first such commit, while the marker stands); every read of the store
 * (check, diff) then says so, until the branch comes back to descend
 * from that commit, or someone acts on it: a bless onto the branch (a
 * person took the new history as the base of a golden), or a waive or
 * unwaive committed on it, clears it, and the command says on standard
 * error what it took (ep_store_history_taken).  Only
 * the policy as it stood at the commit seen last may ignore or waive
 * store.history (store_read.c reads it from the cache, which keeps that
 * commit while the marker names it; storeopt.c decides): the rewritten
 * branch's own policy could say anything.  Reads of any profile see it;
 * none of them uses it up.
 */
#include "store_int.h"
#include "errors.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

static char *
marker_name(const struct ep_store *s)
{
	return xasprintf("refs/envparity/rewritten/%s", s->branch);
}

int
ep_store_history_note(struct ep_store *s, const git_oid *seen,
    const git_oid *now, struct ep_err *err)
{
	char *name;
	int e;

	if (now != NULL) {
		if (git_oid_equal(seen, now))
			return 0;
		if ((e = git_graph_descendant_of(s->repo, now, seen)) < 0)
			return ep_store_git_err(err, EP_E_IO, s, "cannot "
			    "compare the branch with the cache");
		if (e == 1)
			return 0;
	}
	name = marker_name(s);
	/* Not forced: an earlier marker names what was seen before. */
	e = git_reference_create(NULL, s->repo, name, seen, 0,
	    "envparity: branch rewritten");
	free(name);
	if (e < 0 && e != GIT_EEXISTS)
		return ep_store_git_err(err, EP_E_IO, s, "cannot update the "
		    "cache");
	git_error_clear();
	return 0;
}

int
ep_store_history_take(char seen_out[41], struct ep_store *s,
    const git_oid *tip, struct ep_err *err)
{
	git_reference *ref = NULL;
	const git_oid *seen;
	char *name;
	int e, rc = -1;

	seen_out[0] = '\0';
	if (s->kind == EP_STORE_LOCAL)
		return 0;
	name = marker_name(s);
	if ((e = git_reference_lookup(&ref, s->repo, name)) == GIT_ENOTFOUND) {
		git_error_clear();
		rc = 0;
		goto done;
	}
	if (e < 0 || (seen = git_reference_target(ref)) == NULL) {
		ep_store_git_err(err, EP_E_IO, s, name);
		goto done;
	}
	if (!git_oid_equal(seen, tip) &&
	    (e = git_graph_descendant_of(s->repo, tip, seen)) != 1) {
		if (e < 0) {
			ep_store_git_err(err, EP_E_IO, s, "cannot compare the "
			    "branch with the cache");
			goto done;
		}
		git_oid_tostr(seen_out, 41, seen);
		rc = 0;	/* it stands until acted on */
		goto done;
	}
	/* The branch descends from what was seen again: nothing to say. */
	if (git_reference_delete(ref) < 0) {
		ep_store_git_err(err, EP_E_IO, s, "cannot update the cache");
		goto done;
	}
	rc = 0;
done:
	git_reference_free(ref);
	free(name);
	return rc;
}

void
ep_store_history_clear(struct ep_store *s, const git_oid *head)
{
	git_reference *ref = NULL;
	const git_oid *seen;
	char *name;

	s->took_seen[0] = s->took_head[0] = '\0';
	if (s->kind == EP_STORE_LOCAL)
		return;
	name = marker_name(s);
	if (git_reference_lookup(&ref, s->repo, name) == 0) {
		/* Said, never silent: the rewrite is gone once it is taken
		 * (a head that descends from what was seen took nothing). */
		if ((seen = git_reference_target(ref)) != NULL &&
		    (head == NULL || (!git_oid_equal(seen, head) &&
		    git_graph_descendant_of(s->repo, head, seen) != 1))) {
			git_oid_tostr(s->took_seen, sizeof s->took_seen, seen);
			if (head != NULL)
				git_oid_tostr(s->took_head, sizeof s->took_head,
				    head);
		}
		(void)git_reference_delete(ref);
	}
	git_reference_free(ref);
	git_error_clear();
	free(name);
}

int
ep_store_history_taken(char seen_out[41], char head_out[41],
    const struct ep_store *s)
{
	memcpy(seen_out, s->took_seen, sizeof s->took_seen);
	memcpy(head_out, s->took_head, sizeof s->took_head);
	return s->took_seen[0] != '\0';
}
