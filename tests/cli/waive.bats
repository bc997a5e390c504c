#!/usr/bin/env bats
# waive.bats: `envparity waive` and `unwaive` on local stores: a waiver
# that check then reports as waived and that unwaive takes back; the
# shared policy at the store's root covering every profile, a profile's
# own rule or waiver overriding it; the policy file kept as its owner
# wrote it; every bad input exit 2 with the store untouched; two commits
# at once (the compare-and-swap bless uses); log listing policy commits;
# bless --dry-run; nested profiles (train/h100) end to end; and unwaive
# saying so when a glob or a shared waiver still covers the key.

load setup

bats_require_minimum_version 1.5.0

setup_file() {
	export ENVPARITY_AUTHOR="Ada Lovelace <ada@example.org>"
	unset ENVPARITY_STORE ENVPARITY_PROFILE
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

head_of() { # store
	git --git-dir="$1" rev-parse main
}

# A store with profiles p1 and p2 whose golden has a=1, b=1, and a
# current manifest where a and b are 2.
two_profiles() {
	git init -q --bare -b main s.git
	mk g.json h a=1 b=1 c=1
	mk cur.json h a=2 b=2 c=1
	"$EP" bless -q --store s.git --profile p1 g.json >/dev/null
	"$EP" bless -q --store s.git --profile p2 g.json >/dev/null
}

W="--reason rollout --owner ml-platform --expires 2099-12-31"

@test "waive, then check: the finding is waived; unwaive: it fails again" {
	git init -q --bare -b main s.git
	"$EP" capture --no-discover -o cur.json 2>/dev/null
	jq '.facts["cpu.model"] = "the golden cpu"' cur.json >g.json
	"$EP" bless -q --store s.git g.json
	run "$EP" check -q --no-discover --store s.git
	[ "$status" -eq 1 ]

	run "$EP" waive --store s.git --reason "new hardware" --owner infra \
	    --expires 2099-12-31 --actual "$(jq -r '.facts["cpu.model"]' cur.json) " cpu.model
	[ "$status" -eq 0 ]
	[[ "$output" == "waived cpu.model in default/policy.json at "*" on s.git main" ]]
	# A waiver for another value waives nothing.
	run "$EP" check --no-discover --store s.git
	[ "$status" -eq 1 ]
	[[ "$output" == *"the waiver by infra covers only"* ]]

	# The same key again replaces the waiver, now for any value.
	run "$EP" waive --store s.git --reason "new hardware" --owner infra \
	    --expires 2099-12-31 cpu.model
	[ "$status" -eq 0 ]
	[ "$(git --git-dir=s.git show main:default/policy.json | jq '.waivers | length')" -eq 1 ]
	[ "$(git --git-dir=s.git log -1 --format=%s main)" = "waive cpu.model (infra): new hardware" ]
	[ "$(git --git-dir=s.git log -1 --format='%an <%ae>' main)" = "Ada Lovelace <ada@example.org>" ]
	run "$EP" check --no-discover --store s.git --json r.json
	[ "$status" -eq 0 ]
	[[ "$output" == *"waived  cpu.model: expected the golden cpu"*"waived by infra until 2099-12-31: new hardware"* ]]
	jq -e '[.results[] | select(.key == "cpu.model" and .status == "waived")] | length == 1' r.json

	run "$EP" unwaive --store s.git -m "hardware is back" cpu.model
	[ "$status" -eq 0 ]
	[[ "$output" == "unwaived cpu.model in default/policy.json at "* ]]
	[ "$(git --git-dir=s.git log -1 --format=%s main)" = "hardware is back" ]
	run "$EP" check -q --no-discover --store s.git
	[ "$status" -eq 1 ]
	# Nothing left to take back: exit 2, nothing committed.
	before=$(head_of s.git)
	run "$EP" unwaive --store s.git cpu.model
	[ "$status" -eq 2 ]
	[ "$output" = "envparity unwaive: s.git#main:default/policy.json: no waiver for 'cpu.model' (the key must be written as the waiver names it)" ]
	[ "$(head_of s.git)" = "$before" ]
}

@test "a shared waiver covers every profile; a profile's own rule or waiver wins" {
	two_profiles
	run "$EP" diff -q "s.git#:p1" cur.json
	[ "$status" -eq 1 ]
	run "$EP" waive --store s.git --shared $W a
	[ "$status" -eq 0 ]
	[[ "$output" == "waived a in policy.json at "* ]]
	[ "$(git --git-dir=s.git log -1 --format=%s main)" = "waive a in the shared policy (ml-platform): rollout" ]
	"$EP" waive -q --store s.git --shared $W b
	for p in p1 p2; do
		run "$EP" diff "s.git#:$p" cur.json
		[ "$status" -eq 0 ] || { echo "$output"; false; }
		[[ "$output" == *"waived  a: expected 1, got 2; waived (shared policy) by ml-platform until 2099-12-31: rollout"* ]]
	done
	# p2 says otherwise for b: its own waiver (expired) replaces the
	# shared one, and its own rule for a (exact, a warning) comes first.
	git clone -q s.git wt
	mkdir -p wt/p2
	cat >wt/p2/policy.json <<-'EOF'
	{"schema": "envparity/policy@1",
	 "rules": [{"key": "c", "rule": "absent"}],
	 "waivers": [{"key": "b", "reason": "old", "owner": "p2team", "expires": "2001-01-01"}]}
	EOF
	git -C wt add p2/policy.json
	git -C wt -c user.name=t -c user.email=t@x commit -qm p2
	git -C wt push -q origin main
	run "$EP" diff "s.git#:p2" cur.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL    b: expected 1, got 2; waiver by p2team expired on 2001-01-01: old"* ]]
	[[ "$output" == *"FAIL    c"* ]]
	[[ "$output" == *"waived  a:"*"(shared policy)"* ]]
	run "$EP" diff "s.git#:p1" cur.json
	[ "$status" -eq 0 ]
}

@test "waive keeps the rest of the policy as written, in its order, indented" {
	git init -q --bare -b main s.git
	git clone -q s.git wt
	mkdir -p wt/gpu
	printf '%s\n' '{"schema": "envparity/policy@1", "description": "gpu nodes", "rules": [{"rule": "ignore", "key": "os.kernel", "reason": "hosts"}], "waivers": [{"key": "z", "reason": "r", "owner": "o", "expires": "2099-01-01"}]}' >wt/gpu/policy.json
	git -C wt add gpu
	git -C wt -c user.name=t -c user.email=t@x commit -qm init
	git -C wt push -q origin main
	"$EP" waive -q --store s.git --profile gpu $W "lib.*.sha256"
	git --git-dir=s.git show main:gpu/policy.json >got
	cat >want <<-'EOF'
	{
	  "schema": "envparity/policy@1",
	  "description": "gpu nodes",
	  "rules": [
	    {
	      "rule": "ignore",
	      "key": "os.kernel",
	      "reason": "hosts"
	    }
	  ],
	  "waivers": [
	    {
	      "key": "z",
	      "reason": "r",
	      "owner": "o",
	      "expires": "2099-01-01"
	    },
	    {
	      "key": "lib.*.sha256",
	      "reason": "rollout",
	      "owner": "ml-platform",
	      "expires": "2099-12-31"
	    }
	  ]
	}
	EOF
	diff -u want got
	# The same waiver again: nothing to commit.
	before=$(head_of s.git)
	run "$EP" waive --store s.git --profile gpu $W "lib.*.sha256"
	[ "$status" -eq 0 ]
	[[ "$output" == "already waived lib.*.sha256 in gpu/policy.json at $before on s.git main" ]]
	[ "$(head_of s.git)" = "$before" ]
}

@test "bad input is exit 2 with one line, and the store does not move" {
	two_profiles
	"$EP" waive -q --store s.git --profile p1 $W a
	git --git-dir=s.git tag v1 main
	before=$(head_of s.git)
	bad() { # expected-message args...
		local want=$1
		shift
		run "$EP" "$@"
		[ "$status" -eq 2 ] || { echo "$* -> $status: $output"; return 1; }
		[[ "$output" == *"$want"* ]] || { echo "$* -> $output"; return 1; }
		[ "$(head_of s.git)" = "$before" ] || { echo "$* moved the store"; return 1; }
	}
	bad "not a date" waive --store s.git --reason r --owner o --expires 2099-02-30 k
	bad "not a date" waive --store s.git --reason r --owner o --expires next-week k
	bad "already past" waive --store s.git --reason r --owner o --expires 2001-01-01 k
	bad "--reason is empty" waive --store s.git --reason "" --owner o --expires 2099-01-01 k
	bad "--reason is empty" waive --store s.git --reason "   " --owner o --expires 2099-01-01 k
	bad "--owner is empty" waive --store s.git --reason r --owner "" --expires 2099-01-01 k
	bad "needs --reason, --owner and --expires" waive --store s.git --reason r --expires 2099-01-01 k
	bad "not a fact key or pattern" waive --store s.git $W "lib.[x"
	bad "no blanks" waive --store s.git $W "a b"
	bad "a waiver for every key" waive --store s.git $W "*"
	bad "no KEY" waive --store s.git $W
	bad "unexpected argument 'b'" waive --store s.git $W a b
	bad "'--reason' is for waive" unwaive --store s.git --reason r a
	bad "no waiver for 'zz'" unwaive --store s.git --profile p1 zz
	bad "no such file, so no waiver for 'a'" unwaive --store s.git --profile p2 a
	bad "which is read-only" waive --store s.git --ref v1 --profile p1 $W b
	bad "the message is empty" waive --store s.git -m " " $W b
	# Not UTF-8: refused, never written without the field (a waiver
	# without its --actual would waive any value).
	bad "--actual is not UTF-8" waive --store s.git $W --actual $'2.\xff' b
	bad "--reason is not UTF-8" waive --store s.git --reason $'r\xc0' --owner o --expires 2099-01-01 b
	bad "--owner is not UTF-8" waive --store s.git --reason r --owner $'\xff' --expires 2099-01-01 b
	bad "is not UTF-8" waive --store s.git $W $'b.\xff'
	for p in a/../b /abs a//b a/ ./a a/.x "sp ace"; do
		bad "profile '$p'" waive --store s.git --profile "$p" $W a
		bad "profile '$p'" unwaive --store s.git --profile "$p" a
		bad "profile '$p'" policy --store s.git --profile "$p"
		bad "profile '$p'" log --store s.git --profile "$p"
		bad "profile '$p'" bless --store s.git --profile "$p" g.json
		bad "profile '$p'" check --no-discover --store s.git --profile "$p"
	done
	# A policy check would refuse is mended by hand, not edited.
	git clone -q s.git wt
	echo '{"schema": "envparity/policy@1", "rules": [{"key": "x", "rule": "bogus"}]}' >wt/p2/policy.json
	git -C wt add p2/policy.json
	git -C wt -c user.name=t -c user.email=t@x commit -qm bad
	git -C wt push -q origin main
	before=$(head_of s.git)
	bad 'unknown rule "bogus"' waive --store s.git --profile p2 $W a
	bad "s.git#main:p2/policy.json" check --no-discover --store s.git --profile p2
	[ ! -e .envparity ]
}

@test "two commits at once: waives of one policy (one wins whole), a waive and a bless (both land)" {
	mk g.json h a=1
	mk g2.json h a=2
	for i in $(seq 1 8); do
		rm -rf s.git
		git init -q --bare -b main s.git
		"$EP" bless -q --store s.git --profile p g.json >/dev/null
		( rc=0; "$EP" waive -q --store s.git --profile p $W ka >out.a 2>&1 || rc=$?; echo $rc >rc.a ) &
		pa=$!
		( rc=0; "$EP" waive -q --store s.git --profile p $W kb >out.b 2>&1 || rc=$?; echo $rc >rc.b ) &
		wait "$pa" "$!"
		ra=$(cat rc.a) rb=$(cat rc.b)
		keys=$(git --git-dir=s.git show main:p/policy.json | jq -r '[.waivers[].key] | sort | join(",")')
		if [ "$ra" -eq 0 ] && [ "$rb" -eq 0 ]; then
			# They did not overlap: the second read the first.
			[ "$keys" = "ka,kb" ]
		else
			# One lost the race: it says so, exit 3, and the
			# file holds the winner's waiver only.
			[ $((ra + rb)) -eq 3 ]
			loser=$([ "$ra" -eq 3 ] && echo a || echo b)
			grep -q "p/policy.json was changed by someone else (commit [0-9a-f]\{12\}) while this ran; nothing was committed" out.$loser
			[ "$keys" = "k$([ "$loser" = a ] && echo b || echo a)" ]
		fi

		# A bless of the same profile meanwhile changes another file:
		# both land.
		( rc=0; "$EP" waive -q --store s.git --profile p $W kc >out.a 2>&1 || rc=$?; echo $rc >rc.a ) &
		pa=$!
		( rc=0; "$EP" bless -q --store s.git --profile p g2.json >out.b 2>&1 || rc=$?; echo $rc >rc.b ) &
		wait "$pa" "$!"
		[ "$(cat rc.a)" -eq 0 ] || { cat out.a; false; }
		[ "$(cat rc.b)" -eq 0 ] || { cat out.b; false; }
		git --git-dir=s.git show main:p/policy.json | jq -e '[.waivers[].key] | index("kc") != null'
		[ "$(git --git-dir=s.git show main:p/manifest.json | jq -r .facts.a)" = 2 ]
	done
}

@test "a commit message holds no terminal escape; the default one is one line with no workflow command" {
	git init -q --bare -b main s.git
	mk g.json $'h\e]0;x\a\n::error::host' a=1
	# bless's default names the manifest's host: one line, cleaned.
	"$EP" bless -q --store s.git g.json >/dev/null
	msg=$(git --git-dir=s.git log -1 --format=%B main)
	[ "$(printf '%s' "$msg" | wc -l)" -eq 0 ]
	! printf '%s' "$msg" | grep -q $'\e'
	# waive's default quotes --owner and --reason: one line, no escape,
	# no line a CI log reads as a command ("::warning::", "::error::").
	"$EP" waive -q --store s.git --reason $'line1\n::error::x \e[31mred' \
	    --owner $'bob\n  ::warning::boo' --expires 2099-12-31 a
	msg=$(git --git-dir=s.git log -1 --format=%B main)
	[ "$(printf '%s' "$msg" | wc -l)" -eq 0 ]
	! printf '%s' "$msg" | grep -q $'\e'
	! printf '%s' "$msg" | grep -qE '^[[:space:]]*::'
	[[ "$msg" == "waive a (bob"*"::warning::boo): line1"*"::error::x "*"[31mred" ]]
	# The policy keeps the text as given (JSON escapes it).
	[ "$(git --git-dir=s.git show main:default/policy.json | jq -r '.waivers[0].owner')" = $'bob\n  ::warning::boo' ]
	"$EP" unwaive -q --store s.git "a"
	# -m is the user's own message: its lines kept, its escapes not.
	"$EP" waive -q --store s.git $W -m $'subject \e[2J\n\nbody\r' a
	msg=$(git --git-dir=s.git log -1 --format=%B main)
	! printf '%s' "$msg" | grep -q $'\e'
	[ "$(printf '%s\n' "$msg" | sed -n 1p)" = $'subject \u241b[2J' ]
	[ "$(printf '%s\n' "$msg" | sed -n 3p | cut -c1-4)" = body ]
}

@test "log lists policy commits, saying which files each changed" {
	git init -q --bare -b main s.git
	mk g.json h a=1
	mk g2.json h a=2
	"$EP" bless -q --store s.git --profile train/h100 g.json >/dev/null
	"$EP" waive -q --store s.git --profile train/h100 $W a
	"$EP" waive -q --store s.git --shared $W b
	"$EP" waive -q --store s.git --profile train $W c
	"$EP" bless -q --store s.git --profile other g.json >/dev/null
	"$EP" waive -q --store s.git --profile other $W d
	"$EP" bless -q --store s.git --profile train/h100 g2.json >/dev/null
	run "$EP" log --store s.git --profile train/h100
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 5 ]
	[[ "${lines[0]}" == *"  +0 -0 ~1  bless train/h100 from h" ]]
	[[ "${lines[1]}" == *"  train/policy.json  waive c (ml-platform): rollout" ]]
	[[ "${lines[2]}" == *"  shared policy  waive b in the shared policy (ml-platform): rollout" ]]
	[[ "${lines[3]}" == *"  policy  waive a (ml-platform): rollout" ]]
	[[ "${lines[4]}" == *"  +1 -0 ~0  bless train/h100 from h" ]]
	run "$EP" log --store s.git --profile other
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[0]}" == *"  policy  waive d (ml-platform): rollout" ]]
	[[ "${lines[1]}" == *"  +1 -0 ~0  bless other from h" ]]
	[[ "${lines[2]}" == *"  shared policy  waive b"* ]]
	# A commit made by hand that changes the manifest and the policy.
	git clone -q s.git wt
	mk wt/other/manifest.json h a=3
	echo '{"schema": "envparity/policy@1"}' >wt/other/policy.json
	git -C wt add -A
	git -C wt -c user.name=t -c user.email=t@x commit -qm both
	git -C wt push -q origin main
	run "$EP" log --store s.git --profile other --max 1
	[[ "${lines[0]}" == *"  +0 -0 ~1, policy  both" ]]
}

