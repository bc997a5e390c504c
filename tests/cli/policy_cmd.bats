#!/usr/bin/env bats
# policy_cmd.bats: `envparity policy`, the effective policy of a profile
# with each rule's origin, as text and JSON; and waive, unwaive and policy
# on a remote store served by `git daemon` on 127.0.0.1, read back by
# another machine through its own cache.

load setup
load git_daemon

bats_require_minimum_version 1.5.0

setup_file() {
	export ENVPARITY_AUTHOR="Ada Lovelace <ada@example.org>"
	unset ENVPARITY_STORE ENVPARITY_PROFILE ENVPARITY_GIT_TOKEN
}

mk() { # file host key=value...
	local f=$1 h=$2 facts='{}' kv
	shift 2
	for kv in "$@"; do
		facts=$(jq -c --arg k "${kv%%=*}" --arg v "${kv#*=}" \
		    '. + {($k): $v}' <<<"$facts")
	done
	jq -n --arg h "$h" --argjson f "$facts" \
	    '{schema: "envparity/manifest@1", meta: {host: $h}, facts: $f}' >"$f"
}

# Put FILE's text at PATH in the store, committed by hand.
put() { # store path text
	rm -rf wt
	git clone -q "$1" wt
	mkdir -p "wt/$(dirname "$2")"
	printf '%s\n' "$3" >"wt/$2"
	git -C wt add "$2"
	git -C wt -c user.name=t -c user.email=t@x commit -qm "$2"
	git -C wt push -q origin main
	rm -rf wt
}

other() {
	seed_cache "$T/cache-other"
	XDG_CACHE_HOME=$T/cache-other "$@"
}

@test "policy: every rule in the order tried, with the file it comes from; expired waivers marked" {
	git init -q --bare -b main s.git
	put s.git policy.json '{"schema": "envparity/policy@1", "rules": [{"key": "lib.*.path", "rule": "ignore"}, {"key": "python.pkg.torch", "rule": "ignore"}], "waivers": [{"key": "a", "reason": "shared", "owner": "plat", "expires": "2099-12-31"}]}'
	put s.git train/policy.json '{"schema": "envparity/policy@1", "rules": [{"key": "gpu.*", "rule": "present", "severity": "warn"}]}'
	put s.git train/h100/policy.json '{"schema": "envparity/policy@1", "rules": [{"key": "python.pkg.torch", "rule": "version", "range": ">=2,<3", "missing": "skip"}], "waivers": [{"key": "b", "reason": "old", "owner": "me", "expires": "2001-01-01"}]}'
	commit=$(git --git-dir=s.git rev-parse main)
	run "$EP" policy --store s.git --profile train/h100
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "profile train/h100 in s.git main at ${commit:0:12}" ]
	[ "${lines[1]}" = "file: train/h100/policy.json (profile)" ]
	[ "${lines[2]}" = "file: train/policy.json (inherited)" ]
	[ "${lines[3]}" = "file: policy.json (shared)" ]
	[ "${lines[4]}" = "rules (the first that matches decides):" ]
	[[ "${lines[5]}" =~ ^\ \ python\.pkg\.torch\ +version\ \>=2,\<3,\ missing\ skip\ \ \[train/h100/policy\.json\]$ ]]
	[[ "${lines[6]}" =~ ^\ \ gpu\.\*\ +present,\ warn\ \ \[inherited\ train/policy\.json\]$ ]]
	[[ "${lines[7]}" =~ ^\ \ lib\.\*\.path\ +ignore\ \ \[shared\ policy\.json\]$ ]]
	[[ "${lines[8]}" =~ ^\ \ meta\.\*\ +ignore\ \ \[built-in\ default\]$ ]]
	# The shared torch rule is overridden: listed once.
	[ "$(grep -c 'python.pkg.torch' <<<"$output")" -eq 1 ]
	[[ "$output" == *"waivers:"$'\n'"  b  by me until 2001-01-01 (EXPIRED): old  [train/h100/policy.json]"$'\n'"  a  by plat until 2099-12-31: shared  [shared policy.json]" ]]

	run "$EP" policy --store s.git --profile train/h100 --json
	[ "$status" -eq 0 ]
	jq -e --arg c "$commit" '.profile == "train/h100" and .store == "s.git" and .ref == "main" and .commit == $c' <<<"$output"
	jq -e '.rules[0] | .key == "python.pkg.torch" and .rule == "version" and .range == ">=2,<3" and .missing == "skip" and .origin == "train/h100/policy.json" and .scope == "profile"' <<<"$output"
	jq -e '.rules[1] | .severity == "warn" and .scope == "inherited" and .origin == "train/policy.json"' <<<"$output"
	jq -e '.rules[2] | .scope == "shared" and .origin == "policy.json"' <<<"$output"
	jq -e '.rules[-1] | .key == "*" and .scope == "default" and .origin == "built-in default"' <<<"$output"
	jq -e '[.waivers[] | [.key, .expired, .scope]] == [["b", true, "profile"], ["a", false, "shared"]]' <<<"$output"

	# Another profile: only the shared file applies.
	run "$EP" policy --store s.git --profile gpu --json
	jq -e '[.rules[] | select(.scope != "default") | .origin] == ["policy.json", "policy.json"]' <<<"$output"
	# No store yet, no file: the defaults alone, nothing created.
	run "$EP" policy
	[ "$status" -eq 0 ]
	[[ "$output" == *"files: none (the defaults alone)"* ]]
	[ ! -e .envparity ]
}

