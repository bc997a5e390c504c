/* collect_python.c: placeholder until the collector lands. */
#include "collect.h"

int
ep_collect_python(struct ep_collect *c, struct ep_err *err)
{
	(void)err;
	ep_manifest_unavailable(c->m, "python", "collector not built yet");
	return 0;
}
