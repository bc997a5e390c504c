#!/usr/bin/env python3
"""git_http.py: a smart-HTTP git server for the CLI tests: git's own
http-backend (CGI) behind HTTP Basic authentication, on 127.0.0.1.

    git_http.py BASE_DIR PORT_FILE AUTH_LOG USER:PASSWORD
                [--tls CERT KEY] [--redirect URL]

Serves every repository under BASE_DIR, fetch and push, to a client that
presents USER:PASSWORD; anyone else gets 401.  Writes the port it listens
on to PORT_FILE once it accepts connections, and appends each decoded
Authorization header it receives to AUTH_LOG (one per line, "-" for
none), so a test can see which credentials the client sent.

--tls CERT KEY  speaks https with that certificate chain and key.
--redirect URL  serves nothing: answers every request with a 302 to URL
                followed by the request's path and query (a store that
                moved, or one that sends its clients elsewhere), still
                logging the Authorization header it received.
"""
import argparse
import base64
import http.server
import os
import ssl
import subprocess


def read_body(handler):
    """The request body, whether sized or chunked (libgit2 chunks pushes)."""
    if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
        parts = []
        while True:
            size = int(handler.rfile.readline().split(b";")[0].strip(), 16)
            if size == 0:
                while handler.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(parts)
            parts.append(handler.rfile.read(size))
            handler.rfile.readline()
    n = int(handler.headers.get("Content-Length") or 0)
    return handler.rfile.read(n) if n else b""


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, fmt, *args):
        pass

    def handle_git(self):
        auth = self.headers.get("Authorization", "")
        got = "-"
        if auth.startswith("Basic "):
            got = base64.b64decode(auth[6:]).decode("utf-8", "replace")
        with open(self.server.auth_log, "a") as f:
            f.write(got + "\n")
        body = read_body(self)
        if self.server.redirect is not None:
            self.send_response(302)
            self.send_header("Location", self.server.redirect + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if got != self.server.expected:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="envparity"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        path, _, query = self.path.partition("?")
        env = dict(os.environ)
        env.update({
            "GIT_PROJECT_ROOT": self.server.base,
            "GIT_HTTP_EXPORT_ALL": "1",
            "REQUEST_METHOD": self.command,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_USER": got.split(":", 1)[0],
            "REMOTE_ADDR": "127.0.0.1",
        })
        if self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        if self.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        out = subprocess.run(["git", "http-backend"], input=body, env=env,
                             stdout=subprocess.PIPE, check=False).stdout
        head, _, rest = out.partition(b"\r\n\r\n")
        if not _:
            head, _, rest = out.partition(b"\n\n")
        status, headers = 200, []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(rest)))
        self.end_headers()
        self.wfile.write(rest)

    do_GET = handle_git
    do_POST = handle_git


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("port_file")
    ap.add_argument("auth_log")
    ap.add_argument("expected")
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    ap.add_argument("--redirect", metavar="URL")
    a = ap.parse_args()
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.base, srv.auth_log, srv.expected = a.base, a.auth_log, a.expected
    srv.redirect = a.redirect
    if a.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.tls[0], a.tls[1])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, a.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
