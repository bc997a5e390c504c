/*
 * store_tree.c: the commit that puts one file into a store's tree (or
 * takes it out), every other file kept: the trees on the way to it
 * rewritten, a folder left empty dropped (git keeps none), a file where
 * a folder is expected, or a folder where a file is, refused.  Only
 * objects are written; store_bless.c moves the branch.
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "xalloc.h"

/*
 * The tree id (in *out) that is tree base (NULL: none) with the file at
 * path set to blob (NULL: removed), writing the trees on the way; *empty
 * 1 when that leaves the tree with nothing in it (git keeps no empty
 * folder: the caller drops it).  full is the whole path, for messages.
 */
static int
tree_put(git_oid *out, int *empty, git_repository *w, const git_oid *base,
    const char *path, const char *full, const git_oid *blob,
    struct ep_store *s, struct ep_err *err)
{
	git_tree *bt = NULL;
	git_treebuilder *tb = NULL;
	const git_tree_entry *e = NULL;
	const char *slash = strchr(path, '/');
	char *name;
	git_oid sub;
	int subempty, rc = -1;

	name = slash != NULL ? xstrndup(path, (size_t)(slash - path)) :
	    xstrdup(path);
	if (base != NULL && git_tree_lookup(&bt, w, base) < 0) {
		ep_store_git_err(err, EP_E_IO, s, "cannot read a tree");
		goto done;
	}
	if (git_treebuilder_new(&tb, w, bt) < 0)
		goto fail;
	if (bt != NULL)
		e = git_tree_entry_byname(bt, name);
	if (slash == NULL) {
		if (e != NULL && git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
			ep_err_set(err, EP_E_INPUT, "store %s: '%s' is a "
			    "folder there, not a file", s->display, full);
			goto done;
		}
		if (blob != NULL) {
			if (git_treebuilder_insert(NULL, tb, name, blob,
			    GIT_FILEMODE_BLOB) < 0)
				goto fail;
		} else if (e != NULL && git_treebuilder_remove(tb, name) < 0)
			goto fail;
	} else {
		if (e != NULL && git_tree_entry_type(e) != GIT_OBJECT_TREE) {
			ep_err_set(err, EP_E_INPUT, "store %s: '%.*s' is a "
			    "file there, not a profile directory", s->display,
			    (int)(slash - full), full);
			goto done;
		}
		if (tree_put(&sub, &subempty, w, e != NULL ?
		    git_tree_entry_id(e) : NULL, slash + 1, full, blob, s,
		    err) < 0)
			goto done;
		if (!subempty) {
			if (git_treebuilder_insert(NULL, tb, name, &sub,
			    GIT_FILEMODE_TREE) < 0)
				goto fail;
		} else if (e != NULL && git_treebuilder_remove(tb, name) < 0)
			goto fail;
	}
	*empty = git_treebuilder_entrycount(tb) == 0;
	if (git_treebuilder_write(out, tb) < 0)
		goto fail;
	rc = 0;
	goto done;
fail:
	ep_store_git_err(err, EP_E_IO, s, "cannot write a tree");
done:
	git_treebuilder_free(tb);
	git_tree_free(bt);
	free(name);
	return rc;
}

int
ep_store_make_commit(git_oid *out, git_repository *w, const git_oid *base,
    const char *path, const git_oid *blob, const char *message,
    const git_signature *sig, struct ep_store *s, struct ep_err *err)
{
	git_commit *parent = NULL;
	git_tree *tree = NULL;
	const git_commit *parents[1];
	git_oid treeid;
	int empty, rc = -1;

	if (base != NULL && git_commit_lookup(&parent, w, base) < 0) {
		ep_store_git_err(err, EP_E_IO, s, "cannot read the head");
		goto done;
	}
	if (tree_put(&treeid, &empty, w, parent != NULL ?
	    git_commit_tree_id(parent) : NULL, path, path, blob, s, err) < 0)
		goto done;
	if (git_tree_lookup(&tree, w, &treeid) < 0) {
		ep_store_git_err(err, EP_E_IO, s, "cannot write a tree");
		goto done;
	}
	parents[0] = parent;
	if (git_commit_create(out, w, NULL, sig, sig, NULL, message, tree,
	    parent != NULL ? 1 : 0, parents) < 0) {
		ep_store_git_err(err, EP_E_IO, s, "cannot write the commit");
		goto done;
	}
	rc = 0;
done:
	git_tree_free(tree);
	git_commit_free(parent);
	return rc;
}
