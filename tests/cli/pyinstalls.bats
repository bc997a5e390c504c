#!/usr/bin/env bats
# pyinstalls.bats: the installs pip sees that are not a plain dist-info in
# site-packages, each against pip itself on the same interpreter: a
# METADATA without its Version line, Debian's dist-info beside an
# egg-info of the same version, editable installs (setup.py develop's
# egg-link, PEP 660's direct_url.json) and `pip install --target` on
# PYTHONPATH.  python.pkg.* must be `pip list --format=json`,
# meta.python.editable `pip list -e`, stack.requires `pip check`.
#
# One venv of Debian's python3 for the file, with the system's packages
# (Debian's pip, setuptools and wheel, to install local projects offline:
# no ensurepip, which takes seconds), where pip installs once what the
# tests look at:
# two plain distributions, one requiring the other; a legacy editable
# (setup.py develop) whose requirement is broken; a PEP 660 editable
# requiring it and a missing one; and, with --target into a directory for
# PYTHONPATH, a distribution and a second six.  Each test takes a copy.

load setup

pip() { # python args...
	local py=$1
	shift
	PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 "$py" -m pip "$@"
}

# A setup.py project in dir: name, version, install_requires.
project() { # dir name version requires
	mkdir -p "$1/${2//[-.]/_}"
	touch "$1/${2//[-.]/_}/__init__.py"
	printf 'from setuptools import setup\nsetup(name="%s", version="%s", packages=["%s"], install_requires=[%s])\n' \
	    "$2" "$3" "${2//[-.]/_}" "$4" >"$1/setup.py"
}

setup_file() {
	local d=$BATS_FILE_TMPDIR py=$BATS_FILE_TMPDIR/venv/bin/python
	export PYI_VENV=$d/venv PYI_TGT=$d/tgt PYI_DIR=$d
	/usr/bin/python3 -m venv --without-pip --system-site-packages "$PYI_VENV" \
	    >/dev/null 2>&1 && pip "$py" --version >/dev/null 2>&1 || {
		rm -rf "$PYI_VENV"
		return 0
	}
	project "$d/dep" versioned-dist 1.5 ''
	project "$d/user" needs-it 1.0 '"versioned-dist>=1"'
	project "$d/legacy" Legacy.Pkg 0.3 '"pip>=99"'
	project "$d/modern" pep660-pkg 1.2 '"legacy-pkg==0.3", "absent-dist"'
	project "$d/proj" on-path 2.0 '"pip>=1"'
	project "$d/shadow" six 0.1 ''
	# Without pyproject.toml and without --use-pep517, pip runs setup.py
	# develop for -e (the egg-link); with it, PEP 660.
	(cd "$d" && pip "$py" install -q --no-build-isolation --no-deps \
	    ./dep ./user -e ./legacy &&
	    pip "$py" install -q --no-build-isolation --no-deps \
	    --use-pep517 -e ./modern &&
	    pip "$py" install -q --no-build-isolation --no-deps \
	    --target "$PYI_TGT" ./proj ./shadow) >"$d/pip.log" 2>&1 ||
	    rm -rf "$PYI_VENV"
}

venv() { # dir: a copy of the file's venv; its site-packages in $SITE
	[ -d "$PYI_VENV" ] || skip "no venv of Debian's python3 with its pip, setuptools and wheel here"
	# Linked, not copied (a second saved): the tests add files and
	# replace them (sed -i), never write into one in place.
	cp -al "$PYI_VENV" "$1"
	# One cache for the file: the CUDA libraries are asked once.
	export XDG_CACHE_HOME=$PYI_DIR/cache
	SITE=$(echo "$T/$1"/lib/python3*/site-packages)
	[ -d "$SITE" ] || skip "no lib/python3*/site-packages in the venv"
}

