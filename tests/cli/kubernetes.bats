#!/usr/bin/env bats
# kubernetes.bats: the Kubernetes fleet audit under ci/kubernetes/, checked
# offline (no cluster here).  Every document passes kubernetes-models (the
# API's OpenAPI schemas) and tools/k8s-validate.mjs's own check for fields
# the models do not have; the shapes the audit relies on are asserted: an
# Indexed Job with one pod per GPU node, NODE_NAME from the downward API,
# the capture's arguments, the shared volume, the pods' security settings,
# the nightly CronJobs carrying the same Jobs; each node signs its
# manifest with its own key and the aggregation opens it only with that
# node's public key, within a maximum age.  The aggregation's shell
# script is run for real, with a stand-in envparity and, where this build
# has the fleet commands, with the real one.  And the validator bites: a
# misspelt enum, a container without a name, an unknown field, broken YAML.
#
# node and the npm packages (kubernetes-models, yaml) come from
# tools/deps.sh test; without them these tests fail, they do not skip.  A
# host that cannot have them (a GPU host with no package registry) sets
# EP_NO_VALIDATOR=1, as for the other validators.

bats_require_minimum_version 1.5.0

load setup

K8S=$REPO_ROOT/ci/kubernetes
AUDIT_YAML=$K8S/envparity-audit.yaml
AGG_YAML=$K8S/aggregate.yaml
NIGHTLY_YAML=$K8S/nightly.yaml
NM=$REPO_ROOT/tools/node_modules
VALIDATE=$REPO_ROOT/tools/k8s-validate.mjs

need_validator() {
	if [ "${EP_NO_VALIDATOR:-}" = 1 ] && [ ! -e "$NM/kubernetes-models/package.json" ]; then
		skip "no kubernetes-models on this host"
	fi
	if ! command -v node >/dev/null 2>&1; then
		echo "node is not installed: tools/deps.sh test installs it"
		return 1
	fi
	local p
	for p in kubernetes-models yaml; do
		if [ ! -e "$NM/$p/package.json" ]; then
			echo "$p is not installed under tools/node_modules: run tools/deps.sh test"
			return 1
		fi
	done
}