@test "bless --dry-run shows what would change and writes nothing" {
	git init -q --bare -b main s.git
	mk g.json h a=1 b=1 c=1
	mk g2.json h a=1 b=2 d=1
	"$EP" bless -q --store s.git g.json >/dev/null
	before=$(head_of s.git)
	run "$EP" bless --dry-run --store s.git g2.json
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "would bless default on s.git main: +1 -1 ~1 against commit ${before:0:12}" ]
	[ "${lines[1]}" = "    + d = 1" ]
	[ "${lines[2]}" = "    - c (was 1)" ]
	[ "${lines[3]}" = "    ~ b: 1 -> 2" ]
	[ "$(head_of s.git)" = "$before" ]
	run "$EP" bless --dry-run --store s.git g.json
	[ "$status" -eq 0 ]
	[ "$output" = "no change: default on s.git main (commit ${before:0:12}) already holds this manifest; nothing would be blessed" ]
	mk g3.json other-host a=1 b=1 c=1
	run "$EP" bless --dry-run --store s.git g3.json
	[ "$status" -eq 0 ]
	[[ "$output" == "no change in facts: "* ]]
	run "$EP" bless --dry-run --store s.git --profile train/h100 g.json
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "would bless train/h100 on s.git main: +3 -0 ~0 against no golden yet" ]
	[ "$(head_of s.git)" = "$before" ]
	[ "$(git --git-dir=s.git for-each-ref | wc -l)" -eq 1 ]
	# The default store is not created by a rehearsal.
	run "$EP" bless --dry-run g.json
	[ "$status" -eq 0 ]
	[ ! -e .envparity ]
}

