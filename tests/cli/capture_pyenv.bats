#!/usr/bin/env bats
# capture_pyenv.bats: a pyenv shim is seen through by pyenv's rules, so
# that the real interpreter's answer can be cached; when the choice is not
# plain, the shim itself runs.

load setup

# A pyenv layout whose shim records each run and then runs the real
# interpreter, as `pyenv exec` would.
make_pyenv() {
	real=$(python3 -c 'import sys; print(getattr(sys, "_base_executable", None) or sys.executable)')
	mkdir -p "$T/pyenv/shims" "$T/pyenv/versions/7.7.7/bin" "$T/pyenv/libexec"
	ln -s "$real" "$T/pyenv/versions/7.7.7/bin/python3"
	echo 7.7.7 > "$T/pyenv/version"
	cat > "$T/pyenv/libexec/pyenv" <<SH
#!/usr/bin/env bash
echo ran >> "$T/shim-runs"
shift 2  # "exec" and the program name
exec "$real" "\$@"
SH
	cat > "$T/pyenv/shims/python3" <<SH
#!/usr/bin/env bash
set -e
[ -n "\$PYENV_DEBUG" ] && set -x

program="\${0##*/}"

export PYENV_ROOT="$T/pyenv"
exec "$T/pyenv/libexec/pyenv" exec "\$program" "\$@"
SH
	chmod +x "$T/pyenv/shims/python3" "$T/pyenv/libexec/pyenv"
}

@test "the shim's interpreter is found without running the shim" {
	make_pyenv
	"$EP" capture -q --no-discover --python "$T/pyenv/shims/python3" > a.json
	"$EP" capture -q --no-discover --python "$T/pyenv/shims/python3" > b.json
	[ ! -e shim-runs ]
	want=$("$real" -c 'import platform; print(platform.python_version())')
	[ "$(fact a.json python.version)" = "$want" ]
	cmp <(jq -S 'del(.meta)' a.json) <(jq -S 'del(.meta)' b.json)
	# The package list is the real interpreter's.
	n=$("$real" -c 'import importlib.metadata as m; print(len({d.metadata["Name"].lower() for d in m.distributions()}))')
	[ "$(jq '[.facts | keys[] | select(startswith("python.pkg."))] | length' a.json)" -ge $((n - 2)) ]
}

@test "a version pyenv cannot name plainly makes the shim run" {
	make_pyenv
	PYENV_VERSION=system "$EP" capture -q --no-discover --python "$T/pyenv/shims/python3" > m.json
	[ "$(wc -l < shim-runs)" -eq 1 ]
	[ -n "$(fact m.json python.version)" ]
	# Run again: a shim's answer is never cached.
	PYENV_VERSION=system "$EP" capture -q --no-discover --python "$T/pyenv/shims/python3" > m.json
	[ "$(wc -l < shim-runs)" -eq 2 ]
}

@test "a .python-version naming an uninstalled version makes the shim run" {
	make_pyenv
	mkdir proj
	echo 9.9.9 > proj/.python-version
	cd proj
	"$EP" capture -q --no-discover --python "$T/pyenv/shims/python3" > m.json
	[ "$(wc -l < "$T/shim-runs")" -eq 1 ]
}
