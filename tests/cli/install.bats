#!/usr/bin/env bats
# install.bats: `make install PREFIX=... DESTDIR=...` puts a working binary
# and the schemas where it says, and `make uninstall` takes them away.

load setup

@test "make install and uninstall honour PREFIX and DESTDIR" {
	make -s -C "$REPO_ROOT" install PREFIX=/opt/ep DESTDIR="$T/root" >/dev/null
	[ -x "$T/root/opt/ep/bin/envparity" ]
	[ -x "$T/root/opt/ep/bin/envparity-probe" ]
	[ -f "$T/root/opt/ep/share/envparity/schemas/manifest.schema.json" ]
	run "$T/root/opt/ep/bin/envparity" version
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "envparity "* ]]
	make -s -C "$REPO_ROOT" uninstall PREFIX=/opt/ep DESTDIR="$T/root" >/dev/null
	[ ! -e "$T/root/opt/ep/bin/envparity" ]
	[ ! -e "$T/root/opt/ep/bin/envparity-probe" ]
	[ ! -e "$T/root/opt/ep/share/envparity" ]
}
