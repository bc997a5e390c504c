# child.bash: what the tests of envparity's child processes share
# (child_secrets.bats, child_reap.bats): credentials in the environment
# as a CI runner has them, each value marked so that a leak is one grep,
# and processes that must not outlive envparity.
#
# Use in a .bats file, after `load setup`:   load child

MARK=s3cr3t-never-in-a-child

# Export a credential in every variable a CI job may hold one in, one
# variable on every helper's allowlist that children must still get, and
# an ordinary one that is on none, which they no longer get.
secrets() {
	export ENVPARITY_GIT_TOKEN=ghs_$MARK
	export ENVPARITY_SSH_KEY=$T/id-$MARK
	export ENVPARITY_STORE=https://x-access-token:store-$MARK@git.example/golden.git
	export SSH_AUTH_SOCK=$T/agent-$MARK
	export GITHUB_TOKEN=gh-$MARK
	export ACTIONS_RUNTIME_TOKEN=rt-$MARK
	export ACTIONS_ID_TOKEN_REQUEST_TOKEN=oidc-$MARK
	export ACTIONS_ID_TOKEN_REQUEST_URL=https://token.example/?x=$MARK
	export CI_JOB_TOKEN=job-$MARK
	export CI_REGISTRY_PASSWORD=reg-$MARK
	export AWS_SECRET_ACCESS_KEY=aws-$MARK
	export HF_TOKEN=hf-$MARK
	export PIP_INDEX_URL=https://u:pip-$MARK@pypi.example/simple
	export LC_IDENTIFICATION=kept-by-children
	export EP_CHILD_DROP=not-on-an-allowlist
}

# The real interpreter behind python3 (not a pyenv shim or a venv's link).
real_python() {
	python3 -c 'import sys; print(getattr(sys, "_base_executable", None) or sys.executable)'
}

# 0 when pid is gone or only a zombie (dead, not yet waited for).
gone() { # pid
	local st
	st=$(ps -o stat= -p "$1" 2>/dev/null || true)
	[ -z "$st" ] || [[ "$st" == Z* ]]
}

# The pid in file, once something has written it (at most 5 s).
pid_in() { # file
	local i
	for i in $(seq 500); do
		[ -s "$1" ] && { cat "$1"; return 0; }
		sleep 0.01
	done
	return 1
}

# A binary that lets them survive must not leave them to the next test.
teardown() {
	local f
	for f in "$T"/*.pid; do
		[ -s "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
	done
	cd / && rm -rf "$T"
}
