/*
 * resolve.c: the inputs and outputs a command declares it needs
 * (resolve.h), resolved once for check, fleet and the others instead
 * of in each of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clean.h"
#include "cmd.h"
#include "resolve.h"
#include "xalloc.h"

int
ep_resolve_outputs(struct ep_resolved *r, const struct ep_need *n,
    struct ep_err *err)
{
	if ((n->what & EP_NEED_ATTEST) &&
	    ep_attestopt_prepare(n->aopt, err) < 0)
		return -1;
	if (!(n->what & EP_NEED_OUTPUTS))
		return 0;
	if (ep_reports_check(n->ropt, err) < 0 ||
	    ep_cmd_outputs_check(&r->stdout_taken, n->ropt, n->outs,
	    n->outwhat, n->nouts, err) < 0)
		return -1;
	return 0;
}

int
ep_resolve_store(struct ep_resolved *r, const struct ep_need *n,
    struct ep_err *err)
{
	if (ep_storeopt_resolve(&r->so, &r->profile, n->sopt, err) < 0)
		return -1;
	if ((n->what & EP_NEED_NAMED) &&
	    ep_storeopt_require_named(&r->so, err) < 0)
		return -1;
	return 0;
}

int
ep_resolve_read(struct ep_resolved *r, const struct ep_need *n,
    struct ep_err *err)
{
	char *hint;

	if (ep_store_open(&r->store, &r->so, err) < 0 ||
	    ep_store_read(&r->mtext, &r->pol, &r->info, r->store, r->profile,
	    err) < 0)
		return -1;
	/* Done with the network: the token is wiped before the judged
	 * environment's code runs. */
	ep_store_cred_forget();
	r->name = xasprintf("%s#%s:%s", r->info.store, r->info.ref,
	    r->profile);
	r->where = xasprintf("%s#%s", r->info.store, r->info.ref);
	if (ep_store_policy(&r->policy, &r->pol, r->where, err) < 0)
		return -1;
	if (!(n->what & EP_NEED_GOLDEN))
		return 0;
	if (r->mtext == NULL && ep_store_no_branch(&r->info, err) < 0)
		return -1;
	if (r->mtext == NULL) {
		/* Whole, however long the store's URL: the message is the
		 * fix. */
		hint = ep_storeopt_bless_hint(&r->so, r->profile);
		r->msg = xasprintf("no golden manifest for profile %s in %s; "
		    "bless %s with: %s%s", r->profile, r->name, n->bless_what,
		    hint, n->bless_after != NULL ? n->bless_after : "");
		free(hint);
		return ep_err_set(err, EP_E_INPUT, "%s", r->msg);
	}
	r->pname = xasprintf("%s/manifest.json", r->name);
	return ep_manifest_parse(&r->golden, r->mtext, strlen(r->mtext),
	    r->pname, err);
}

void
ep_resolved_attest_in(struct ep_attest_in *ain, struct ep_resolved *r)
{
	ain->profile = r->profile;
	ain->store = r->info.store;
	ain->ref = r->info.ref;
	ain->commit = r->info.commit[0] ? r->info.commit : NULL;
	ain->golden_text = r->mtext;
	free(r->gname);
	free(r->pfile);
	ain->golden_name = r->gname = xasprintf("%s/manifest.json",
	    r->profile);
	ain->policy_text = ep_store_policies_own(&r->pol);
	ain->policy_name = r->pfile = xasprintf("%s/policy.json", r->profile);
	ain->nmore_policies = 0;
	for (size_t i = 0; i < r->pol.n; i++)
		if (r->pol.v[i].scope != EP_SCOPE_PROFILE) {
			r->more_texts[ain->nmore_policies] = r->pol.v[i].text;
			r->more_names[ain->nmore_policies++] = r->pol.v[i].path;
		}
	ain->more_policy_texts = r->more_texts;
	ain->more_policy_names = r->more_names;
}

void
ep_resolved_report_ctx(struct ep_report_ctx *ctx,
    const struct ep_resolved *r)
{
	ctx->golden_name = r->name;
	ctx->golden_store = r->info.store;
	ctx->golden_ref = r->info.ref;
	ctx->golden_commit = r->info.commit[0] ? r->info.commit : NULL;
	ctx->golden_profile = r->profile;
}

int
ep_resolve_fail(const struct ep_cmd *self, const struct ep_resolved *r,
    const struct ep_err *err)
{
	if (r->msg == NULL)
		return ep_cmd_fail(self, err);
	ep_say(stderr, "envparity %s: %s", self->name, r->msg);
	return err->kind;
}

void
ep_resolved_clear(struct ep_resolved *r)
{
	free(r->msg);
	free(r->gname);
	free(r->pfile);
	free(r->mtext);
	ep_store_policies_clear(&r->pol);
	free(r->name);
	free(r->where);
	free(r->pname);
	ep_manifest_free(r->golden);
	ep_policy_free(r->policy);
	ep_store_info_clear(&r->info);
	ep_store_free(r->store);
	memset(r, 0, sizeof *r);
}
