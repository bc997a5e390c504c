#!/usr/bin/env bats
# usage_errors.bats: what a mistyped command line gets back: one line
# naming the command or option, a suggestion when one is close, the
# --help hint, exit 2.  Every command parses its options through the one
# helper (cmd.c), so each is tried.

load setup

# Every command envparity --help lists (so a new one is tried too).
COMMANDS=$("$EP" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')

@test "an unknown command close to one is suggested" {
	run "$EP" chek
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "envparity: unknown command 'chek'; did you mean 'check'?" ]
	[ "${lines[1]}" = "Try 'envparity --help'." ]
	[ "${#lines[@]}" -eq 2 ]
	run "$EP" fleat
	[ "${lines[0]}" = "envparity: unknown command 'fleat'; did you mean 'fleet'?" ]
	# A swap of two neighbours is one edit.
	run "$EP" verfiy
	[ "${lines[0]}" = "envparity: unknown command 'verfiy'; did you mean 'verify'?" ]
	# A prefix of one command.
	run "$EP" cap
	[ "${lines[0]}" = "envparity: unknown command 'cap'; did you mean 'capture'?" ]
}

@test "an unknown command close to none gets no suggestion, and the command list" {
	run "$EP" frobnicate
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "envparity: unknown command 'frobnicate'" ]
	[[ "$output" != *"did you mean"* ]]
	[[ "$output" == *"Commands:"* ]]
	run "$EP" zz
	[ "$status" -eq 2 ]
	[[ "$output" != *"did you mean"* ]]
}

@test "an unknown long option close to one is suggested, in every command" {
	[[ " $(echo $COMMANDS) " == *" check "*" waive "*" version "* ]]
	for c in $COMMANDS; do
		run "$EP" "$c" --hepl
		echo "$c: $output"
		[ "$status" -eq 2 ]
		[ "${lines[0]}" = "envparity $c: unknown option '--hepl'; did you mean '--help'?" ]
		[ "${lines[1]}" = "Try 'envparity $c --help'." ]
		[ "${#lines[@]}" -eq 2 ]
	done
	for c in check diff fleet; do
		run "$EP" "$c" --jsn r.json
		[ "$status" -eq 2 ]
		[ "${lines[0]}" = "envparity $c: unknown option '--jsn'; did you mean '--json'?" ]
	done
	run "$EP" diff --jsonn=r.json a b
	[ "${lines[0]}" = "envparity diff: unknown option '--jsonn'; did you mean '--json'?" ]
	run "$EP" capture --bogus
	[ "${lines[0]}" = "envparity capture: unknown option '--bogus'" ]
	[ ! -e r.json ]
}

@test "a missing value names the option that lacks it" {
	for c in check diff fleet; do
		run "$EP" "$c" --json
		echo "$c: $output"
		[ "$status" -eq 2 ]
		[ "${lines[0]}" = "envparity $c: option '--json' needs a value" ]
		[ "${lines[1]}" = "Try 'envparity $c --help'." ]
	done
	run "$EP" capture -o
	[ "${lines[0]}" = "envparity capture: option '-o' needs a value" ]
	run "$EP" capture -qo
	[ "${lines[0]}" = "envparity capture: option '-o' needs a value" ]
	run "$EP" log -n
	[ "${lines[0]}" = "envparity log: option '-n' needs a value" ]
	run "$EP" bless --message
	[ "${lines[0]}" = "envparity bless: option '--message' needs a value" ]
	run "$EP" verify --key
	[ "${lines[0]}" = "envparity verify: option '--key' needs a value" ]
	run "$EP" digest --platform
	[ "${lines[0]}" = "envparity digest: option '--platform' needs a value" ]
}

@test "a value given to a flag, an ambiguous prefix, an unknown short option" {
	run "$EP" check --quiet=yes
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "envparity check: option '--quiet' takes no value" ]
	run "$EP" check --re x
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "envparity check: option '--re' is ambiguous: "*"'--ref'"* ]]
	run "$EP" check -qx
	[ "${lines[0]}" = "envparity check: unknown option '-x'" ]
	run "$EP" check --quiet -x
	[ "${lines[0]}" = "envparity check: unknown option '-x'" ]
	# A unique prefix is still accepted (getopt_long's abbreviations).
	run "$EP" capture --he
	[ "$status" -eq 0 ]
	[[ "$output" == usage:\ envparity\ capture* ]]
}

@test "fleet and diff still take options after their operands; check and capture stop at the first" {
	manifest a.json '{"python.pkg.x": "1"}'
	manifest b.json '{"python.pkg.x": "1"}'
	run "$EP" diff a.json b.json -q
	[ "$status" -eq 0 ]
	run "$EP" diff a.json --jsn x b.json
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *"did you mean '--json'?" ]]
	run "$EP" capture --no-discover stray -q
	[ "$status" -eq 2 ]
	[[ "$output" == *"unexpected argument 'stray'"* ]]
}
