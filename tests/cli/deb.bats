#!/usr/bin/env bats
# deb.bats: `make deb`'s package (debian/, built by tools/deb.sh from the
# tarball of HEAD) passes lintian with no error, and installed by apt into
# a fresh minimal Debian root (debootstrap, tests/cli/debroot.bash), with
# the Depends apt resolves from the mirror, it runs: `envparity version`
# and a capture.  The package is made of what is committed.

load setup
load debroot

setup_file() {
	[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot)"
	git -C "$BATS_TEST_DIRNAME/../.." rev-parse --verify -q HEAD >/dev/null 2>&1 ||
	    skip "not a git checkout"
	# One package for the file's tests.
	DEB_OUT=$(mktemp -d "${BATS_TMPDIR:-/tmp}/envparity-deb.XXXXXX")
	export DEB_OUT
	deb_of_head "$DEB_OUT" >/dev/null
}

teardown_file() {
	[ -z "${DEB_OUT:-}" ] || rm -rf "$DEB_OUT"
}

@test "the package: this release, the files it should hold, runtime libraries only in Depends" {
	v=$(make -s -C "$REPO_ROOT" version)
	deb=$DEB_OUT/envparity_${v}_$(dpkg --print-architecture).deb
	[ -f "$deb" ]
	[ "$(dpkg-deb -f "$deb" Version)" = "$v" ]
	dpkg-deb -c "$deb" | awk '{ print $6 }' >files
	for f in usr/bin/envparity usr/bin/envparity-probe \
	    usr/share/envparity/schemas/manifest.schema.json \
	    usr/share/man/man1/envparity.1.gz usr/share/man/man1/envparity-probe.1.gz \
	    usr/share/bash-completion/completions/envparity \
	    usr/share/zsh/vendor-completions/_envparity usr/share/doc/envparity/copyright; do
		grep -qx "\./$f" files || { echo "missing $f"; false; }
	done
	dep=$(dpkg-deb -f "$deb" Depends)
	echo "$dep"
	[[ "$dep" == *libgit2* && "$dep" == *libcurl* && "$dep" == *libjansson* ]]
	[[ "$dep" != *-dev* ]]
}

# What --help points a reader at (a schema, a document) is a file the
# package installs, by the path it names (share/envparity/schemas/X), or
# a URL: never a path of the source tree, which the package's user does
# not have.  And the fish completion is installed where fish looks.
@test "every document --help names is in the package; the fish completion too" {
	v=$(make -s -C "$REPO_ROOT" version)
	deb=$DEB_OUT/envparity_${v}_$(dpkg --print-architecture).deb
	dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's#^\./#/#' >files
	grep -qx /usr/share/fish/vendor_completions.d/envparity.fish files
	"$EP" --help >help
	for c in $("$EP" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p'); do
		"$EP" "$c" --help >>help
	done
	# Documents: a path into docs/, manifests/ or share/, or a schema;
	# an input's path (PROFILE/policy.json, ~/.docker/config.json) or an
	# output's name (summary.md) is no document.
	grep -oE '[A-Za-z0-9_./-]+\.(json|xsd|md|txt|html)' help |
	    grep -E '(^|/)(docs|manifests|share|schemas)/|^[^/]*\.(schema\.json|xsd)$' |
	    sort -u >docs
	cat docs
	[ "$(wc -l <docs)" -ge 5 ]
	while read -r p; do
		grep -q -- "/$p\$" files || { echo "--help names $p: not in the package"; false; }
	done <docs
}

@test "lintian: no error (and no warning) on the package" {
	run lintian --pedantic "$DEB_OUT"/envparity_*.changes
	echo "$output"
	! grep -q '^E:' <<<"$output"
	! grep -q '^W:' <<<"$output"
}

@test "apt installs the package into a fresh Debian root, where envparity runs and captures" {
	debroot_make root
	cp "$DEB_OUT"/envparity_*_"$(dpkg --print-architecture)".deb root/tmp/
	run chroot root sh -c 'export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq && apt-get install -y -qq --no-install-recommends /tmp/envparity_*.deb'
	echo "$output" | tail -n 20
	[ "$status" -eq 0 ]
	# Nothing of the build came along: no compiler, no -dev package.
	! chroot root dpkg -l | grep -E '^ii +(gcc|[^ ]*-dev)[ :]'
	run chroot root envparity version
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "envparity $(make -s -C "$REPO_ROOT" version)" ]
	run chroot root sh -c 'cd /tmp && envparity capture -q -o /tmp/m.json'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -r .schema root/tmp/m.json)" = envparity/manifest@1 ]
	[ "$(jq -r '.facts["os.id"]' root/tmp/m.json)" = debian ]
	# The probe beside it runs too, and the man page and completions are
	# where the tools look.
	run chroot root envparity probe --runs 2 --backend cpu
	echo "$output"
	[ "$status" -eq 0 ]
	[ -f root/usr/share/man/man1/envparity.1.gz ]
	[ -f root/usr/share/bash-completion/completions/envparity ]
}
