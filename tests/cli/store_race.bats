#!/usr/bin/env bats
# store_race.bats: two `bless` processes started at once on one store.
# Different profiles: both land, none lost.  The same profile: either they
# did not overlap (both land, one after the other) or one fails saying why
# and exits 3; the store holds exactly one of the two manifests, whole.
# Each scenario runs ten times, on a local store and (store_remote.bats)
# through git daemon.

load setup

mk() { # file host key=value
	jq -n --arg h "$2" --arg k "${3%%=*}" --arg v "${3#*=}" \
	    '{schema: "envparity/manifest@1", meta: {host: $h}, facts: {($k): $v}}' >"$1"
}

setup_file() {
	export ENVPARITY_AUTHOR="Racer <racer@example.org>"
}

# Start two blesses together and wait for both; their exit codes land in
# rc.a and rc.b, their output in out.a and out.b.  (`|| rc=$?`: the
# subshells inherit bats's errexit.)
race() { # store profile-a file-a profile-b file-b
	rm -f rc.a rc.b
	( rc=0; "$EP" bless --store "$1" --profile "$2" "$3" >out.a 2>&1 ||
	    rc=$?; echo $rc >rc.a ) &
	pa=$!
	( rc=0; "$EP" bless --store "$1" --profile "$4" "$5" >out.b 2>&1 ||
	    rc=$?; echo $rc >rc.b ) &
	wait "$pa" "$!"
}

@test "different profiles at once: both blesses land, ten times over" {
	mk a.json ha k=a
	mk b.json hb k=b
	for i in $(seq 1 10); do
		rm -rf s.git
		git init -q --bare -b main s.git
		race s.git pa a.json pb b.json
		[ "$(cat rc.a)" -eq 0 ] || { cat out.a; false; }
		[ "$(cat rc.b)" -eq 0 ] || { cat out.b; false; }
		[ "$(git --git-dir=s.git rev-list --count main)" -eq 2 ]
		[ "$(git --git-dir=s.git show main:pa/manifest.json | jq -r .facts.k)" = a ]
		[ "$(git --git-dir=s.git show main:pb/manifest.json | jq -r .facts.k)" = b ]
	done
}

@test "different profiles at once on a store with history and a work tree" {
	mk a.json ha k=a
	mk b.json hb k=b
	mk base.json h0 k=0
	# A work tree on no branch (a bless never moves a checked-out one).
	git init -q -b main wt
	git -C wt -c user.name=X -c user.email=x@y commit -q --allow-empty -m init
	git -C wt checkout -q --detach
	"$EP" bless --store wt --profile base base.json
	for i in $(seq 1 10); do
		mk a.json ha k="a$i"
		mk b.json hb k="b$i"
		race wt pa a.json pb b.json
		[ "$(cat rc.a)" -eq 0 ] && [ "$(cat rc.b)" -eq 0 ]
		[ "$(git -C wt rev-list --count main)" -eq $((2 + 2 * i)) ]
		[ "$(git -C wt show main:pa/manifest.json | jq -r .facts.k)" = "a$i" ]
		[ "$(git -C wt show main:pb/manifest.json | jq -r .facts.k)" = "b$i" ]
		[ "$(git -C wt show main:base/manifest.json | jq -r .facts.k)" = 0 ]
	done
	[ "$(git -C wt rev-parse --abbrev-ref HEAD)" = HEAD ]
	[ -z "$(git -C wt ls-files)" ]	# the index never moved
}

@test "the same profile at once: one wins whole; a loser says so and exits 3" {
	mk a.json ha k=a
	mk b.json hb k=b
	for i in $(seq 1 10); do
		rm -rf s.git
		git init -q --bare -b main s.git
		race s.git p a.json p b.json
		ra=$(cat rc.a) rb=$(cat rc.b)
		stored=$(git --git-dir=s.git show main:p/manifest.json)
		commits=$(git --git-dir=s.git rev-list --count main)
		if [ "$ra" -eq 0 ] && [ "$rb" -eq 0 ]; then
			# No overlap: the second built on the first.
			[ "$commits" -eq 2 ]
			last=$(git --git-dir=s.git log -1 --format=%s main)
			[ "$last" = "bless p from ha" ] && want=a || want=b
		else
			[ "$commits" -eq 1 ]
			if [ "$ra" -ne 0 ]; then
				loser=out.a want=b
				[ "$ra" -eq 3 ] && [ "$rb" -eq 0 ]
			else
				loser=out.b want=a
				[ "$rb" -eq 3 ]
			fi
			head=$(git --git-dir=s.git rev-parse --short=12 main)
			[ "$(cat "$loser")" = "envparity bless: profile p was blessed by someone else (commit $head) while this bless ran; check again and re-bless" ]
		fi
		# Exactly one of the two, byte for byte.
		[ "$stored" = "$(jq -S --indent 2 . "$want.json")" ]
	done
}
