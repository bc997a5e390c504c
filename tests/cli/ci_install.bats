#!/usr/bin/env bats
# ci_install.bats: where the GitHub action's envparity comes from (input
# install): "path" runs the one on PATH, "auto" runs it when its version is
# the one wanted and builds from the action's source otherwise, "source"
# builds, and "deb" installs a Debian package with apt-get and runs it.
# The action's steps run as the runner runs them (tools/run-composite.js);
# for "deb", which installs into the system, its steps run inside a fresh
# Debian root (debootstrap, tests/cli/debroot.bash) instead of here.

load setup
load git_daemon
load ci
load debroot

ACTION=$REPO_ROOT/ci/github/action.yml
NM=$REPO_ROOT/tools/node_modules

setup_file() {
	unset ENVPARITY_STORE ENVPARITY_PROFILE ENVPARITY_GIT_TOKEN
	unset GITHUB_OUTPUT GITHUB_STEP_SUMMARY GITHUB_ENV GITHUB_PATH
}

# A folder with an envparity that says it is version $2 and is otherwise
# the binary under test; or with $EP itself when $2 is empty.
fake_path() { # dir [version]
	mkdir -p "$1"
	if [ -z "${2:-}" ]; then
		ln -s "$EP" "$1/envparity"
	else
		printf '#!/bin/sh\ncase $1 in --version) echo "envparity %s" ;; *) exec "%s" "$@" ;; esac\n' \
		    "$2" "$EP" >"$1/envparity"
		chmod +x "$1/envparity"
	fi
}

@test "install: path and auto run the envparity on PATH of the version wanted" {
	need_node
	# Outside the workspace ($T): one there is the checkout's, never run.
	PB=$BATS_TEST_TMPDIR/pbin
	golden s.git sp 3
	fake_path "$PB"
	v=$("$EP" --version | sed 's/^envparity //')
	for how in path auto; do
		PATH=$PB:$PATH run_action r.json envparity= install=$how store=s.git \
		    "args=--no-discover --site-packages sp"
		[ "$status" -eq 0 ]
		jq -e '.outputs.status == "parity"' r.json
		[ "$(jq -r .outputs.envparity r.json)" = "$PB/envparity" ]
		[ "$(jq -r '.outputs["envparity-version"]' r.json)" = "$v" ]
		[ ! -e runner/envparity-build ]
	done
	# path with a version that is not the one on PATH: exit 3, said why.
	PATH=$PB:$PATH run_action r.json envparity= install=path version=9.9.9 store=s.git
	[ "$status" -ne 0 ]
	[[ "$output" == *"is envparity $v, not 9.9.9 (input version)"* ]]
	[ "$(jq -r .steps.verdict.exit_code r.json)" != 0 ]
	# An unknown install is refused before anything runs.
	run_action r.json envparity= install=brew store=s.git
	[ "$status" -ne 0 ]
	[[ "$output" == *"input install: not auto, path, deb or source"* ]]
}

@test "install: auto builds from the action's source when PATH has another version; source builds too" {
	need_node
	PB=$BATS_TEST_TMPDIR/pbin
	golden s.git sp 3
	fake_path "$PB" 0.0.1
	PATH=$PB:$PATH run_action r.json envparity= install=auto store=s.git \
	    "args=--no-discover --site-packages sp"
	[ "$status" -eq 0 ]
	[[ "$output" == *"install auto: source"* ]]
	[ "$(jq -r .outputs.envparity r.json)" = "$T/runner/envparity-build/envparity" ]
	[ "$(jq -r '.outputs["envparity-version"]' r.json)" = "$(make -s -C "$REPO_ROOT" version)" ]
	jq -e '.outputs.status == "parity"' r.json
	# source, asked for: the same build (make finds it up to date).
	PATH=$PB:$PATH run_action r2.json envparity= install=source store=s.git \
	    "args=--no-discover --site-packages sp"
	[ "$status" -eq 0 ]
	[ "$(jq -r .outputs.envparity r2.json)" = "$T/runner/envparity-build/envparity" ]
}

