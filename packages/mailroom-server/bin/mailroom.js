#!/usr/bin/env node
// The `mailroom` command. A committed file rather than dist/cli.js itself: npm links a workspace's bin when it installs
// (npm ci), before dist/ is built; a link to a missing file makes `npx mailroom` look for a package of that name on the
// registry instead. This file always exists, so npx runs it, and it says what to do when the build is missing.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const cli = join(__dirname, '..', 'dist', 'cli.js');
if (!existsSync(cli)) {
	process.stderr.write(`mailroom: ${cli} is not built yet: run \`npm run build\` (or \`npm start\`) at the repository root first\n`);
	process.exit(1);
}
require(cli);
