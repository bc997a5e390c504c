#!/usr/bin/env bats
# report_expected.bats: every report a diff and a fleet write (JSON,
# JUnit, Markdown, Prometheus, GitHub's step summary and annotations, the
# human summary), byte for byte against tests/fixtures/reports/, with
# what changes from run to run masked (the time, the run's length, this
# machine's name, envparity's version).  A change to what a writer renders
# shows in those files, in the same commit.  To write them anew:
#   EP_EXPECTED_WRITE=1 bats tests/cli/report_expected.bats

load setup
load report_readers

EXPECTED=$FIXTURES/reports

# Mask what differs between two runs of the same input.
mask() { # file
	local host version
	host=$(hostname)
	version=$("$EP" version | head -1)
	version=${version#envparity }
	sed -E -e 's/"generated_at": "[^"]*"/"generated_at": "TIME"/' \
	    -e "s/\"host\": \"$host\"/\"host\": \"HOST\"/" \
	    -e "s/hostname=\"$host\"/hostname=\"HOST\"/g" \
	    -e 's/timestamp="[^"]*"/timestamp="TIME"/g' \
	    -e 's/^(<testsuites name="envparity" .*) time="[^"]*"/\1 time="ELAPSED"/' \
	    -e 's/^(envparity_last_run_timestamp_seconds\{[^}]*\}) .*/\1 TIME/' \
	    -e "s/envparity $version/envparity VERSION/g" \
	    -e "s/\"envparity.version\" value=\"$version\"/\"envparity.version\" value=\"VERSION\"/" \
	    "$1"
}

# Run envparity with every report and GitHub's two outputs, then compare
# each (or write it, with EP_EXPECTED_WRITE=1).
reports() { # name args...
	local name=$1 f
	shift
	printf '# an earlier step\n' > ss.md
	GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY=$T/ss.md run --separate-stderr \
	    "$EP" "$@" --json r.json --junit r.xml --markdown r.md --prom r.prom
	printf '%s\n' "$output" > r.stdout
	printf '%s\n' "$stderr" > r.stderr
	echo "$status" > r.status
	for f in r.status r.stdout r.stderr r.json r.xml r.md r.prom ss.md; do
		mask "$f" > "$f.masked"
		if [ "${EP_EXPECTED_WRITE:-}" = 1 ]; then
			cp "$f.masked" "$EXPECTED/$name.${f#r.}"
		else
			diff -u "$EXPECTED/$name.${f#r.}" "$f.masked"
		fi
	done
}

# report.bats' scenario, with text that would be markup, a link, a
# terminal escape or a workflow command in some report.
@test "diff: every report is the expected one" {
	bats_require_minimum_version 1.5.0
	manifest a.json '{"python.pkg.numpy": "1.26.4", "python.pkg.torch": "2.3.1",
	  "python.pkg.old": "1", "lib.x.version": "1", "gpu.0.name": "NVIDIA H100",
	  "gpu.driver.version": "bogus", "lib.cudart.version": "13.0.96",
	  "python.pkg.evil": "a|b <script>x</script> ::error::y",
	  "env.X": "https://www.example.com/@me"}'
	manifest b.json '{"python.pkg.numpy": "2.0.0", "python.pkg.torch": "2.3.2",
	  "python.pkg.old": "2", "lib.x.version": "2", "gpu.driver.version": "bogus",
	  "lib.cudart.version": "13.0.96", "python.pkg.evil": "\u001b[31m]]><&\n##[x",
	  "python.pkg.new": "1", "env.X": "x"}' \
	  '{"unavailable": {"gpu": "no GPU on this runner", "probe": "not asked"}}'
	cat > policy.json <<-'P'
	{"schema": "envparity/policy@1",
	 "rules": [{"key": "python.pkg.torch", "rule": "version", "range": ">=2.3,<2.4"}],
	 "waivers": [
	  {"key": "lib.x.version", "reason": "rebuilt, same code",
	   "owner": "ml-platform", "expires": "2099-12-31"},
	  {"key": "python.pkg.old", "reason": "was fine once",
	   "owner": "someone", "expires": "2020-01-31"}]}
	P
	reports diff diff --policy policy.json a.json b.json
	[ "$(cat r.status)" = 1 ]
}

