#!/usr/bin/env bash
# tests/cli/docsync.sh ENVPARITY [ROOT]: does the manual page
# (ROOT/man/envparity.1) and do the completions (ROOT/completions/: bash,
# zsh, fish) know
# every command of `ENVPARITY --help` and every long option of the
# command's option table (`ENVPARITY __options COMMAND`, which --help is
# rendered from)?  One line per gap:
#
#   man: check: --foo            (not in the command's subsection under
#                                 COMMANDS, nor in an options subsection
#                                 it names, e.g. "Store options")
#   bash: check: --foo           (not offered by the bash completion
#                                 function, called as bash calls it)
#   zsh: check: --foo            (not in _envparity_specs' reply)
#   fish: check: --foo           (not offered by the fish completion,
#                                 asked as fish asks: complete -C)
#
# Exit 0 no gap, 1 gaps (each named), 2 a tool or file missing.
set -u
bin=$1
root=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
man=$root/man/envparity.1
bashc=$root/completions/envparity.bash
zshc=$root/completions/_envparity
fishc=$root/completions/envparity.fish
for f in "$man" "$bashc" "$zshc" "$fishc"; do
	[ -f "$f" ] || { echo "docsync: $f: missing" >&2; exit 2; }
done

# The commands: the indented words under "Commands:" in --help.
commands=$("$bin" --help | awk '/^Commands:/ { on = 1; next }
	on && /^  [a-z]/ { print $1; next } on && !/^  / { on = 0 }')
[ -n "$commands" ] || { echo "docsync: $bin --help lists no command" >&2; exit 2; }

# The long options of a command, from its option table: `ENVPARITY
# __options COMMAND` prints one line per option the help shows ("-q
# --quiet", "--json FILE (report)"), the very table the parser reads.
options() { # command
	"$bin" __options "$1" | awk '{ for (i = 1; i <= NF; i++)
		if ($i ~ /^--[a-z][a-z0-9-]*$/) print $i }' | sort -u
}

# The man page's text of a subsection, and of the options subsections it
# names, with roff's escapes and font changes taken out.
man_text() { # command
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\c$//' "$man" | awk -v want="$1" '
		/^\.S[HS] / { t = $0; sub(/^\.S[HS] +/, "", t); gsub(/"/, "", t)
			sect = t; next }
		{ text[sect] = text[sect] "\n" $0 }
		END {
			if (!(want in text)) exit
			out = text[want]
			for (g in text)
				if (g ~ / options$/ && index(out, g)) out = out "\n" text[g]
			print out
		}'
}

has() { # text word: word as a whole option name
	grep -qE -- "(^|[^A-Za-z0-9-])$2([^A-Za-z0-9-]|\$)" <<<"$1"
}

bash_complete() { # words...: what the completion offers for the last word
	bash --norc --noprofile -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_envparity envparity "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}"' bash "$bashc" "$@"
}

zsh_specs() { # command: the option names of its _arguments specs
	zsh -fc '
		autoload -U compinit; compinit -u -D
		source "$1"
		_envparity_specs "$2"
		print -rl -- $reply' zsh "$zshc" "$1" |
	    sed -E 's/^(\([^)]*\)|\*)*//; s/[=+]?[[:space:]]*(\[.*)?$//'
}

fish_complete() { # line: what the fish completion offers after it
	fish --no-config -c 'source $argv[1]; complete -C "$argv[2]"' \
	    "$fishc" "$1" 2>/dev/null | cut -f1
}
command -v fish >/dev/null || { echo "docsync: fish is not installed" >&2; exit 2; }

rc=0
gap() { echo "$1: $2"; rc=1; }

bash_cmds=$(bash_complete envparity '')
zsh_cmds=$(zsh -fc 'autoload -U compinit; compinit -u -D; source "$1"
	print -rl -- ${_envparity_cmds%%:*}' zsh "$zshc")
fish_cmds=$(fish_complete 'envparity ')
for c in $commands; do
	[ -n "$(man_text "$c")" ] || gap man "$c (no subsection under COMMANDS)"
	grep -qx -- "$c" <<<"$bash_cmds" || gap bash "$c (not offered as a command)"
	grep -qx -- "$c" <<<"$zsh_cmds" || gap zsh "$c (not in _envparity_cmds)"
	grep -qx -- "$c" <<<"$fish_cmds" || gap fish "$c (not offered as a command)"
	mt=$(man_text "$c")
	bo=$(bash_complete envparity "$c" --)
	zo=$(zsh_specs "$c")
	fo=$(fish_complete "envparity $c --")
	for o in $(options "$c"); do
		[ "$o" = --help ] || has "$mt" "$o" || gap man "$c: $o"
		grep -qx -- "$o" <<<"$bo" || gap bash "$c: $o"
		grep -qx -- "$o" <<<"$zo" || gap zsh "$c: $o"
		grep -qx -- "$o" <<<"$fo" || gap fish "$c: $o"
	done
done
exit $rc
