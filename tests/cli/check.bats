#!/usr/bin/env bats
# check.bats: `bless` then `check` through the default local store, the
# scenario a platform engineer would run, the JSON report, and each way a
# check can be stopped by bad input before it does any work.

load setup

# An environment made of parts the test controls: a site-packages of a
# few distributions, a pinned requirements file (what it pins installed,
# so that stack.lock.* passes), and a --lib-path folder of links to the
# real CUDA libraries.
make_env() { # dir
	mkdir -p "$1/sp" "$1/lib"
	"$FIXTURES/gen-site-packages.sh" "$1/sp" 6 >/dev/null
	for nv in numpy:1.26.4 torch:2.3.1; do
		mkdir "$1/sp/${nv%:*}-${nv#*:}.dist-info"
		printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' \
		    "${nv%:*}" "${nv#*:}" > "$1/sp/${nv%:*}-${nv#*:}.dist-info/METADATA"
	done
	printf 'numpy==1.26.4 \\\n    --hash=sha256:aaaa\ntorch==2.3.1 ; sys_platform == "linux"\n' \
	    > "$1/requirements.txt"
	for f in /usr/local/cuda/lib64/lib*.so.*; do
		[ -f "$f" ] && ln -s "$(readlink -f "$f")" "$1/lib/$(basename "$f")"
	done
}

env_args() { # dir
	echo --no-discover --site-packages "$1/sp" --lockfile requirements.txt --lib-path "$1/lib"
}

# The team's policy, committed beside the golden like code: cuDNN's
# wheels are built for a newer cudart minor, which they have accepted.
commit_policy() { # store policy-json
	git clone -q "$1" "$T/wt"
	mkdir -p "$T/wt/default"
	printf '%s\n' "$2" > "$T/wt/default/policy.json"
	git -C "$T/wt" add default/policy.json
	git -C "$T/wt" -c user.name=t -c user.email=t@x commit -qm "policy"
	git -C "$T/wt" push -q origin HEAD
	rm -rf "$T/wt"
}

WAIVE_CUDNN='{"schema": "envparity/policy@1", "rules": [], "waivers": [
  {"key": "stack.cudart_minor.*", "reason": "cuDNN wheels built for 13.1",
   "owner": "ml-platform", "expires": "2099-12-31"}]}'

@test "check with no golden manifest is exit 2 and names the bless command" {
	run "$EP" check -q --no-discover
	[ "$status" -eq 2 ]
	[[ "$output" == *"no golden manifest for profile default"* ]]
	[[ "$output" == *"envparity bless"* ]]
	# Nothing was created by looking.
	[ ! -e .envparity/store ]
}

@test "bless, then check: parity, and a JSON report that validates" {
	[ -e /usr/local/cuda/lib64/libcudnn.so.9 ] || skip "no CUDA libraries here"
	make_env "$T/e"
	cp "$T/e/requirements.txt" .
	run "$EP" bless -q $(env_args "$T/e")
	[ "$status" -eq 0 ]
	[[ "$output" == "blessed default at "* ]]
	commit_policy .envparity/store "$WAIVE_CUDNN"
	run "$EP" check $(env_args "$T/e") --json report.json
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "envparity check: PARITY: "* ]]
	validate_schema report report.json
	[ "$(jq -r .exit_status report.json)" = 0 ]
	[ "$(jq -r .counts.fail report.json)" = 0 ]
	[ "$(jq -r .golden.profile report.json)" = default ]
	[[ "$(jq -r .golden.commit report.json)" =~ ^[0-9a-f]{40}$ ]]
	# The waived finding stays visible, with its owner and expiry.
	[ "$(jq -r '[.results[] | select(.status == "waived")] | length' report.json)" -ge 1 ]
	[ "$(jq -r '[.results[] | select(.status == "waived")][0].waiver.owner' report.json)" = ml-platform ]
	[[ "$output" == *"waived  stack.cudart_minor.cudnn"* ]]
}

