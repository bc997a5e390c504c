#!/usr/bin/env bats
# store.bats: bless and log against local stores (the default one, bare and
# non-bare repositories): what is committed, by whom, what is left alone,
# and the exit codes.

load setup

# A small manifest: mk FILE HOST KEY=VALUE...
mk() {
	local f=$1 host=$2 facts='{}' kv
	shift 2
	for kv in "$@"; do
		facts=$(jq -c --arg k "${kv%%=*}" --arg v "${kv#*=}" \
		    '. + {($k): $v}' <<<"$facts")
	done
	jq -n --arg h "$host" --argjson f "$facts" \
	    '{schema: "envparity/manifest@1", meta: {host: $h}, facts: $f}' >"$f"
}

# The canonical form envparity commits: sorted keys, two-space indent.
canon() {
	jq -S --indent 2 . "$1"
}

setup_file() {
	export ENVPARITY_AUTHOR="Ada Lovelace <ada@example.org>"
	unset ENVPARITY_STORE ENVPARITY_PROFILE GITHUB_ACTOR GITLAB_USER_NAME \
	    GITLAB_USER_EMAIL
}

@test "bless and log --help document their options" {
	run "$EP" bless --help
	[ "$status" -eq 0 ]
	for opt in --store --ref --profile --message --lib-path \
	    ENVPARITY_AUTHOR ENVPARITY_GIT_TOKEN ENVPARITY_SSH_KEY; do
		[[ "$output" == *"$opt"* ]] || { echo "missing $opt"; false; }
	done
	run "$EP" log --help
	[ "$status" -eq 0 ]
	for opt in --store --ref --profile --verbose --max; do
		[[ "$output" == *"$opt"* ]] || { echo "missing $opt"; false; }
	done
	run "$EP" --help
	[[ "$output" == *"bless"* && "$output" == *"log"* ]]
}

@test "the first bless creates .envparity/store and commits the canonical manifest" {
	mk m.json builder1 os.id=debian python.pkg.numpy=1.26.4
	jq -c . m.json >compact.json	# same facts, other bytes
	[ ! -e .envparity ]
	run "$EP" bless compact.json
	[ "$status" -eq 0 ]
	commit=$(git --git-dir=.envparity/store rev-parse main)
	[ "$output" = "blessed default at $commit on .envparity/store main" ]
	[ "$(git --git-dir=.envparity/store rev-parse --is-bare-repository)" = true ]
	git --git-dir=.envparity/store show main:default/manifest.json >stored
	canon m.json | cmp - stored
	[ "$(git --git-dir=.envparity/store log -1 --format='%an <%ae>|%s')" = \
	    "Ada Lovelace <ada@example.org>|bless default from builder1" ]
	[ "$(git --git-dir=.envparity/store ls-tree -r --name-only main)" = \
	    default/manifest.json ]
}

@test "log on a store that does not exist yet: exit 2 with the bless command, nothing created" {
	run "$EP" log
	[ "$status" -eq 2 ]
	[ "$output" = "envparity log: profile default has no golden manifest in .envparity/store main; bless one with: envparity bless" ]
	[ ! -e .envparity ]
	git init -q --bare -b main s.git
	run "$EP" log --store s.git --profile gpu
	[ "$status" -eq 2 ]
	[[ "$output" == *"bless one with: envparity bless --store s.git --profile gpu" ]]
}

