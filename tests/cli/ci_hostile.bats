#!/usr/bin/env bats
# ci_hostile.bats: the CI integration where a pull request is the
# attacker.  The GitHub action's steps are run as the runner runs them
# (tools/run-composite.js); the GitLab template's job script is taken
# from the template (js-yaml) and run with sh, as GitLab's shell executor
# runs it.
#  - an input with a line break cannot set another of the action's outputs
#    (the bin the next step runs with the token);
#  - a report path, or the reports folder, that the checkout holds as a
#    symbolic link never gets written through or uploaded;
#  - the cache is the job's own unless a folder is named.

load setup
load git_daemon
load ci

ACTION=$REPO_ROOT/ci/github/action.yml
GL_TEMPLATE=$REPO_ROOT/ci/gitlab/envparity.gitlab-ci.yml
NM=$REPO_ROOT/tools/node_modules

setup_file() {
	unset ENVPARITY_STORE ENVPARITY_PROFILE ENVPARITY_GIT_TOKEN
	unset GITHUB_OUTPUT GITHUB_STEP_SUMMARY GITHUB_ENV GITHUB_PATH
	unset CI GITHUB_ACTIONS GITLAB_CI
}

@test "action: a line break in an input cannot set the bin output" {
	need_node
	golden s.git sp 2
	printf '#!/bin/sh\necho "ran with $ENVPARITY_GIT_TOKEN" > %s/pwned\n' "$T" > evil
	chmod +x evil
	run_action r.json store=s.git token=s3cret "args=--no-discover --site-packages sp" \
	    "junit=$T/j.xml
bin=$T/evil"
	[ "$status" -ne 0 ]
	[ ! -e pwned ]
	[[ "$output" == *"an input holds a line break"* ]]
	jq -e '.steps.setup.outcome == "failure" and .steps.check.outcome == "skipped"' r.json
}

@test "action: outputs are written whole whatever they hold" {
	need_node
	golden s.git sp 2
	mkdir 'we=ird<<dir'
	run_action r.json store=s.git "args=--no-discover --site-packages sp" \
	    'reports-dir=we=ird<<dir'
	[ "$status" -eq 0 ]
	[ "$(jq -r '.outputs["reports-dir"]' r.json)" = "$T/we=ird<<dir" ]
	[ "$(jq -r .outputs.junit r.json)" = "$T/we=ird<<dir/envparity-default.junit.xml" ]
}

@test "action: a report committed as a symbolic link is neither written through nor uploaded" {
	need_node
	golden s.git sp 2
	mkdir -p home/.ssh envparity-reports
	echo 'ssh-ed25519 AAAA me' > home/.ssh/id_ed25519
	ln -s "$T/home/.ssh/id_ed25519" envparity-reports/envparity-default.json
	run_action r.json store=s.git "args=--no-discover --site-packages sp"
	[ "$status" -ne 0 ]
	[[ "$output" == *"envparity-reports/envparity-default.json is a symbolic link"* ]]
	jq -e '.uses == []' r.json
	[ "$(cat home/.ssh/id_ed25519)" = 'ssh-ed25519 AAAA me' ]

	# The folder itself as a link.
	rm -r envparity-reports
	ln -s "$T/home/.ssh" envparity-reports
	run_action r.json store=s.git "args=--no-discover --site-packages sp"
	[ "$status" -ne 0 ]
	[[ "$output" == *"envparity-reports is a symbolic link"* ]]
	jq -e '.uses == []' r.json
	[ "$(ls home/.ssh)" = id_ed25519 ]
}

@test "action: the cache is the job's own unless a folder is named" {
	need_node
	golden s.git sp 2
	rm -rf "$XDG_CACHE_HOME"
	run_action r.json store=s.git "args=--no-discover --site-packages sp"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.outputs["cache-dir"]' r.json)" = "$T/runner/envparity-cache" ]
	[ -f runner/envparity-cache/envparity/cache-v1 ]
	[ ! -e "$XDG_CACHE_HOME/envparity/cache-v1" ]
	run_action r.json store=s.git "args=--no-discover --site-packages sp" cache-dir=mine
	[ "$status" -eq 0 ]
	[ -f mine/envparity/cache-v1 ]
}

@test "GitLab template: a committed link at envparity-reports or its files is not followed" {
	command -v node >/dev/null 2>&1 || skip "node is not installed"
	"$NM/.bin/js-yaml" "$GL_TEMPLATE" > t.json
	jq -r '.[".envparity"].script | join("\n")' t.json > script.sh
	golden "$T/s.git" "$T/sp" 2
	rm -rf "$XDG_CACHE_HOME"
	mkdir -p home/.ssh envparity-reports
	echo 'ssh-ed25519 AAAA me' > home/.ssh/id_ed25519
	echo 'export PATH=/usr/bin' > home/.bashrc
	ln -s "$T/home/.bashrc" envparity-reports/envparity.env
	ln -s "$T/home/.ssh/id_ed25519" envparity-reports/junit.xml
	ENVPARITY_BIN=$EP ENVPARITY_SRC= ENVPARITY_RUNS= ENVPARITY_FAIL_ON_DRIFT=true \
	    ENVPARITY_STORE=$T/s.git ENVPARITY_ARGS="--no-discover --site-packages $T/sp" \
	    CI_PROJECT_DIR=$T run sh script.sh
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat home/.bashrc)" = 'export PATH=/usr/bin' ]
	[ "$(cat home/.ssh/id_ed25519)" = 'ssh-ed25519 AAAA me' ]
	[ ! -L envparity-reports/junit.xml ] && xmllint --noout envparity-reports/junit.xml
	grep -qx 'ENVPARITY_STATUS=parity' envparity-reports/envparity.env
	# The job's cache is its own.
	[ ! -e "$XDG_CACHE_HOME/envparity/cache-v1" ]
}

@test "GitLab template: a build folder the checkout holds is never used (no code of the checkout runs)" {
	command -v node >/dev/null 2>&1 || skip "node is not installed"
	"$NM/.bin/js-yaml" "$GL_TEMPLATE" > t.json
	jq -r '.[".envparity"].script | join("\n")' t.json > script.sh
	# A stand-in for envparity's source tree whose Makefile, like the real
	# one, reads $(B)/obj/*.d, and builds a stub binary that says where.
	mkdir -p src/tools checkout
	printf '#!/bin/sh\nexit 0\n' > src/tools/deps.sh
	chmod +x src/tools/deps.sh
	printf '%s\n' '-include $(B)/obj/*.d' 'all:' \
	    '	mkdir -p $(B)' \
	    "	printf '#!/bin/sh\\necho \"stub from \$(B)\"\\nexit 0\\n' > \$(B)/envparity" \
	    '	chmod +x $(B)/envparity' > src/Makefile
	# What a merge request can commit: a dependency file that runs code.
	mkdir -p checkout/.envparity-build/obj
	printf '$(shell printf "ran with token=%%s" "$$ENVPARITY_GIT_TOKEN" > %s/stolen)\n' "$T" \
	    > checkout/.envparity-build/obj/main.d
	(cd checkout && ENVPARITY_BIN=envparity-not-installed ENVPARITY_SRC=$T/src \
	    ENVPARITY_RUNS= ENVPARITY_ARGS= ENVPARITY_FAIL_ON_DRIFT=true ENVPARITY_CACHE_DIR= \
	    ENVPARITY_GIT_TOKEN=glpat-SECRET CI_PROJECT_DIR=$T/checkout sh ../script.sh) > out 2>&1 || true
	cat out
	[ ! -e stolen ]
	grep -q "stub from ${TMPDIR:-/tmp}/envparity-build." out
}
