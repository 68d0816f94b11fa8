#!/usr/bin/env bash
# Installs n8n into a cache folder outside the repository, once, for `npm run test:e2e`. It runs on the Node that
# runs this script, the same Node as the test and the Mailroom it starts (Node 24: see scripts/use-node.sh).
set -euo pipefail

CACHE=${MAILROOM_E2E_CACHE:-$HOME/.cache/mailroom-e2e}
N8N_VERSION=2.11.2
N8N_PACKAGE="$CACHE/n8n/node_modules/n8n/package.json"

NODE_MAJOR=$(node -p 'process.versions.node.split(".")[0]')
if [ "$NODE_MAJOR" -lt 24 ]; then
	echo "The end-to-end test runs n8n on Node 24; this is $(node --version). Run it as: . scripts/use-node.sh && npm run test:e2e" >&2
	exit 2
fi

installed_n8n() { [ -f "$N8N_PACKAGE" ] && node -p "require('$N8N_PACKAGE').version" 2>/dev/null; }
[ "$(installed_n8n)" = "$N8N_VERSION" ] && exit 0

echo "Installing n8n $N8N_VERSION into $CACHE (first run only: a few minutes, about 2.6 GB)"
mkdir -p "$CACHE/n8n"
cd "$CACHE/n8n"
# n8n-nodes-base pins xlsx to a tarball on cdn.sheetjs.com, which not every network reaches: use the registry's 0.18.5.
cat > package.json <<JSON
{
  "private": true,
  "dependencies": { "n8n": "$N8N_VERSION" },
  "overrides": { "xlsx": "0.18.5" }
}
JSON
# Native modules (n8n's sqlite3) build against this Node's headers: scripts/use-node.sh sets npm_config_nodedir when it
# provides the Node; a Node installed on the system brings its own headers.
npm install --no-audit --no-fund
echo "n8n $(installed_n8n) installed"
