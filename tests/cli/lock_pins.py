#!/usr/bin/env python3
"""lock_pins.py FORMAT FILE: the pins of a lockfile as its own package list
says, read with Python's tomllib, PyYAML and json (not envparity's
readers), one "name=version" a line, sorted: what
lockfile.<path>.pin.<name> must hold for each package.

Names as docs/manifest.md says: Python packages PEP 503 normalized, conda
packages as written; a name at several versions (two platforms, two
categories) is one pin at its versions, sorted and joined with ",".

FORMAT: pylock, pdm, conda-lock, pixi, pipfile.
"""
import json
import re
import sys
import tomllib
import urllib.parse

import yaml


def pep503(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def conda_file(url):
    """NAME, VERSION of .../NAME-VERSION-BUILD.conda (or .tar.bz2)."""
    base = urllib.parse.unquote(url.split("#")[0].rsplit("/", 1)[-1])
    for ext in (".conda", ".tar.bz2"):
        if base.endswith(ext):
            base = base[: -len(ext)]
    name, version, _build = base.rsplit("-", 2)
    return name, version


def pins(fmt, path):
    with open(path, "rb") as f:
        data = f.read()
    if fmt == "pylock":
        doc = tomllib.loads(data.decode())
        for p in doc["packages"]:
            if "version" in p:
                yield pep503(p["name"]), p["version"]
    elif fmt == "pdm":
        doc = tomllib.loads(data.decode())
        for p in doc["package"]:
            if "version" in p:
                yield pep503(p["name"]), p["version"]
    elif fmt == "conda-lock":
        # BaseLoader: every scalar a string, as the file writes it
        # (version: 1.10 is "1.10", not the float 1.1).
        doc = yaml.load(data, Loader=yaml.BaseLoader)
        for p in doc["package"]:
            name = pep503(p["name"]) if p["manager"] == "pip" else p["name"]
            yield name, p["version"]
    elif fmt == "pixi":
        doc = yaml.load(data, Loader=yaml.BaseLoader)
        for p in doc["packages"]:
            if "pypi" in p or p.get("kind") == "pypi":
                yield pep503(p["name"]), p["version"]
            elif "name" in p:
                yield p["name"], p["version"]
            else:
                yield conda_file(p.get("conda") or p["url"])
    elif fmt == "pipfile":
        doc = json.loads(data)
        for section, pkgs in doc.items():
            if section == "_meta":
                continue
            for name, entry in pkgs.items():
                if "version" in entry:
                    v = entry["version"]
                    v = v[3:] if v.startswith("===") else \
                        v[2:] if v.startswith("==") else v
                    yield pep503(name), v.strip() or "*"
    else:
        raise SystemExit(f"lock_pins.py: unknown format {fmt}")


def main():
    merged = {}
    for name, version in pins(sys.argv[1], sys.argv[2]):
        merged.setdefault(name, set()).add(version)
    for name in sorted(merged):
        print(f"{name}={','.join(sorted(merged[name]))}")


if __name__ == "__main__":
    main()
