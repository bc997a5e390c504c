#!/usr/bin/env bats
# hostname.bats: this machine's name, read once (util/hostname.c) by
# every command that records or shows it: meta.host and meta.node of a
# capture, bless's message, check's and probe's reports.  A machine whose
# name is empty (a UTS namespace given none, as root) is "unknown" in
# each of them, never an empty name in one and "unknown" in another.

load setup

# Run a command in a UTS namespace of its own whose host name is "".
nameless() {
	unshare -u python3 -c 'import os, socket, sys
socket.sethostname("")
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

need_namespace() {
	nameless true 2>/dev/null || skip "no UTS namespace can be made here (needs root)"
	[ -z "$(nameless hostname)" ] || skip "the host name could not be emptied"
}

@test "a machine with no name: capture's meta.host and meta.node are both \"unknown\"" {
	need_namespace
	run nameless "$EP" capture -q --no-discover -o m.json
	[ "$status" -eq 0 ]
	[ "$(jq -r .meta.host m.json)" = unknown ]
	[ "$(jq -r .meta.node m.json)" = unknown ]
	validate_schema manifest m.json
}

@test "a machine with no name: bless names it \"unknown\" when the manifest does not name its host" {
	need_namespace
	git init -q --bare -b main s.git
	manifest m.json '{"a": "1"}'
	git config --global user.name T && git config --global user.email t@example.org
	run nameless "$EP" bless --store s.git m.json
	[ "$status" -eq 0 ]
	[ "$(git --git-dir=s.git log -1 --format=%B)" = "bless default from unknown" ]
}

@test "a named machine: capture records the name gethostname gives, and bless uses it" {
	run "$EP" capture -q --no-discover -o m.json
	[ "$status" -eq 0 ]
	[ "$(jq -r .meta.host m.json)" = "$(hostname)" ]
	git init -q --bare -b main s.git
	manifest m2.json '{"a": "1"}'
	git config --global user.name T && git config --global user.email t@example.org
	"$EP" bless --store s.git m2.json
	[ "$(git --git-dir=s.git log -1 --format=%B)" = "bless default from $(hostname)" ]
}
