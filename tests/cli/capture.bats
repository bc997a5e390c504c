#!/usr/bin/env bats
# capture.bats: the command line, the manifest's shape and stability,
# atomic output, and the environment allowlist.

load setup

@test "envparity --help lists the commands; no command is a usage error" {
	run "$EP" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"capture"* ]]
	[[ "$output" == *"version"* ]]
	run "$EP"
	[ "$status" -eq 2 ]
	run "$EP" frobnicate
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown command 'frobnicate'"* ]]
}

@test "capture --help documents its options" {
	run "$EP" capture --help
	[ "$status" -eq 0 ]
	for opt in --output --python --site-packages --conda-prefix --lockfile \
	    --lib-path --no-cache; do
		[[ "$output" == *"$opt"* ]] || { echo "missing $opt"; false; }
	done
	run "$EP" help capture
	[ "$status" -eq 0 ]
	[[ "$output" == usage:\ envparity\ capture* ]]
}

@test "an unknown option is exit 2 with one line and a hint" {
	run "$EP" capture --bogus
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "envparity capture: unknown option '--bogus'" ]
	[ "${lines[1]}" = "Try 'envparity capture --help'." ]
	run "$EP" capture stray
	[ "$status" -eq 2 ]
	[[ "$output" == *"unexpected argument 'stray'"* ]]
}

@test "version names the release and the manifest schema" {
	run "$EP" version
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^envparity\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
	[[ "$output" == *"envparity/manifest@1"* ]]
	# The libraries it runs with, as loaded: what a bug report needs.
	[[ "$output" == *"libgit2 $(pkg-config --modversion libgit2)"* ]]
	[[ "$output" == *"libcurl $(pkg-config --modversion libcurl)"* ]]
	[[ "$output" == *"libxml2 $(pkg-config --modversion libxml-2.0)"* ]]
	run "$EP" --version
	[ "$status" -eq 0 ]
}

@test "a capture of this machine validates against manifest.schema.json" {
	"$EP" capture -q > m.json
	validate_schema manifest m.json
	[ "$(jq -r .schema m.json)" = "envparity/manifest@1" ]
	[ "$(fact m.json os.id)" = "$(. /etc/os-release; echo "$ID")" ]
	[ "$(fact m.json os.kernel)" = "$(uname -r)" ]
	[ "$(fact m.json cpu.count)" = "$(getconf _NPROCESSORS_ONLN)" ]
	[ "$(fact m.json libc.version)" = "$(getconf GNU_LIBC_VERSION | cut -d' ' -f2)" ]
	# cpu.isa is sorted and holds only flags this CPU has.
	isa=$(fact m.json cpu.isa)
	[ "$isa" = "$(tr ' ' '\n' <<<"$isa" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')" ]
	flags=" $(grep -m1 -E '^(flags|Features)' /proc/cpuinfo | cut -d: -f2) "
	# (sse3 is what the kernel calls pni.)
	for f in $isa; do
		[ "$f" != sse3 ] || f=pni
		[[ "$flags" == *" $f "* ]]
	done
	if [[ "$flags" == *" pni "* ]]; then [[ " $isa " == *" sse3 "* ]]; fi
}

@test "two captures of an unchanged machine are byte-identical apart from meta" {
	"$EP" capture -q > a.json
	"$EP" capture -q > b.json
	cmp <(jq -S 'del(.meta)' a.json) <(jq -S 'del(.meta)' b.json)
	# The facts block itself is byte-identical text, not only equal JSON.
	cmp <(sed -n '/"facts"/,/^  }/p' a.json) <(sed -n '/"facts"/,/^  }/p' b.json)
	# Sorted keys, two-space indent.
	[ "$(head -2 a.json)" = $'{\n  "facts": {' ]
	jq -r '.facts | keys_unsorted[]' a.json > order
	LC_ALL=C sort -c order
}

@test "capture -o writes the manifest atomically and leaves nothing else" {
	mkdir out
	run "$EP" capture -q -o out/m.json
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	validate_schema manifest out/m.json
	[ "$(ls -A out)" = "m.json" ]
}

@test "capture -o to a path that cannot be written is exit 3 and creates nothing" {
	run "$EP" capture -q -o nodir/m.json
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "envparity capture: nodir/m.json: cannot write: "* ]]
	[ ! -e nodir ]
	mkdir isdir
	run "$EP" capture -q -o isdir
	[ "$status" -eq 2 ]
	[[ "$output" == *"isdir: refused: a directory, not a regular file"* ]]
	[ -d isdir ] && [ -z "$(ls -A isdir)" ]
	[ -z "$(ls -A . | grep -v -e isdir -e cache -e home)" ]
}

@test "an existing manifest is replaced whole or not at all" {
	echo '{"old": true}' > m.json
	"$EP" capture -q -o m.json
	validate_schema manifest m.json
}

@test "standard output that cannot be written is exit 3" {
	[ -w /dev/full ] || skip "no /dev/full"
	run bash -c "'$EP' capture -q > /dev/full"
	[ "$status" -eq 3 ]
	[[ "$output" == *"standard output: write failed"* ]]
}

@test "only allowlisted environment variables are captured, never secrets" {
	export CUBLAS_WORKSPACE_CONFIG=:4096:8 TF_DETERMINISTIC_OPS=1
	export AWS_SECRET_ACCESS_KEY=hunter2-secret ENVPARITY_GIT_TOKEN=ghp_tok3n
	export HF_TOKEN=hf_s3cret CUDA_VISIBLE_DEVICES_X=nope
	"$EP" capture -q > m.json
	[ "$(fact m.json env.CUBLAS_WORKSPACE_CONFIG)" = ":4096:8" ]
	[ "$(fact m.json env.TF_DETERMINISTIC_OPS)" = "1" ]
	! grep -q -e hunter2 -e ghp_tok3n -e hf_s3cret -e CUDA_VISIBLE_DEVICES_X m.json || false
	# Every env.* key is on the documented list (docs/manifest.md,
	# "Environment variables"), read from that section alone.
	sed -n '/^## Environment variables$/,/^## /p' "$REPO_ROOT/docs/manifest.md" >envdoc.md
	grep -q '`CUBLAS_WORKSPACE_CONFIG`' envdoc.md
	for k in $(jq -r '.facts | keys[] | select(startswith("env."))' m.json); do
		grep -q "\`${k#env.}\`" envdoc.md || { echo "$k not in docs/manifest.md"; false; }
	done
}

@test "warnings go to standard error, the manifest alone to standard output" {
	"$EP" capture > m.json 2> err.txt
	jq -e . m.json > /dev/null
	if [ "$(jq '.meta.unavailable // {} | length' m.json)" -gt 0 ]; then
		grep -q "not checked" err.txt
	fi
	"$EP" capture -q > m2.json 2> err2.txt
	[ ! -s err2.txt ]
}
