#!/usr/bin/env bats
# profiles.bats: `envparity profiles` (a store's profiles, nested ones too,
# as text and JSON, what is skipped said), `log --json` (validated by ajv
# against manifests/log.schema.json), and the bash, fish and zsh
# completion of --profile from a local store, never from a remote one.

load setup

bats_require_minimum_version 1.5.0

setup_file() {
	export ENVPARITY_AUTHOR="Ada Lovelace <ada@example.org>"
	unset ENVPARITY_STORE ENVPARITY_PROFILE
}

# Put each TEXT at its PATH in the bare store, in one commit made by hand.
put() { # store path text [path text]...
	local store=$1
	shift
	rm -rf wt
	git clone -q "$store" wt 2>/dev/null
	while [ $# -ge 2 ]; do
		mkdir -p "wt/$(dirname "$1")"
		printf '%s\n' "$2" >"wt/$1"
		git -C wt add "$1"
		shift 2
	done
	git -C wt -c user.name=t -c user.email=t@x commit -qm put
	git -C wt push -q origin HEAD:main
	rm -rf wt
}

mk() { # file facts-json
	manifest "$1" "$2" '{"host": "h"}'
}

@test "profiles: nested profiles sorted, as text and JSON; what is no profile skipped and said; exit codes" {
	git init -q --bare -b main s.git
	mk a.json '{"os.id": "debian"}'
	"$EP" bless -q a.json --store s.git --profile train/h100
	"$EP" bless -q a.json --store s.git --profile gpu
	"$EP" bless -q a.json --store s.git --profile train/a100
	put s.git manifest.json '{}' .hidden/manifest.json '{}' \
	    a/b/c/d/e/f/g/h/i/manifest.json '{}' \
	    train/policy.json '{"schema": "envparity/policy@1"}'
	run --separate-stderr "$EP" profiles --store s.git
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'gpu\ntrain/a100\ntrain/h100')" ]
	[[ "$stderr" == *"skipped .hidden/manifest.json: profile '.hidden': "* ]]
	[[ "$stderr" == *"skipped a/b/c/d/e/f/g/h/i/: deeper than 8 folders"* ]]
	[[ "$stderr" == *"skipped manifest.json: at the store's root, no profile's"* ]]
	run --separate-stderr "$EP" profiles --store "file://$T/s.git" --json
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >p.json
	validate_schema profiles p.json
	jq -e --arg c "$(git --git-dir=s.git rev-parse main)" '.profiles ==
	    ["gpu", "train/a100", "train/h100"] and .ref == "main" and
	    .commit == $c and (.skipped | length) == 3' p.json
	# ENVPARITY_PROFILE plays no part, even a bad one.
	ENVPARITY_PROFILE=../x run "$EP" profiles --store s.git
	[ "$status" -eq 0 ]
	# A --ref typo is named; --profile is no option of profiles.
	run "$EP" profiles --store s.git --ref mian
	[ "$status" -eq 2 ]
	[[ "$output" == *"--ref mian: no such branch (its branches: main)"* ]]
	run "$EP" profiles --store s.git --profile gpu
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown option '--profile'"* ]]
	run "$EP" profiles --store nowhere.git
	[ "$status" -eq 3 ]
	# No store yet: none, said on standard error, nothing created.
	run --separate-stderr "$EP" profiles --json
	[ "$status" -eq 0 ]
	jq -e '.profiles == [] and .commit == null' <<<"$output"
	[[ "$stderr" == *"no profiles in .envparity/store main; bless one with: envparity bless"* ]]
	[ ! -e .envparity ]
}