@test "a nested profile, train/h100: bless, waive, check, diff, fleet, policy, log" {
	git init -q --bare -b main s.git
	"$EP" capture --no-discover -o cur.json 2>/dev/null
	jq '.facts["cpu.model"] = "the golden cpu"' cur.json >g.json
	run "$EP" bless --store s.git --profile train/h100 g.json
	[ "$status" -eq 0 ]
	[[ "$output" == "blessed train/h100 at "* ]]
	[ "$(git --git-dir=s.git ls-tree -r --name-only main)" = train/h100/manifest.json ]
	ENVPARITY_PROFILE=train/h100 run "$EP" check -q --no-discover --store s.git
	[ "$status" -eq 1 ]
	# The folder's policy covers every profile under train/.
	"$EP" waive -q --store s.git --profile train $W cpu.model
	run "$EP" check --no-discover --store s.git --profile train/h100
	[ "$status" -eq 0 ]
	[[ "$output" == *"waived  cpu.model:"*"waived (train/policy.json) by ml-platform"* ]]
	run "$EP" diff "s.git#main:train/h100" cur.json
	[ "$status" -eq 0 ]
	jq '.meta.host = "n1" | .meta.node = "n1"' cur.json >n1.json
	jq '.meta.host = "n2" | .meta.node = "n2"' cur.json >n2.json
	run "$EP" fleet --store s.git --profile train/h100 n1.json n2.json
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	run "$EP" policy --store s.git --profile train/h100 --json
	[ "$status" -eq 0 ]
	jq -e '.profile == "train/h100" and (.waivers[0] | .key == "cpu.model" and .origin == "train/policy.json" and .scope == "inherited")' <<<"$output"
	run "$EP" log --store s.git --profile train/h100
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == *"  train/policy.json  waive cpu.model"* ]]
	# A sibling is not under train/h100's own policy, but under train's.
	"$EP" bless -q --store s.git --profile train/a100 g.json >/dev/null
	run "$EP" check -q --no-discover --store s.git --profile train/a100
	[ "$status" -eq 0 ]
	run "$EP" check -q --no-discover --store s.git --profile nodes/gpu07
	[ "$status" -eq 2 ]
	[[ "$output" == *"no golden manifest for profile nodes/gpu07"*"--profile nodes/gpu07"* ]]
}

