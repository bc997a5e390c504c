#!/usr/bin/env bats
# attack_socket.bats: a helper tries a root-owned pathname Unix socket.
# Landlock (up to ABI 7) does not fence connect(2) to one, and as root
# the judged environment chooses whether its helper runs as nobody or as
# root without capabilities (one file of its own that nobody cannot read
# is enough), which still owns every root-owned socket: docker.sock,
# containerd's, a secrets agent's.  The socket here stands in for such a
# service, handing the key to whoever connects; the seccomp filter
# (childfilter.c) leaves the helper no Unix socket at all.

load setup
load git_daemon
load trust

teardown() {
	[ -z "${SERVER:-}" ] || kill "$SERVER" 2>/dev/null || true
	cd / && rm -rf "$T"
}

@test "as root, a judged interpreter cannot talk to a root-owned 0600 Unix socket" {
	[ "$(id -u)" = 0 ] || skip "needs root"
	needs_landlock
	trust_gate_setup
	mkdir -m 700 sock
	python3 - "$T/sock/agent.sock" "$T/keys/key.pem" 3>&- <<'PY' >/dev/null 2>&1 &
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o600); s.listen(4)
while True:
    c, _ = s.accept()
    c.sendall(open(sys.argv[2], 'rb').read()); c.close()
PY
	SERVER=$!
	while [ ! -S sock/agent.sock ]; do sleep 0.05; done
	mkdir -p evil/bin
	cat >evil/bin/python <<EOF2
#!/bin/sh
/usr/bin/python3 -S -c '
import socket
try:
    s = socket.socket(socket.AF_UNIX)
    s.connect("$T/sock/agent.sock")
    print("socket: got", len(s.recv(4096)), "bytes")
except OSError as e:
    print("socket: denied", e)
' >>"$T/spy/report" 2>&1
exec /usr/bin/python3 "\$@"
EOF2
	# Everything nobody could run, but the judged venv keeps itself
	# private: that alone makes its helper root without capabilities.
	chmod 711 "$T"
	chmod 755 evil/bin/python
	chmod -R a+rX evil
	chmod 700 evil
	unset PYENV_ROOT
	PATH=/usr/bin:/bin run gate --python "$T/evil/bin/python"
	echo "$output"
	cat spy/report
	jq -r .meta.confinement.python m.json
	grep -q '^socket: denied' spy/report
}