@test "a package, a lockfile pin and a library change: check names exactly those three" {
	[ -e /usr/local/cuda/lib64/libnccl.so.2 ] || skip "no CUDA libraries here"
	make_env "$T/e"
	cp "$T/e/requirements.txt" .
	"$EP" bless -q $(env_args "$T/e") > /dev/null
	commit_policy .envparity/store "$WAIVE_CUDNN"

	# 1. one package moves.
	meta=$(ls -d "$T"/e/sp/*.dist-info | head -1)/METADATA
	pkg=$(sed -n 's/^Name: //p' "$meta" | head -1)
	sed -i 's/^Version: .*/Version: 99.0.0/' "$meta"
	# 2. one pin moves.
	sed -i 's/numpy==1.26.4/numpy==2.0.0/' requirements.txt
	# 3. one library is another file: a copy of NCCL with bytes appended,
	# in a folder the new --lib-path names first.
	mkdir "$T/lib2"
	cp /usr/local/cuda/lib64/libnccl.so.2 "$T/lib2/"
	printf 'patched' >> "$T/lib2/libnccl.so.2"

	run "$EP" check --lib-path "$T/lib2" $(env_args "$T/e") --json report.json
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "envparity check: DRIFT: "* ]]
	validate_schema report report.json
	norm=$(tr 'A-Z_.' 'a-z--' <<<"$pkg")
	jq -r '.results[] | select(.status == "fail") | .key' report.json > failed
	cat failed
	grep -qx "python.pkg.$norm" failed
	grep -qx "lockfile.requirements.txt.pin.numpy" failed
	grep -qx "lib.nccl.sha256" failed
	# The pin moved, the package did not: the environment no longer
	# matches its own lockfile either.
	grep -qx "stack.lock.requirements.txt.numpy" failed
	# Nothing else: every failure is one of those three things.
	! grep -v -e "^python\.pkg\.$norm\$" -e '^lockfile\.requirements\.txt\.' \
	    -e '^lib\.nccl\.' -e '^stack\.lock\.requirements\.txt\.numpy$' failed || false
	[ "$(jq -r '.results[] | select(.key == "python.pkg.'"$norm"'") | .actual' report.json)" = 99.0.0 ]
	[ "$(jq -r '.results[] | select(.key == "lockfile.requirements.txt.pin.numpy") | .message' report.json)" = \
	    "lockfile.requirements.txt.pin.numpy: expected 1.26.4, got 2.0.0" ]
}

@test "a malformed policy stops check before it captures anything: exit 2" {
	make_env "$T/e"
	"$EP" bless -q --no-discover --site-packages "$T/e/sp" > /dev/null
	commit_policy .envparity/store '{"schema": "envparity/policy@1", "rules": [{"key": "x.*", "rule": "exactly"}]}'
	# A --lib-path that does not exist would fail the capture; the policy
	# error must come first.
	run "$EP" check --no-discover --site-packages "$T/e/sp" --lib-path /nonexistent
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"policy.json: rules[0] (key \"x.*\"): unknown rule \"exactly\""* ]]
}

@test "a malformed policy stops bless and log too: exit 2, nothing committed" {
	make_env "$T/e"
	"$EP" bless -q --no-discover --site-packages "$T/e/sp" > /dev/null
	commit_policy .envparity/store '{"schema": "envparity/policy@1", "rules": [{"key": "python.pkg.*", "rule": "version", "range": ">1.0 <2"}]}'
	before=$(git -C .envparity/store rev-parse main)
	run "$EP" bless --no-discover --site-packages "$T/e/sp"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "${lines[-1]}" == *"default/policy.json: rules[0] (key \"python.pkg.*\"): range \">1.0 <2\""* ]]
	[ "$(git -C .envparity/store rev-parse main)" = "$before" ]
	run "$EP" log
	echo "$output"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"default/policy.json: rules[0]"* ]]
	# A well-formed one lets both go on.
	commit_policy .envparity/store '{"schema": "envparity/policy@1", "rules": [{"key": "python.pkg.*", "rule": "version", "range": ">1.0,<2"}]}'
	"$EP" bless -q --no-discover --site-packages "$T/e/sp" > /dev/null
	run "$EP" log
	[ "$status" -eq 0 ]
}