# The documents of a YAML file as one JSON array (empty documents left out).
docs() { # file
	(cd "$REPO_ROOT/tools" && node --input-type=module -e '
import { parseAllDocuments } from "yaml";
import fs from "node:fs";
const ds = parseAllDocuments(fs.readFileSync(process.argv[1], "utf8"));
for (const d of ds)
	if (d.errors.length) { console.error(d.errors[0].message); process.exit(2); }
process.stdout.write(JSON.stringify(ds.map((d) => d.toJS()).filter((o) => o != null)));
' "$1")
}

# The one document of FILE (as JSON) of KIND and NAME.
doc() { # file kind name
	docs "$1" | jq -e --arg k "$2" --arg n "$3" \
	    '[.[] | select(.kind == $k and .metadata.name == $n)] | if length == 1 then .[0] else error("want one \($k)/\($n), have \(length)") end'
}

# A copy of FILE with sed's EXPR applied at OUT; fails if nothing changed,
# so that a negative test cannot pass on an unchanged file.
mutate() { # file sed-expr out
	sed -e "$2" "$1" >"$3"
	if cmp -s "$1" "$3"; then
		echo "mutate: '$2' changed nothing in $1"
		return 1
	fi
}

# The aggregation's shell script, from the Job's container args.
agg_script() { # out
	doc "$AGG_YAML" Job envparity-aggregate | jq -r '
	    .spec.template.spec.containers[0] |
	    if .command == ["/bin/sh", "-c"] and (.args | length) == 1 then .args[0]
	    else error("not a /bin/sh -c SCRIPT container: \(.command) \(.args | length) args") end' >"$1"
}

# Run the aggregation script as the kubelet would (the script holds no
# $(VAR) reference for it to expand: asserted below) with AUDIT=DIR.
run_agg() { # script audit-dir bin-dir [NAME=VALUE...]
	local script=$1 audit=$2 bin=$3
	shift 3
	run env -i PATH="$bin:/usr/bin:/bin" HOME="$T/home" XDG_CACHE_HOME="$T/cache" \
	    AUDIT="$audit" EXPECT_NODES= STORE= PROFILE=default NODE_KEYS= MAX_AGE= \
	    "$@" sh -c "$(cat "$script")"
	echo "$output"
}

@test "the shipped manifests are valid Kubernetes objects, with no field the models lack" {
	need_validator
	cd "$REPO_ROOT"
	run node "$VALIDATE" ci/kubernetes/*.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "ci/kubernetes/aggregate.yaml: Job/envparity-aggregate: valid
ci/kubernetes/envparity-audit.yaml: PersistentVolumeClaim/envparity-audit: valid
ci/kubernetes/envparity-audit.yaml: Job/envparity-audit: valid
ci/kubernetes/nightly.yaml: PersistentVolumeClaim/envparity-audit: valid
ci/kubernetes/nightly.yaml: CronJob/envparity-audit: valid
ci/kubernetes/nightly.yaml: CronJob/envparity-aggregate: valid" ]
}

@test "each file holds the expected kinds, and none sets a namespace" {
	need_validator
	[ "$(docs "$AUDIT_YAML" | jq -c '[.[] | "\(.apiVersion) \(.kind)"]')" = \
	    '["v1 PersistentVolumeClaim","batch/v1 Job"]' ]
	[ "$(docs "$AGG_YAML" | jq -c '[.[] | "\(.apiVersion) \(.kind)"]')" = '["batch/v1 Job"]' ]
	[ "$(docs "$NIGHTLY_YAML" | jq -c '[.[] | "\(.apiVersion) \(.kind)"]')" = \
	    '["v1 PersistentVolumeClaim","batch/v1 CronJob","batch/v1 CronJob"]' ]
	# No other file to apply that these tests do not look at.
	[ "$(cd "$K8S" && echo *.yaml)" = "aggregate.yaml envparity-audit.yaml nightly.yaml" ]
	for f in "$K8S"/*.yaml; do
		run jq -r '.[] | select(.metadata.namespace != null) | .metadata.name' <<<"$(docs "$f")"
		[ "$status" -eq 0 ]
		[ -z "$output" ]
	done
}

@test "the capture Job is Indexed, completions == parallelism, one pod per GPU node" {
	need_validator
	doc "$AUDIT_YAML" Job envparity-audit >job.json
	jq -e '.spec.completionMode == "Indexed"' job.json
	jq -e '.spec.completions | type == "number" and . >= 1' job.json
	jq -e '.spec.completions == .spec.parallelism' job.json
	# Retries bounded, finished Jobs cleaned up, Pending pods given up.
	jq -e '(.spec.backoffLimitPerIndex // .spec.backoffLimit) | type == "number"' job.json
	jq -e '.spec.ttlSecondsAfterFinished > 0 and .spec.activeDeadlineSeconds > 0' job.json
	jq -e '.spec.template.spec.restartPolicy == "Never"' job.json
	# No two capture pods on one node: a required anti-affinity term on the
	# hostname, or a DoNotSchedule spread with maxSkew 1, whose selector
	# matches the pod's own labels.
	jq -e '.spec.template as $t | ($t.metadata.labels) as $l |
	    def mine: (.matchLabels // {}) | length > 0 and (to_entries | all($l[.key] == .value));
	    ([$t.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[]? |
	        select(.topologyKey == "kubernetes.io/hostname" and (.labelSelector | mine))] +
	     [$t.spec.topologySpreadConstraints[]? |
	        select(.topologyKey == "kubernetes.io/hostname" and .maxSkew == 1 and
	               .whenUnsatisfiable == "DoNotSchedule" and (.labelSelector | mine))]) |
	    length >= 1' job.json
	# On GPU nodes only, tolerating their taint, asking for their GPUs.
	jq -e '.spec.template.spec.nodeSelector["nvidia.com/gpu.present"] == "true"' job.json
	jq -e '[.spec.template.spec.tolerations[] | select(.key == "nvidia.com/gpu" and .operator == "Exists")] | length == 1' job.json
	jq -e '.spec.template.spec.containers[0].resources.limits["nvidia.com/gpu"] | tonumber >= 1' job.json
	# The file says how to set N, and that the GPU limit is all the node's.
	grep -qF 'kubectl get nodes -l nvidia.com/gpu.present=true -o name | wc -l' "$AUDIT_YAML"
	grep -q 'must see all of the node.s GPUs' "$AUDIT_YAML"
}

@test "the capture writes /audit/\$(NODE_NAME).json, NODE_NAME from spec.nodeName, on a ReadWriteMany claim" {
	need_validator
	doc "$AUDIT_YAML" Job envparity-audit >job.json
	doc "$AUDIT_YAML" PersistentVolumeClaim envparity-audit >pvc.json
	jq -e '.spec.template.spec.containers | length == 1' job.json
	jq '.spec.template.spec.containers[0]' job.json >c.json
	jq -e '[.env[] | select(.name == "NODE_NAME")] |
	    length == 1 and .[0].valueFrom.fieldRef.fieldPath == "spec.nodeName"' c.json
	local vol
	# The command the fleet contract names, exactly; $(NODE_NAME) is the
	# kubelet's expansion (no shell).
	[ "$(jq -c '(.command // []) + .args' c.json)" = \
	    '["envparity","capture","--node","$(NODE_NAME)","--no-discover","-q","--sign-key","/node-key/key.pem","-o","/audit/$(NODE_NAME).json"]' ]
	# The key: the node's own, a read-only hostPath directory.
	vol=$(jq -er '.volumeMounts[] | select(.mountPath == "/node-key" and .readOnly == true) | .name' c.json)
	[ "$(jq -c --arg v "$vol" '.spec.template.spec.volumes[] | select(.name == $v) | .hostPath' job.json)" = \
	    '{"path":"/etc/envparity/node-key","type":"Directory"}' ]
	# /audit is the claim, and the claim is shared by all the nodes.
	vol=$(jq -er '.volumeMounts[] | select(.mountPath == "/audit") | .name' c.json)
	[ "$(jq -r --arg v "$vol" '.spec.template.spec.volumes[] | select(.name == $v) | .persistentVolumeClaim.claimName' job.json)" = \
	    "$(jq -r .metadata.name pvc.json)" ]
	jq -e '.spec.accessModes == ["ReadWriteMany"]' pvc.json
}

@test "every pod runs as non-root on a read-only root filesystem, without privilege escalation" {
	need_validator
	local n=0 f
	for f in "$K8S"/*.yaml; do
		docs "$f" | jq -c '.[] |
		    if .kind == "Job" then .spec.template
		    elif .kind == "CronJob" then .spec.jobTemplate.spec.template
		    else empty end' >>pods.jsonl
	done
	n=$(wc -l <pods.jsonl)
	[ "$n" -eq 4 ]
	# Each container: readOnlyRootFilesystem, no escalation, no
	# capabilities; runAsNonRoot on the pod or the container; a writable
	# /tmp; no service-account token; the placeholder image, at the
	# release's version.
	run jq -c --arg img "envparity:$(make -s -C "$REPO_ROOT" version)" '.spec as $p | $p.containers[] |
	    select((.securityContext.readOnlyRootFilesystem == true and
	            .securityContext.allowPrivilegeEscalation == false and
	            .securityContext.capabilities.drop == ["ALL"] and
	            (.securityContext.runAsNonRoot // $p.securityContext.runAsNonRoot) == true and
	            ([.volumeMounts[] | select(.mountPath == "/tmp")] | length == 1) and
	            $p.automountServiceAccountToken == false and
	            .image == $img) | not) | .name' pods.jsonl
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "the aggregation Job runs envparity fleet over /audit and writes its reports to the volume" {
	need_validator
	doc "$AGG_YAML" Job envparity-aggregate >agg.json
	doc "$AUDIT_YAML" Job envparity-audit >job.json
	# The same claim at the same place as the capture.
	[ "$(jq -c '.spec.template.spec | [.containers[0].volumeMounts[] | select(.mountPath == "/audit") | .name] as [$v] | .volumes[] | select(.name == $v)' agg.json)" = \
	    "$(jq -c '.spec.template.spec | [.containers[0].volumeMounts[] | select(.mountPath == "/audit") | .name] as [$v] | .volumes[] | select(.name == $v)' job.json)" ]
	jq -e '[.spec.template.spec.containers[0].env[] | select(.name == "AUDIT")][0].value == "/audit"' agg.json
	jq -e '.spec.backoffLimit == 0 and .spec.template.spec.restartPolicy == "Never"' agg.json
	jq -e '.spec.template.spec.nodeSelector == null and .spec.template.spec.containers[0].resources.limits["nvidia.com/gpu"] == null' agg.json
	agg_script agg.sh
	grep -q '^envparity fleet "\$@"' agg.sh
	# The kubelet expands $(VAR) and $$ in args: the script must have none.
	! grep -qF '$(' agg.sh
	! grep -qF '$$' agg.sh
	if command -v shellcheck >/dev/null 2>&1; then
		shellcheck -s sh agg.sh
	fi
}

# A stand-in envparity on PATH: records its arguments, writes the reports
# it is asked for, exits with $STUB_RC.
stub_envparity() { # bin-dir
	mkdir -p "$1"
	cat >"$1/envparity" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" >"$STUB_ARGS"
while [ $# -gt 0 ]; do
	case $1 in --json|--junit|--markdown|--prom) echo "report $1" >"$2"; shift ;; esac
	shift
done
exit "$STUB_RC"
EOF
	chmod +x "$1/envparity"
}

@test "the aggregation script: fleet's arguments, its exit code, the manifests moved to history/" {
	need_validator
	agg_script agg.sh
	stub_envparity "$T/bin"
	mkdir audit
	echo '{}' >audit/gpu-01.json
	echo '{}' >audit/gpu-02.json
	run_agg agg.sh "$T/audit" "$T/bin" STUB_ARGS="$T/args" STUB_RC=1 \
	    STORE=https://git.example/golden.git PROFILE=train/h100 EXPECT_NODES=gpu-01,gpu-02,gpu-03 \
	    NODE_KEYS=/node-keys MAX_AGE=6h
	[ "$status" -eq 1 ]
	[ "$(cat args)" = "fleet
$T/audit
--store
https://git.example/golden.git
--profile
train/h100
--expect
gpu-01,gpu-02,gpu-03
--node-keys
/node-keys
--max-age
6h
--json
$T/audit/report/fleet.json
--junit
$T/audit/report/fleet.xml
--markdown
$T/audit/report/fleet.md
--prom
$T/audit/report/envparity_fleet.prom" ]
	# The Markdown summary is in the Job's log.
	[[ "$output" == *"report --markdown"* ]]
	# The manifests it read are in history/, with the reports; none left.
	[ ! -e audit/gpu-01.json ] && [ ! -e audit/gpu-02.json ]
	local h
	h=$(echo audit/history/*)
	[[ "$h" == audit/history/20[0-9][0-9][01][0-9][0-3][0-9]T[0-9][0-9][0-9][0-9][0-9][0-9]Z ]]
	[ "$(cd "$h" && echo *)" = "envparity_fleet.prom fleet.json fleet.md fleet.xml gpu-01.json gpu-02.json" ]
	[ -f audit/report/fleet.json ]

	# No store, no expected nodes: the directory and the reports only.
	echo '{}' >audit/gpu-03.json
	run_agg agg.sh "$T/audit" "$T/bin" STUB_ARGS="$T/args" STUB_RC=0
	[ "$status" -eq 0 ]
	[ "$(head -3 args)" = "fleet
$T/audit
--json" ]
	[ ! -e audit/gpu-03.json ]

	# Malformed input or could not run: the manifests stay for a rerun.
	local rc
	for rc in 2 3; do
		echo '{}' >audit/gpu-04.json
		run_agg agg.sh "$T/audit" "$T/bin" STUB_ARGS="$T/args" STUB_RC=$rc
		[ "$status" -eq "$rc" ]
		[ -f audit/gpu-04.json ]
	done

	# A volume it cannot write: exit 3, not parity.
	rm -rf audit/history audit/gpu-04.json
	echo '{}' >audit/gpu-05.json
	chmod a-w audit
	if ! touch audit/probe 2>/dev/null; then # not when root ignores the mode
		run_agg agg.sh "$T/audit" "$T/bin" STUB_ARGS="$T/args" STUB_RC=0
		[ "$status" -eq 3 ]
		[[ "$output" == *"could not move the manifests"* ]]
	else
		# As root: the same refusal, from a directory that is a file.
		rm -f audit/probe
		chmod u+w audit
		: >audit/history
		run_agg agg.sh "$T/audit" "$T/bin" STUB_ARGS="$T/args" STUB_RC=0
		[ "$status" -eq 3 ]
		[[ "$output" == *"could not move the manifests"* ]]
	fi
	chmod u+w audit
	[ -f audit/gpu-05.json ]
}

@test "the nightly CronJobs run the same Jobs, the aggregation after the capture's deadline" {
	need_validator
	doc "$AUDIT_YAML" Job envparity-audit >job.json
	doc "$AGG_YAML" Job envparity-aggregate >agg.json
	doc "$NIGHTLY_YAML" CronJob envparity-audit >cj-capture.json
	doc "$NIGHTLY_YAML" CronJob envparity-aggregate >cj-agg.json
	[ "$(jq -cS .spec.jobTemplate.spec cj-capture.json)" = "$(jq -cS .spec job.json)" ]
	[ "$(jq -cS .spec.jobTemplate.spec cj-agg.json)" = "$(jq -cS .spec agg.json)" ]
	[ "$(doc "$NIGHTLY_YAML" PersistentVolumeClaim envparity-audit | jq -cS .)" = \
	    "$(doc "$AUDIT_YAML" PersistentVolumeClaim envparity-audit | jq -cS .)" ]
	jq -e '.spec.concurrencyPolicy == "Forbid"' cj-capture.json cj-agg.json
	# Daily "M H * * *" schedules in one time zone; the aggregation starts
	# after the capture's latest start plus its deadline.
	jq -e '.spec.schedule | test("^[0-9]+ [0-9]+ \\* \\* \\*$")' cj-capture.json cj-agg.json
	[ "$(jq -r .spec.timeZone cj-capture.json)" = "$(jq -r .spec.timeZone cj-agg.json)" ]
	local at_c at_a
	at_c=$(jq '.spec.schedule | split(" ") | (.[1] | tonumber) * 3600 + (.[0] | tonumber) * 60' cj-capture.json)
	at_a=$(jq '.spec.schedule | split(" ") | (.[1] | tonumber) * 3600 + (.[0] | tonumber) * 60' cj-agg.json)
	[ "$at_a" -ge $((at_c + $(jq '.spec.startingDeadlineSeconds + .spec.jobTemplate.spec.activeDeadlineSeconds' cj-capture.json))) ]
}

@test "the shipped capture arguments run with this build's envparity" {
	need_validator
	doc "$AUDIT_YAML" Job envparity-audit >job.json
	mkdir audit
	# The node's key where the hostPath would be.
	mkdir node-key
	openssl genpkey -algorithm ed25519 -out node-key/key.pem 2>/dev/null
	chmod 600 node-key/key.pem
	openssl pkey -in node-key/key.pem -pubout -out gpu-01.pub
	# The arguments as the kubelet passes them on node gpu-01, /audit and
	# /node-key here.
	jq -r --arg t "$T" '.spec.template.spec.containers[0] | (.command + .args)[1:][] |
	    gsub("\\$\\(NODE_NAME\\)"; "gpu-01") | sub("^/audit/"; $t + "/audit/") |
	    sub("^/node-key/"; $t + "/node-key/")' job.json >args
	mapfile -t args <args
	run "$EP" "${args[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ] # -q: nothing on standard error, -o: nothing on standard output
	# A manifest signed by the node: a DSSE envelope around it.
	[ "$(jq -r .payloadType audit/gpu-01.json)" = application/vnd.envparity.manifest+json ]
	jq -r .payload audit/gpu-01.json | base64 -d >m.json
	[ "$(jq -r .schema m.json)" = "envparity/manifest@1" ]
	# --node records the node's name in meta.
	[ "$(jq -r .meta.node m.json)" = gpu-01 ]
	mkdir keys && mv gpu-01.pub keys/
	"$EP" fleet audit --node-keys keys --expect gpu-01 -q
}

@test "the shipped aggregation runs with this build's envparity fleet" {
	need_validator
	agg_script agg.sh
	mkdir -p audit bin keys
	ln -s "$EP" bin/envparity
	local n
	for n in gpu-01 gpu-02 gpu-03; do
		openssl genpkey -algorithm ed25519 -out "$n.key" 2>/dev/null
		chmod 600 "$n.key"
		openssl pkey -in "$n.key" -pubout -out "keys/$n.pub"
	done
	for n in gpu-01 gpu-02; do
		"$EP" capture --node "$n" --no-discover -q --sign-key "$n.key" -o "audit/$n.json"
	done
	# The same machine twice, each signed by its node: parity.
	run_agg agg.sh "$T/audit" "$T/bin" NODE_KEYS="$T/keys" MAX_AGE=6h
	[ "$status" -eq 0 ]
	[ -s audit/report/fleet.json ] && [ -s audit/report/fleet.xml ] && [ -s audit/report/fleet.md ]
	[ -s audit/report/envparity_fleet.prom ]
	[ ! -e audit/gpu-01.json ]
	# An expected node that did not report: drift.
	for n in gpu-01 gpu-02; do
		"$EP" capture --node "$n" --no-discover -q --sign-key "$n.key" -o "audit/$n.json"
	done
	run_agg agg.sh "$T/audit" "$T/bin" EXPECT_NODES=gpu-01,gpu-02,gpu-03 NODE_KEYS="$T/keys" MAX_AGE=6h
	[ "$status" -eq 1 ]
	grep -q gpu-03 audit/report/fleet.json
	# gpu-02 writes the manifest of gpu-03 (down) with its own key: gpu-03
	# is not taken as reported, the aggregation fails naming it.
	for n in gpu-01 gpu-02; do
		"$EP" capture --node "$n" --no-discover -q --sign-key "$n.key" -o "audit/$n.json"
	done
	"$EP" capture --node gpu-03 --no-discover -q --sign-key gpu-02.key -o audit/gpu-03.json
	run_agg agg.sh "$T/audit" "$T/bin" EXPECT_NODES=gpu-01,gpu-02,gpu-03 NODE_KEYS="$T/keys" MAX_AGE=6h
	[ "$status" -eq 1 ]
	[ "$(jq -r '.fleet.nodes[] | select(.name == "gpu-03") | .state' audit/report/fleet.json)" = unreadable ]
	[[ "$(jq -r '.fleet.nodes[] | select(.name == "gpu-03") | .error' audit/report/fleet.json)" == *"not signed by node gpu-03's key"* ]]
	# Yesterday's manifests, moved to history/, put back: too old.
	old=$(ls -d audit/history/* | head -n 1)
	cp "$old"/gpu-0[12].json audit/
	sleep 2
	run_agg agg.sh "$T/audit" "$T/bin" NODE_KEYS="$T/keys" MAX_AGE=1s
	[ "$status" -eq 1 ]
	grep -q 'more than 1s before this run (--max-age)' audit/report/fleet.json
}

@test "the aggregation takes only manifests their own node signed, recently: NODE_KEYS from a ConfigMap, MAX_AGE" {
	need_validator
	doc "$AGG_YAML" Job envparity-aggregate >agg.json
	jq '.spec.template.spec.containers[0]' agg.json >c.json
	[ "$(jq -r '.env[] | select(.name == "NODE_KEYS") | .value' c.json)" = /node-keys ]
	[ "$(jq -r '.env[] | select(.name == "MAX_AGE") | .value' c.json)" = 6h ]
	vol=$(jq -er '.volumeMounts[] | select(.mountPath == "/node-keys" and .readOnly == true) | .name' c.json)
	[ "$(jq -c --arg v "$vol" '.spec.template.spec.volumes[] | select(.name == $v) | .configMap' agg.json)" = \
	    '{"name":"envparity-node-keys"}' ]
	# The capture's latest start and deadline fit within MAX_AGE, at the
	# aggregation's start (nightly.yaml: 02:00, 03:30).
	doc "$NIGHTLY_YAML" CronJob envparity-aggregate >cj-agg.json
	doc "$NIGHTLY_YAML" CronJob envparity-audit >cj-capture.json
	at_c=$(jq '.spec.schedule | split(" ") | (.[1] | tonumber) * 3600 + (.[0] | tonumber) * 60' cj-capture.json)
	at_a=$(jq '.spec.schedule | split(" ") | (.[1] | tonumber) * 3600 + (.[0] | tonumber) * 60' cj-agg.json)
	[ $((at_a + $(jq .spec.startingDeadlineSeconds cj-agg.json) + $(jq .spec.jobTemplate.spec.activeDeadlineSeconds cj-agg.json) - at_c)) -le $((6 * 3600)) ]
}

@test "k8s-validate.mjs: a misspelt completionMode is invalid, exit 1" {
	need_validator
	mutate "$AUDIT_YAML" 's/^  completionMode: Indexed$/  completionMode: Indexd/' job.yaml
	run node "$VALIDATE" job.yaml
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"job.yaml: PersistentVolumeClaim/envparity-audit: valid"* ]]
	[[ "$output" == *"job.yaml: Job/envparity-audit: /spec/completionMode must be equal to one of the allowed values: Indexed, NonIndexed (line "* ]]
	[[ "$output" != *"Job/envparity-audit: valid"* ]]
}

@test "k8s-validate.mjs: a container without a name is invalid, exit 1" {
	need_validator
	mutate "$AUDIT_YAML" '/^        - name: capture$/d; s/^          image: envparity/        - image: envparity/' job.yaml
	run node "$VALIDATE" job.yaml
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"job.yaml: Job/envparity-audit: /spec/template/spec/containers/0 must have required property name"* ]]
}

@test "k8s-validate.mjs: an unknown field (comand:) is invalid, exit 1, wherever it is" {
	need_validator
	mutate "$AUDIT_YAML" 's/^          command: \[envparity\]$/          comand: [envparity]/' job.yaml
	run node "$VALIDATE" job.yaml
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *'job.yaml: Job/envparity-audit: /spec/template/spec/containers/0: unknown field "comand" (did you mean "command"?) (line '* ]]
	# kubernetes-models alone lets it pass: the check is ours.
	(cd "$REPO_ROOT/tools" && node --input-type=module -e '
import { Job } from "kubernetes-models/batch/v1";
new Job({ metadata: { name: "x" }, spec: { template: { spec: { restartPolicy: "Never",
    containers: [{ name: "c", image: "i", comand: ["x"] }] } } } }).validate();')
	# Deeper, and under a CronJob's jobTemplate: a securityContext typo, a
	# misspelt Job field.
	mutate "$NIGHTLY_YAML" 's/readOnlyRootFilesystem: true/readOnlyRootFileSystem: true/; s/^      ttlSecondsAfterFinished: 86400$/      ttlSecondAfterFinished: 86400/' nightly.yaml
	run node "$VALIDATE" nightly.yaml
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *'CronJob/envparity-audit: /spec/jobTemplate/spec/template/spec/containers/0/securityContext: unknown field "readOnlyRootFileSystem" (did you mean "readOnlyRootFilesystem"?)'* ]]
	[[ "$output" == *'CronJob/envparity-aggregate: /spec/jobTemplate/spec/template/spec/containers/0/securityContext: unknown field "readOnlyRootFileSystem"'* ]]
	[[ "$output" == *'CronJob/envparity-audit: /spec/jobTemplate/spec: unknown field "ttlSecondAfterFinished" (did you mean "ttlSecondsAfterFinished"?)'* ]]
	# Free-form maps are not checked: labels and limits take any key.
	[[ "$output" == *"nightly.yaml: PersistentVolumeClaim/envparity-audit: valid"* ]]
}

@test "k8s-validate.mjs: broken YAML is exit 2, naming the file and line" {
	need_validator
	mutate "$AUDIT_YAML" 's/^  completions: 4$/  completions: [4/' job.yaml
	run --separate-stderr node "$VALIDATE" job.yaml
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "job.yaml:"[0-9]*": YAML error: "* ]]
	[ -z "$output" ]
	# A duplicate key is broken YAML too (the API server would take the last).
	mutate "$AUDIT_YAML" 's/^  parallelism: 4$/  parallelism: 4\n  parallelism: 5/' dup.yaml
	run --separate-stderr node "$VALIDATE" dup.yaml
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"dup.yaml:"*": YAML error: Map keys must be unique"* ]]
}

@test "k8s-validate.mjs: unknown kinds are exit 1, unreadable or empty files exit 2, and 2 wins" {
	need_validator
	cat >other.yaml <<'EOF'
apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: ok
data:
  a: b
EOF
	run node "$VALIDATE" other.yaml
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *'other.yaml: Widget/w: unknown apiVersion/kind "example.com/v1" "Widget"'* ]]
	[[ "$output" == *"other.yaml: ConfigMap/ok: valid"* ]]
	run --separate-stderr node "$VALIDATE" other.yaml missing.yaml
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"missing.yaml: cannot read: no such file"* ]]
	[[ "$output" == *"ConfigMap/ok: valid"* ]]
	: >empty.yaml
	run --separate-stderr node "$VALIDATE" empty.yaml
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"empty.yaml: no YAML documents"* ]]
	run --separate-stderr node "$VALIDATE"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "usage: "* ]]
}

@test "the READMEs describe the audit and say it was not run against a cluster" {
	local f
	for f in envparity-audit.yaml aggregate.yaml nightly.yaml; do
		grep -qF "$f" "$K8S/README.md"
	done
	grep -qF 'kubectl get nodes -l nvidia.com/gpu.present=true -o name | wc -l' "$K8S/README.md"
	grep -qi 'not run against a cluster' "$K8S/README.md"
	grep -qF 'kubernetes/' "$REPO_ROOT/ci/README.md"
	grep -qF 'tests/cli/kubernetes.bats' "$REPO_ROOT/ci/README.md"
}
