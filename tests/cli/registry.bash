# Container registries on 127.0.0.1 for the image-digest tests and the
# bench: Debian's docker-registry (distribution 2.8) with a configuration
# of our own, plain, behind htpasswd Basic auth, or behind token auth with
# a small token issuer (token_issuer.py); images pushed with curl alone.
# Sourced by bats files (`load registry`) and by bench/run.sh; it needs
# nothing from bats.
#
# reg_start DIR [none | htpasswd USER:PASS | token USER:PASS]
#     a registry whose storage and configuration live under DIR; sets
#     REG_HOST (127.0.0.1:PORT), REG_PID, REG_LOG (its access log) and,
#     for token auth, TOKEN_PORT, TOKEN_LOG (one line per token asked:
#     "anonymous SCOPE", "user NAME SCOPE" or "refresh NAME SCOPE").
#     Appends every pid to REG_PIDS for reg_stop_all.  With REG_TLS=1 it
#     serves https with a certificate for 127.0.0.1 and localhost signed
#     by its own CA, DIR/ca.crt (and so does its token issuer).  The
#     realm names the issuer as REG_REALM_HOST (default 127.0.0.1; say
#     localhost for a token server on another host than the registry).
# reg_start_bad DIR
#     bad_registry.py: the answers docker-registry never gives; sets
#     BAD_HOST and BAD_LOG ("METHOD PATH" per request, and the headers
#     its blob storage on another port got: see bad_registry.py)
# reg_push_image HOST REPO TAG [ARCH [VARIANT [docker|oci]]]
#     push a config (linux/ARCH[/VARIANT], default amd64: what a single
#     manifest's platform is read from), a layer and a manifest; prints
#     the manifest digest
# reg_push_index HOST REPO TAG
#     push linux/amd64 and linux/arm64/v8 manifests and an OCI index of
#     them; prints "INDEX_DIGEST AMD64_DIGEST ARM64_DIGEST"
# reg_wait_log FILE PATTERN N
#     wait (bounded, 10 s) until N lines of FILE match PATTERN (grep -E):
#     docker-registry logs a request after answering it
# reg_stop_all
#     stop every server reg_start started
#
# Pushing to an auth registry: set REG_PUSH_USER=USER:PASS first (Basic
# for htpasswd; for token auth a push token is asked from the issuer).
# Pushing to a TLS registry: set REG_CA=DIR/ca.crt first.

REG_PIDS=${REG_PIDS:-}
REG_HARNESS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

. "$REG_HARNESS_DIR/net.bash"

# Wait, bounded (10 s), until URL answers anything while process PID
# lives.
reg_wait_http() { # url pid
	local i
	for i in $(seq 1 200); do
		kill -0 "$2" 2>/dev/null || return 1
		if curl -sk -o /dev/null --max-time 1 "$1"; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}

reg_start() { # dir [mode [user:pass]]
	local dir=$1 mode=${2:-none} cred=${3:-} try port auth=
	local scheme=http tls=
	mkdir -p "$dir"
	if [ "${REG_TLS:-}" = 1 ]; then
		reg_make_tls "$dir" || return 1
		scheme=https
		tls="  tls:
    certificate: $dir/tls.crt
    key: $dir/tls.key"
	fi
	case $mode in
	none) ;;
	htpasswd)
		htpasswd -B -b -c "$dir/htpasswd" "${cred%%:*}" \
		    "${cred#*:}" >/dev/null 2>&1 || return 1
		auth="auth:
  htpasswd:
    realm: envparity-test
    path: $dir/htpasswd"
		;;
	token)
		reg_start_issuer "$dir" "$cred" || return 1
		auth="auth:
  token:
    realm: $scheme://${REG_REALM_HOST:-127.0.0.1}:$TOKEN_PORT/token
    service: envparity-registry
    issuer: envparity-test-issuer
    rootcertbundle: $dir/issuer.crt"
		;;
	*) echo "reg_start: unknown mode $mode" >&2; return 1 ;;
	esac
	REG_LOG=$dir/registry.log
	# A free port can be taken between asking and binding: try again.
	for try in 1 2 3 4 5; do
		port=$(free_port)
		cat >"$dir/config.yml" <<-EOF
		version: 0.1
		log:
		  level: error
		storage:
		  filesystem:
		    rootdirectory: $dir/data
		  delete:
		    enabled: true
		http:
		  addr: 127.0.0.1:$port
		  secret: envparity-test-secret
		$tls
		$auth
		EOF
		# fd 3 closed: bats waits for whoever holds it.
		docker-registry serve "$dir/config.yml" >"$REG_LOG" 2>&1 3>&- &
		REG_PID=$!
		if reg_wait_http "$scheme://127.0.0.1:$port/v2/" "$REG_PID"; then
			REG_HOST=127.0.0.1:$port
			REG_PIDS="$REG_PIDS $REG_PID"
			export REG_PIDS
			return 0
		fi
		kill "$REG_PID" 2>/dev/null
		wait "$REG_PID" 2>/dev/null
	done
	echo "docker-registry did not start: $(cat "$REG_LOG")" >&2
	return 1
}

