// Prints, at the end of a run, how long it took and its slowest test files, so a change that slows the suite is seen
// by whoever makes it (docs/development.md keeps the figures). A Jest reporter: plain CommonJS, loaded untransformed.
class TimingReporter {
	onRunStart() {
		this.started = Date.now();
	}

	onRunComplete(_contexts, results) {
		const files = results.testResults
			.map((file) => ({
				name: `${file.displayName ? `${file.displayName.name ?? file.displayName} ` : ''}${file.testFilePath.replace(`${process.cwd()}/`, '')}`,
				seconds: (file.perfStats.end - file.perfStats.start) / 1000,
			}))
			.sort((a, b) => b.seconds - a.seconds);
		const total = Math.round((Date.now() - this.started) / 1000);
		const slowest = files.slice(0, 3).map((file) => `  ${file.seconds.toFixed(1).padStart(6)} s  ${file.name}`);
		// Each project's files and the time they took, added up (the workers run them side by side).
		const projects = new Map();
		for (const file of files) {
			const project = file.name.includes(' ') ? file.name.split(' ')[0] : '(none)';
			const sum = projects.get(project) ?? { files: 0, seconds: 0 };
			projects.set(project, { files: sum.files + 1, seconds: sum.seconds + file.seconds });
		}
		const split = [...projects].map(([name, sum]) => `${name} ${sum.files} files, ${Math.round(sum.seconds)} s`).join('; ');
		// MAILROOM_TEST_TIMES=<file> keeps every file's time (tab-separated), for the tables in docs/development.md.
		if (process.env.MAILROOM_TEST_TIMES)
			require('node:fs').writeFileSync(
				process.env.MAILROOM_TEST_TIMES,
				files.map((file) => `${file.seconds.toFixed(1)}\t${file.name}\n`).join(''),
			);
		process.stderr.write(
			`\nThe suite took ${Math.floor(total / 60)} min ${total % 60} s (${results.numTotalTestSuites} files, ${results.numTotalTests} tests; file time by project: ${split}). Slowest files:\n${slowest.join('\n')}\n`,
		);
	}
}

module.exports = TimingReporter;
