/*
 * cmdexamples.c: the examples that end each command's --help, one table
 * for every command, so that they are read, checked and kept together:
 * tests/cli/manpage.bats checks that each names only options of its
 * command's table (`envparity __options VERB`) and that the man page
 * shows each one in the command's subsection.
 */
#include <stddef.h>
#include <string.h>

#include "cmd.h"

static const struct {
	const char *name;
	const char *text;
} examples[] = {
	{ "capture",
"  envparity capture -o this.json\n"
"  envparity capture --python .venv/bin/python --lockfile requirements.txt\n" },
	{ "check",
"  envparity check --junit report.xml --markdown summary.md\n"
"  envparity check --store https://git.example.com/golden.git --profile train/h100\n" },
	{ "bless",
"  envparity bless -m \"reference host\"\n"
"  envparity bless --dry-run --profile train/h100\n" },
	{ "diff",
"  envparity diff golden.json this.json\n"
"  envparity diff golden.json this.json --json diff.json\n" },
	{ "log",
"  envparity log -v --max 5 --profile train/h100\n"
"  envparity log --json --profile train/h100\n" },
	{ "profiles",
"  envparity profiles\n"
"  envparity profiles --store https://git.example.com/golden.git --json\n" },
	{ "waive",
"  envparity waive lib.cudnn.version --reason \"cuDNN 9.11 validated\" \\\n"
"      --owner ml-platform --expires \"$(date -u -d '+30 days' +%F)\"\n" },
	{ "unwaive",
"  envparity unwaive lib.cudnn.version --profile train/h100\n" },
	{ "policy",
"  envparity policy --profile train/h100\n"
"  envparity policy --profile train/h100 --json\n" },
	{ "fleet",
"  envparity fleet /shared/audit --expect 'n[001-050]' --junit fleet.xml\n" },
	{ "probe",
"  envparity probe --runs 5 --backend all\n" },
	{ "digest",
"  envparity digest ubuntu:24.04 --platform linux/arm64\n" },
	{ "attest",
"  envparity attest statement.json --sign-key-fd 3 -o attestation.json 3<key.pem\n" },
	{ "verify",
"  envparity verify attestation.json --key pub.pem --max-age 24h\n" },
	{ "version",
"  envparity version\n" },
};

const char *
ep_cmd_examples(const struct ep_cmd *cmd)
{
	for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++)
		if (strcmp(examples[i].name, cmd->name) == 0)
			return examples[i].text;
	return NULL;
}