# A CA and a server certificate for 127.0.0.1 and localhost it signs.
reg_make_tls() { # dir
	local d=$1
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
	    -subj /CN=envparity-test-ca -keyout "$d/ca.key" -out "$d/ca.crt" \
	    >/dev/null 2>&1 &&
	openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 \
	    -keyout "$d/tls.key" -out "$d/tls.csr" >/dev/null 2>&1 &&
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$d/tls.ext" &&
	openssl x509 -req -in "$d/tls.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" \
	    -CAcreateserial -days 2 -extfile "$d/tls.ext" -out "$d/tls.crt" \
	    >/dev/null 2>&1
}

# The token issuer: a self-signed certificate the registry trusts
# (rootcertbundle) and whose key signs the tokens.
reg_start_issuer() { # dir user:pass
	local dir=$1 i portfile=$1/issuer.port
	local -a tls=()
	[ "${REG_TLS:-}" != 1 ] || tls=("$dir/tls.crt" "$dir/tls.key")
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
	    -subj /CN=envparity-test-issuer -keyout "$dir/issuer.key" \
	    -out "$dir/issuer.crt" >/dev/null 2>&1 || return 1
	TOKEN_LOG=$dir/issuer.log
	: >"$TOKEN_LOG"
	rm -f "$portfile"
	python3 "$REG_HARNESS_DIR/token_issuer.py" "$dir/issuer.key" \
	    "$dir/issuer.crt" "$portfile" "$TOKEN_LOG" "$2" "${tls[@]}" \
	    >"$dir/issuer.out" 2>&1 3>&- &
	TOKEN_PID=$!
	REG_PIDS="$REG_PIDS $TOKEN_PID"
	export REG_PIDS
	for i in $(seq 1 200); do
		if [ -s "$portfile" ]; then
			TOKEN_PORT=$(cat "$portfile")
			return 0
		fi
		kill -0 "$TOKEN_PID" 2>/dev/null || break
		sleep 0.05
	done
	echo "token issuer did not start: $(cat "$dir/issuer.out")" >&2
	return 1
}

reg_start_bad() { # dir
	local dir=$1 i portfile=$1/bad.port pid
	mkdir -p "$dir"
	BAD_LOG=$dir/bad.log
	: >"$BAD_LOG"
	rm -f "$portfile"
	python3 "$REG_HARNESS_DIR/bad_registry.py" "$portfile" "$BAD_LOG" \
	    >"$dir/bad.out" 2>&1 3>&- &
	pid=$!
	REG_PIDS="$REG_PIDS $pid"
	export REG_PIDS
	for i in $(seq 1 200); do
		if [ -s "$portfile" ]; then
			BAD_HOST=127.0.0.1:$(cat "$portfile")
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	echo "bad registry did not start: $(cat "$dir/bad.out")" >&2
	return 1
}

reg_wait_log() { # file pattern n
	local i
	for i in $(seq 1 200); do
		[ "$(grep -cE -- "$2" "$1")" -ge "$3" ] && return 0
		sleep 0.05
	done
	echo "reg_wait_log: fewer than $3 lines match $2 in $1" >&2
	return 1
}