@test "an expired waiver fails and says when it expired" {
	make_env "$T/e"
	"$EP" bless -q --no-discover --site-packages "$T/e/sp" > /dev/null
	commit_policy .envparity/store '{"schema": "envparity/policy@1", "rules": [], "waivers": [
	  {"key": "python.pkg.*", "reason": "upgrade in flight", "owner": "alice", "expires": "2020-01-31"}]}'
	meta=$(ls -d "$T"/e/sp/*.dist-info | head -1)/METADATA
	sed -i 's/^Version: .*/Version: 99.0.0/' "$meta"
	run "$EP" check --no-discover --site-packages "$T/e/sp" --json r.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"waiver by alice expired on 2020-01-31: upgrade in flight"* ]]
	[ "$(jq -r '[.results[] | select(.status == "fail" and .waiver.expires == "2020-01-31")] | length' r.json)" -ge 1 ]
}

@test "a golden manifest of another schema or with garbage in it is exit 2" {
	make_env "$T/e"
	"$EP" bless -q --no-discover --site-packages "$T/e/sp" > /dev/null
	git clone -q .envparity/store wt
	sed -i 's#envparity/manifest@1#envparity/manifest@0#' wt/default/manifest.json
	git -C wt -c user.name=t -c user.email=t@x commit -qam old
	git -C wt push -q origin HEAD
	run "$EP" check --no-discover --site-packages "$T/e/sp"
	[ "$status" -eq 2 ]
	[[ "$output" == *"unsupported manifest schema \"envparity/manifest@0\""* ]]
	printf '{"facts": {' > wt/default/manifest.json
	git -C wt -c user.name=t -c user.email=t@x commit -qam garbage
	git -C wt push -q origin HEAD
	run "$EP" check --no-discover --site-packages "$T/e/sp"
	[ "$status" -eq 2 ]
	[[ "$output" == *"default/manifest.json: not a manifest"* ]]
}

@test "an unreachable store is exit 3" {
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	run "$EP" check --no-discover --store "git://127.0.0.1:$port/store.git"
	[ "$status" -eq 3 ]
	[[ "$output" == *"127.0.0.1:$port"* ]]
}

@test "a report path that cannot be written is exit 3 and leaves no file" {
	make_env "$T/e"
	"$EP" bless -q --no-discover --site-packages "$T/e/sp" > /dev/null
	run "$EP" check --no-discover --site-packages "$T/e/sp" --json nodir/r.json
	[ "$status" -eq 3 ]
	[[ "$output" == *"nodir/r.json: cannot write"* ]]
	[ ! -e nodir ]
	ls -A | grep -v -e '^\.envparity$' -e '^e$' -e '^cache$' -e '^home$' && false || true
}

@test "diff: two files, the same results and exit codes as check" {
	make_env "$T/e"
	"$EP" capture -q --no-discover --site-packages "$T/e/sp" -o a.json
	run "$EP" diff a.json a.json --json same.json
	[ "$status" -eq 0 ] || [ "$(jq -r '[.results[] | select(.status == "fail") | .key | select(startswith("stack.") | not)] | length' same.json)" = 0 ]
	jq '.facts["python.pkg.extra-thing"] = "1.0"' a.json > b.json
	run "$EP" diff a.json b.json --json r.json
	[ "$status" -eq 1 ]
	validate_schema report r.json
	[ "$(jq -r '.results[] | select(.key == "python.pkg.extra-thing") | .status' r.json)" = fail ]
	[ "$(jq -r .command r.json)" = diff ]
	run "$EP" diff a.json
	[ "$status" -eq 2 ]
	run "$EP" diff a.json missing.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"missing.json"* ]]
}

@test "diff: a store spec STORE#REF:PROFILE against a file" {
	make_env "$T/e"
	"$EP" bless -q --no-discover --site-packages "$T/e/sp" > /dev/null
	"$EP" capture -q --no-discover --site-packages "$T/e/sp" -o now.json
	run "$EP" diff "$T/.envparity/store#:default" now.json --json r.json
	echo "$output"
	[[ "$(jq -r .golden.commit r.json)" =~ ^[0-9a-f]{40}$ ]]
	[ "$(jq -r '[.results[] | select(.area == "python" and .status != "pass")] | length' r.json)" = 0 ]
	run "$EP" diff "$T/.envparity/store#main:nosuchprofile" now.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"no golden manifest for profile nosuchprofile"* ]]
}
