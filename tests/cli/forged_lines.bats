#!/usr/bin/env bats
# forged_lines.bats: nothing a pull request controls (a directory or
# lockfile name, a requirement, a fact value, a commit message, an image
# reference) can make a line envparity prints into a GitHub workflow
# command ("::error::", "::stop-commands::", the legacy "##[add-mask]"),
# move the terminal, or hide behind a bidirectional override.  Every line
# goes through one cleaner (checker/util/clean.c); runner_commands.py reads the
# output as the runner would.

load setup

unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY CI GITLAB_CI

RC=$BATS_TEST_DIRNAME/runner_commands.py
FORGED=$'x\n::error title=forged::pwned\r::stop-commands::tok ##[add-mask]s3cret \e[2J \u202e'

# Neither stream holds a command, a raw control character or an override.
clean_output() { # stdout-file stderr-file
	"$RC" "$1" "$2"
	! grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$1" "$2" || false
	! grep -q $'\u202e' "$1" "$2" || false
}

@test "a lockfile under a forged name: warnings and the manifest stay clean" {
	# Found in the current directory, so its trouble is a warning and the
	# capture goes on.
	printf 'numpy==1.26.4\n--bogus-option %s\n' "$FORGED" > "requirements-$FORGED.txt"
	"$EP" capture > out 2> err
	[ -s out ] && [ -s err ]
	grep -q 'bogus-option' err
	clean_output out err
	# The manifest keeps the exact name: the same key, read back.
	jq -e --arg d "lockfile.requirements-$FORGED.txt.sha256" '.facts[$d] | length == 64' out
}

@test "diff and check summaries of hostile values stay one clean line each" {
	manifest a.json "$(jq -n --arg v "$FORGED" '{"python.pkg.x": "1", "env.XLA_FLAGS": $v}')"
	manifest b.json "$(jq -n --arg v "$FORGED" '{"python.pkg.x": $v, "env.XLA_FLAGS": "2"}')"
	"$EP" diff a.json b.json > out 2> err || [ $? -eq 1 ]
	grep -q 'FAIL    python.pkg.x' out
	clean_output out err
	"$EP" diff a.json b.json --json r.json > out2 2> err2 || true
	"$EP" diff a.json b.json --junit r.xml > /dev/null 2>&1 || true
	xmllint --noout r.xml
	clean_output r.json r.xml
	clean_output out2 err2
	jq -e --arg v "$FORGED" '[.results[] | select(.key == "python.pkg.x") | .actual] == [$v]' r.json
}

@test "log shows commit messages and values cleaned, one line each" {
	git init -q --bare store
	manifest g.json "$(jq -n --arg v "$FORGED" '{"python.pkg.x": $v}')"
	"$EP" bless --store "$T/store" -m "$FORGED" g.json > out 2> err
	manifest g2.json '{"python.pkg.x": "2"}'
	"$EP" bless --store "$T/store" -m "second" g2.json >> out 2>> err
	"$EP" log -v --store "$T/store" > out 2> err
	cat out
	[ "$(grep -c '' out)" -ge 3 ]
	clean_output out err
}

@test "a hostile image reference in an error message stays one clean line" {
	run "$EP" digest "$FORGED"
	[ "$status" -eq 2 ]
	"$EP" digest "$FORGED" > out 2> err || true
	[ "$(grep -c '' err)" -eq 1 ]
	clean_output out err
}

@test "an unknown command or option named by a hostile string stays clean" {
	"$EP" "$FORGED" > out 2> err || true
	clean_output out err
	"$EP" capture "$FORGED" > out 2> err || true
	clean_output out err
}
