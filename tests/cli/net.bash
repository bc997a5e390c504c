# net.bash: what the loopback servers of the tests share (git_daemon.bash,
# registry.bash; bench/run.sh through registry.bash).
#
# free_port    print a TCP port of 127.0.0.1 nobody listens on now

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
