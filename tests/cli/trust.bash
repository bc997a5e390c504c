# trust.bash: what trust_python.bats and trust_dlopen.bats share: a gate
# as CI runs it, holding secrets while it judges an environment that may
# be hostile, and a spy that tries to take them.
#
#   trust_gate_setup   an https store on 127.0.0.1 that takes a token
#                      ($TOKEN, in ENVPARITY_GIT_TOKEN), a golden blessed
#                      there, an Ed25519 signing key ($T/keys/key.pem);
#                      helpers may write only $T/spy (a spy's report) and
#                      get no variable beyond their allowlist
#   gate ARGS...       envparity check against that store with --attest
#                      and --sign-key, keeping the manifest in $T/m.json
#   spy_needles_py     the secrets' bytes as a Python list
#   spy_needles_c      the same as a C initializer, each byte xor 0x5a
#                      (so that a spy's own image does not hold them)
#
# The needles are the token, the Authorization header's credentials
# (base64 of x-access-token:TOKEN, as libgit2 sends them), the private
# key's PEM body and its 32 raw bytes.
#
# Use in a .bats file, after `load setup`:   load git_daemon; load trust

trust_gate_setup() {
	TOKEN=ghs-trust-$RANDOM$RANDOM-s3cr3t
	mkdir -p srv keys spy
	chmod 700 keys
	chmod 1777 spy
	git init -q --bare -b main srv/s.git
	make_tls_cert
	export GIT_SSL_CAINFO=$TLS_CA ENVPARITY_GIT_TOKEN=$TOKEN
	start_git_http "$T/srv" "x-access-token:$TOKEN" --tls "$TLS_CERT" "$TLS_KEY"
	STORE=https://127.0.0.1:$GIT_HTTP_PORT/s.git
	openssl genpkey -algorithm ed25519 -out keys/key.pem 2>/dev/null
	chmod 600 keys/key.pem
	KEY_PEM_BODY=$(sed -n 2p keys/key.pem)
	KEY_RAW_HEX=$(openssl pkey -in keys/key.pem -outform DER | tail -c 32 |
	    od -An -tx1 | tr -d ' \n')
	AUTH_B64=$(printf 'x-access-token:%s' "$TOKEN" | base64 -w0)
	manifest golden.json '{"os.name": "the golden machine"}'
	"$EP" bless -q --store "$STORE" golden.json
	export ENVPARITY_CHILD_DIRS=$T/spy
	unset ENVPARITY_CHILD_ENV
}

gate() {
	"$EP" check -q --store "$STORE" --no-discover --attest "$T/att.json" \
	    --sign-key "$T/keys/key.pem" -o "$T/m.json" "$@"
}

# The secrets as byte strings, for a Python spy.
spy_needles_py() {
	local raw="" i
	for ((i = 0; i < ${#KEY_RAW_HEX}; i += 2)); do
		raw+="\\x${KEY_RAW_HEX:i:2}"
	done
	printf "[b'%s', b'%s', b'%s', b'%s']" "$TOKEN" "$AUTH_B64" \
	    "$KEY_PEM_BODY" "$raw"
}

# One needle as "{len, {bytes xor 0x5a}}".
c_needle() { # hex
	local h=$1 out="" i
	for ((i = 0; i < ${#h}; i += 2)); do
		out+=$(printf '0x%02x,' $((0x${h:i:2} ^ 0x5a)))
	done
	printf '{%d, {%s}}' $((${#h} / 2)) "$out"
}

spy_needles_c() {
	local s
	for s in "$TOKEN" "$AUTH_B64" "$KEY_PEM_BODY"; do
		c_needle "$(printf '%s' "$s" | od -An -tx1 | tr -d ' \n')"
		printf ',\n'
	done
	c_needle "$KEY_RAW_HEX"
}

# A Python spy: run as `spy.py REPORT PARENT`, it tries every way to the
# gate's secrets from inside a helper and appends what it found.
write_python_spy() { # file
	cat >"$1" <<EOF
import os, sys
NEEDLES = $(spy_needles_py)

def found(data):
    return 'found' if any(n in data for n in NEEDLES) else 'clean'

def scan_mem(pid):
    try:
        maps = open('/proc/%d/maps' % pid).read().splitlines()
        mem = open('/proc/%d/mem' % pid, 'rb', 0)
    except OSError as e:
        return 'denied (%s)' % e.strerror
    for line in maps:
        f = line.split()
        if 'r' not in f[1]:
            continue
        a, b = (int(x, 16) for x in f[0].split('-'))
        if b - a > (256 << 20):
            continue
        try:
            mem.seek(a)
            if found(mem.read(b - a)) == 'found':
                return 'found'
        except (OSError, ValueError, OverflowError):
            pass
    return 'clean'

def spy(report, parent):
    out = ['ran as %d' % os.getuid()]
    own = '\n'.join('%s=%s' % kv for kv in os.environ.items()).encode()
    out.append('own-environ: ' + found(own))
    try:
        out.append('parent-environ: ' +
            found(open('/proc/%d/environ' % parent, 'rb').read()))
    except OSError as e:
        out.append('parent-environ: denied (%s)' % e.strerror)
    key = None
    try:
        a = open('/proc/%d/cmdline' % parent, 'rb').read().split(b'\0')
        if b'--sign-key' in a:
            key = a[a.index(b'--sign-key') + 1].decode()
        out.append('key-path: %s' % key)
    except OSError as e:
        out.append('key-path: denied (%s)' % e.strerror)
    if key:
        try:
            out.append('key-file: ' + found(open(key, 'rb').read()))
        except OSError as e:
            out.append('key-file: denied (%s)' % e.strerror)
    out.append('parent-mem: ' + scan_mem(parent))
    with open(report, 'a') as f:
        f.write('\n'.join(out) + '\n')

if __name__ == '__main__':
    spy(sys.argv[1], int(sys.argv[2]))
EOF
}

# Skip unless this kernel has Landlock (asked directly, not through the
# binary under test): without it a helper that stays root keeps a
# root-owned key's mode on its side, and the report says so instead.
needs_landlock() {
	local abi
	abi=$(python3 -c 'import ctypes
print(ctypes.CDLL(None, use_errno=True).syscall(444, None, 0, 1))')
	[ "$abi" -gt 0 ] || skip "no Landlock in this kernel"
}

# The spy's report shows it ran and found nothing of the gate's.
spy_found_nothing() { # report
	cat "$1"
	grep -q '^ran as ' "$1"
	! grep -q 'found' "$1" || false
	grep -qx 'own-environ: clean' "$1"
	grep -q '^parent-environ: denied' "$1"
	grep -q '^parent-mem: denied' "$1"
	# It may learn where the key is (a process's command line is
	# public); it cannot open it.
	grep -qx "key-path: $T/keys/key.pem" "$1"
	grep -q '^key-file: denied' "$1"
}
