#!/usr/bin/env bats
# ci_image.bats: the release's tag is one across the CI templates (vX.Y.Z
# for version X.Y.Z): the GitLab template's .envparity:image names
# ENVPARITY_IMAGE with the release's tag, the workflows use the action at
# that tag, and a pipeline extending .envparity:image passes GitLab's CI
# schema (gitlab-ci-local).  The image itself is built by image.bats.

load setup
load ci

NM=$REPO_ROOT/tools/node_modules
GCL=${EP_GITLAB_CI_LOCAL:-$NM/.bin/gitlab-ci-local}

@test "GitLab: .envparity:image runs in ENVPARITY_IMAGE at the release's tag, its entrypoint reset" {
	need_node
	v=$(make -s -C "$REPO_ROOT" version)
	yaml_json "$REPO_ROOT/ci/gitlab/envparity.gitlab-ci.yml" >t.json
	[ "$(jq -r '.[".envparity:image"].image.name' t.json)" = '$ENVPARITY_IMAGE' ]
	[ "$(jq -c '.[".envparity:image"].image.entrypoint' t.json)" = '[""]' ]
	img=$(jq -r '.[".envparity:image"].variables.ENVPARITY_IMAGE' t.json)
	[[ "$img" == *":v$v" ]]
	# The other jobs are not moved into a container: a check must see
	# the machine it runs on.
	[ "$(jq '[to_entries[] | select(.key != ".envparity:image" and .value.image != null)] | length' t.json)" = 0 ]
	# Every place a release is named says v$v.
	run grep -rhoE '(ci/github@|ref: |envparity:)v[0-9][0-9.]*' "$REPO_ROOT/ci"
	echo "$output"
	[ -n "$output" ]
	! grep -v "v$v\$" <<<"$output"
}

@test "GitLab: a job extending .envparity:verify and .envparity:image passes GitLab's CI schema" {
	need_node
	[ -x "$GCL" ] || skip "gitlab-ci-local is not installed under tools/node_modules"
	mkdir -p glp/ci
	cp -r "$REPO_ROOT/ci/gitlab" glp/ci/
	cat >glp/.gitlab-ci.yml <<-'YML'
	include:
	  - local: ci/gitlab/envparity.gitlab-ci.yml
	verify:
	  extends: [.envparity:verify, .envparity:image]
	  script: [echo deploy]
	YML
	git -C glp init -q -b main
	git -C glp add -A
	git -C glp -c user.name=t -c user.email=t@x commit -qm init
	run sh -c 'cd glp && "$1" --list' sh "$GCL"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"json schema validated"* ]]
	[[ "$output" == *"verify "* ]]
	run sh -c 'cd glp && "$1" --preview' sh "$GCL"
	echo "$output"
	[[ "$output" == *"ENVPARITY_IMAGE"* || "$output" == *"ghcr.io/your-org/envparity:v"* ]]
}
