#!/usr/bin/env python3
"""bad_registry.py: a registry that answers badly, for the answers
docker-registry never gives.  Plain http on 127.0.0.1; what a request
gets depends on its repository's name (the first part of it):

  good       a manifest, with a correct Docker-Content-Digest
  garbage    a body that is not JSON (its digest header is correct)
  big        a 5 MiB body with Content-Length
  bigstream  a 5 MiB body without Content-Length (ends at close)
  liar       HEAD and GET report a digest the body does not hash to
  liarget    no digest on HEAD; the GET's header disagrees with its body
  stall      accepts, reads the request, never answers
  r429-*     the repository's first request: 429 with Retry-After: 1
  r500-*     the repository's first request: 500
  always503  503, always
  nodigest   a manifest without Docker-Content-Digest, HEAD and GET
  badchild   an index whose linux/amd64 entry names a digest its
             manifest does not hash to
  noauth     401 without any WWW-Authenticate

Blobs (GET /v2/REPO/blobs/DIGEST): every repository above serves the
good manifest's config ("{}"); and:

  badconfig  a manifest whose config blob's bytes are not what its
             digest names
  noconfig   a manifest whose config blob is unknown (404)
  bigconfig  a manifest whose config blob is 5 MiB
  redir      a linux/arm64 image whose config blob is a 307 redirect to
             the storage server (another port: a different origin)
  basicredir the same behind Basic auth (any user and password)
  tokenredir the same behind Bearer auth: GET /token on this server
             gives the token TOKEN_SECRET
  idredir    behind Bearer auth whose realm (/idtoken) answers the POST
             of an identity-token refresh with a 307 to the storage
             server: the refresh token must not follow it

The storage server (127.0.0.1, its port in PORTFILE.storage) answers
/storage/<digest> with that config and logs "STORAGE METHOD PATH" and
then "STORAGE-HEADER NAME: VALUE" for every header it got.

Each request is logged to LOG as "METHOD PATH", followed by
"AUTHORIZATION SCHEME" when it carried an Authorization header.
usage: bad_registry.py PORTFILE LOG
"""
import hashlib
import http.server
import json
import os
import sys
import threading
import time

PORTFILE, LOG = sys.argv[1:3]
LOCK = threading.Lock()
SEEN = set()

MT_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"
MT_INDEX = "application/vnd.oci.image.index.v1+json"


def digest(b):
    return "sha256:" + hashlib.sha256(b).hexdigest()


MANIFEST = json.dumps({
    "schemaVersion": 2, "mediaType": MT_MANIFEST,
    "config": {"mediaType": "application/vnd.docker.container.image.v1+json",
               "size": 2, "digest": digest(b"{}")},
    "layers": []}, separators=(",", ":")).encode()
OTHER = MANIFEST.replace(b'"layers":[]', b'"layers":[ ]')
BADCHILD = json.dumps({
    "schemaVersion": 2, "mediaType": MT_INDEX,
    "manifests": [{"mediaType": MT_MANIFEST, "size": len(MANIFEST),
                   "digest": digest(OTHER),
                   "platform": {"os": "linux", "architecture": "amd64"}}]},
    separators=(",", ":")).encode()
GARBAGE = b"<html>this is not a manifest</html>\n"
BIG = b"x" * (5 << 20)
TOKEN_SECRET = "bad-registry-token-s3cret"
STORAGE_PORT = [0]

# An arm64 config, and the manifest naming it, for the redirects.
ARM_CONFIG = json.dumps({
    "architecture": "arm64", "os": "linux", "rootfs": {
        "type": "layers", "diff_ids": []}},
    separators=(",", ":")).encode()
# badconfig names this config, and serves other bytes for it.
AMD_CONFIG = ARM_CONFIG.replace(b"arm64", b"amd64")


def manifest_for(config):
    return json.dumps({
        "schemaVersion": 2, "mediaType": MT_MANIFEST,
        "config": {"mediaType":
                   "application/vnd.docker.container.image.v1+json",
                   "size": len(config), "digest": digest(config)},
        "layers": []}, separators=(",", ":")).encode()


ARM_MANIFEST = manifest_for(ARM_CONFIG)
AMD_MANIFEST = manifest_for(AMD_CONFIG)
MISSING_MANIFEST = manifest_for(b'{"missing":true}')
BIG_MANIFEST = manifest_for(BIG)
REDIRS = ("redir", "basicredir", "tokenredir")


