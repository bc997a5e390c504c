#!/usr/bin/env bats
# colour.bats: the summary's verdicts are painted on a terminal only (a
# pseudo-terminal made by util-linux's script), never into a pipe or a
# file, and not with NO_COLOR set and not empty, TERM=dumb or in CI,
# unless --color=always forces it; --color=never keeps a terminal plain.
# An escape a manifest holds stays shown, not obeyed, painted or not.

load setup

ESC=$'\033'

# Run envparity ARGS on a pseudo-terminal; its output, CRs removed.
on_tty() { # args...
	local q
	printf -v q '%q ' "$EP" "$@"
	script -qec "$q" /dev/null | tr -d '\r'
}

@test "colour: PARITY, DRIFT and FAIL painted on a terminal, never in a pipe or a file, unless forced; NO_COLOR, TERM=dumb and CI turn it off" {
	command -v script >/dev/null || skip "script (util-linux) is not installed"
	export TERM=xterm
	unset NO_COLOR
	manifest a.json '{"a": "1", "b": "x"}'
	manifest b.json '{"a": "2", "b": "\u001b[5mblink"}'
	out=$(on_tty diff a.json b.json)
	[[ "$out" == "envparity diff: $ESC[1;31mDRIFT$ESC[0m: b.json against a.json"* ]]
	[[ "$out" == *$'\n'"  $ESC[1;31mFAIL$ESC[0m    a: expected 1, got 2"* ]]
	# The value's own escape is shown as U+241B: the only escapes are ours.
	[[ "$out" == *"␛[5mblink"* ]]
	! sed -e "s/$ESC\[1;31m//g; s/$ESC\[0m//g" <<<"$out" | grep -q "$ESC"
	out=$(on_tty diff a.json a.json)
	[[ "$out" == "envparity diff: $ESC[1;32mPARITY$ESC[0m: "* ]]
	# Off: NO_COLOR set (empty is unset), TERM=dumb, CI, --color=never.
	out=$(NO_COLOR=1 on_tty diff a.json b.json)
	[[ "$out" == "envparity diff: DRIFT: "* ]]
	[[ "$out" != *"$ESC"[* ]]
	out=$(NO_COLOR= on_tty diff a.json b.json)
	[[ "$out" == *"$ESC[1;31mDRIFT"* ]]
	out=$(TERM=dumb on_tty diff a.json b.json)
	[[ "$out" != *"$ESC"[* ]]
	out=$(CI=true on_tty diff a.json b.json)
	[[ "$out" != *"$ESC"[* ]]
	out=$(on_tty diff a.json b.json --color=never)
	[[ "$out" != *"$ESC"[* ]]
	# A pipe and a file: plain, unless forced.
	run "$EP" diff a.json b.json
	[ "$status" -eq 1 ]
	[[ "$output" == "envparity diff: DRIFT: "* ]]
	[[ "$output" != *"$ESC"[* ]]
	"$EP" diff a.json b.json >out.txt || true
	! grep -q "$ESC\[" out.txt
	run "$EP" diff a.json b.json --color always
	[[ "$output" == "envparity diff: $ESC[1;31mDRIFT$ESC[0m: "* ]]
	run "$EP" diff a.json b.json --color=sometimes
	[ "$status" -eq 2 ]
	[[ "$output" == *"--color 'sometimes': expected auto, always or never"* ]]
}
