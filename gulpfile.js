// Puts together the two packages next to what tsc compiled into them: the nodes' icons and codex files (*.node.json),
// where n8n looks for them (n8n-nodes-mailroom is this repository's own package.json, its files in dist/); the
// dashboard's page and its bundled browser code, and the README, in the mailroom-server package.
const { rmSync } = require('node:fs');
const { parallel, src, dest } = require('gulp');
const esbuild = require('esbuild');

const SERVER_PACKAGE = 'packages/mailroom-server';

function copyNodeAssets() {
	return src(['nodes/**/*.{png,svg}', 'nodes/**/*.node.json', 'credentials/**/*.{png,svg}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

function copyDashboardPage() {
	return src('server/dashboard/public/**', { base: 'server', encoding: false }).pipe(dest(`${SERVER_PACKAGE}/dist`));
}

// The browser code in one file: its imports of the API's types (server/schemas) are types only, and vanish.
function bundleDashboardCode() {
	return esbuild.build({
		entryPoints: ['server/dashboard/client/main.ts'],
		bundle: true,
		format: 'esm',
		target: 'es2022',
		outfile: `${SERVER_PACKAGE}/dist/dashboard/public/js/main.js`,
		logLevel: 'warning',
	});
}

function copyReadme() {
	return src('README.md').pipe(dest(SERVER_PACKAGE));
}

// tsc only adds and overwrites: a module moved or deleted in the sources would linger in dist/, and still import.
async function clean() {
	for (const dir of ['dist', `${SERVER_PACKAGE}/dist`]) rmSync(dir, { recursive: true, force: true });
}

exports.clean = clean;
exports['build:assets'] = parallel(copyNodeAssets, copyDashboardPage, bundleDashboardCode, copyReadme);