@test "log lists each bless with added, removed and changed fact counts" {
	git init -q --bare -b main s.git
	mk m1.json h1 a=1 b=1 c=1
	mk m2.json h2 a=1 b=2 d=1 e=1
	mk other.json h3 z=1
	"$EP" bless --store s.git -m "first golden" m1.json
	"$EP" bless --store s.git --profile other other.json
	"$EP" bless --store s.git m2.json
	c1=$(git --git-dir=s.git rev-parse --short=12 main~2)
	c3=$(git --git-dir=s.git rev-parse --short=12 main)
	run "$EP" log --store s.git
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" =~ ^$c3\ \ [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z\ \ Ada\ Lovelace\ \<ada@example.org\>\ \ \+2\ -1\ ~1\ \ bless\ default\ from\ h2$ ]]
	[[ "${lines[1]}" == "$c1  "*"  +3 -0 ~0  first golden" ]]
	run "$EP" log --store s.git -v --max 1
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 5 ]
	[ "${lines[1]}" = "    + d = 1" ]
	[ "${lines[2]}" = "    + e = 1" ]
	[ "${lines[3]}" = "    - c (was 1)" ]
	[ "${lines[4]}" = "    ~ b: 1 -> 2" ]
	run "$EP" log --store s.git --profile other
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *"+1 -0 ~0  bless other from h3" ]]
	run "$EP" log --store s.git --max 0
	[ "$status" -eq 2 ]
}

@test "log says which commit holds an unreadable manifest and goes on" {
	git init -q --bare -b main s.git
	mk m1.json h1 a=1
	"$EP" bless --store s.git m1.json
	# A commit made by hand with garbage in the manifest.
	git clone -q s.git wt
	echo '{"schema": "envparity/manifest@9"}' >wt/default/manifest.json
	git -C wt -c user.name=X -c user.email=x@y commit -qam garbage
	git -C wt push -q origin main
	run "$EP" log --store s.git -v
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *"X <x@y>  unreadable  garbage" ]]
	[[ "${lines[1]}" == *"unsupported manifest schema"* ]]
	[[ "${lines[2]}" == *"+1 -0 ~0  bless default from h1" ]]
}

@test "a store with a work tree: another branch moves, the work tree and index do not" {
	git init -q -b main wt
	git -C wt -c user.name=X -c user.email=x@y commit -q --allow-empty -m init
	git -C wt branch golden
	echo "notes" >wt/README
	echo "staged" >wt/staged
	git -C wt add staged
	before=$(git -C wt status --porcelain)
	index=$(sha256sum <wt/.git/index)
	mk m.json h1 a=1
	run "$EP" bless --store wt --ref golden m.json
	[ "$status" -eq 0 ]
	[ "$output" = "blessed default at $(git -C wt rev-parse golden) on wt golden" ]
	[ "$(sha256sum <wt/.git/index)" = "$index" ]
	[ "$(cat wt/README)" = notes ]
	[ ! -e wt/default ]
	git -C wt show golden:default/manifest.json | cmp - <(canon m.json)
	[ "$(git -C wt status --porcelain)" = "$before" ]
}

@test "bless onto the branch a work tree has checked out: refused, as git refuses such a push" {
	git init -q -b main wt
	git -C wt -c user.name=X -c user.email=x@y commit -q --allow-empty -m init
	head=$(git -C wt rev-parse main)
	objects=$(find wt/.git/objects -type f | wc -l)
	mk m.json h1 a=1
	run "$EP" bless --store wt m.json
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "envparity bless: store wt: branch main is checked out in the work tree $T/wt, where the next commit would undo a bless; bless a bare repository (git clone --bare), or check out another branch there" ]
	[ "$(git -C wt rev-parse main)" = "$head" ]
	[ "$(find wt/.git/objects -type f | wc -l)" -eq "$objects" ]
	# What the refusal prevents: the next "commit -a" there undoing it.
	# The same before the branch's first commit, and in a linked work tree.
	git init -q -b main fresh
	run "$EP" bless --store fresh m.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"branch main is checked out in the work tree $T/fresh,"* ]]
	! git -C fresh rev-parse -q --verify main || false
	git -C wt worktree add -q ../linked -b golden
	run "$EP" bless --store wt --ref golden m.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"branch golden is checked out in the work tree $T/linked,"* ]]
	# A bare clone takes it.
	git clone -q --bare wt bare.git
	run "$EP" bless --store bare.git m.json
	[ "$status" -eq 0 ]
}

