// Puts together the two packages next to what tsc compiled into them: the nodes' icons and codex files (*.node.json),
// where n8n looks for them (n8n-nodes-mailroom is this repository's own package.json, its files in dist/); the
// dashboard's page and its bundled browser code, and the README, in the mailroom-server package.
const { existsSync, readdirSync, rmSync } = require('node:fs');
const { join } = require('node:path');
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

/** What tsc compiled from where: each output folder and the source folder its .js, .d.ts and .js.map files come from. */
const COMPILED = [
	{ out: `${SERVER_PACKAGE}/dist`, source: 'server', keep: ['dashboard/public'] },
	{ out: 'dist/nodes', source: 'nodes', keep: [] },
	{ out: 'dist/credentials', source: 'credentials', keep: [] },
];

/**
 * tsc only adds and overwrites: a module moved or deleted in the sources would linger in dist/, and still import. This
 * deletes what no source compiles to any more, leaving the rest in place (so tests running meanwhile keep their files).
 */
async function pruneStale() {
	for (const { out, source, keep } of COMPILED) {
		if (!existsSync(out)) continue;
		for (const file of readdirSync(out, { recursive: true })) {
			const compiled = /^(.*)\.(js|d\.ts|js\.map)$/.exec(file);
			if (!compiled || keep.some((folder) => file.startsWith(folder))) continue;
			if (!existsSync(join(source, `${compiled[1]}.ts`))) rmSync(join(out, file));
		}
	}
}

exports['build:assets'] = parallel(pruneStale, copyNodeAssets, copyDashboardPage, bundleDashboardCode, copyReadme);
