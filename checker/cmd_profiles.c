/*
 * cmd_profiles.c: `envparity profiles [--store S] [--ref R] [--json]`: the
 * profiles a store holds (every folder with a manifest.json, nested ones
 * as "train/h100"), one per line, so that a user, a script or a shell's
 * completion of --profile can see what there is to check against.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "clean.h"
#include "cmd.h"
#include "opt.h"
#include "store.h"
#include "storeopt.h"
#include "errors.h"
#include "strv.h"
#include "xalloc.h"

#define EP_PROFILES_SCHEMA "envparity/profiles@1"

static int cmd_profiles_exec(const struct ep_cmd *, int, char **);

/* What the command line says. */
struct profiles_opts {
	struct ep_storeopt sopt;
	int json;
};

#define PO struct profiles_opts
static const struct ep_opt profiles_opts[] = {
	EP_OPT_FLAG("json", 0, PO, json,
	    "print them as JSON: store, ref, commit, profiles,\n"
	    "skipped (share/envparity/schemas/profiles.schema.json)"),
	EP_OPT_HELP,
	EP_OPT_GROUP(ep_og_store_where, PO, sopt, NULL),
	EP_OPT_END,
};
#undef PO

const struct ep_cmd ep_cmd_profiles = {
	.name = "profiles",
	.summary = "list the profiles a store holds",
	.usage =
"usage: envparity profiles [--store PATH|URL] [--ref REF] [--json]\n"
"\n"
"List the store's profiles, one per line, sorted: every folder of the\n"
"store's branch that holds a manifest.json, nested ones by their path\n"
"(train/h100).  A manifest.json that is no profile's (at the root, in a\n"
"folder whose name no profile may have, deeper than 8 folders) is\n"
"skipped with a line on standard error.  A remote store is fetched first,\n"
"as for check.\n"
"\n",
	.opts = profiles_opts,
	.footer =
"Exit codes: 0 listed (none, in an empty store: a line on standard error\n"
"says so), 2 usage or a --ref the store lacks, 3 the store could not be\n"
"read.\n",
	.exec = cmd_profiles_exec,
};

static json_t *
strv_json(const struct ep_strv *sv)
{
	json_t *a = json_array();
	char *t;

	for (size_t i = 0; i < sv->n; i++) {
		/* Names are checked ASCII; a skipped path may be anything. */
		t = ep_text_clean(sv->v[i], 0);
		json_array_append_new(a, json_string(t));
		free(t);
	}
	return a;
}

static int
print_json(const struct ep_strv *names, const struct ep_strv *skipped,
    const struct ep_store_info *info, struct ep_err *err)
{
	json_t *root = json_object();
	char *store = ep_text_clean(info->store, 0);
	char *ref = ep_text_clean(info->ref, 0);

	json_object_set_new(root, "schema", json_string(EP_PROFILES_SCHEMA));
	json_object_set_new(root, "store", json_string(store));
	json_object_set_new(root, "ref", json_string(ref));
	json_object_set_new(root, "commit", info->commit[0] ?
	    json_string(info->commit) : json_null());
	json_object_set_new(root, "profiles", strv_json(names));
	json_object_set_new(root, "skipped", strv_json(skipped));
	free(store);
	free(ref);
	return ep_cmd_print_json(root, err);
}

static int
cmd_profiles_exec(const struct ep_cmd *self, int argc, char **argv)
{
	struct profiles_opts o = { 0 };
	struct ep_cmd_args args;
	struct ep_store_opts so;
	struct ep_store_info info = { 0 };
	struct ep_strv names = { 0 }, skipped = { 0 };
	struct ep_store *s = NULL;
	struct ep_err err = { 0 };
	const char *unused;
	char *hint = NULL;
	int rc = EP_EXIT_OK;

	if (ep_opt_parse(&args, &rc, self, &o, argc, argv) < 0)
		return rc;
	/* No profile is named: ENVPARITY_PROFILE plays no part. */
	o.sopt.profile = "default";
	if (ep_storeopt_resolve(&so, &unused, &o.sopt, &err) < 0 ||
	    ep_store_open(&s, &so, &err) < 0 ||
	    ep_store_profiles(&names, &skipped, s, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	ep_store_describe(&info, s);
	if (ep_store_no_branch(&info, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	for (size_t i = 0; i < skipped.n; i++)
		ep_say(stderr, "envparity profiles: skipped %s", skipped.v[i]);
	if (names.n == 0) {
		hint = ep_storeopt_bless_hint(&so, "default");
		ep_say(stderr, "envparity profiles: no profiles in %s %s; "
		    "bless one with: %s", info.store, info.ref, hint);
	}
	if (o.json) {
		if (print_json(&names, &skipped, &info, &err) < 0) {
			rc = ep_cmd_fail(self, &err);
			goto done;
		}
	} else
		for (size_t i = 0; i < names.n; i++)
			ep_say(stdout, "%s", names.v[i]);
	if (fflush(stdout) == EOF) {
		ep_err_set(&err, EP_E_IO, "standard output: write failed");
		rc = ep_cmd_fail(self, &err);
	}
done:
	ep_strv_clear(&names);
	ep_strv_clear(&skipped);
	ep_store_info_clear(&info);
	ep_store_free(s);
	free(hint);
	return rc;
}