# "name version" lines, PEP 503 names, sorted: pip list's and the
# manifest's.
pip_list() { # python
	pip "$1" list --format=json | jq -r '.[] | "\(.name | ascii_downcase
	    | gsub("[-_.]+"; "-")) \(.version)"' | LC_ALL=C sort
}
ep_list() { # manifest
	jq -r '.facts | to_entries[] | select(.key | startswith("python.pkg."))
	    | "\(.key[11:]) \(.value)"' "$1" | LC_ALL=C sort
}

# pip check's sentences and envparity's, as pipcheck.bats compares them.
pip_check() { # python
	pip "$1" check 2>/dev/null | grep -v -e '^No broken requirements found\.$' \
	    -e ' is not supported on this platform$' | LC_ALL=C sort -u
}
ep_findings() { # manifest
	"$EP" diff "$1" "$1" --json r.json >/dev/null 2>&1 || true
	jq -r '.results[] | select((.key | startswith("stack.requires."))
	    and .status == "fail") | .message
	    | sub("^stack\\.requires\\.[^:]*: "; "")' r.json |
	    sed -E 's/(which is not installed\.|, but you have [^ ]+ [^ ]+\.|from [^)]*\)\.) /\1\n/g' |
	    LC_ALL=C sort -u
}

@test "a METADATA without Version: the dist-info's name gives it, as current pip reads it; its requirers are met" {
	venv v
	# Two real distributions, installed by pip: one requires the other,
	# whose METADATA then loses its Version line.
	pip_list v/bin/python >pip.txt
	grep -qx 'versioned-dist 1.5' pip.txt
	grep -qx 'needs-it 1.0' pip.txt
	# pip 23 cannot list it once the line is gone (TypeError): the list
	# before is the reference, the version it was installed under.
	sed -i '/^Version:/d' "$SITE"/versioned_dist-1.5.dist-info/METADATA
	! grep -q '^Version:' "$SITE"/versioned_dist-1.5.dist-info/METADATA
	"$EP" capture -q --no-discover --python v/bin/python -o m.json
	ep_list m.json >ep.txt
	diff pip.txt ep.txt
	jq -r '.meta.warnings[]' m.json | grep -qF \
	    "$SITE/versioned_dist-1.5.dist-info/METADATA: no Version field; using \"1.5\" from the directory name"
	[ "$(jq '.meta.python.requires.unmet["needs-it"]' m.json)" = null ]
	[ -z "$(ep_findings m.json | grep needs-it)" ]
}

@test "Debian's double metadata: a dist-info and an egg-info of one version are one distribution, of two versions still twice" {
	# Debian's own python3 and its dist-packages, as they are.
	local dp=/usr/lib/python3/dist-packages
	if compgen -G "$dp/cryptography-*.dist-info" >/dev/null &&
	    [ -d "$dp/cryptography.egg-info" ]; then
		"$EP" capture -q --no-discover --python /usr/bin/python3 -o deb.json
		[ "$(fact deb.json python.pkg.cryptography)" = \
		    "$(sed -n 's/^Version: //p' "$dp"/cryptography-*.dist-info/METADATA)" ]
		[ "$(jq '[.meta.warnings[]? | select(test("installed twice"))] | length' deb.json)" = 0 ]
		[ "$(jq .meta.python.duplicates deb.json)" = null ]
		if /usr/bin/python3 -m pip --version >/dev/null 2>&1; then
			pip_list /usr/bin/python3 >pip.txt
			ep_list deb.json >ep.txt
			diff pip.txt ep.txt
		fi
	fi
	# A real venv made to hold both: the METADATA pip wrote as an
	# egg-info's PKG-INFO beside it.
	venv v
	local di=$SITE/versioned_dist-1.5.dist-info
	mkdir "$SITE/versioned_dist.egg-info"
	cp "$di/METADATA" "$SITE/versioned_dist.egg-info/PKG-INFO"
	pip_list v/bin/python >pip.txt
	[ "$(grep -c '^versioned-dist ' pip.txt)" = 1 ]
	"$EP" capture -q --no-discover --python v/bin/python -o m.json
	ep_list m.json >ep.txt
	diff pip.txt ep.txt
	[ "$(jq '[.meta.warnings[]? | select(contains("installed twice"))] | length' m.json)" = 0 ]
	[ "$(jq .meta.python.duplicates m.json)" = null ]
	# Another version: which one Python finds depends on the directory's
	# order, so it is still twice.
	sed -i "s/^Version: .*/Version: 1.0/" "$SITE/versioned_dist.egg-info/PKG-INFO"
	"$EP" capture -q --no-discover --python v/bin/python -o m2.json
	jq -r '.meta.warnings[]' m2.json |
	    grep -qF "python package versioned-dist is installed twice: $di/METADATA (1.5) is used, $SITE/versioned_dist.egg-info/PKG-INFO (1.0) is shadowed"
	[ "$(jq '.meta.python.duplicates["versioned-dist"] | length' m2.json)" = 2 ]
}

