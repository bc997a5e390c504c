#!/usr/bin/env bats
# manpage.bats: the manual page (man/envparity.1) and the bash, zsh and
# fish completions (completions/) know every command the binary's --help lists
# and every long option of each command's option table, the one its
# parser reads and its --help is rendered from (`envparity __options
# COMMAND`; tests/cli/docsync.sh names each gap), the man
# page is clean under mandoc's and groff's linters, and the bash
# completion completes as bash calls it.

load setup

MAN=$REPO_ROOT/man/envparity.1
BASHC=$REPO_ROOT/completions/envparity.bash
ZSHC=$REPO_ROOT/completions/_envparity

# What the bash completion offers for the last of WORDS, run in a bash of
# its own as bash's programmable completion runs it.
complete_bash() { # words...
	bash --norc --noprofile -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_envparity envparity "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' bash "$BASHC" "$@"
}

@test "the man page and the three completions name every command and long option of the tables" {
	run "$REPO_ROOT/tests/cli/docsync.sh" "$EP" "$REPO_ROOT"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

# The check bites: a binary with a command and options the documents do
# not have gets each gap named, in each of the three.
@test "docsync names a command and options the man page and completions lack" {
	cat >fake <<-EOF
	#!/bin/bash
	case \$1 in
	--help) "$EP" --help | sed 's/^  version /  frobnicate  frob the stack\n  version /' ;;
	frobnicate) printf 'usage: envparity frobnicate [--frob-level N]\n\n  -q, --quux  q\n' ;;
	__options)
		case \$2 in
		log) "$EP" __options log; echo "--since DATE" ;;
		frobnicate) printf -- '--frob-level N\n-q --quux\n' ;;
		*) exec "$EP" "\$@" ;;
		esac ;;
	*) exec "$EP" "\$@" ;;
	esac
	EOF
	chmod +x fake
	run "$REPO_ROOT/tests/cli/docsync.sh" ./fake "$REPO_ROOT"
	echo "$output"
	[ "$status" -eq 1 ]
	for d in man bash zsh fish; do
		[[ "$output" == *"$d: log: --since"* ]]
		[[ "$output" == *"$d: frobnicate"* ]]
		[[ "$output" == *"$d: frobnicate: --frob-level"* ]]
		[[ "$output" == *"$d: frobnicate: --quux"* ]]
	done
	# What the documents have is not named.
	[[ "$output" != *"--verbose"* ]]
	[[ "$output" != *"--store"* ]]
}

