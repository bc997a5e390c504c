/* collect_cudastack.c: placeholder until the collector lands. */
#include "collect.h"

int
ep_collect_cudastack(struct ep_collect *c, struct ep_err *err)
{
	(void)err;
	ep_manifest_unavailable(c->m, "cudastack", "collector not built yet");
	return 0;
}
