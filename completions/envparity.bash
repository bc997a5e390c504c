# bash completion for envparity (installed as
# share/bash-completion/completions/envparity).  Commands, each command's
# options, files or folders where an option takes one, and the profiles
# of a local store after --profile.  Kept in step
# with `envparity --help` and each command's option table (`envparity
# __options COMMAND`, what `envparity COMMAND --help` is rendered from) by
# tests/cli/manpage.bats.

_envparity_commands="capture check bless waive unwaive policy diff log profiles fleet probe digest attest verify version help"

# The option groups several commands share (checker/optgroups.c).
_envparity_store="--store --ref --profile"
_envparity_report="--json --junit --markdown --prom --color"
_envparity_collect="--python --site-packages --conda-prefix --lockfile
	--no-discover --lock-group --lib-path --no-cache --image --node --artifact --serving
	--env --env-not-secret --file-sha256 --file-line"
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
		echo "--json --missing --severity --reason --shared -m --message" \
		    "-q --quiet -h --help $_envparity_store" ;;
	diff)
		echo "--policy --expiry-warning -q --quiet -h --help" \
		    "$_envparity_report" ;;
	log)
		echo "-v --verbose -n --max --json -h --help $_envparity_store" ;;
	profiles)
		echo "--json -h --help --store --ref" ;;
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

# The profiles of the store the command line names (--store, else
# $ENVPARITY_STORE, else .envparity/store) and its --ref, as `envparity
# profiles` lists them: of a local store only (a remote one would be
# fetched at each TAB, from a host that may not answer), and in at most
# 2 seconds.
_envparity_profiles()
{
	local i w store=${ENVPARITY_STORE:-} ref= bin=${COMP_WORDS[0]}
	local -a args=(profiles)
	for ((i = 2; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i+1]}
		# bash splits --store=X into --store, =, X.
		[ "$w" = = ] && w=${COMP_WORDS[i+2]}
		case ${COMP_WORDS[i]} in
		--store) store=$w ;;
		--store=*) store=${COMP_WORDS[i]#--store=} ;;
		--ref) ref=$w ;;
		--ref=*) ref=${COMP_WORDS[i]#--ref=} ;;
		esac
	done
	case $store in
	*://*) return 0 ;;
	*:*) case ${store%%/*} in *:*) return 0 ;; esac ;;
	esac
	case $store in "~/"*) store=$HOME/${store#"~/"} ;; esac
	[ -n "$store" ] && args+=(--store "$store")
	[ -n "$ref" ] && args+=(--ref "$ref")
	command -v timeout >/dev/null || return 0
	timeout 2 "$bin" "${args[@]}" 2>/dev/null </dev/null
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
	--attest | --statement | --sign-key | --policy | --key | \
	--file-sha256 | --file-line)
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
	--color)
		mapfile -t COMPREPLY < <(compgen -W "auto always never" -- "$cur")
		return 0 ;;
	--require)
		mapfile -t COMPREPLY < <(compgen -W "no-fail parity" -- "$cur")
		return 0 ;;
	--missing)
		mapfile -t COMPREPLY < <(compgen -W "fail skip ignore" -- "$cur")
		return 0 ;;
	--severity)
		mapfile -t COMPREPLY < <(compgen -W "fail warn" -- "$cur")
		return 0 ;;
	--platform)
		mapfile -t COMPREPLY < <(compgen -W "linux/amd64 linux/arm64 linux/arm64/v8 linux/ppc64le linux/s390x" -- "$cur")
		return 0 ;;
	--profile)
		mapfile -t COMPREPLY < <(compgen -W "$(_envparity_profiles)" -- "$cur")
		return 0 ;;
	--store | --ref | --runs | --timeout | --image | --node | \
	--insecure-registry | --registry-auth-realm | --registry-timeout | \
	--expect | --expiry-warning | --max-age | --subject | -m | --message | \
	--sign-key-fd | --env | --env-not-secret | \
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
		policy)
			# policy add KEY RULE: the verb, then the rule's kind.
			[ "$COMP_CWORD" -eq 2 ] &&
			    mapfile -t COMPREPLY < <(compgen -W "add remove" -- "$cur")
			[ "$COMP_CWORD" -eq 4 ] && [ "${COMP_WORDS[2]}" = add ] &&
			    mapfile -t COMPREPLY < <(compgen -W "exact ignore version present absent" -- "$cur") ;;
		esac ;;
	esac
	return 0
}
complete -F _envparity envparity