@test "policy: a malformed shared policy is exit 2 naming its file, for policy, check, bless and log" {
	git init -q --bare -b main s.git
	mk g.json h a=1
	"$EP" bless -q --store s.git --profile p g.json >/dev/null
	put s.git policy.json '{"schema": "envparity/policy@1", "waivers": [{"key": "a", "owner": "o", "expires": "2099-01-01"}]}'
	before=$(git --git-dir=s.git rev-parse main)
	for cmd in "policy" "check --no-discover" "bless g.json" "log" "bless --dry-run g.json"; do
		run "$EP" $cmd --store s.git --profile p
		[ "$status" -eq 2 ] || { echo "$cmd: $output"; false; }
		[[ "$output" == *"s.git#main:policy.json: waivers[0] (key \"a\"): no \"reason\""* ]]
	done
	[ "$(git --git-dir=s.git rev-parse main)" = "$before" ]
	# Mended by unwaive? No: a file check refuses is mended by hand.
	run "$EP" unwaive --store s.git --shared a
	[ "$status" -eq 2 ]
	[ "$(git --git-dir=s.git rev-parse main)" = "$before" ]
}

@test "git daemon: waive and unwaive push; another machine sees them; a pushed race is refused" {
	mkdir srv
	git init -q --bare -b main srv/s.git
	start_git_daemon "$T/srv"
	url=git://127.0.0.1:$GIT_DAEMON_PORT/s.git
	mk g.json h a=1 b=1
	mk cur.json h a=2 b=1
	"$EP" bless -q --store "$url" --profile train/h100 g.json >/dev/null
	"$EP" bless -q --store "$url" --profile train/a100 g.json >/dev/null
	run "$EP" waive --store "$url" --shared --reason rollout --owner ml --expires 2099-12-31 a
	[ "$status" -eq 0 ]
	[[ "$output" == "waived a in policy.json at "*" on $url main" ]]
	[ "$(git --git-dir=srv/s.git show main:policy.json | jq -r '.waivers[0].owner')" = ml ]
	for p in train/h100 train/a100; do
		run other "$EP" diff "$url#:$p" cur.json
		[ "$status" -eq 0 ] || { echo "$output"; false; }
		[[ "$output" == *"waived (shared policy) by ml"* ]]
	done
	run other "$EP" policy --store "$url" --profile train/h100 --json
	jq -e '.waivers[0] | .key == "a" and .scope == "shared"' <<<"$output"
	run other "$EP" log --store "$url" --profile train/h100
	[[ "${lines[0]}" == *"  shared policy  waive a in the shared policy (ml): rollout" ]]

	# A second machine waives through a cache that has not seen the
	# first's commit: it fetches under the lock and builds on it.
	"$EP" waive -q --store "$url" --profile train/h100 --reason r --owner o --expires 2099-12-31 b
	run other "$EP" waive --store "$url" --profile train/h100 --reason r2 --owner o2 --expires 2099-12-31 c
	[ "$status" -eq 0 ]
	[ "$(git --git-dir=srv/s.git show main:train/h100/policy.json | jq -r '[.waivers[].key] | join(",")')" = "b,c" ]

	run other "$EP" unwaive --store "$url" --shared a
	[ "$status" -eq 0 ]
	run "$EP" diff "$url#:train/a100" cur.json
	[ "$status" -eq 1 ]
	before=$(git --git-dir=srv/s.git rev-parse main)
	run "$EP" unwaive --store "$url" --shared a
	[ "$status" -eq 2 ]
	run "$EP" waive --store "$url" --reason r --owner o --expires 2000-01-01 a
	[ "$status" -eq 2 ]
	[ "$(git --git-dir=srv/s.git rev-parse main)" = "$before" ]

	# Concurrent waives of one file over the network: one wins whole,
	# or they did not overlap.
	for i in $(seq 1 5); do
		( rc=0; "$EP" waive -q --store "$url" --profile p$i --reason r --owner o --expires 2099-12-31 x >out.a 2>&1 || rc=$?; echo $rc >rc.a ) &
		pa=$!
		( rc=0; other "$EP" waive -q --store "$url" --profile p$i --reason r --owner o --expires 2099-12-31 y >out.b 2>&1 || rc=$?; echo $rc >rc.b ) &
		wait "$pa" "$!"
		ra=$(cat rc.a) rb=$(cat rc.b)
		keys=$(git --git-dir=srv/s.git show main:p$i/policy.json | jq -r '[.waivers[].key] | sort | join(",")')
		if [ "$ra" -eq 0 ] && [ "$rb" -eq 0 ]; then
			[ "$keys" = "x,y" ]
		else
			[ $((ra + rb)) -eq 3 ]
			cat out.a out.b | grep -q "p$i/policy.json was changed by someone else"
			[ "$keys" = x ] || [ "$keys" = y ]
		fi
	done
}