@test "unwaive while a glob, or a shared waiver, still covers the key: removed, and said plainly, never 'unwaived'" {
	git init -q --bare -b main s.git
	mk g.json h python.pkg.numpy=1.26.4 python.pkg.torch=2.3.0 lib.x.version=1
	mk cur.json h python.pkg.numpy=2.0.0 python.pkg.torch=2.3.0 lib.x.version=2
	"$EP" bless -q --store s.git --profile p1 g.json >/dev/null
	"$EP" waive -q --store s.git --profile p1 $W python.pkg.numpy
	"$EP" waive -q --store s.git --profile p1 --reason "numpy 2" \
	    --owner ml-platform --expires 2099-06-30 'python.pkg.*'
	before=$(head_of s.git)

	# A glob in the same file still covers it.
	run --separate-stderr "$EP" unwaive --store s.git --profile p1 python.pkg.numpy
	[ "$status" -eq 0 ]
	after=$(head_of s.git)
	[ "$after" != "$before" ]
	[ "$output" = "removed the waiver for python.pkg.numpy from p1/policy.json at $after on s.git main" ]
	[ "$stderr" = "envparity unwaive: warning: python.pkg.numpy is still waived for profile p1: by the waiver for 'python.pkg.*' in p1/policy.json (profile), owner ml-platform, until 2099-06-30: unwaive that one too, or the check keeps waiving python.pkg.numpy" ]
	jq -e '[.waivers[].key] == ["python.pkg.*"]' <(git --git-dir=s.git show main:p1/policy.json)
	run "$EP" diff "s.git#main:p1" cur.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"waived  python.pkg.numpy:"*"waived by ml-platform until 2099-06-30: numpy 2"* ]]
	# -q keeps the warning: it is not success talk.
	"$EP" waive -q --store s.git --profile p1 $W python.pkg.numpy
	run --separate-stderr "$EP" unwaive -q --store s.git --profile p1 python.pkg.numpy
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
	[[ "$stderr" == "envparity unwaive: warning: python.pkg.numpy is still waived for profile p1"* ]]
	# Naming the key a glob covers, with no waiver of its own: the
	# refusal says which waiver to take back.
	run "$EP" unwaive --store s.git --profile p1 python.pkg.numpy
	[ "$status" -eq 2 ]
	[ "$output" = "envparity unwaive: s.git#main:p1/policy.json: no waiver for 'python.pkg.numpy' (the key must be written as the waiver names it: the waiver for 'python.pkg.*' covers it)" ]
	"$EP" unwaive -q --store s.git --profile p1 'python.pkg.*'

	# A shared waiver for the same key, shadowed while the profile had
	# its own, covers it once that one is gone; and an inherited one.
	"$EP" waive -q --store s.git --profile p1 $W lib.x.version
	"$EP" waive -q --store s.git --shared --reason "driver rollout" \
	    --owner infra --expires 2099-08-31 --actual 2 lib.x.version
	run --separate-stderr "$EP" unwaive --store s.git --profile p1 lib.x.version
	[ "$status" -eq 0 ]
	[[ "$output" == "removed the waiver for lib.x.version from p1/policy.json at "* ]]
	[ "$stderr" = "envparity unwaive: warning: lib.x.version is still waived for profile p1: by the waiver for 'lib.x.version' in policy.json (shared), for 2, owner infra, until 2099-08-31: unwaive that one too, or the check keeps waiving lib.x.version" ]
	run "$EP" diff "s.git#main:p1" cur.json
	[[ "$output" == *"waived  lib.x.version:"*"(shared policy) by infra"* ]]
	# Taken back where it stands: now it is unwaived, and says so.
	run --separate-stderr "$EP" unwaive --store s.git --shared lib.x.version --profile p1
	[ "$status" -eq 0 ]
	[[ "$output" == "unwaived lib.x.version in policy.json at "*" on s.git main" ]]
	[ "$stderr" = "" ]
	run "$EP" diff "s.git#main:p1" cur.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL    lib.x.version"* ]]
	[[ "$output" == *"FAIL    python.pkg.numpy"* ]]
}

