# bash completion for envparity (installed as
# share/bash-completion/completions/envparity).  Commands, each command's
# options, and files or folders where an option takes one.  Kept in step
# with `envparity --help` and each command's option table (`envparity
# __options COMMAND`, what `envparity COMMAND --help` is rendered from) by
# tests/cli/manpage.bats.

_envparity_commands="capture check bless waive unwaive policy diff log fleet probe digest attest verify version help"

# The option groups several commands share (checker/optgroups.c).
_envparity_store="--store --ref --profile"
_envparity_report="--json --junit --markdown --prom"
_envparity_collect="--python --site-packages --conda-prefix --lockfile
	--no-discover --lock-group --lib-path --no-cache --image --node --artifact --serving"
_envparity_registry="--platform --registry-ca --insecure-registry
	--registry-auth-file --registry-auth-realm --registry-timeout"
_envparity_probe="--runs --backend --timeout --require-gpu --probe --gpus --jobs"
# Of capture, check and bless, not of probe.
_envparity_workload="--workload"
_envparity_attest="--attest --statement --sign-key --sign-key-fd"

# The options of COMMAND, one word each.
_envparity_options()
{
	case $1 in
	capture)
		echo "-o --output -q --quiet --sign-key --sign-key-fd --progress" \
		    "--no-progress -h --help" \
		    "$_envparity_collect $_envparity_registry $_envparity_probe" \
		    "$_envparity_workload" ;;
	check)
		echo "-o --output -q --quiet --expiry-warning $_envparity_attest" \
		    "--progress --no-progress -h --help $_envparity_store" \
		    "$_envparity_report $_envparity_collect" \
		    "$_envparity_registry $_envparity_probe $_envparity_workload" ;;
	bless)
		echo "-m --message --dry-run --accept-failing -q --quiet --progress --no-progress" \
		    "-h --help $_envparity_store $_envparity_collect" \
		    "$_envparity_registry $_envparity_probe $_envparity_workload" ;;
	waive)
		echo "--reason --owner --expires --actual --shared -m --message" \
		    "-q --quiet -h --help" \
		    "$_envparity_store" ;;
	unwaive)
		echo "--shared -m --message -q --quiet -h --help" \
		    "$_envparity_store" ;;
	policy)
		echo "--json -h --help $_envparity_store" ;;
	diff)
		echo "--policy --expiry-warning -q --quiet -h --help" \
		    "$_envparity_report" ;;
	log)
		echo "-v --verbose -n --max -h --help $_envparity_store" ;;
	fleet)
		echo "--expect --expect-from-slurm --bind-filenames --node-keys" \
		    "--max-age --policy --expiry-warning" \
		    "-q --quiet $_envparity_attest --progress --no-progress" \
		    "-h --help $_envparity_store $_envparity_report" ;;
	probe)
		echo "$_envparity_probe -o --output -q --quiet --progress --no-progress" \
		    "-h --help $_envparity_report $_envparity_collect" ;;
	digest)
		echo "--json --no-cache --progress --no-progress -h --help" \
		    "$_envparity_registry" ;;
	attest)
		echo "-o --output --sign-key --sign-key-fd -h --help" ;;
	verify)
		echo "--key --require --max-age --subject --image --profile" \
		    "--store --golden-commit -h --help" ;;
	version)
		echo "-h --help" ;;
	esac
}

_envparity()
{
	local cur prev cmd
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}

	if [ "$COMP_CWORD" -eq 1 ]; then
		case $cur in
		-*) mapfile -t COMPREPLY < <(compgen -W "--help --version" -- "$cur") ;;
		*) mapfile -t COMPREPLY < <(compgen -W "$_envparity_commands" -- "$cur") ;;
		esac
		return 0
	fi
	cmd=${COMP_WORDS[1]}
	if [ "$cmd" = help ]; then
		[ "$COMP_CWORD" -eq 2 ] &&
		    mapfile -t COMPREPLY < <(compgen -W "$_envparity_commands" -- "$cur")
		return 0
	fi

	# The argument of the option before the cursor.
	case $prev in
	-o | --output | --lockfile | --artifact | --serving | --registry-ca | \
	--registry-auth-file | --json | --junit | --markdown | --prom | \
	--attest | --statement | --sign-key | --policy | --key)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		compopt -o filenames 2>/dev/null
		return 0 ;;
	--site-packages | --conda-prefix | --lib-path)
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		compopt -o filenames 2>/dev/null
		return 0 ;;
	--python | --probe)
		mapfile -t COMPREPLY < <(compgen -c -- "$cur"; compgen -f -- "$cur")
		compopt -o filenames 2>/dev/null
		return 0 ;;
	--backend)
		mapfile -t COMPREPLY < <(compgen -W "cpu cuda cublas cudnn all" -- "$cur")
		return 0 ;;
	--require)
		mapfile -t COMPREPLY < <(compgen -W "no-fail parity" -- "$cur")
		return 0 ;;
	--platform)
		mapfile -t COMPREPLY < <(compgen -W "linux/amd64 linux/arm64 linux/arm64/v8 linux/ppc64le linux/s390x" -- "$cur")
		return 0 ;;
	--store | --ref | --profile | --runs | --timeout | --image | --node | \
	--insecure-registry | --registry-auth-realm | --registry-timeout | \
	--expect | --expiry-warning | --max-age | --subject | -m | --message | \
	--sign-key-fd | \
	-n | --max | --reason | --owner | --expires | --actual | --golden-commit)
		return 0 ;;
	esac

	case $cur in
	-*)
		mapfile -t COMPREPLY < <(compgen -W "$(_envparity_options "$cmd")" -- "$cur") ;;
	*)
		# Operands: manifests (bless, diff), an attestation (verify),
		# a statement (attest) and fleet's folders or files.
		case $cmd in
		bless | diff | verify | attest | fleet)
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			compopt -o filenames 2>/dev/null ;;
		esac ;;
	esac
	return 0
}
complete -F _envparity envparity
