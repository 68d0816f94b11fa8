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
		process.stderr.write(
			`\nThe suite took ${Math.floor(total / 60)} min ${total % 60} s (${results.numTotalTestSuites} files, ${results.numTotalTests} tests). Slowest files:\n${slowest.join('\n')}\n`,
		);
	}
}

module.exports = TimingReporter;