class Storage(http.server.BaseHTTPRequestHandler):
    """Blob storage on another port, logging every header it gets."""
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0) or 0)
        body = self.rfile.read(n)
        with LOCK, open(LOG, "a") as f:
            f.write("STORAGE POST %s\nSTORAGE-BODY %r\n" % (self.path, body))
        self.send_response(500)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        with LOCK, open(LOG, "a") as f:
            f.write("STORAGE %s %s\n" % (self.command, self.path))
            for k, v in self.headers.items():
                f.write("STORAGE-HEADER %s: %s\n" % (k, v))
        body = ARM_CONFIG if self.path == "/storage/" + digest(
            ARM_CONFIG) else b""
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, code, body=b"", ctype=None, dg=None, extra=(),
               length=True):
        self.send_response(code)
        if ctype:
            self.send_header("Content-Type", ctype)
        if dg:
            self.send_header("Docker-Content-Digest", dg)
        for k, v in extra:
            self.send_header(k, v)
        if length:
            self.send_header("Content-Length", str(len(body)))
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.route()

    def do_GET(self):
        self.route()

    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0) or 0)
        self.rfile.read(n)
        with LOCK, open(LOG, "a") as f:
            f.write("POST %s\n" % self.path)
        if self.path.startswith("/idtoken"):
            return self.answer(307, b"", extra=[(
                "Location", "http://127.0.0.1:%d/steal" % STORAGE_PORT[0])])
        return self.answer(404, b"{}", "application/json")

    def route(self):
        authz = self.headers.get("Authorization")
        with LOCK, open(LOG, "a") as f:
            f.write("%s %s\n" % (self.command, self.path))
            if authz:
                f.write("AUTHORIZATION %s\n" % authz.split(" ")[0])
        parts = self.path.split("/")
        if self.path == "/v2/":
            return self.answer(200, b"{}", "application/json")
        if self.path.startswith("/token"):
            return self.answer(200, json.dumps(
                {"token": TOKEN_SECRET}).encode(), "application/json")
        if len(parts) < 5 or parts[1] != "v2" or \
                parts[-2] not in ("manifests", "blobs"):
            return self.answer(404, b"{}", "application/json")
        repo = "/".join(parts[2:-2])
        ref = parts[-1]
        if repo == "idredir":
            return self.answer(401, b"{}", "application/json", extra=[(
                "WWW-Authenticate",
                'Bearer realm="http://127.0.0.1:%d/idtoken",service="bad",'
                'scope="repository:idredir:pull"' %
                self.server.server_address[1])])
        if repo in ("basicredir", "tokenredir"):
            want = "Basic " if repo == "basicredir" else \
                "Bearer " + TOKEN_SECRET
            if not authz or not authz.startswith(want):
                chal = 'Basic realm="bad"' if repo == "basicredir" else \
                    ('Bearer realm="http://127.0.0.1:%d/token",'
                     'service="bad",scope="repository:%s:pull"' % (
                         self.server.server_address[1], repo))
                return self.answer(401, b"{}", "application/json",
                                   extra=[("WWW-Authenticate", chal)])
        if parts[-2] == "blobs":
            return self.blob(repo, ref)
        if repo in REDIRS:
            return self.answer(200, ARM_MANIFEST, MT_MANIFEST,
                               digest(ARM_MANIFEST))
        if repo in ("badconfig", "noconfig", "bigconfig"):
            m = {"badconfig": AMD_MANIFEST, "noconfig": MISSING_MANIFEST,
                 "bigconfig": BIG_MANIFEST}[repo]
            return self.answer(200, m, MT_MANIFEST, digest(m))
        first = False
        with LOCK:
            if repo not in SEEN:
                SEEN.add(repo)
                first = True
        if repo == "good" or repo == "nodigest":
            return self.answer(200, MANIFEST, MT_MANIFEST,
                               digest(MANIFEST) if repo == "good" else None)
        if repo == "garbage":
            return self.answer(200, GARBAGE, MT_MANIFEST, digest(GARBAGE))
        if repo == "big":
            return self.answer(200, BIG, MT_MANIFEST)
        if repo == "bigstream":
            return self.answer(200, BIG, MT_MANIFEST, length=False)
        if repo == "liar":
            return self.answer(200, MANIFEST, MT_MANIFEST, digest(OTHER))
        if repo == "liarget":
            dg = digest(OTHER) if self.command == "GET" else None
            return self.answer(200, MANIFEST, MT_MANIFEST, dg)
        if repo == "stall":
            time.sleep(60)
            self.close_connection = True
            return
        if repo.startswith("r429-") and first:
            return self.answer(429, b"{}", "application/json",
                               extra=[("Retry-After", "1")])
        if repo.startswith("r500-") and first:
            return self.answer(500, b"{}", "application/json")
        if repo.startswith("r429-") or repo.startswith("r500-"):
            return self.answer(200, MANIFEST, MT_MANIFEST, digest(MANIFEST))
        if repo == "always503":
            return self.answer(503, b"{}", "application/json")
        if repo == "badchild":
            if ref.startswith("sha256:") and ref != digest(BADCHILD):
                # The child, named by a digest it does not have.
                return self.answer(200, MANIFEST, MT_MANIFEST)
            return self.answer(200, BADCHILD, MT_INDEX, digest(BADCHILD))
        if repo == "noauth":
            return self.answer(401, b"{}", "application/json")
        return self.answer(404, b'{"errors":[{"code":"NAME_UNKNOWN"}]}',
                           "application/json")


    def blob(self, repo, ref):
        octet = "application/octet-stream"
        if repo in REDIRS and ref == digest(ARM_CONFIG):
            return self.answer(307, b"", None, extra=[(
                "Location", "http://127.0.0.1:%d/storage/%s" % (
                    STORAGE_PORT[0], ref))])
        if repo == "badconfig" and ref == digest(AMD_CONFIG):
            # Not the bytes the digest names.
            return self.answer(200, ARM_CONFIG, octet)
        if repo == "bigconfig" and ref == digest(BIG):
            return self.answer(200, BIG, octet)
        if ref == digest(b"{}") and repo not in ("noconfig",):
            return self.answer(200, b"{}", octet, digest(b"{}"))
        return self.answer(404, b'{"errors":[{"code":"BLOB_UNKNOWN"}]}',
                           "application/json")


def main():
    st = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Storage)
    st.daemon_threads = True
    STORAGE_PORT[0] = st.server_address[1]
    threading.Thread(target=st.serve_forever, daemon=True).start()
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    with open(PORTFILE + ".storage", "w") as f:
        f.write("%d\n" % STORAGE_PORT[0])
    tmp = PORTFILE + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, PORTFILE)
    srv.serve_forever()


if __name__ == "__main__":
    main()