@test "install: path and auto never run an envparity the checkout puts on PATH" {
	need_node
	# The checkout's envparity says it is the version wanted, and leaves
	# a mark when anything runs it (--version included).
	v=$(sed -n 's/^#define EP_VERSION "\(.*\)"$/\1/p' "$REPO_ROOT/checker/util/version.h")
	mkdir -p bin sub/deep
	printf '#!/bin/sh\ntouch "%s/ran"\necho "envparity %s"\n' "$T" "$v" >bin/envparity
	chmod +x bin/envparity
	cp bin/envparity envparity
	cp bin/envparity sub/deep/envparity
	for entry in "$T/bin" "$T/sub/deep" . bin ""; do
		PATH=$entry:$PATH run_action r.json envparity= install=path store=s.git
		[ "$status" -ne 0 ]
		[[ "$output" == *"is in the working directory or the workspace"* || "$output" == *"a relative PATH entry"* ]]
		[[ "$output" == *"input envparity"* ]]
		[ ! -e ran ]
	done
	# auto: not run, not even for its version; built from source instead
	# (a make that fails at once: the build is not what is tested here).
	mkdir fakemake
	printf '#!/bin/sh\nexit 1\n' >fakemake/make
	chmod +x fakemake/make
	for entry in "$T/bin" .; do
		PATH=$T/fakemake:$entry:$PATH run_action r.json envparity= install=auto store=s.git
		[[ "$output" == *"install auto: source"* ]]
		[ ! -e ran ]
	done
	# Named with input envparity, it is the user's choice: it runs.
	run_action r.json envparity="$T/bin/envparity" store=s.git
	[ -e ran ]
}

@test "install: deb installs the package with apt-get in a fresh Debian root and the check runs it" {
	need_node
	[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot)"
	git -C "$REPO_ROOT" rev-parse --verify -q HEAD >/dev/null 2>&1 || skip "not a git checkout"
	deb=$(deb_of_head "$T/deb")
	debroot_make root
	cp "$deb" root/tmp/envparity.deb
	mkdir -p root/action/ci/github root/job root/work
	git init -q --bare -b main root/tmp/s.git
	# The action's two steps, as scripts, with the env: the runner gives.
	yaml_json "$ACTION" | jq -r '.runs.steps[0].run' >root/job/setup.sh
	yaml_json "$ACTION" | jq -r '.runs.steps[1].run' >root/job/check.sh
	: >root/job/out
	run chroot root env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	    INPUT_ENVPARITY= INPUT_INSTALL=deb INPUT_VERSION= INPUT_DEB=/tmp/envparity.deb \
	    INPUT_PROFILE=default INPUT_REPORTS_DIR=reports INPUT_JUNIT= INPUT_JSON= \
	    INPUT_MARKDOWN= INPUT_ATTESTATION= INPUT_ARTIFACT_NAME= INPUT_CACHE_DIR= \
	    ACTION_PATH=/action/ci/github BUILD_DIR=/job/build JOB_TEMP=/job \
	    GITHUB_OUTPUT=/job/out sh -c 'cd /work && bash -e /job/setup.sh'
	echo "$output" | tail -n 20
	[ "$status" -eq 0 ]
	grep -A1 '^bin<<' root/job/out | grep -qx /usr/bin/envparity
	chroot root dpkg -s envparity | grep -qx 'Status: install ok installed'
	# The check step runs what was installed: bless a golden, then parity.
	chroot root envparity bless -q --store /tmp/s.git --no-discover
	run chroot root env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	    INPUT_STORE=/tmp/s.git INPUT_REF= INPUT_PROFILE=default INPUT_RUNS= \
	    INPUT_ARGS=--no-discover ENVPARITY_BIN=/usr/bin/envparity \
	    REPORT_JUNIT=/work/reports/j.xml REPORT_JSON=/work/reports/r.json \
	    REPORT_MARKDOWN=/work/reports/r.md REPORT_ATTESTATION=/work/reports/a.json \
	    XDG_CACHE_HOME=/job/cache ENVPARITY_GIT_TOKEN= SIGN=false JOB_TEMP=/job \
	    GITHUB_OUTPUT=/job/out sh -c 'cd /work && bash /job/check.sh'
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx 'status=parity' root/job/out
	[ "$(jq -r .tool root/work/reports/r.json)" = "envparity $(make -s -C "$REPO_ROOT" version)" ]
}
