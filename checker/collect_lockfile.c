/* collect_lockfile.c: placeholder until the collector lands. */
#include "collect.h"

int
ep_collect_lockfiles(struct ep_collect *c, struct ep_err *err)
{
	(void)err;
	ep_manifest_unavailable(c->m, "lockfile", "collector not built yet");
	return 0;
}
