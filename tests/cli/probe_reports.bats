#!/usr/bin/env bats
# probe_reports.bats: `envparity probe` reports like check (--json,
# --junit, --markdown, --prom, -q), through check's writers, so that a
# probe-only CI step is read like every other.  The probe here is the test
# double (tests/doubles/fake_probe.sh, see probe.bats); the reports go
# through their real readers (report_readers.bash) and the report schema.

load setup
load report_readers

FAKE=$BATS_TEST_DIRNAME/../doubles/fake_probe.sh

fake() {
	mkdir -p "$T/state" "$T/site"
	FAKE_PROBE_STATE=$T/state run "$EP" probe --probe "$FAKE" \
	    --no-discover --site-packages "$T/site" --backend cpu "$@"
}

@test "probe --json --junit --markdown --prom: valid reports of the probe's results" {
	fake --runs 3 --json r.json --junit r.xml --markdown r.md --prom r.prom
	echo "$output"
	[ "$status" -eq 0 ]
	validate_schema report r.json
	[ "$(jq -r .command r.json)" = probe ]
	[ "$(jq -r .golden.name r.json)" = null ]
	[ "$(jq -r '.counts | "\(.pass) \(.fail) \(.total)"' r.json)" = "5 0 5" ]
	[ "$(jq -r '[.results[].key] | sort | join(",")' r.json)" = \
	    "probe.cpu.atomic.runs,probe.cpu.gemm.runs,probe.cpu.kat.known_answer,probe.cpu.kat.runs,probe.cpu.reduce.runs" ]
	junit_read r.xml r.json
	# One suite, the probe's.
	[ "$(xmllint --xpath 'count(//testsuite)' r.xml)" = 1 ]
	[ "$(xmllint --xpath 'string(//testsuite/@name)' r.xml)" = probe ]
	md_read r.md
	grep -q '^## envparity probe: PARITY' r.md
	grep -q 'envparity_results{command="probe",profile="none",status="pass"} 5' r.prom
	# The probe's own summary is still printed, on standard output.
	[[ "$output" == *"cpu    gemm            pass  identical in 3 runs;"* ]]
	[[ "$output" == *"probe: 5 passed, 0 failed, 0 errors, 0 skipped"* ]]
}

@test "probe: a run that differs is a failure in every report, exit 1" {
	FAKE_PROBE_MODE=nondet fake --runs 5 --json r.json --junit r.xml
	echo "$output"
	[ "$status" -eq 1 ]
	validate_schema report r.json
	[ "$(jq -r .exit_status r.json)" = 1 ]
	[ "$(jq -r '[.results[] | select(.status == "fail")] | length' r.json)" -ge 1 ]
	junit_read r.xml r.json
	[ "$(xmllint --xpath 'count(//testcase/failure)' r.xml)" -ge 1 ]
}

@test "probe -q prints the counts line only; the reports are whole" {
	fake --runs 2 -q --json r.json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "probe: 5 passed, 0 failed, 0 errors, 0 skipped" ]
	[ "$(jq -r .counts.total r.json)" = 5 ]
}

@test "probe: a report on standard output keeps it to itself" {
	mkdir -p state site
	FAKE_PROBE_STATE=$T/state "$EP" probe --probe "$FAKE" --no-discover \
	    --site-packages site --backend cpu --runs 2 --json - > out.json 2> err
	jq -e '.command == "probe" and .counts.pass == 5' out.json
	validate_schema report out.json
	grep -q 'probe: 5 passed' err
	FAKE_PROBE_STATE=$T/state "$EP" probe --probe "$FAKE" --no-discover \
	    --site-packages site --backend cpu --runs 2 --junit /dev/stdout \
	    > out.xml 2> err
	xmllint --noout --schema "$REPO_ROOT/manifests/junit.xsd" out.xml
	grep -q 'probe: 5 passed' err
}

@test "probe: bad report paths and two outputs on standard output stop before any run" {
	fake --runs 2 --json - -o /dev/stdout
	echo "$output"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"--json and -o both asked for standard output"* ]]
	ln -s nowhere link
	fake --runs 2 --junit link
	[ "$status" -eq 2 ]
	[[ "$output" == *"link: refused: a symbolic link"* ]]
	# Nothing ran.
	[ -z "$(ls -A state)" ]
}
