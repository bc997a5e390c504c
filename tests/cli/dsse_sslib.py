#!/usr/bin/python3
"""dsse_sslib.py ENVELOPE PUB.pem [--pure]: verify a DSSE envelope with
Debian's python3-securesystemslib (0.26, which has no DSSE module: the
PAE is computed here, as protocol.md defines it) and its Ed25519 key
(PyNaCl, or with --pure the vendored pure-Python Ed25519).  Every
signature is tried with the key, whatever its keyid (a keyid is a hint,
never trusted); then the payload type is judged, then the payload read.
Prints "OK securesystemslib VERSION (BACKEND) _type predicateType
verdict" and exits 0, or "FAIL why" and exits 1."""
import base64
import binascii
import hashlib
import json
import sys

import securesystemslib
from securesystemslib import ed25519_keys
from securesystemslib.signer import Signature, SSlibKey

INTOTO = "application/vnd.in-toto+json"


def b64(s):
    # DSSE: standard or URL-safe, padded or not.
    s = s.replace("-", "+").replace("_", "/")
    return base64.b64decode(s + "=" * (-len(s) % 4), validate=True)


def main():
    env_file, pub_file = sys.argv[1], sys.argv[2]
    if "--pure" in sys.argv[3:]:
        ed25519_keys.NACL = False
    backend = "nacl" if ed25519_keys.NACL else "pure-python"
    with open(env_file, encoding="utf-8") as f:
        env = json.load(f)
    with open(pub_file, encoding="ascii") as f:
        pem = f.read()
    der = base64.b64decode("".join(
        l for l in pem.splitlines() if l and not l.startswith("-----")))
    # An Ed25519 SubjectPublicKeyInfo: 12 bytes of header, 32 of key.
    if len(der) != 44 or der[:12] != binascii.unhexlify(
            "302a300506032b6570032100"):
        print("FAIL not an Ed25519 public key")
        return 1
    keyid = hashlib.sha256(der).hexdigest()
    key = SSlibKey(keyid, "ed25519", "ed25519", {"public": der[12:].hex()})
    ptype = env["payloadType"].encode("utf-8")
    body = b64(env["payload"])
    pae = b"DSSEv1 %d %b %d %b" % (len(ptype), ptype, len(body), body)
    held = False
    for s in env["signatures"]:
        try:
            # 0.26 takes the signature as hex.
            key.verify_signature(Signature(keyid, b64(s["sig"]).hex()), pae)
            held = True
            break
        except Exception:  # UnverifiedSignatureError, VerificationError
            continue
    if not held:
        print("FAIL no signature verifies (%s)" % backend)
        return 1
    if env["payloadType"] != INTOTO:
        print("FAIL payloadType %s" % env["payloadType"])
        return 1
    st = json.loads(body)
    print("OK securesystemslib %s (%s) %s %s %s" % (
        securesystemslib.__version__, backend, st["_type"],
        st["predicateType"], st["predicate"]["verdict"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
