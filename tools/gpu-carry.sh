#!/usr/bin/env bash
# tools/gpu-carry.sh: put what a GPU host needs to run envparity and its
# tests into gpu-carry/ (git-ignored): the binary, the unit test binaries,
# the shared libraries they use that such a host may lack, and bats and jq.
# The GPU host has no package registry, so nothing can be installed there;
# run there with LD_LIBRARY_PATH=gpu-carry/lib PATH=gpu-carry/bin:$PATH
# (tools/gpu-run.sh does).
set -eu
cd "$(dirname "$0")/.."
B=${B:-build}
make -s -j"$(nproc)" B="$B" all unit
rm -rf gpu-carry
mkdir -p gpu-carry/bin gpu-carry/lib gpu-carry/tests
cp "$B/envparity" "$B/envparity-probe" gpu-carry/bin/
cp "$B"/tests/test_* gpu-carry/tests/
cp "$(command -v jq)" gpu-carry/bin/
# Every shared library but glibc's own, resolved through symlinks.
for f in gpu-carry/bin/* gpu-carry/tests/*; do
	ldd "$f" | awk '$3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
	case $(basename "$lib") in
	libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*) continue ;;
	esac
	cp -L "$lib" gpu-carry/lib/
done
# bats is plain bash: its tree as Debian lays it out, and a launcher.
mkdir -p gpu-carry/bats/bin gpu-carry/bats/lib gpu-carry/bats/libexec
cp /usr/bin/bats gpu-carry/bats/bin/
cp -r /usr/lib/bats-core gpu-carry/bats/lib/
cp -r /usr/libexec/bats-core gpu-carry/bats/libexec/
printf '#!/usr/bin/env bash\nexec "$(dirname "$0")/../bats/bin/bats" "$@"\n' > gpu-carry/bin/bats
chmod +x gpu-carry/bin/bats
du -sh gpu-carry