@test "policy add and remove: a rule committed as waive commits a waiver, judged by check at once; bad rules refused before the store is touched" {
	git init -q --bare -b main s.git
	mk g.json h lib.cublas.path=/a/libcublas.so gpu.driver.version=580.65
	mk cur.json h lib.cublas.path=/b/libcublas.so gpu.driver.version=581.10
	"$EP" bless -q --store s.git --profile train/h100 g.json >/dev/null
	put s.git train/h100/policy.json '{"schema": "envparity/policy@1", "description": "kept", "rules": [{"key": "lib.*", "rule": "exact"}]}'
	run "$EP" diff s.git#:train/h100 cur.json
	[ "$status" -eq 1 ]
	run "$EP" policy add --store s.git --profile train/h100 --reason "venvs differ" 'lib.*.path' ignore
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "added rule lib.*.path in train/h100/policy.json at "*" on s.git main" ]]
	run "$EP" policy add -q --store s.git --profile train/h100 gpu.driver.version version '>=580.65,<590'
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# First in the file, before lib.*; the rest of the file kept.
	git --git-dir=s.git show main:train/h100/policy.json > p.json
	[ "$(jq -c '[.rules[] | [.key, .rule]]' p.json)" = '[["gpu.driver.version","version"],["lib.*.path","ignore"],["lib.*","exact"]]' ]
	[ "$(jq -r .description p.json)" = kept ]
	[ "$(jq -r '.rules[1].reason' p.json)" = "venvs differ" ]
	[ "$(git --git-dir=s.git log -1 --format=%s main)" = "policy: add rule gpu.driver.version version >=580.65,<590" ]
	[ "$(git --git-dir=s.git log -1 --format=%an main)" = "Ada Lovelace" ]
	run "$EP" diff s.git#:train/h100 cur.json
	echo "$output"
	[ "$status" -eq 0 ]
	# The same rule again: nothing to commit.
	before=$(git --git-dir=s.git rev-parse main)
	run "$EP" policy add --store s.git --profile train/h100 --reason "venvs differ" 'lib.*.path' ignore
	[ "$status" -eq 0 ]
	[[ "$output" == "already added rule lib.*.path in "* ]]
	[ "$(git --git-dir=s.git rev-parse main)" = "$before" ]

	# Refused, exit 2, one line naming the problem, nothing committed.
	for args in "a exactly|unknown rule 'exactly' (one of exact, ignore, version, present, absent)" \
	    "a version|rule for 'a': rule \"version\" needs a \"range\"" \
	    "a exact >=1|unexpected argument '>=1' (only rule version takes a RANGE)" \
	    "p* ignore|rule for 'p*': rule \"ignore\" covers every key of areas" \
	    "a|policy add needs RULE" \
	    "--missing maybe a exact|rule for 'a': unknown missing \"maybe\"" \
	    "--json a exact|'--json' is for showing the policy"; do
		read -ra argv <<<"${args%%|*}"
		run --separate-stderr "$EP" policy add --store s.git --profile train/h100 "${argv[@]}"
		echo "$args: $stderr"
		[ "$status" -eq 2 ]
		[[ "${stderr_lines[0]}" == "envparity policy: ${args#*|}"* ]]
		[ -z "$output" ]
	done
	run "$EP" policy frob --store s.git
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "envparity policy: unknown verb 'frob' (add or remove; none shows the policy)" ]
	run "$EP" policy --store s.git --reason x
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "envparity policy: '--reason' is for policy add" ]
	run "$EP" policy remove --store s.git --profile train/h100 lib.x.path
	[ "$status" -eq 2 ]
	[ "$output" = "envparity policy: s.git#main:train/h100/policy.json: no rule for 'lib.x.path' (the key must be written as the rule names it: \`envparity policy\` lists them)" ]
	[ "$(git --git-dir=s.git rev-parse main)" = "$before" ]

	# Removed: the drift is back; the shared file with --shared.
	run "$EP" policy remove --store s.git --profile train/h100 'lib.*.path'
	[ "$status" -eq 0 ]
	[[ "$output" == "removed rule lib.*.path in train/h100/policy.json at "* ]]
	[ "$(git --git-dir=s.git log -1 --format=%s main)" = "policy: remove rule lib.*.path" ]
	run "$EP" diff s.git#:train/h100 cur.json
	[ "$status" -eq 1 ]
	run "$EP" policy add --store s.git --shared -m "fleet-wide" 'lib.*.path' ignore
	[ "$status" -eq 0 ]
	[ "$(git --git-dir=s.git show main:policy.json | jq -c '.rules')" = '[{"key":"lib.*.path","rule":"ignore"}]' ]
	[ "$(git --git-dir=s.git log -1 --format=%s main)" = "fleet-wide" ]
	# It holds for a profile without a rule of its own for lib.*; the
	# nearer file's lib.* still decides first for train/h100.
	mk g2.json h lib.cublas.path=/a/libcublas.so os.id=debian
	mk cur2.json h lib.cublas.path=/b/libcublas.so os.id=debian
	"$EP" bless -q --store s.git --profile gpu g2.json >/dev/null
	run "$EP" diff s.git#:gpu cur2.json
	[ "$status" -eq 0 ]
	run "$EP" diff s.git#:train/h100 cur.json
	[ "$status" -eq 1 ]
}
