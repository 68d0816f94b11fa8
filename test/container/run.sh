#!/usr/bin/env bash
# `npm run test:container`: builds the image from the repository's Dockerfile and proves it works (container.e2e.ts), as root
# on a Debian machine with no container registry in reach, as CI is:
#   1. podman, runc, mmdebstrap and podman-compose from Debian, set up to run here (runc: the default crun cannot set
#      rlimits in this cgroup mode);
#   2. stand-ins for the Dockerfile's base images (base-images.sh), unless they are present;
#   3. the image, built in Docker's format (OCI's has no HEALTHCHECK), timed;
#   4. the test, on the built image.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/use-node.sh

IMAGE=${MAILROOM_TEST_IMAGE:-localhost/mailroom:test}

if ! command -v podman >/dev/null || ! command -v runc >/dev/null || ! command -v mmdebstrap >/dev/null ||
	! command -v podman-compose >/dev/null; then
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y podman runc mmdebstrap podman-compose
fi
# Written unless it already says so (a containers.conf without these settings fails here at the first `podman run`).
if ! grep -qs '^runtime = "runc"' /etc/containers/containers.conf; then
	mkdir -p /etc/containers
	printf '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\n' >/etc/containers/containers.conf
fi

started=$(date +%s)
bash test/container/base-images.sh
based=$(date +%s)
# --network host: the build's npm ci reaches the registry as this machine does.
podman build --quiet --format docker --network host --tag "$IMAGE" . >/dev/null
built=$(date +%s)
size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
base=$(podman image inspect --format '{{.Size}}' docker.io/library/node:24-bookworm-slim)
echo "base images: $((based - started)) s; image built in $((built - based)) s: $IMAGE, $((size / 1000000)) MB ($(((size - base) / 1000000)) MB over its base)"

MAILROOM_TEST_IMAGE=$IMAGE node --experimental-vm-modules --disable-warning=ExperimentalWarning node_modules/jest/bin/jest.js \
	-c test/container/jest.config.js "$@"
