#!/usr/bin/env bats
# --prom: Prometheus text exposition for node_exporter's textfile
# collector, read by its real consumers: Debian's prometheus-node-exporter
# on 127.0.0.1 reading the directory (the series it serves, and its
# node_textfile_scrape_error), and promtool check metrics (lint included).

load setup
load net

NE_PID=

start_node_exporter() { # dir
	NE_PORT=$(free_port)
	prometheus-node-exporter --web.listen-address="127.0.0.1:$NE_PORT" \
	    --collector.disable-defaults --collector.textfile \
	    --collector.textfile.directory="$1" >"$T/ne.log" 2>&1 &
	NE_PID=$!
	for _ in $(seq 1 100); do
		curl -sf "http://127.0.0.1:$NE_PORT/metrics" >/dev/null && return 0
		sleep 0.05
	done
	cat "$T/ne.log" >&2
	return 1
}

teardown() {
	[ -n "$NE_PID" ] && kill "$NE_PID" 2>/dev/null && wait "$NE_PID" 2>/dev/null
	cd / && rm -rf "$T"
}

scrape() {
	curl -sf "http://127.0.0.1:$NE_PORT/metrics"
}

# Three nodes; n3 has another numpy.
nodes() {
	mkdir -p d
	for n in n1 n2 n3; do
		manifest "d/$n.json" '{"os.id": "debian", "python.pkg.numpy": "1.26.4"}' "{\"node\": \"$n\"}"
	done
	jq '.facts."python.pkg.numpy" = "2.0.0"' d/n3.json > d/t && mv d/t d/n3.json
}

@test "prom: check's metrics pass promtool's lint and node_exporter serves them" {
	command -v prometheus-node-exporter && command -v promtool
	manifest g.json '{"os.id": "debian"}'
	git init -q --bare store.git
	"$EP" bless -q --store store.git --profile gpu g.json
	mkdir tf
	run "$EP" check --store store.git --profile gpu --no-discover --prom tf/envparity.prom
	echo "$output"
	[ "$status" -eq 1 ]
	promtool check metrics < tf/envparity.prom
	grep -qx 'envparity_drift{command="check",profile="gpu"} 1' tf/envparity.prom
	grep -qx 'envparity_exit_status{command="check",profile="gpu"} 1' tf/envparity.prom
	grep -q '^envparity_results{command="check",profile="gpu",status="fail"} [1-9]' tf/envparity.prom
	start_node_exporter "$T/tf"
	scrape > m.txt
	grep -qx 'node_textfile_scrape_error 0' m.txt
	grep -qx 'envparity_drift{command="check",profile="gpu"} 1' m.txt
	# The end time is a value (the collector drops files with timestamps).
	grep -qE '^envparity_last_run_timestamp_seconds\{command="check",profile="gpu"\} [0-9.e+]+$' m.txt
}

@test "prom: fleet's metrics: a drift gauge and odd facts per node, missing nodes, served whole" {
	nodes
	mkdir tf
	run "$EP" fleet d --expect 'n[1-4]' --prom tf/fleet.prom
	[ "$status" -eq 1 ]
	cat tf/fleet.prom
	promtool check metrics < tf/fleet.prom
	start_node_exporter "$T/tf"
	scrape > m.txt
	grep -qx 'node_textfile_scrape_error 0' m.txt
	grep -qx 'envparity_node_drift{node="n3",profile="none"} 1' m.txt
	grep -qx 'envparity_node_drift{node="n1",profile="none"} 0' m.txt
	grep -qx 'envparity_node_odd_facts{node="n3",profile="none"} 1' m.txt
	grep -qx 'envparity_node_reported{node="n4",profile="none"} 0' m.txt
	grep -qx 'envparity_fleet_nodes{profile="none",state="missing"} 1' m.txt
	[ "$(grep -c '^envparity_node_drift{' m.txt)" = 4 ]
}

@test "prom: HELP and TYPE once per metric, no series twice, no timestamps, label values escaped" {
	nodes
	# Two manifests naming n2 (refused as duplicates), and an unreadable
	# one whose name (from its file) needs escaping.
	cp d/n2.json d/n2-again.json
	printf 'not json' > 'd/we"ird\name.json'
	run "$EP" fleet d --prom f.prom
	[ "$status" -eq 1 ]
	cat f.prom
	promtool check metrics < f.prom
	# One HELP and one TYPE per metric name, every TYPE before its samples.
	[ -z "$(grep '^# HELP' f.prom | awk '{print $3}' | sort | uniq -d)" ]
	[ -z "$(grep '^# TYPE' f.prom | awk '{print $3}' | sort | uniq -d)" ]
	[ -z "$(grep -v '^#' f.prom | sed 's/ [^ ]*$//' | sort | uniq -d)" ]
	# name{labels} value: no third field, whatever a label holds.
	[ -z "$(grep -v '^#' f.prom | sed 's/^.*} //' | grep ' ')" ]
	grep -qF 'node="we\"ird\\name"' f.prom
	[ "$(grep -c '^envparity_node_reported{node="n2",' f.prom)" = 1 ]
	mkdir tf && cp f.prom tf/
	start_node_exporter "$T/tf"
	scrape > m.txt
	grep -qx 'node_textfile_scrape_error 0' m.txt
	grep -qF 'envparity_node_reported{node="we\"ird\\name",profile="none"} 0' m.txt
}