reg_stop_all() {
	local p
	for p in $REG_PIDS; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	REG_PIDS=
}

# curl against a registry, with the push credentials when set: Basic for
# htpasswd, else a bearer token for REPO from the issuer the registry's
# challenge names.
reg_curl() { # host repo curl-args...
	local host=$1 repo=$2 chal realm service tok
	local -a ca=()
	shift 2
	[ -z "${REG_CA:-}" ] || ca=(--cacert "$REG_CA")
	if [ -z "${REG_PUSH_USER:-}" ]; then
		curl -sS "${ca[@]}" "$@"
		return
	fi
	chal=$(curl -sS "${ca[@]}" -o /dev/null -D - "$(reg_url "$host")/v2/" |
	    tr -d '\r' | sed -n 's/^[Ww][Ww][Ww]-[Aa]uthenticate: //p')
	case $chal in
	Bearer*)
		realm=$(sed -n 's/.*realm="\([^"]*\)".*/\1/p' <<<"$chal")
		service=$(sed -n 's/.*service="\([^"]*\)".*/\1/p' <<<"$chal")
		tok=$(curl -sS "${ca[@]}" -u "$REG_PUSH_USER" "$realm?service=$service&scope=repository:$repo:pull,push" |
		    jq -r .token)
		curl -sS "${ca[@]}" -H "Authorization: Bearer $tok" "$@"
		;;
	*)
		curl -sS "${ca[@]}" -u "$REG_PUSH_USER" "$@"
		;;
	esac
}

# http://HOST, or https://HOST when REG_CA is set.
reg_url() { # host
	if [ -n "${REG_CA:-}" ]; then
		echo "https://$1"
	else
		echo "http://$1"
	fi
}