@test "log --json: each commit's counts, keys with -v, policy files, valid against log.schema.json" {
	git init -q --bare -b main s.git
	mk a.json '{"os.id": "debian", "gone": "1", "same": "s"}'
	mk b.json '{"os.id": "ubuntu", "new": "2", "same": "s"}'
	"$EP" bless -q a.json --store s.git --profile train/h100 -m "first golden"
	put s.git policy.json '{"schema": "envparity/policy@1", "rules": [{"key": "meta.*", "rule": "ignore"}]}'
	"$EP" bless -q b.json --store s.git --profile train/h100 -m $'second\n\nbody'
	run --separate-stderr "$EP" log --store s.git --profile train/h100 --json -v
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >log.json
	validate_schema log log.json
	jq -e '.profile == "train/h100" and .store == "s.git" and (.commits | length) == 3' log.json
	jq -e '.commits[0] | .subject == "second" and .author == "Ada Lovelace <ada@example.org>"
	    and .manifest.added == 1 and .manifest.removed == 1 and .manifest.changed == 1
	    and .manifest.keys.changed["os.id"] == {"old": "debian", "new": "ubuntu"}
	    and .manifest.keys.added.new == "2" and .manifest.keys.removed.gone == "1"
	    and .policies == []' log.json
	jq -e '.commits[1] | .manifest == null and .policies == [{"path": "policy.json", "scope": "shared"}]' log.json
	jq -e '.commits[2] | .subject == "first golden" and .manifest.added == 3 and .manifest.removed == 0' log.json
	jq -e '.commits[0].commit == .commit' log.json
	# Without -v no keys; --max holds.
	run "$EP" log --store s.git --profile train/h100 --json --max 1
	jq -e '(.commits | length) == 1 and (.commits[0].manifest | has("keys") | not)' <<<"$output"
	# No history: exit 2 as without --json, nothing on standard output.
	git init -q --bare -b main e.git
	run --separate-stderr "$EP" log --store e.git --profile other --json
	[ "$status" -eq 2 ]
	[ -z "$output" ]
}

# What the bash completion offers for the last of WORDS.
complete_bash() { # words...
	bash --norc --noprofile -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_envparity envparity "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' bash "$REPO_ROOT/completions/envparity.bash" "$@"
}

@test "completion of --profile: bash, fish and zsh list a local store's profiles, never touch a remote one" {
	git init -q --bare -b main s.git
	mk a.json '{"os.id": "debian"}'
	"$EP" bless -q a.json --store s.git --profile train/h100
	"$EP" bless -q a.json --store s.git --profile gpu
	git --git-dir=s.git branch other main
	"$EP" bless -q a.json --store s.git --ref other --profile only/there
	# The binary the command line names; a logging wrapper shows which
	# runs the completion made.
	mkdir bin
	printf '#!/bin/sh\necho "$*" >>"%s/calls"\nexec "%s" "$@"\n' "$T" "$EP" >bin/envparity
	chmod +x bin/envparity
	export PATH=$T/bin:$PATH
	run complete_bash envparity check --store s.git --profile tr
	[ "$output" = train/h100 ]
	run complete_bash envparity check --store s.git --profile ''
	[ "$output" = "$(printf 'gpu\ntrain/h100')" ]
	run complete_bash envparity log --store=s.git --ref other --profile o
	[ "$output" = only/there ]
	ENVPARITY_STORE=$T/s.git run complete_bash envparity bless --profile g
	[ "$output" = gpu ]
	# The default store, absent: nothing, and none created.
	run complete_bash envparity check --profile ''
	[ -z "$output" ]
	[ ! -e .envparity ]
	: >calls
	# Remote stores are not fetched from a completion.
	for s in https://127.0.0.1:9/x.git git@127.0.0.1:x.git file:///x; do
		run complete_bash envparity check --store "$s" --profile ''
		[ -z "$output" ]
		ENVPARITY_STORE=$s run complete_bash envparity check --profile ''
		[ -z "$output" ]
	done
	[ ! -s calls ]

	if command -v fish >/dev/null; then
		fc() { fish --no-config -c 'source $argv[1]; complete -C "$argv[2]"' \
		    "$REPO_ROOT/completions/envparity.fish" "$1" | cut -f1; }
		[ "$(fc 'envparity check --store s.git --profile ')" = "$(printf 'gpu\ntrain/h100')" ]
		[ "$(fc 'envparity log --store=s.git --ref other --profile o')" = only/there ]
		: >calls
		[ -z "$(fc 'envparity check --store https://127.0.0.1:9/x.git --profile ')" ]
		[ -z "$(ENVPARITY_STORE=git@127.0.0.1:x.git fc 'envparity check --profile ')" ]
		[ ! -s calls ]
	fi
	command -v zsh >/dev/null || skip "zsh is not installed"
	run zsh -fc 'compdef() { :; }; source "$1"; compadd() { shift; print -rl -- ${(P)1} }
		_envparity_bin=envparity
		words=(check --store s.git --profile ""); CURRENT=5
		_envparity_profile_names
		words=(check --store=https://127.0.0.1:9/x.git --profile ""); CURRENT=5
		_envparity_profile_names || print remote-none' zsh "$REPO_ROOT/completions/_envparity"
	echo "$output"
	[ "$output" = "$(printf 'gpu\ntrain/h100\nremote-none')" ]
}
