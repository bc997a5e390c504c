# Shared setup for the bats CLI tests (after jq's tests/setup): a fresh
# temporary directory per test, removed afterwards, and the binary under
# test in $EP (EP_BIN from tests/run.sh, else build/envparity).
#
# Use in a .bats file:   load setup

EP=${EP_BIN:-$BATS_TEST_DIRNAME/../../build/envparity}
FIXTURES=$BATS_TEST_DIRNAME/../fixtures
REPO_ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

setup() {
	T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/envparity-cli.XXXXXX")
	# A cache of our own, never the user's.
	export XDG_CACHE_HOME=$T/cache
	export HOME=$T/home
	# Never the real CI's job summary or annotations; and not CI, where
	# check refuses the default store these tests use (store_ci.bats).
	unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY CI GITLAB_CI JENKINS_URL \
	    JENKINS_HOME TF_BUILD BUILDKITE CIRCLECI TRAVIS TEAMCITY_VERSION \
	    BITBUCKET_BUILD_NUMBER DRONE APPVEYOR CODEBUILD_BUILD_ID \
	    TEKTON_PIPELINE_RUN CI_PIPELINE_ID WOODPECKER
	mkdir -p "$HOME"
	# envparity's helpers get an allowlisted environment and, under
	# Landlock, only their own files (docs/manifest.md, "What child
	# processes see").  The test doubles standing in for the GPU and its
	# driver (tests/doubles) take their settings from FAKE_* variables,
	# and the doubles and wrappers of these tests log into $T: so every
	# helper here gets those variables and may write $T.  The tests of the
	# confinement itself (trust_*.bats) narrow both.
	export ENVPARITY_CHILD_ENV='FAKE_*' ENVPARITY_CHILD_DIRS=$T
	seed_cache
	cd "$T" || return 1
}

# The test's fresh cache starts with the answers for this machine's own
# libraries (their SHA-256 and reported versions), made once a run by a
# capture of the binary under test: a cold capture hashes gigabytes of
# CUDA libraries and loads them in helpers, seconds of CPU each time,
# while what most tests look at is the rest.  The cache's own tests, and
# any test that needs the cold path, set EP_TEST_COLD_CACHE=1 (at the top
# of the file, or before calling setup) and start empty.  The entries are
# keyed by each file's device, inode, size and times (util/cache.h), so
# a test's own files always miss.  A test that gives envparity a cache
# folder of its own calls seed_cache DIR for it.
seed_cache() { # [cache-folder, default $XDG_CACHE_HOME]
	local run=${EP_TEST_RUN_DIR:-${BATS_RUN_TMPDIR:-}} seed dir=${1:-$XDG_CACHE_HOME}
	[ -z "${EP_TEST_COLD_CACHE:-}" ] && [ -n "$run" ] && [ -d "$run" ] || return 0
	seed=$run/hashcache
	(
		flock 9 || exit 1
		[ ! -e "$seed/done" ] || exit 0
		rm -rf "$seed" && mkdir -p -m 0700 "$seed/home" || exit 1
		XDG_CACHE_HOME=$seed/cache HOME=$seed/home \
		    "$EP" capture -q --no-discover -o "$seed/m.json" >/dev/null 2>&1
		: >"$seed/done"
	) 9>"$run/hashcache.lock" || return 0
	[ -f "$seed/cache/envparity/cache-v1" ] || return 0
	[ ! -e "$dir/envparity/cache-v1" ] || return 0
	mkdir -p -m 0700 "$dir/envparity" &&
	    cp -p "$seed/cache/envparity/cache-v1" "$dir/envparity/"
}

teardown() {
	cd / && rm -rf "$T"
}

# Validate a JSON file against one of the schemas in manifests/ with a
# real JSON Schema validator (ajv, installed by tools/deps.sh).
# A host that cannot have the validator (a GPU host with no package
# registry) sets EP_NO_VALIDATOR=1 to skip, by name, the tests that need it.
validate_schema() { # schema-name file
	if [ "${EP_NO_VALIDATOR:-}" = 1 ] && \
	    [ ! -x "$REPO_ROOT/tools/node_modules/.bin/ajv" ]; then
		skip "no JSON Schema validator on this host"
	fi
	"$REPO_ROOT/tools/validate-json" "$REPO_ROOT/manifests/$1.schema.json" "$2"
}

# A manifest file from its facts (a JSON object) and, optionally, its meta.
manifest() { # file facts-json [meta-json]
	local meta=${3-}
	[ -n "$meta" ] || meta='{}'
	jq -n --argjson f "$2" --argjson m "$meta" \
	    '{schema: "envparity/manifest@1", meta: $m, facts: $f}' > "$1"
}

# Value of a fact in a manifest file (jq is a test dependency).
fact() { # file key
	jq -r --arg k "$2" '.facts[$k] // empty' "$1"
}