@test "a malformed manifest: exit 2, nothing committed" {
	git init -q --bare -b main s.git
	mk m.json h1 a=1
	"$EP" bless --store s.git m.json
	ref=$(git --git-dir=s.git rev-parse main)
	objects=$(find s.git/objects -type f | wc -l)
	printf '{"schema": "envparity/manifest@1", "facts": {"a": 1}}' >bad.json
	run "$EP" bless --store s.git bad.json
	[ "$status" -eq 2 ]
	[ "$output" = 'envparity bless: bad.json: fact "a" is not a string' ]
	echo 'not json' >bad2.json
	run "$EP" bless --store s.git bad2.json
	[ "$status" -eq 2 ]
	[[ "$output" == "envparity bless: bad2.json: not a manifest"* ]]
	run "$EP" bless --store s.git missing.json
	[ "$status" -eq 2 ]
	[ "$(git --git-dir=s.git rev-parse main)" = "$ref" ]
	[ "$(find s.git/objects -type f | wc -l)" -eq "$objects" ]
}

@test "bad store names, profiles, refs and options are exit 2; a missing store is exit 3" {
	mk m.json h1 a=1
	run "$EP" bless --store ftp://example.org/x m.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"unsupported scheme 'ftp'"* ]]
	run "$EP" bless --store "" m.json
	[ "$status" -eq 2 ]
	for p in ../up .hidden a//b a/../b /abs a/ a/./b "sp ace"; do
		run "$EP" bless --profile "$p" m.json
		[ "$status" -eq 2 ] || { echo "profile $p: $output"; false; }
	done
	ENVPARITY_PROFILE=../x run "$EP" log
	[ "$status" -eq 2 ]
	run "$EP" bless --ref 'bad..ref' m.json
	[ "$status" -eq 2 ]
	run "$EP" bless --lib-path /tmp m.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"collector options apply only when bless captures"* ]]
	run "$EP" bless m.json extra
	[ "$status" -eq 2 ]
	run "$EP" bless -m "  " m.json
	[ "$status" -eq 2 ]
	ENVPARITY_AUTHOR="no email" run "$EP" bless m.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"ENVPARITY_AUTHOR 'no email'"* ]]
	[ ! -e .envparity ]
	run "$EP" bless --store /nonexistent/store m.json
	[ "$status" -eq 3 ]
	[ "$output" = "envparity bless: store /nonexistent/store: no such repository" ]
	mkdir plain
	run "$EP" log --store plain
	[ "$status" -eq 3 ]
	[[ "$output" == "envparity log: store plain: not a git repository"* ]]
}

@test "ENVPARITY_STORE and ENVPARITY_PROFILE set the defaults; flags win" {
	git init -q --bare -b main env.git
	git init -q --bare -b main flag.git
	mk m.json h1 a=1
	ENVPARITY_STORE=env.git ENVPARITY_PROFILE=gpu run "$EP" bless m.json
	[ "$status" -eq 0 ]
	[[ "$output" == "blessed gpu at "*" on env.git main" ]]
	git --git-dir=env.git cat-file -e main:gpu/manifest.json
	ENVPARITY_STORE=env.git ENVPARITY_PROFILE=gpu run "$EP" bless \
	    --store flag.git --profile cpu m.json
	[ "$status" -eq 0 ]
	git --git-dir=flag.git cat-file -e main:cpu/manifest.json
	ENVPARITY_STORE=env.git ENVPARITY_PROFILE=gpu run "$EP" log
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
}

@test "--ref names the branch; the default is HEAD's branch" {
	git init -q --bare -b trunk s.git
	mk m.json h1 a=1
	run "$EP" bless --store s.git m.json
	[[ "$output" == *" on s.git trunk" ]]
	run "$EP" bless --store s.git --ref golden m.json
	[[ "$output" == *" on s.git golden" ]]
	[ "$(git --git-dir=s.git rev-list --count golden)" -eq 1 ]
	[ "$(git --git-dir=s.git rev-list --count trunk)" -eq 1 ]
}

