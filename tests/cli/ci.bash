# ci.bash: what the CI tests share (ci.bats, ci_hostile.bats): the
# validators' node, a store with a team's golden and policy, and the
# composite action run as GitHub's runner runs it.  Needs ACTION and NM.
#
# Use in a .bats file:   load ci

need_node() {
	command -v node >/dev/null 2>&1 ||
	    skip "node is not installed (tools/deps.sh test installs it)"
}

yaml_json() { # file: the YAML file as JSON
	"$NM/.bin/js-yaml" "$1"
}

# The waiver a team would commit beside its golden: cuDNN's wheels built
# for a newer cudart minor (a finding on machines with CUDA libraries).
WAIVE='{"schema": "envparity/policy@1", "rules": [], "waivers": [
  {"key": "stack.cudart_minor.*", "reason": "cuDNN wheels built for 13.1",
   "owner": "ml-platform", "expires": "2099-12-31"}]}'

# A store whose golden is a machine with N distributions in DIR.
golden() { # store site-packages n
	mkdir -p "$2"
	"$FIXTURES/gen-site-packages.sh" "$2" "$3" >/dev/null
	[ -e "$1" ] || git init -q --bare -b main "$1"
	"$EP" bless -q --store "$1" --no-discover --site-packages "$2" >/dev/null
	git clone -q "$1" "$T/wt"
	mkdir -p "$T/wt/default"
	printf '%s\n' "$WAIVE" >"$T/wt/default/policy.json"
	git -C "$T/wt" add default/policy.json
	git -C "$T/wt" -c user.name=t -c user.email=t@x commit -qm policy
	git -C "$T/wt" push -q origin HEAD
	rm -rf "$T/wt"
}

# Run the composite action's steps here, as the runner would.
run_action() { # result.json input=value...
	local res=$1
	shift
	mkdir -p "$T/runner"
	: >"$T/summary.md"
	GITHUB_STEP_SUMMARY=$T/summary.md RUNNER_TEMP=$T/runner \
	    GITHUB_WORKSPACE=$T run node "$REPO_ROOT/tools/run-composite.js" \
	    "$ACTION" "$res" envparity="$EP" "$@"
	echo "$output"
}
