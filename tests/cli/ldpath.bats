#!/usr/bin/env bats
# ldpath.bats: a relative LD_LIBRARY_PATH entry ("." or "lib", or an
# empty one) names the current directory, which in CI is the checkout under
# test.  No library is looked for there, and envparity restarts without
# such entries, so that what a library child loads (the library and its
# dependencies) never comes from the checkout.

load setup

bats_require_minimum_version 1.5.0

unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY CI GITLAB_CI

# A libcudart.so.13 whose constructor leaves a mark, in dir.
planted_cudart() { # dir
	mkdir -p "$1"
	printf '%s\n' '#include <stdio.h>' \
	    '__attribute__((constructor)) static void mark(void) {' \
	    "	FILE *f = fopen(\"$T/ran\", \"a\");" \
	    '	if (f != NULL) { fputs("ran\n", f); fclose(f); }' \
	    '}' \
	    'int cudaRuntimeGetVersion(int *v) { *v = 99000; return 0; }' \
	    > "$T/planted.c"
	cc -shared -fPIC -o "$1/libcudart.so.13" "$T/planted.c"
}

@test "a relative LD_LIBRARY_PATH entry finds no library in the checkout" {
	mkdir checkout site
	planted_cudart checkout
	planted_cudart checkout/lib
	cd checkout
	for ld in . lib ":" ".:/nonexistent" "/nonexistent::"; do
		LD_LIBRARY_PATH=$ld run "$EP" capture -q --no-cache --no-discover \
		    --site-packages "$T/site" -o "$T/m.json"
		echo "$ld: $output"
		[ "$status" -eq 0 ]
		[ ! -e "$T/ran" ]
		case $(fact "$T/m.json" lib.cudart.path) in
		"$T"/checkout/*) false ;;
		esac
	done
}

@test "envparity restarts with the relative entries dropped: its children inherit none" {
	mkdir site
	printf '#!/bin/sh\nprintf "%%s\\n" "$LD_LIBRARY_PATH" > "%s/ld.seen"\nexit 1\n' "$T" > probe.sh
	chmod +x probe.sh
	LD_LIBRARY_PATH=".:/opt/a::lib:/opt/b" run "$EP" probe --probe "$T/probe.sh" \
	    --backend cpu --runs 1 --no-discover --site-packages site
	[ "$(cat ld.seen)" = "/opt/a:/opt/b" ]
	LD_LIBRARY_PATH="." run "$EP" probe --probe "$T/probe.sh" \
	    --backend cpu --runs 1 --no-discover --site-packages site
	[ "$(cat ld.seen)" = "" ]
}

@test "a library envparity loads cannot read its environment or write to its terminal (as a user)" {
	[ "$(id -u)" = 0 ] || skip "needs root to run the scenario as another user"
	command -v setpriv >/dev/null || skip "no setpriv"
	mkdir lib site
	chmod 755 "$T" lib site
	printf '%s\n' '#include <stdio.h>' '#include <unistd.h>' \
	    '__attribute__((constructor)) static void peek(void) {' \
	    '	char p[64]; FILE *f, *o;' \
	    "	if ((o = fopen(\"$T/peek\", \"a\")) == NULL) return;" \
	    '	snprintf(p, sizeof p, "/proc/%d/environ", (int)getppid());' \
	    '	if ((f = fopen(p, "r")) != NULL) { fputs("environ readable\n", o); fclose(f); }' \
	    '	snprintf(p, sizeof p, "/proc/%d/fd/2", (int)getppid());' \
	    '	if ((f = fopen(p, "w")) != NULL) { fputs("::error title=injected::from a library\n", f); fclose(f); fputs("stderr writable\n", o); }' \
	    '	fputs("ran\n", o); fclose(o);' \
	    '}' \
	    'int cudaRuntimeGetVersion(int *v) { *v = 13000; return 0; }' > lib.c
	cc -shared -fPIC -o lib/libcudart.so.13 lib.c
	: > peek
	chmod 666 peek
	ENVPARITY_GIT_TOKEN=tok-s3cret run --separate-stderr setpriv --reuid=65534 \
	    --regid=65534 --clear-groups "$EP" capture -q --no-cache --no-discover \
	    --site-packages "$T/site" --lib-path "$T/lib"
	echo "stderr: $stderr"
	cat peek
	grep -qx ran peek
	! grep -q "readable\|writable" peek || false
	[[ "$stderr" != *"::error title=injected"* ]]
}
