#!/usr/bin/env bats
# policy_guard.bats: a waiver, or a rule that lets drift pass, whose glob
# covers every key or every key of an area is refused by what the glob
# is, however it is spelled ("*[!]]" and "[!r]*" missed every key the
# old guard sampled): at `waive` before the store is touched, and when a
# policy holding one is read (diff, check, bless), exit 2, one line
# naming the file, the entry and why.  Globs that only look wide stand.

load setup

setup_file() {
	export ENVPARITY_AUTHOR="Ada Lovelace <ada@example.org>"
	unset ENVPARITY_STORE ENVPARITY_PROFILE
}

W="--reason rollout --owner ml-platform --expires 2099-12-31"

# A store whose golden cur.json drifts from in three keys of two areas.
golden() {
	git init -q --bare -b main s.git
	manifest g.json '{"python.pkg.numpy": "1.26.4", "lib.cudnn.version": "9.1.0",
	    "lib.cudnn.sha256": "aa", "gpu.0.name": "H100"}'
	manifest cur.json '{"python.pkg.numpy": "2.0.0", "lib.cudnn.version": "9.2.0",
	    "lib.cudnn.sha256": "bb", "gpu.0.name": "H100"}'
	"$EP" bless -q --store s.git g.json >/dev/null
}

head_of() {
	git --git-dir=s.git rev-parse main
}

# Commit policy text as default/policy.json with git itself, as a push
# to the store would.
put_policy() { # json
	rm -rf wt
	git clone -q s.git wt
	printf '%s\n' "$1" >wt/default/policy.json
	git -C wt add default/policy.json
	git -C wt -c user.name=M -c user.email=m@x commit -qm policy
	git -C wt push -q origin main
	rm -rf wt
}

# The keys of diff's JSON report r.json with status $1, sorted; the
# checks that need no golden (stack.*) left aside.
keys_with() { # status
	jq -c --arg s "$1" '[.results[] | select(.status == $s and .area != "stack")
	    | .key] | sort' r.json
}

@test "waive refuses a glob that covers every key or a whole area: exit 2, one line, nothing committed" {
	golden
	before=$(head_of)
	for g in '*' '*[!]]' '[!r]*' '*?*' '**' '[^.]*' '*.*' '*.*.*' '[a-z]*' \
	    '[!]]*'; do
		run "$EP" waive --store s.git $W "$g"
		[ "$status" -eq 2 ] || { echo "$g: $status $output"; false; }
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "envparity waive: key '$g': a waiver for every key hides every finding ("*"): name the keys the finding is about" ]]
		[ "$(head_of)" = "$before" ]
	done
	for g in 'python.*' 'p*' '*n.*' '[p]ython.*' 'python*' 'lib.*' 'gpu.[0-9]*'; do
		run "$EP" waive --store s.git $W "$g"
		[ "$status" -eq 2 ] || { echo "$g: $status $output"; false; }
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "envparity waive: key '$g': a waiver for every key of area"*" hides every finding there"* ]]
		[ "$(head_of)" = "$before" ]
	done
	[[ "$output" == *"of area gpu hides"* ]]
	run "$EP" waive --store s.git $W '*n.*'
	[[ "$output" == *"of areas golden, python hides"* ]]
	# Nothing was waived: every drift still fails.
	run "$EP" diff --json r.json "s.git#main:default" cur.json
	[ "$status" -eq 1 ]
	[ "$(keys_with fail)" = '["lib.cudnn.sha256","lib.cudnn.version","python.pkg.numpy"]' ]

	# Globs that look wide but are not: taken, and they waive what
	# they name, no more.
	"$EP" waive -q --store s.git $W '*.sha256'
	"$EP" waive -q --store s.git $W 'python.pkg.*'
	[ "$(head_of)" != "$before" ]
	run "$EP" diff --json r.json "s.git#main:default" cur.json
	[ "$status" -eq 1 ]
	[ "$(keys_with waived)" = '["lib.cudnn.sha256","python.pkg.numpy"]' ]
	[ "$(keys_with fail)" = '["lib.cudnn.version"]' ]
}

@test "a policy holding a catch-all waiver or a rule that lets every drift pass: refused when read, exit 2, nothing blessed" {
	golden
	w='{"key": "KEY", "reason": "r", "owner": "o", "expires": "2099-12-31"}'
	for entry in \
	    "waivers|$w|*[!]]|a waiver for every key hides every finding" \
	    "waivers|$w|[!r]*|a waiver for every key hides every finding" \
	    "waivers|$w|python.*|a waiver for every key of area python hides" \
	    'rules|{"key": "KEY", "rule": "present"}|*|rule "present" for every key lets every drift pass' \
	    'rules|{"key": "KEY", "rule": "ignore"}|*|rule "ignore" for every key lets every drift pass' \
	    'rules|{"key": "KEY", "rule": "ignore"}|[!r]*|rule "ignore" for every key lets every drift pass' \
	    'rules|{"key": "KEY", "rule": "exact", "severity": "warn"}|*|severity "warn" for every key lets every drift pass' \
	    'rules|{"key": "KEY", "rule": "exact", "missing": "ignore"}|*.*|missing "ignore" for every key lets every drift pass' \
	    'rules|{"key": "KEY", "rule": "version", "range": ">=0"}|?*|rule "version" for every key lets every drift pass' \
	    'rules|{"key": "KEY", "rule": "present"}|*n.*|rule "present" covers every key of areas golden, python without naming it'; do
		IFS='|' read -r section json key want <<<"$entry"
		put_policy "$(jq -n --arg s "$section" --argjson e "$json" --arg k "$key" \
		    '{schema: "envparity/policy@1"} + {($s): [$e | .key = $k]}')"
		at=$(head_of)
		run "$EP" diff --json r.json "s.git#main:default" cur.json
		[ "$status" -eq 2 ] || { echo "$key: $status $output"; false; }
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "envparity diff: s.git#main:default/policy.json: $section[0] (key \"$key\"): $want"* ]] ||
		    { echo "$output"; false; }
		[ ! -e r.json ]
		# bless reads the policy too: nothing is committed.
		run "$EP" bless --store s.git cur.json
		[ "$status" -eq 2 ]
		[[ "$output" == *"policy.json: $section[0] (key \"$key\"): $want"* ]]
		[ "$(head_of)" = "$at" ]
	done
}

@test "rules that relax an area by its name, and the strict catch-all, stand" {
	golden
	put_policy '{"schema": "envparity/policy@1", "rules": [
	    {"key": "lib.*", "rule": "ignore", "reason": "another CUDA stack on purpose"},
	    {"key": "python.pkg.*", "rule": "exact", "severity": "warn"},
	    {"key": "gpu.*", "rule": "present"},
	    {"key": "*", "rule": "exact", "missing": "fail"}]}'
	run "$EP" diff --json r.json "s.git#main:default" cur.json
	[ "$status" -eq 0 ]
	[ "$(keys_with warn)" = '["python.pkg.numpy"]' ]
	[ "$(keys_with pass)" = '["gpu.0.name"]' ]
	# A key of an area nobody named is still judged.
	manifest new.json '{"python.pkg.numpy": "1.26.4", "lib.cudnn.version": "9.1.0",
	    "lib.cudnn.sha256": "aa", "gpu.0.name": "H100", "conda.pkg.mkl": "2024.0"}'
	run "$EP" diff --json r.json "s.git#main:default" new.json
	[ "$status" -eq 1 ]
	[ "$(keys_with fail)" = '["conda.pkg.mkl"]' ]
}
