#!/usr/bin/env python3
"""token_issuer.py: a registry token server for the tests (distribution's
token auth): GET /token?service=S&scope=repository:NAME:ACTIONS answers
{"token": JWT, "access_token": JWT}.  The JWT is RS256, signed by calling
`openssl dgst -sha256 -sign KEY`; its header carries x5c with the issuer's
self-signed certificate, which the registry trusts as its rootcertbundle.

Anonymous requests get pull only, and nothing for repositories under
private/ (401).  Requests with Basic credentials must
carry USER:PASS (else 401) and get the actions they ask for.  POST /token
is docker's OAuth2 refresh (grant_type=refresh_token, the refresh token
PASS standing for an identity token): it gets USER's token.  Each request
is logged to LOG as "anonymous SCOPE", "user NAME SCOPE" or "refresh NAME
SCOPE"; the password is never logged.

With TLSCERT and TLSKEY it serves https (the registry's CA signs them),
else plain http.

usage: token_issuer.py KEY CERT PORTFILE LOG USER:PASS [TLSCERT TLSKEY]
"""
import base64
import http.server
import json
import os
import ssl
import subprocess
import sys
import threading
import time
import urllib.parse

KEY, CERT, PORTFILE, LOG, CRED = sys.argv[1:6]
TLS = sys.argv[6:8]
USER, PASSWORD = CRED.split(":", 1)
SERVICE = "envparity-registry"
ISSUER = "envparity-test-issuer"
LOCK = threading.Lock()


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def cert_der():
    with open(CERT) as f:
        pem = f.read()
    body = pem.split("-----BEGIN CERTIFICATE-----")[1]
    body = body.split("-----END CERTIFICATE-----")[0]
    return base64.b64decode("".join(body.split()))


X5C = base64.b64encode(cert_der()).decode()


def sign(who, access):
    now = int(time.time())
    header = {"typ": "JWT", "alg": "RS256", "x5c": [X5C]}
    claims = {"iss": ISSUER, "sub": who, "aud": SERVICE, "exp": now + 600,
              "nbf": now - 10, "iat": now, "jti": os.urandom(8).hex(),
              "access": access}
    signing = (b64url(json.dumps(header).encode()) + "." +
               b64url(json.dumps(claims).encode()))
    sig = subprocess.run(["openssl", "dgst", "-sha256", "-sign", KEY],
                         input=signing.encode(), capture_output=True,
                         check=True).stdout
    return signing + "." + b64url(sig)


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, fmt, *args):
        pass

    def fail(self, code):
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        n = int(self.headers.get("Content-Length", 0) or 0)
        form = urllib.parse.parse_qs(self.rfile.read(n).decode())
        if url.path != "/token":
            return self.fail(404)
        scope = form.get("scope", [""])[0]
        if form.get("grant_type", [""])[0] != "refresh_token" or \
                form.get("refresh_token", [""])[0] != PASSWORD:
            with LOCK, open(LOG, "a") as f:
                f.write("refused refresh %s\n" % scope)
            return self.fail(401)
        parts = scope.split(":")
        if len(parts) != 3 or parts[0] != "repository":
            return self.fail(400)
        with LOCK, open(LOG, "a") as f:
            f.write("refresh %s %s\n" % (USER, scope))
        self.token(USER, [{"type": "repository", "name": parts[1],
                           "actions": parts[2].split(",")}])

    def token(self, who, access):
        tok = sign(who, access)
        body = json.dumps({"token": tok, "access_token": tok,
                           "expires_in": 600}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path != "/token":
            return self.fail(404)
        q = urllib.parse.parse_qs(url.query)
        scope = q.get("scope", [""])[0]
        who = None
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Basic "):
            try:
                u, p = base64.b64decode(auth[6:]).decode().split(":", 1)
            except Exception:
                return self.fail(400)
            if (u, p) != (USER, PASSWORD):
                with LOCK, open(LOG, "a") as f:
                    f.write("refused %s %s\n" % (u, scope))
                return self.fail(401)
            who = u
        access = []
        if scope:
            parts = scope.split(":")
            if len(parts) != 3 or parts[0] != "repository":
                return self.fail(400)
            actions = parts[2].split(",")
            if who is None:
                if parts[1].startswith("private/"):
                    with LOCK, open(LOG, "a") as f:
                        f.write("refused anonymous %s\n" % scope)
                    return self.fail(401)
                actions = [a for a in actions if a == "pull"]
            access = [{"type": "repository", "name": parts[1],
                       "actions": actions}]
        with LOCK, open(LOG, "a") as f:
            if who is None:
                f.write("anonymous %s\n" % scope)
            else:
                f.write("user %s %s\n" % (who, scope))
        self.token(who or "", access)


def main():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    if TLS:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(TLS[0], TLS[1])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    tmp = PORTFILE + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, PORTFILE)
    srv.serve_forever()


if __name__ == "__main__":
    main()
