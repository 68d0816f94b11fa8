/** `npm run test:container` (test/container/run.sh): the image built from the Dockerfile, run by podman. Not part of `npm test`. */
const { projects, ...base } = require('../../jest.config');

// The suite's settings, without its projects (each would bring its own roots): one project of this folder, transformed as they are.
const [{ testEnvironment, transform }] = projects;

module.exports = {
	...base,
	testEnvironment,
	transform,
	rootDir: '../..',
	roots: ['<rootDir>/test/container'],
	testMatch: ['**/*.e2e.ts'],
	testPathIgnorePatterns: ['/node_modules/'],
	// A container starts in seconds; a stop with a transaction in progress waits 8 s.
	testTimeout: 120_000,
};