@test "waive of a key that names no fact of the golden: committed, and a warning naming the profile at once" {
	two_profiles
	# A typo: committed (the owner may mean a fact to come), but said.
	run --separate-stderr "$EP" waive --store s.git --profile p1 $W python.pkg.clik
	[ "$status" -eq 0 ]
	[[ "$output" == "waived python.pkg.clik in p1/policy.json at "* ]]
	[ "$stderr" = "envparity waive: warning: 'python.pkg.clik' matches no fact of profile p1's golden (s.git#main:p1/manifest.json): a typo? The waiver is committed; unwaive python.pkg.clik to take it back" ]
	git --git-dir=s.git show main:p1/policy.json | jq -e '.waivers[] | select(.key == "python.pkg.clik")'
	# Even with -q: the warning is the point.
	run --separate-stderr "$EP" waive -q --store s.git --profile p2 $W 'python.pkg.tensorflow-*'
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[[ "$stderr" == *"'python.pkg.tensorflow-*' matches no fact of profile p2's golden"* ]]
	# A key or a glob that names a fact: no warning.
	for k in a 'b*' 'c'; do
		run --separate-stderr "$EP" waive --store s.git --profile p1 $W "$k"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
	done
	# A result that check makes without a fact (stack.*, store.history),
	# a shared waiver (other profiles' facts), and a profile with no
	# golden yet: nothing to hold the key to, no warning.
	for args in "stack.cudnn_sublibs" "store.history" "--shared zz.typo" \
	    "--profile p3 zz.typo"; do
		run --separate-stderr "$EP" waive --store s.git --profile p1 $W $args
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
	done
}
