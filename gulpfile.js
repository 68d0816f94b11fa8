// Copies node and credential icons, and the nodes' codex files (*.node.json), next to the compiled
// files, where n8n looks for them; builds the dashboard.
const { parallel, src, dest } = require('gulp');
const esbuild = require('esbuild');

function buildIcons() {
	return src(['nodes/**/*.{png,svg}', 'nodes/**/*.node.json', 'credentials/**/*.{png,svg}'], {
		base: '.',
		allowEmpty: true,
		encoding: false,
	}).pipe(dest('dist'));
}

// The dashboard's page and stylesheet, served next to its browser code.
function copyDashboardPage() {
	return src('server/dashboard/public/**', { base: '.', encoding: false }).pipe(dest('dist'));
}

// The browser code in one file: its imports of the API's types (server/schemas) are types only, and vanish.
function bundleDashboardCode() {
	return esbuild.build({
		entryPoints: ['server/dashboard/client/main.ts'],
		bundle: true,
		format: 'esm',
		target: 'es2022',
		outfile: 'dist/server/dashboard/public/js/main.js',
		logLevel: 'warning',
	});
}

exports['build:icons'] = buildIcons;
exports['build:dashboard'] = parallel(copyDashboardPage, bundleDashboardCode);
