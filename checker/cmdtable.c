/*
 * cmdtable.c: the table of the subcommands (after tmux's cmd_table[]),
 * apart from cmd.c, which the commands call: main.c and the tests of the
 * option tables walk it, nothing below it does.
 */
#include <stddef.h>

#include "cmd.h"

/* The subcommands, in the order `envparity --help` lists them (after
 * tmux's cmd_table[]). */
const struct ep_cmd *const ep_cmd_table[] = {
	&ep_cmd_capture,
	&ep_cmd_check,
	&ep_cmd_bless,
	&ep_cmd_diff,
	&ep_cmd_log,
	&ep_cmd_profiles,
	&ep_cmd_waive,
	&ep_cmd_unwaive,
	&ep_cmd_policy,
	&ep_cmd_fleet,
	&ep_cmd_probe,
	&ep_cmd_digest,
	&ep_cmd_attest,
	&ep_cmd_verify,
	&ep_cmd_version,
	NULL,
};
