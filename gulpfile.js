// Copies node and credential icons, and the nodes' codex files (*.node.json), next to the compiled
// files, where n8n looks for them.
const { src, dest } = require('gulp');

function buildIcons() {
	return src(['nodes/**/*.{png,svg}', 'nodes/**/*.node.json', 'credentials/**/*.{png,svg}'], {
		base: '.',
		allowEmpty: true,
		encoding: false,
	}).pipe(dest('dist'));
}

// The dashboard's page and stylesheet, served next to its compiled browser code (server/dashboard/client).
function buildDashboard() {
	return src('server/dashboard/public/**', { base: '.', encoding: false }).pipe(dest('dist'));
}

exports['build:icons'] = buildIcons;
exports['build:dashboard'] = buildDashboard;
