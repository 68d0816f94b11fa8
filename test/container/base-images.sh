#!/usr/bin/env bash
# Makes stand-ins for the two base images the Dockerfile names, on a machine that reaches no container registry but does
# reach Debian's mirror and the npm registry: node:24-bookworm (the build stage: Node with python3, make and g++) and
# node:24-bookworm-slim (the run stage). Each is Debian bookworm from mmdebstrap, with this machine's Node 24 and npm in
# /usr/local and the user `node` (uid 1000), as in the official images, so the same Dockerfile builds here and with Docker.
# An image already present under either name (a real one, or a stand-in of an earlier run) is kept.
#
# Only for this network, and kept out of the Dockerfile: it re-signs TLS with the host's own certificate authorities, so the
# stand-ins carry the host's CA bundle and point NODE_EXTRA_CA_CERTS at it (npm ci in the build needs them).
set -euo pipefail

SLIM=docker.io/library/node:24-bookworm-slim
FULL=docker.io/library/node:24-bookworm
MIRROR=${MAILROOM_DEBIAN_MIRROR:-http://deb.debian.org/debian}

if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 24 ]; then
	echo "The stand-ins take this machine's Node, which must be 24; this is $(node --version): . scripts/use-node.sh first" >&2
	exit 2
fi
NODE_PREFIX=$(node -p 'require("node:path").dirname(require("node:path").dirname(process.execPath))')
# npm as this machine runs it (bin/npm-cli.js in its package folder).
NPM_DIR=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
HOST_CA=/etc/ssl/certs/ca-certificates.crt

# Runs inside mmdebstrap once the packages are in ("$1" is the new root): Node and npm as the official images have them.
# shellcheck disable=SC2016 # expanded by mmdebstrap's hook shell
ADD_NODE='set -e
mkdir -p "$1/usr/local/bin" "$1/usr/local/include" "$1/usr/local/lib/node_modules" "$1/usr/local/share/ca-certificates"
cp "'"$NODE_PREFIX"'/bin/node" "$1/usr/local/bin/node"
cp -a "'"$NODE_PREFIX"'/include/node" "$1/usr/local/include/node"
cp -a "'"$NPM_DIR"'" "$1/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"
cp "'"$HOST_CA"'" "$1/usr/local/share/ca-certificates/host-ca-bundle.crt"
chroot "$1" groupadd --gid 1000 node
chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node'

# What the official slim image leaves out: manuals, documentation and translations.
SLIM_OPTIONS=(--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*'
	--dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*')

standIn() {
	local tag=$1 packages=$2
	if podman image exists "$tag"; then
		echo "base image $tag: present"
		return
	fi
	echo "base image $tag: making a stand-in (Debian bookworm from $MIRROR, Node $(node --version))"
	local rootfs
	rootfs=$(mktemp --suffix=.tar)
	# Debian's own python3 for mmdebstrap's helpers (a pyenv shim first on PATH makes each of its many calls slow).
	PATH=/usr/sbin:/usr/bin:/sbin:/bin mmdebstrap --quiet --variant=minbase --include="$packages" "${SLIM_OPTIONS[@]}" --customize-hook="$ADD_NODE" \
		bookworm "$rootfs" "$MIRROR"
	podman import --quiet \
		--change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/host-ca-bundle.crt' \
		--change 'ENV npm_config_nodedir=/usr/local' \
		--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		--change 'LABEL org.mailroom.stand-in=true' \
		--change 'CMD ["node"]' \
		"$rootfs" "$tag" >/dev/null
	rm -f "$rootfs"
}

standIn "$SLIM" passwd
# npm_config_nodedir above: better-sqlite3 compiles against these headers, as nodejs.org and GitHub (its prebuilt
# binaries) are not reachable here; the official image fetches either.
standIn "$FULL" passwd,ca-certificates,python3,make,g++
