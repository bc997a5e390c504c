#!/usr/bin/env bats
# capture_extra.bats: what a profile's policy ("capture") and the
# command line (--env, --env-not-secret, --file-sha256, --file-line) add
# to a capture: variables by name and prefix, never one whose name looks
# like a credential's (refused when named, left out and said when a
# prefix takes it; its value nowhere), and files whose SHA-256 or first
# line is a fact, read as files (a FIFO refused, never waited on).

load setup

bats_require_minimum_version 1.5.0

# Put TEXT at PATH in the store, committed by hand.
put() { # store path text
	rm -rf wt
	git clone -q "$1" wt
	mkdir -p "wt/$(dirname "$2")"
	printf '%s\n' "$3" >"wt/$2"
	git -C wt add "$2"
	git -C wt -c user.name=t -c user.email=t@x commit -qm "$2"
	git -C wt push -q origin HEAD:main
	rm -rf wt
}

@test "capture extras: the policy's and --env's variables and files are facts, check judges them, a credential's name is refused or left out, a FIFO refused" {
	export ENVPARITY_AUTHOR="Ada Lovelace <ada@example.org>"
	git init -q --bare -b main s.git
	printf 'NCCL_IB_HCA=mlx5\n# site tuning\n' > nccl.conf
	put s.git policy.json "{\"schema\": \"envparity/policy@1\", \"capture\": {\"env\": [\"NCCL_IB_*\"], \"files\": [{\"path\": \"$T/nccl.conf\", \"fact\": \"sha256\"}]}}"
	export NCCL_IB_HCA=mlx5_0 NCCL_IB_PKEY=0x8001 HF_HOME=/models HF_TOKEN=hf_not_to_be_seen
	run --separate-stderr "$EP" bless --store s.git --profile p --no-discover --env 'HF_*' --file-line "$T/nccl.conf"
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	# The variable a prefix takes but whose name looks like a
	# credential's: said by name, its value nowhere.
	[[ "$stderr" == *"environment variable HF_TOKEN not recorded: a credential CI systems and clouds hand every job, never recorded"* ]]
	git --git-dir=s.git show main:p/manifest.json > g.json
	[ "$(jq -r '.facts."env.NCCL_IB_HCA"' g.json)" = mlx5_0 ]
	[ "$(jq -r '.facts."env.NCCL_IB_PKEY"' g.json)" = 0x8001 ]
	[ "$(jq -r '.facts."env.HF_HOME"' g.json)" = /models ]
	[ "$(jq -r --arg k "file.$T/nccl.conf.sha256" '.facts[$k]' g.json)" = "$(sha256sum nccl.conf | cut -d' ' -f1)" ]
	[ "$(jq -r --arg k "file.$T/nccl.conf.line" '.facts[$k]' g.json)" = NCCL_IB_HCA=mlx5 ]
	[ "$(jq -r '.facts | has("env.HF_TOKEN")' g.json)" = false ]
	! git --git-dir=s.git log -p --all | grep -q hf_not_to_be_seen
	[ "$(jq -r '.meta.warnings | map(select(contains("HF_TOKEN"))) | length' g.json)" = 1 ]
	# policy shows what the profile's captures add.
	run "$EP" policy --store s.git --profile p
	[[ "$output" == *$'\n'"capture adds env: NCCL_IB_*"$'\n'"capture adds file sha256: $T/nccl.conf"$'\n'* ]]
	run "$EP" policy --store s.git --profile p --json
	[ "$(jq -c '.capture' <<<"$output")" = "{\"env\":[\"NCCL_IB_*\"],\"env_not_secret\":[],\"files\":[{\"path\":\"$T/nccl.conf\",\"fact\":\"sha256\"}]}" ]

	# check captures the same (the policy's by itself); a changed
	# variable and a changed file are drift, named.
	printf 'NCCL_IB_HCA=mlx5\n# site tuning, changed\n' > nccl.conf
	NCCL_IB_HCA=mlx5_1 run "$EP" check --store s.git --profile p --no-discover --env 'HF_*' --file-line "$T/nccl.conf" --json r.json
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(jq -r '[.results[] | select(.status == "fail") | .key] | sort | join(",")' r.json)" = "env.NCCL_IB_HCA,file.$T/nccl.conf.sha256" ]
	! grep -q hf_not_to_be_seen r.json

	# Named on the command line, a credential's name is refused: one
	# line, exit 2, nothing captured; unless named as not secret.
	run --separate-stderr "$EP" capture --no-discover --env HF_API_TOKEN -o c.json
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "$stderr" = "envparity capture: the command line: 'HF_API_TOKEN': looks like a credential's name (TOKEN), and a credential never reaches a manifest; if it is none, name it as not secret too (--env-not-secret HF_API_TOKEN, or the policy's capture.env_not_secret)" ]
	[ ! -e c.json ]
	run "$EP" capture --no-discover --env 'AWS_SECRET_*' -o c.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"'AWS_SECRET_*': looks like a credential's name (SECRET): a prefix that does is refused"* ]]
	# A credential file's first line would reach the manifest: refused;
	# its SHA-256 is not.
	mkdir -p .ssh && echo secret > .ssh/id_ed25519
	run --separate-stderr "$EP" capture --no-discover --file-line "$T/.ssh/id_ed25519" -o c.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"'$T/.ssh/id_ed25519': looks like a file that holds a credential (/.ssh/), and its first line would reach the manifest; record its SHA-256 instead"* ]]
	[ ! -e c.json ]
	# ... also through a link of an innocent name.
	ln -s "$T/.ssh/id_ed25519" nccl-link.conf
	run --separate-stderr "$EP" capture --no-discover --file-line "$T/nccl-link.conf" -o c.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"file $T/nccl-link.conf leads to '$T/.ssh/id_ed25519': looks like a file that holds a credential"* ]]
	[ ! -e c.json ]
	# envparity's own settings and CI's credentials: never, even when
	# called not secret; a URL's password in a value never recorded.
	run --separate-stderr "$EP" capture --no-discover --env ENVPARITY_STORE --env-not-secret ENVPARITY_STORE -o c.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"'ENVPARITY_STORE': one of envparity's own settings, never recorded, even when called not secret"* ]]
	PIP_EXTRA_INDEX=https://ci:hunter2@pkgs.example/simple "$EP" capture -q --no-discover --env 'PIP_*' -o c.json
	v=$(jq -r '.facts["env.PIP_EXTRA_INDEX"]' c.json)
	[[ $v == https://*pkgs.example/simple && $v != *hunter2* ]]
	rm c.json
	# A FIFO is refused at once, never waited on; a missing file said.
	mkfifo fifo
	run "$EP" capture --no-discover --file-sha256 "$T/fifo" -o c.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"$T/fifo: a FIFO, not a regular file"* ]]
	[ ! -e c.json ]

	# The implicit store in the current directory (which the checkout
	# can write) adds nothing to a capture: said, not used.
	"$EP" bless -q --no-discover --profile q >/dev/null
	put .envparity/store policy.json '{"schema": "envparity/policy@1", "capture": {"env": ["NCCL_IB_*"]}}'
	run "$EP" check --no-discover --profile q --json r2.json
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"warn    capture.warning[0]: the policy's capture additions are not used: the implicit store"* ]]
	jq -e '[.results[] | select(.key | startswith("env.NCCL_IB"))] | length == 0' r2.json

	# A policy that names a credential's variable is refused where it is
	# read: check, bless and policy say so, exit 2, naming the file.
	put s.git policy.json '{"schema": "envparity/policy@1", "capture": {"env": ["HF_API_TOKEN"]}}'
	for cmd in "check --no-discover" "policy" "bless --dry-run --no-discover"; do
		run "$EP" $cmd --store s.git --profile p
		echo "$cmd: $output"
		[ "$status" -eq 2 ]
		[[ "$output" == *"s.git#main:policy.json: capture: 'HF_API_TOKEN': looks like a credential's name (TOKEN)"* ]]
	done
	# ... and one that calls a certain credential not secret: only the
	# job's own command line may.
	put s.git policy.json '{"schema": "envparity/policy@1", "capture": {"env": ["DB_PASSWORD"], "env_not_secret": ["DB_PASSWORD"]}}'
	run "$EP" check --no-discover --store s.git --profile p
	[ "$status" -eq 2 ]
	[[ "$output" == *"s.git#main:policy.json: capture.env_not_secret: 'DB_PASSWORD' holds PASSWORD: a policy may not call such a name not secret; only the job's command line may (--env-not-secret DB_PASSWORD)"* ]]
}
