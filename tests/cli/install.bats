#!/usr/bin/env bats
# install.bats: `make install PREFIX=... DESTDIR=...` puts a working binary,
# the schemas, the manual page and the bash and zsh completions where it
# says, and `make uninstall` takes them away.

load setup

@test "make install and uninstall honour PREFIX and DESTDIR" {
	make -s -C "$REPO_ROOT" install PREFIX=/opt/ep DESTDIR="$T/root" >/dev/null
	[ -x "$T/root/opt/ep/bin/envparity" ]
	[ -x "$T/root/opt/ep/bin/envparity-probe" ]
	[ -f "$T/root/opt/ep/share/envparity/schemas/manifest.schema.json" ]
	cmp "$REPO_ROOT/man/envparity.1" "$T/root/opt/ep/share/man/man1/envparity.1"
	cmp "$REPO_ROOT/man/envparity-probe.1" "$T/root/opt/ep/share/man/man1/envparity-probe.1"
	cmp "$REPO_ROOT/completions/envparity.bash" \
	    "$T/root/opt/ep/share/bash-completion/completions/envparity"
	cmp "$REPO_ROOT/completions/_envparity" \
	    "$T/root/opt/ep/share/zsh/vendor-completions/_envparity"
	run "$T/root/opt/ep/bin/envparity" version
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "envparity "* ]]
	make -s -C "$REPO_ROOT" uninstall PREFIX=/opt/ep DESTDIR="$T/root" >/dev/null
	[ ! -e "$T/root/opt/ep/bin/envparity" ]
	[ ! -e "$T/root/opt/ep/bin/envparity-probe" ]
	[ ! -e "$T/root/opt/ep/share/envparity" ]
	[ ! -e "$T/root/opt/ep/share/man/man1/envparity.1" ]
	[ ! -e "$T/root/opt/ep/share/bash-completion/completions/envparity" ]
	[ ! -e "$T/root/opt/ep/share/zsh/vendor-completions/_envparity" ]
	# Nothing else was left behind.
	[ -z "$(find "$T/root" -type f)" ]
}
