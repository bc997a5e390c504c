#!/usr/bin/env bats
# serving.bats: --serving PATH through the real binary on the real
# configurations of tests/fixtures/serving (Triton's model repository,
# TF Serving's model config and batching parameters, TorchServe's
# config.properties): a drift of each kind (a batch size, a queue delay,
# an instance count, a model version added, a TorchServe batch size) is
# named by check, key and both values, against the blessed golden; a
# malformed or unknown file is exit 2 naming the file and line, with
# nothing written; a secret's value never reaches the manifest; and the
# text format reader reads every fixture and fuzz seed as
# python3-protobuf's text_format does (tests/cli/textproto_diff.py), and
# Triton's configurations as text_format reads them with Triton's own
# model_config.proto.

load setup

bats_require_minimum_version 1.5.0

# One hash cache for the file's tests: a cold one hashes the CUDA
# libraries of the machine first (seconds), which these tests do not
# look at.
eval "$(declare -f setup | sed '1s/^setup/setup_one/')"
setup() {
	setup_one
	export XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache
}

S=$FIXTURES/serving

ONLY_SERVING=$(jq -nc '{schema: "envparity/policy@1", rules: ([{key: "serving.*",
  rule: "exact", missing: "fail"}] + (["artifact", "conda", "cpu", "env", "framework",
  "gpu", "image", "lib", "libc", "lockfile", "os", "probe", "python", "stack"]
  | map({key: (. + ".*"), rule: "ignore"})))}')

commit_policy() { # store policy-json
	git clone -q "$1" "$T/wt"
	mkdir -p "$T/wt/default"
	printf '%s\n' "$2" >"$T/wt/default/policy.json"
	git -C "$T/wt" add default/policy.json
	git -C "$T/wt" -c user.name=t -c user.email=t@x commit -qm policy
	git -C "$T/wt" push -q origin HEAD
	rm -rf "$T/wt"
}

@test "a drift of each kind is named by check, with both values" {
	cp -r "$S/triton" repo
	cp "$S/tfserving/models.config" "$S/tfserving/batching_parameters.txt" \
	    "$S/torchserve/config.properties" .
	mkdir -p sp
	args=(--no-discover --site-packages sp --serving repo
	    --serving models.config --serving batching_parameters.txt
	    --serving config.properties)
	run "$EP" bless -q "${args[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	commit_policy .envparity/store "$ONLY_SERVING"
	run "$EP" check "${args[@]}" --json r0.json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq '[.results[] | select(.key | startswith("serving.")) | .status] | unique' -c r0.json)" = '["pass"]' ]
	[ "$(jq '[.results[] | select(.key | startswith("serving."))] | length' r0.json)" -gt 90 ]

	sed -i 's/^max_batch_size: 4 $/max_batch_size: 8/; s/200000/100/' \
	    repo/bert_base_trt_gpu/config.pbtxt
	sed -i 's/count: 2/count: 1/' repo/simple_dyna_sequence/config.pbtxt
	mkdir repo/densenet_onnx/2
	sed -i 's/max_batch_size { value: 128 }/max_batch_size { value: 256 }/' \
	    batching_parameters.txt
	sed -i 's/"batchSize": 8/"batchSize": 16/' config.properties
	printf '      model_version_policy { all {} }\n' >policy.txt
	sed -i "/name: 'my_second_model'/r policy.txt" models.config
	run "$EP" check "${args[@]}" --json r1.json
	echo "$output"
	[ "$status" -eq 1 ]
	jq -r '.results[] | select(.status == "fail") |
	    "\(.key) \(.expected // "-") \(.actual // "-")"' r1.json | sort >failed
	cat failed
	diff - failed <<-'EOF'
	serving.batching.max_batch_size 128 256
	serving.bert_base_trt_gpu.dynamic_batching.max_queue_delay_microseconds 200000 100
	serving.bert_base_trt_gpu.max_batch_size 4 8
	serving.densenet_onnx.versions 1 1,2
	serving.my_second_model.model_version_policy.all - {}
	serving.resnet-152.1%2E0.batchSize 8 16
	serving.simple_dyna_sequence.instance_group[0].count 2 1
	EOF
	# The terminal says it too, each key with both values.
	[[ "$output" == *"FAIL    serving.bert_base_trt_gpu.max_batch_size: expected 4, got 8"* ]]
	[[ "$output" == *"serving.densenet_onnx.versions"* ]]
}

@test "a malformed, unknown or missing --serving input is exit 2 naming it; secrets stay out" {
	mkdir -p sp m/1
	printf 'name: "m"\nmax_batch_size: 8\ninstance_group [\n  { count: 2 kind: KIND_GPU }\n  { count: 1 }\n]\n' \
	    >m/config.pbtxt
	run --separate-stderr "$EP" capture -q --no-discover --site-packages sp \
	    --serving m -o out.json
	[ "$status" -eq 2 ]
	[ "$stderr" = "envparity capture: m/config.pbtxt:5: expected ',' or ']' in a list" ]
	[ ! -e out.json ]

	printf 'foo: 1\n' >other.txt
	run --separate-stderr "$EP" bless -q --no-discover --site-packages sp \
	    --serving other.txt
	[ "$status" -eq 2 ]
	[[ "$stderr" == "envparity bless: --serving other.txt: not a serving configuration envparity reads"* ]]
	[ ! -e .envparity/store ]

	run --separate-stderr "$EP" capture -q --no-discover --site-packages sp \
	    --serving nowhere/config.pbtxt -o out.json
	[ "$status" -eq 2 ]
	[ "$stderr" = "envparity capture: --serving nowhere/config.pbtxt: No such file or directory" ]

	# TorchServe's TLS settings: that the key and its password are set,
	# never what they are; the certificate's path is no secret.
	run --separate-stderr "$EP" capture -q --no-discover --site-packages sp \
	    --serving "$S/torchserve/ssl.properties" -o out.json
	[ "$status" -eq 0 ]
	[ "$(fact out.json serving.torchserve.keystore_pass)" = set ]
	[ "$(fact out.json serving.torchserve.private_key_file)" = set ]
	[ "$(fact out.json serving.torchserve.certificate_file)" = mycert.pem ]
	! grep -q -e changeit -e mykey.key out.json
}

@test "the text format reader reads every fixture and seed as python3-protobuf does" {
	dump=${EP_BUILD:-$REPO_ROOT/build}/fuzz/fuzz_textproto
	[ -x "$dump" ] || skip "no $dump (make unit builds it)"
	mapfile -t files < <(find "$S" "$REPO_ROOT/tests/fuzz/corpus/textproto" \
	    -type f \( -name '*.pbtxt' -o -name '*.config' -o -name '*.txt' \) | sort)
	run /usr/bin/python3 "$BATS_TEST_DIRNAME/textproto_diff.py" "$dump" "${files[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == *" 0 disagree" ]]
	[[ "${lines[-1]}" == *" 0 without a schema,"* ]]
	[ "${#files[@]}" -ge 20 ]

	# Triton's configurations with Triton's own schema, compiled by protoc.
	run /usr/bin/python3 "$BATS_TEST_DIRNAME/textproto_diff.py" "$dump" \
	    --schema "$S/triton_model_config.proto" inference.ModelConfig \
	    "$S"/triton/*/config.pbtxt
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "4 read alike as inference.ModelConfig, 0 disagree" ]
}