@test "the author: ENVPARITY_AUTHOR, then CI variables, then git config, then envparity@HOST" {
	git init -q --bare -b main s.git
	author() {
		git --git-dir=s.git log -1 --format='%an <%ae>|%cn <%ce>'
	}
	n=0
	next() { n=$((n + 1)); mk m.json h1 n="$n"; }
	next; unset ENVPARITY_AUTHOR
	GITHUB_ACTOR=octo "$EP" bless --store s.git m.json
	[ "$(author)" = "octo <octo@users.noreply.github.com>|octo <octo@users.noreply.github.com>" ]
	next; GITLAB_USER_NAME="Lab User" GITLAB_USER_EMAIL=lab@example.org \
	    "$EP" bless --store s.git m.json
	[ "$(author)" = "Lab User <lab@example.org>|Lab User <lab@example.org>" ]
	next; "$EP" bless --store s.git m.json
	[ "$(author)" = "envparity <envparity@$(hostname)>|envparity <envparity@$(hostname)>" ]
	git config --global user.name "Git Config"
	git config --global user.email gc@example.org
	next; "$EP" bless --store s.git m.json
	[ "$(author)" = "Git Config <gc@example.org>|Git Config <gc@example.org>" ]
	next; ENVPARITY_AUTHOR="Env Author <env@example.org>" GITHUB_ACTOR=octo \
	    "$EP" bless --store s.git m.json
	[ "$(author)" = "Env Author <env@example.org>|Env Author <env@example.org>" ]
}

@test "messages: -m, else one naming the profile and the manifest's host" {
	git init -q --bare -b main s.git
	mk m.json gpu-node-7 a=1
	"$EP" bless --store s.git --profile a100 m.json
	[ "$(git --git-dir=s.git log -1 --format=%B)" = "bless a100 from gpu-node-7" ]
	mk m.json gpu-node-7 a=2
	"$EP" bless --store s.git -m "new driver, tested by QA" m.json
	[ "$(git --git-dir=s.git log -1 --format=%B)" = "new driver, tested by QA" ]
}

@test "blessing the same manifest again commits nothing" {
	git init -q --bare -b main s.git
	mk m.json h1 a=1
	run "$EP" bless --store s.git m.json
	first=$output
	run "$EP" bless --store s.git m.json
	[ "$status" -eq 0 ]
	[ "$output" = "$first" ]
	[ "$(git --git-dir=s.git rev-list --count main)" -eq 1 ]
}

@test "bless with no manifest captures this machine" {
	git init -q --bare -b main s.git
	"$EP" capture -q --no-discover -o now.json
	run "$EP" bless -q --no-discover --store s.git
	[ "$status" -eq 0 ]
	git --git-dir=s.git show main:default/manifest.json >stored
	[ "$(fact stored os.id)" = "$(fact now.json os.id)" ]
	[ "$(fact stored lib.cudart.sha256)" = "$(fact now.json lib.cudart.sha256)" ]
	[ "$(jq -r .schema stored)" = envparity/manifest@1 ]
}

@test "a malformed golden in the store: bless replaces it, saying its images are not carried over" {
	git init -q --bare -b main s.git
	git clone -q s.git wt 2>/dev/null
	mkdir -p wt/default
	echo 'not json' >wt/default/manifest.json
	git -C wt add . && git -C wt -c user.name=t -c user.email=t@t commit -qm broken
	git -C wt push -q origin main
	run "$EP" bless -q --store s.git --no-discover --site-packages "$T"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"warning: s.git#main:default/manifest.json: not a manifest"*"the golden's images are not carried over (name them with --image)"* ]]
	git --git-dir=s.git show main:default/manifest.json | jq -e .facts >/dev/null
}