@test "prom: written atomically, never through a link, and - is standard output" {
	nodes
	ln -s /etc/passwd link.prom
	run "$EP" fleet d --prom link.prom
	[ "$status" -eq 2 ]
	[ -L link.prom ]
	run "$EP" fleet d --prom -
	[ "$status" -eq 1 ]
	printf '%s\n' "$output" | grep -qx 'envparity_node_drift{node="n3",profile="none"} 1'
	# The summary went to standard error: the metrics alone on stdout.
	"$EP" fleet d --prom - 2>/dev/null | promtool check metrics
}

@test "prom: a series per failing key, at most 20, the rest counted in one series; escaped; promtool passes" {
	local g='{"os.id": "debian"}' c='{"os.id": "debian"}'
	for i in $(seq -w 1 25); do
		g=$(jq -c --arg k "python.pkg.p$i" '.[$k] = "1"' <<<"$g")
		c=$(jq -c --arg k "python.pkg.p$i" '.[$k] = "2"' <<<"$c")
	done
	g=$(jq -c '.["python.pkg.a\"b\\c"] = "1"' <<<"$g")
	manifest g.json "$g"
	manifest c.json "$c"
	run "$EP" diff g.json c.json --prom f.prom
	[ "$status" -eq 1 ]
	cat f.prom
	promtool check metrics < f.prom
	[ "$(grep -c '^envparity_fact_failed{' f.prom)" = 20 ]
	# The first 20 keys in byte order: the escaped one, then p01..p19.
	grep -qxF 'envparity_fact_failed{command="diff",key="python.pkg.a\"b\\c",profile="none"} 1' f.prom
	grep -qxF 'envparity_fact_failed{command="diff",key="python.pkg.p19",profile="none"} 1' f.prom
	! grep -qF 'key="python.pkg.p20"' f.prom
	grep -qxF 'envparity_facts_failed_omitted{command="diff",profile="none"} 6' f.prom
	# Parity: no series per key, the count is 0.
	run "$EP" diff g.json g.json --prom f.prom
	[ "$status" -eq 0 ]
	! grep -q '^envparity_fact_failed{' f.prom
	grep -qxF 'envparity_facts_failed_omitted{command="diff",profile="none"} 0' f.prom
}

@test "prom: the Grafana dashboard (ci/grafana/envparity.json) queries only series envparity writes, in valid PromQL" {
	nodes
	run "$EP" fleet d --expect 'n[1-4]' --prom f.prom
	[ "$status" -eq 1 ]
	written=$(sed -n 's/^# TYPE \([a-z_]*\) gauge$/\1/p' f.prom | sort -u)
	[ "$(wc -l <<<"$written")" -ge 10 ]
	dash=$BATS_TEST_DIRNAME/../../ci/grafana/envparity.json
	jq -e '.panels | length > 0 and all(.[]; (.targets | length) > 0)' "$dash"
	jq -r '.panels[].targets[].expr, .templating.list[].definition' "$dash" > exprs
	[ "$(wc -l < exprs)" -ge 10 ]
	# Every metric a query names is one a run wrote.
	grep -o 'envparity_[a-z_]*' exprs | sort -u > used
	for m in $(cat used); do
		grep -qx "$m" <<<"$written" || { echo "not written by envparity: $m"; false; }
	done
	# Every panel's expression parses as PromQL (a rules file of them;
	# Grafana's $profile lies inside a regex matcher).
	{
		echo 'groups:'
		echo '- name: dashboard'
		echo '  rules:'
		jq -r '.panels[].targets[].expr' "$dash" | while IFS= read -r e; do
			printf '  - record: envparity:dashboard\n    expr: %s\n' "$(jq -Rn --arg e "$e" '$e')"
		done
	} > rules.yml
	promtool check rules rules.yml
	# ... and promtool refuses one that does not.
	printf '  - record: envparity:dashboard\n    expr: "sum by (x (envparity_drift)"\n' >> rules.yml
	! promtool check rules rules.yml
	# A query naming a series envparity does not write is caught.
	echo 'envparity_no_such_metric' >> exprs
	[ "$(grep -o 'envparity_[a-z_]*' exprs | sort -u | grep -cvxF "$written")" = 1 ]
}