@test "editable installs: setup.py develop's egg-link and PEP 660's are recorded, editable, and their requirements judged as pip check does" {
	venv v
	[ -f "$SITE/Legacy.Pkg.egg-link" ]
	grep -qx "$PYI_DIR/legacy" "$SITE/easy-install.pth"
	compgen -G "$SITE/__editable__*.pth" >/dev/null
	pip_list v/bin/python >pip.txt
	grep -qx 'legacy-pkg 0.3' pip.txt
	"$EP" capture -q --no-discover --python v/bin/python -o m.json
	ep_list m.json >ep.txt
	diff pip.txt ep.txt
	# Editable, where pip list -e says.
	pip v/bin/python list -e --format=json | jq -S 'map({(.name
	    | ascii_downcase | gsub("[-_.]+"; "-")): .editable_project_location})
	    | add' >pip-e.json
	jq -S .meta.python.editable m.json >ep-e.json
	diff pip-e.json ep-e.json
	# The broken requirement of the legacy one fails as pip check says.
	pip_check v/bin/python >pipc.txt
	grep -q '^legacy-pkg 0.3 has requirement pip>=99' pipc.txt
	grep -q '^pep660-pkg 1.2 requires absent-dist' pipc.txt
	ep_findings m.json >epc.txt
	diff pipc.txt epc.txt
}

@test "PYTHONPATH: pip install --target's distributions are recorded before site-packages, as pip list shows them" {
	venv v
	cp -a "$PYI_TGT" tgt
	compgen -G "tgt/on_path-2.0.dist-info" >/dev/null
	PYTHONPATH=$T/tgt pip_list v/bin/python >pip.txt
	grep -qx 'on-path 2.0' pip.txt
	grep -qx 'six 0.1' pip.txt
	# A zip on PYTHONPATH is not read, and said; a relative entry is the
	# working directory's, as Python makes it.
	: >lib.zip
	PYTHONPATH=tgt:$T/lib.zip "$EP" capture -q --no-discover --python v/bin/python -o m.json
	ep_list m.json >ep.txt
	diff pip.txt ep.txt
	[ "$(jq -c .meta.python.pythonpath m.json)" = "[\"$T/tgt\"]" ]
	jq -r '.meta.warnings[]' m.json |
	    grep -qxF "PYTHONPATH entry $T/lib.zip: not a directory (its distributions are not read)"
	# The system's six is shadowed, as for Python.
	jq -r '.meta.warnings[]' m.json |
	    grep -qF "python package six is installed twice: $T/tgt/six-0.1.dist-info/METADATA (0.1) is used"
	PYTHONPATH=$T/tgt pip_check v/bin/python >pipc.txt
	ep_findings m.json >epc.txt
	diff pipc.txt epc.txt
	# Without PYTHONPATH, not there; --site-packages is what it names.
	"$EP" capture -q --no-discover --python v/bin/python -o m0.json
	[ -z "$(fact m0.json python.pkg.on-path)" ]
	[ "$(jq .meta.python.pythonpath m0.json)" = null ]
	PYTHONPATH=$T/tgt "$EP" capture -q --no-discover --site-packages "$SITE" -o m1.json
	[ -z "$(fact m1.json python.pkg.on-path)" ]
}
