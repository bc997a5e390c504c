# Git servers on 127.0.0.1 for the store's CLI tests: `git daemon` (git://,
# fetch and push) and git's http-backend behind Basic authentication
# (git_http.py).  Load after setup:
#
#   load setup
#   load git_daemon
#
# start_git_daemon DIR    serve the repositories under DIR; sets
#                         GIT_DAEMON_PORT and GIT_DAEMON_LOG (--verbose log)
# start_git_http DIR USER:PASSWORD [--tls CERT KEY] [--redirect URL]
#                         serve DIR over http (https with --tls) to that
#                         user only, or (--redirect) send every request to
#                         URL; sets GIT_HTTP_PORT and GIT_HTTP_AUTH_LOG
#                         (the decoded Authorization headers received, one
#                         a line); may be called again for another server
# make_tls_cert           a CA and a certificate for 127.0.0.1 and
#                         localhost that it signed: sets TLS_CA, TLS_CERT
#                         and TLS_KEY (GIT_SSL_CAINFO=$TLS_CA trusts it)
# free_port               print a TCP port nobody listens on (for the
#                         "unreachable" cases)
#
# Both servers are stopped by teardown, which then runs setup.bash's.

GIT_DAEMON_PID=
GIT_HTTP_PIDS=
GIT_HTTP_N=0

. "$(dirname "${BASH_SOURCE[0]}")/net.bash"

# Wait until 127.0.0.1:$1 accepts a connection while process $2 lives;
# the only waiting these tests do.
wait_port() { # port pid
	local i
	for i in $(seq 1 200); do
		kill -0 "$2" 2>/dev/null || return 1
		if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}

start_git_daemon() { # base-dir
	local try port
	GIT_DAEMON_LOG=$T/git-daemon.log
	# A free port can be taken between asking and binding: try again.
	for try in 1 2 3 4 5; do
		port=$(free_port)
		# fd 3 closed: bats waits for whoever holds it.
		git daemon --verbose --enable=receive-pack --export-all \
		    --base-path="$1" --listen=127.0.0.1 --port="$port" \
		    --reuseaddr >"$GIT_DAEMON_LOG" 2>&1 3>&- &
		GIT_DAEMON_PID=$!
		if wait_port "$port" "$GIT_DAEMON_PID"; then
			GIT_DAEMON_PORT=$port
			return 0
		fi
		stop_git_daemon
	done
	echo "git daemon did not start: $(cat "$GIT_DAEMON_LOG")" >&2
	return 1
}

stop_git_daemon() {
	if [ -n "$GIT_DAEMON_PID" ]; then
		kill "$GIT_DAEMON_PID" 2>/dev/null
		wait "$GIT_DAEMON_PID" 2>/dev/null
		GIT_DAEMON_PID=
	fi
}

# How many fetch (upload-pack) connections the daemon has served.
daemon_fetches() {
	grep -c "Request upload-pack" "$GIT_DAEMON_LOG"
}

start_git_http() { # base-dir user:password [options]
	local base=$1 auth=$2 portfile i pid
	shift 2
	GIT_HTTP_N=$((GIT_HTTP_N + 1))
	portfile=$T/git-http-$GIT_HTTP_N.port
	GIT_HTTP_AUTH_LOG=$T/git-http-$GIT_HTTP_N.auth
	: >"$GIT_HTTP_AUTH_LOG"
	python3 "$BATS_TEST_DIRNAME/git_http.py" "$base" "$portfile" \
	    "$GIT_HTTP_AUTH_LOG" "$auth" "$@" \
	    >"$T/git-http-$GIT_HTTP_N.log" 2>&1 3>&- &
	pid=$!
	GIT_HTTP_PIDS+=" $pid"
	for i in $(seq 1 200); do
		if [ -s "$portfile" ]; then
			GIT_HTTP_PORT=$(cat "$portfile")
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	echo "git http server did not start: $(cat "$T/git-http-$GIT_HTTP_N.log")" >&2
	return 1
}

stop_git_http() {
	local pid
	for pid in $GIT_HTTP_PIDS; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	GIT_HTTP_PIDS=
}

make_tls_cert() {
	local d=$T/tls
	mkdir -p "$d"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=test CA" \
	    -addext basicConstraints=critical,CA:TRUE \
	    -keyout "$d/ca.key" -out "$d/ca.pem" 2>/dev/null || return 1
	openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
	    -keyout "$d/key.pem" -out "$d/req.pem" 2>/dev/null || return 1
	printf 'subjectAltName=DNS:127.0.0.1,IP:127.0.0.1,DNS:localhost\n' >"$d/ext"
	openssl x509 -req -in "$d/req.pem" -CA "$d/ca.pem" -CAkey "$d/ca.key" \
	    -CAcreateserial -days 2 -extfile "$d/ext" -out "$d/cert.pem" \
	    2>/dev/null || return 1
	TLS_CA=$d/ca.pem TLS_CERT=$d/cert.pem TLS_KEY=$d/key.pem
}

# setup.bash's teardown, kept under another name and run after ours.
eval "ep_setup_$(declare -f teardown)"
teardown() {
	stop_git_daemon
	stop_git_http
	ep_setup_teardown
}