# What __options lists is what --help shows: each long option it names
# opens a line of the help, and each option line of the help is listed.
@test "__options lists every option --help shows, and only those" {
	for c in $("$EP" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p'); do
		"$EP" __options "$c" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u >listed
		"$EP" "$c" --help | sed -nE 's/^  (-[A-Za-z], )?(--[a-z][a-z0-9-]*).*/\2/p' |
		    sort -u >shown
		diff listed shown || { echo "$c differs"; false; }
	done
	run "$EP" __options check
	[ "$status" -eq 0 ]
	[[ "$output" == *"--json FILE (report)"* ]]
	[[ "$output" == *"-q --quiet"* ]]
	run "$EP" __options nosuch
	[ "$status" -eq 2 ]
}

# Every command's --help ends with examples; each names only options of
# the command's own table, and the man page shows it in the command's
# subsection, so neither can drift from the other.
@test "every --help has examples: options of its own table, each shown in its man page subsection" {
	mt=$(sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\f[BIRP]//g' "$MAN")
	n=0
	for c in $("$EP" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p'); do
		ex=$("$EP" "$c" --help | sed -n '/^Examples:$/,/^$/p' | sed -n 's/^  //p')
		[ -n "$ex" ] || { echo "$c: --help has no examples"; false; }
		sub=$(awk -v c="$c" '/^\.S[SH] / { on = ($2 == c) } on' <<<"$mt")
		opts=$("$EP" __options "$c")
		while IFS= read -r l; do
			n=$((n + 1))
			grep -qF -- "$l" <<<"$sub" || { echo "$c: not in its man page subsection: $l"; false; }
			# A shell substitution's options are its command's.
			for o in $(sed 's/\$([^)]*)//g' <<<"$l" | grep -oE -- '(^| )--?[a-z][a-z0-9-]*'); do
				grep -qE -- "(^| )$o( |\$)" <<<"$opts" || { echo "$c: $o is no option of $c: $l"; false; }
			done
		done <<<"$ex"
	done
	[ "$n" -ge 15 ]
	# The check bites: an option the table lacks, and a line the man
	# page lacks, are each named.
	grep -qE -- "(^| )--frob( |\$)" <<<"$("$EP" __options log)" && false
	! grep -qF -- "envparity log --frob" <<<"$mt"
}

# No --expires of an example in the man page, the README or docs/ passes
# before a reader runs it: a day computed from today ("$(date -u -d '+30
# days' +%F)"), or one at least a year away.
# bats test_tags=plain-only
@test "the examples' waiver dates do not pass before the reader runs them" {
	later=$(date -u -d '+365 days' +%F)
	n=0
	for f in "$MAN" "$REPO_ROOT/README.md" "$REPO_ROOT"/docs/*.md; do
		while IFS= read -r v; do
			n=$((n + 1))
			if [[ "$v" =~ ^\"\$\(date\ -u\ -d\ \'\+[1-9][0-9]*\ days\'\ \+%F\)\"$ ]]; then
				continue
			fi
			[[ "$v" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ && ! "$v" < "$later" ]] ||
			    { echo "$f: --expires $v passes within a year"; false; }
		done < <(sed -e 's/\\-/-/g' "$f" | grep -oE -- '--expires +("\$\([^"]*"|[0-9][0-9-]*)' | sed -E 's/^--expires +//')
	done
	[ "$n" -ge 3 ]
}

@test "the man pages are clean under mandoc -T lint and groff -ww, and name this release" {
	v=$("$EP" --version)
	for m in "$MAN" "$REPO_ROOT/man/envparity-probe.1"; do
		run mandoc -T lint -W all "$m"
		echo "$output"
		[ "$status" -eq 0 ]
		[ -z "$output" ]
		run groff -ww -z -man "$m"
		echo "$output"
		[ "$status" -eq 0 ]
		[ -z "$output" ]
		# .TH's source field is the binary's release (version.h).
		grep -q "^\.TH ENVPARITY[-A-Z]* 1 [^ ]* \"$v\"" "$m"
	done
	# Rendered, it has the sections a manual page needs.
	run groff -man -Tascii -P-bcou "$MAN"
	[ "$status" -eq 0 ]
	for s in NAME SYNOPSIS DESCRIPTION COMMANDS "EXIT STATUS" ENVIRONMENT \
	    FILES EXAMPLES "SEE ALSO"; do
		grep -q "^$s\$" <<<"$output" || { echo "no section $s"; false; }
	done
	[[ "$output" == *"x-access-token"* ]]
	[[ "$output" == *"ENVPARITY_STORE"* ]]
}

# bats test_tags=plain-only
@test "bash completion: commands, options, values, and files where an option takes one" {
	run complete_bash envparity ch
	[ "$status" -eq 0 ]
	[ "$output" = check ]
	run complete_bash envparity help ver
	[ "$output" = "$(printf 'verify\nversion')" ]
	run complete_bash envparity check --no-
	[[ "$output" == *--no-cache* ]]
	[[ "$output" == *--no-discover* ]]
	[[ "$output" != *--store* ]]
	run complete_bash envparity probe --backend cu
	[ "$output" = "$(printf 'cuda\ncublas\ncudnn')" ]
	run complete_bash envparity verify x --require p
	[ "$output" = parity ]
	# A report option takes a file, --lib-path a folder.
	mkdir -p out libs && touch out/report.json golden.json
	run complete_bash envparity check --json out/
	[ "$output" = out/report.json ]
	run complete_bash envparity capture --lib-path l
	[ "$output" = libs ]
	run complete_bash envparity diff gold
	[ "$output" = golden.json ]
	# Where a value is free text, nothing is made up.
	run complete_bash envparity check --profile ''
	[ -z "$output" ]
	# policy: its verbs, add's rule kinds, the values of its options.
	run complete_bash envparity policy r
	[ "$output" = remove ]
	run complete_bash envparity policy add lib.x.path i
	[ "$output" = ignore ]
	run complete_bash envparity policy add --missing s
	[ "$output" = skip ]
	run complete_bash envparity policy add lib.x.path ''
	[ "$output" = "$(printf 'exact\nignore\nversion\npresent\nabsent')" ]
}

# bats test_tags=plain-only
@test "zsh completion: loads under compinit, registers _envparity, and has every command's specs" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	# Sourced after compinit: it registers itself.
	run zsh -fc 'autoload -U compinit; compinit -u -D; source "$1"
		print -r -- ${_comps[envparity]}
		_envparity_specs capture; print -r -- $#reply' zsh "$ZSHC"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = _envparity ]
	[ "${lines[1]}" -gt 20 ]
	# From fpath, as installed: compinit finds it by its #compdef line.
	mkdir fp && cp "$ZSHC" fp/
	run zsh -fc 'fpath=("$1" $fpath); autoload -U compinit; compinit -u -D
		print -r -- ${_comps[envparity]}' zsh "$PWD/fp"
	[ "$status" -eq 0 ]
	[ "$output" = _envparity ]
}

# What the fish completion offers after LINE, as fish asks it (complete
# -C), with the file found where it is installed
# (share/fish/vendor_completions.d, autoloaded by the command's name) and
# envparity on PATH, as fish needs to autoload it.
complete_fish() { # line
	mkdir -p vc && cp "$REPO_ROOT/completions/envparity.fish" vc/
	PATH=$(dirname "$EP"):$PATH fish --no-config -c \
	    'set fish_complete_path $argv[1] $fish_complete_path; complete -C "$argv[2]"' \
	    "$PWD/vc" "$1" | cut -f1
}

# bats test_tags=plain-only
@test "fish completion: commands, options, fixed values, and files where an option takes one" {
	command -v fish >/dev/null || skip "fish is not installed"
	run fish --no-config -n "$REPO_ROOT/completions/envparity.fish"
	[ "$status" -eq 0 ]
	run complete_fish 'envparity ch'
	[ "$output" = check ]
	run complete_fish 'envparity help ver'
	[ "$output" = "$(printf 'verify\nversion')" ]
	run complete_fish 'envparity check --no-'
	[[ "$output" == *--no-cache* && "$output" == *--no-discover* ]]
	[[ "$output" != *--store* ]]
	run complete_fish 'envparity probe --backend cu'
	[ "$output" = "$(printf 'cublas\ncuda\ncudnn')" ]
	run complete_fish 'envparity diff a b --color '
	[ "$output" = "$(printf 'always\nauto\nnever')" ]
	# A report option takes a file; free text makes nothing up.
	mkdir -p out && touch out/report.json
	run complete_fish 'envparity check --json out/'
	[ "$output" = out/report.json ]
	run complete_fish 'envparity waive --reason '
	[ -z "$output" ]
	# Options belong to their command: log has no --json FILE of reports.
	run complete_fish 'envparity log --ju'
	[ -z "$output" ]
}