# Six nodes: odd nodes out, a tie, a probe hash that splits one domain
# with its likely cause, two determinism domains, a node expected but
# missing, a manifest that cannot be read.
@test "fleet: every report is the expected one" {
	bats_require_minimum_version 1.5.0
	local base='{"os.id": "debian", "os.kernel": "6.1.0-1", "python.pkg.numpy": "1.26.4", "lib.cublas.version": "13.1.0.3", "env.NCCL_ALGO": "Ring", "probe.domain": "NVIDIA H100 80GB HBM3 cc 9.0", "probe.cublas.gemm.sha256": "aaaa", "probe.cublas.reduce.sha256": "bbbb", "probe.gpu0.domain": "H100", "probe.gpu1.domain": "H100"}'
	mkdir d
	for n in n1 n2 n3 n4 n5 n6; do
		manifest "d/$n.json" "$base" "{\"node\": \"$n\", \"host\": \"vm\"}"
	done
	edit() { jq ".facts |= ($2)" "d/$1.json" > d/t && mv d/t "d/$1.json"; }
	edit n3 '."probe.cublas.gemm.sha256" = "cccc" | ."lib.cublas.version" = "13.1.0.9" | ."python.pkg.numpy" = "2.0.0"'
	edit n4 '."env.NCCL_ALGO" = "Tree" | ."probe.gpu1.domain" = "A100"'
	edit n5 '."env.NCCL_ALGO" = "Tree" | ."env.NEW" = "1"'
	edit n6 '."env.NCCL_ALGO" = "Other"'
	for n in n4 n5 n6; do edit $n '."lib.tie.version" = "2"'; done
	printf '{"schema": "envparity/manifest@1",\n "facts": {' > d/trunc.json
	reports fleet fleet d --expect 'n[1-7]'
	[ "$(cat r.status)" = 1 ]
	[ "$(jq -r '[.fleet.splits[].kind] | unique | join(",")' r.json)" = \
	    "domain,odd,probe,tie" ]
	# Each heading counts the rows of its own table: the Drift table
	# lists the failures the matrix does not, and says so.
	heading=$(grep '^### Drift: ' r.md)
	rows=$(awk '/^### Drift: /{t=1; next} /^###/{t=0} t && /^\| (fail|error) \|/' r.md | wc -l)
	[[ "$heading" =~ ^"### Drift: "([0-9]+)" failed, "([0-9]+)" could not be checked" ]]
	[ "$((BASH_REMATCH[1] + BASH_REMATCH[2]))" -eq "$rows" ]
	[ "$(grep -c '^| <code>' <(awk '/^### Facts that differ across nodes: /{t=1; next} /^###/{t=0} t' r.md))" = \
	    "$(grep -o '^### Facts that differ across nodes: [0-9]*' r.md | grep -o '[0-9]*$')" ]
}

# A manifest's meta.unavailable written by hand can hold anything: what
# is not a reason (a string) is no area the report lists, and the report
# stays valid against its schema.
@test "diff: a meta.unavailable that is not all strings leaves a valid report" {
	manifest u.json '{"a": "1"}' '{"unavailable": {"gpu": 5, "python": "no py", "x": {"y": 1}}}'
	run "$EP" diff u.json u.json --json r.json --junit r.xml
	echo "$output"
	[ "$status" -eq 0 ]
	validate_schema report r.json
	[ "$(jq -c .unavailable r.json)" = '{"python":"no py"}' ]
	junit_read r.xml r.json
	manifest v.json '{"a": "1"}' '{"unavailable": ["gpu"]}'
	run "$EP" diff v.json v.json --json r.json
	[ "$status" -eq 0 ]
	validate_schema report r.json
	[ "$(jq -c .unavailable r.json)" = '{}' ]
}