# Upload FILE as a blob of REPO unless the registry has it; prints its
# digest.
reg_push_blob() { # host repo file
	local host=$1 repo=$2 f=$3 dg loc code
	dg=sha256:$(sha256sum "$f" | cut -d' ' -f1)
	code=$(reg_curl "$host" "$repo" -o /dev/null -w '%{http_code}' -I \
	    "$(reg_url "$host")/v2/$repo/blobs/$dg")
	if [ "$code" != 200 ]; then
		loc=$(reg_curl "$host" "$repo" -o /dev/null -D - -X POST \
		    "$(reg_url "$host")/v2/$repo/blobs/uploads/" | tr -d '\r' |
		    sed -n 's/^[Ll]ocation: //p')
		[ -n "$loc" ] || { echo "reg_push_blob: no upload location" >&2; return 1; }
		case $loc in /*) loc=$(reg_url "$host")$loc ;; esac
		case $loc in *\?*) loc="$loc&digest=$dg" ;; *) loc="$loc?digest=$dg" ;; esac
		code=$(reg_curl "$host" "$repo" -o /dev/null -w '%{http_code}' \
		    -X PUT -H 'Content-Type: application/octet-stream' \
		    --data-binary "@$f" "$loc")
		[ "$code" = 201 ] || { echo "reg_push_blob: PUT answered $code" >&2; return 1; }
	fi
	echo "$dg"
}

# PUT FILE as a manifest of REPO under REF (a tag or its digest); prints
# the digest the registry reports.
reg_push_manifest() { # host repo ref media-type file
	local host=$1 repo=$2 dg
	dg=$(reg_curl "$host" "$repo" -o /dev/null -D - -X PUT \
	    -H "Content-Type: $4" --data-binary "@$5" \
	    "$(reg_url "$host")/v2/$repo/manifests/$3" | tr -d '\r' |
	    sed -n 's/^[Dd]ocker-[Cc]ontent-[Dd]igest: //p')
	[ -n "$dg" ] || { echo "reg_push_manifest: no digest for $repo:$3" >&2; return 1; }
	echo "$dg"
}

reg_push_image() { # host repo tag [arch [variant [docker|oci]]]
	local host=$1 repo=$2 tag=$3 arch=${4:-amd64} var=${5:-} kind=${6:-docker}
	local w cfg layer csize lsize mt cmt lmt vjson=
	w=$(mktemp -d "${TMPDIR:-/tmp}/envparity-push.XXXXXX")
	[ -z "$var" ] || vjson=",\"variant\":\"$var\""
	# Each tag its own config: its own digests.
	printf '{"architecture":"%s"%s,"os":"linux","config":{"Labels":{"t":"%s/%s:%s"}},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
	    "$arch" "$vjson" "$host" "$repo" "$tag" \
	    "$(printf 'envparity test layer\n' | sha256sum | cut -d' ' -f1)" \
	    >"$w/config"
	printf 'envparity test layer\n' | gzip -n >"$w/layer"
	cfg=$(reg_push_blob "$host" "$repo" "$w/config") &&
	layer=$(reg_push_blob "$host" "$repo" "$w/layer") || { rm -rf "$w"; return 1; }
	csize=$(stat -c %s "$w/config")
	lsize=$(stat -c %s "$w/layer")
	if [ "$kind" = oci ]; then
		mt=application/vnd.oci.image.manifest.v1+json
		cmt=application/vnd.oci.image.config.v1+json
		lmt=application/vnd.oci.image.layer.v1.tar+gzip
	else
		mt=application/vnd.docker.distribution.manifest.v2+json
		cmt=application/vnd.docker.container.image.v1+json
		lmt=application/vnd.docker.image.rootfs.diff.tar.gzip
	fi
	printf '{"schemaVersion":2,"mediaType":"%s","config":{"mediaType":"%s","size":%s,"digest":"%s"},"layers":[{"mediaType":"%s","size":%s,"digest":"%s"}]}' \
	    "$mt" "$cmt" "$csize" "$cfg" "$lmt" "$lsize" "$layer" >"$w/manifest"
	reg_push_manifest "$host" "$repo" "$tag" "$mt" "$w/manifest"
	local rc=$?
	rm -rf "$w"
	return $rc
}

reg_push_index() { # host repo tag
	local host=$1 repo=$2 tag=$3 amd arm w mt=application/vnd.oci.image.manifest.v1+json
	local asize asha bsize
	# The platform manifests under throwaway tags, then the index.
	amd=$(reg_push_image "$host" "$repo" "$tag-amd64" amd64 "" oci) &&
	arm=$(reg_push_image "$host" "$repo" "$tag-arm64" arm64 v8 oci) || return 1
	w=$(mktemp -d "${TMPDIR:-/tmp}/envparity-push.XXXXXX")
	reg_curl "$host" "$repo" -H "Accept: $mt" -o "$w/a" \
	    "$(reg_url "$host")/v2/$repo/manifests/$amd" &&
	reg_curl "$host" "$repo" -H "Accept: $mt" -o "$w/b" \
	    "$(reg_url "$host")/v2/$repo/manifests/$arm" || { rm -rf "$w"; return 1; }
	asize=$(stat -c %s "$w/a")
	bsize=$(stat -c %s "$w/b")
	printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{"mediaType":"%s","size":%s,"digest":"%s","platform":{"architecture":"amd64","os":"linux"}},{"mediaType":"%s","size":%s,"digest":"%s","platform":{"architecture":"arm64","os":"linux","variant":"v8"}}]}' \
	    "$mt" "$asize" "$amd" "$mt" "$bsize" "$arm" >"$w/index"
	asha=$(reg_push_manifest "$host" "$repo" "$tag" \
	    application/vnd.oci.image.index.v1+json "$w/index")
	local rc=$?
	rm -rf "$w"
	[ $rc -eq 0 ] || return 1
	echo "$asha $amd $arm"
}

# The independent witness: skopeo's view of REF (docker://REF, plain
# http).  Prints sha256:HEX of the document REF names (--raw), or of the
# config of the manifest skopeo picks (config); extra args go to skopeo
# (global options: --override-arch arm64 --override-variant v8); it
# finds credentials where envparity does.
skopeo_digest() { # raw|config ref [skopeo-args...]
	local what=$1 ref=$2 sum
	local -a a=(--raw)
	shift 2
	[ "$what" = config ] && a=(--config --raw)
	sum=$(skopeo "$@" inspect --tls-verify=false "${a[@]}" \
	    "docker://$ref" | sha256sum) || return 1
	echo "sha256:${sum%% *}"
}
