/** `npm run test:e2e`: a real n8n (installed by install-n8n.sh) with our package, against a real Mailroom. Not part of `npm test`. */
const { projects, ...base } = require('../../jest.config');

// The suite's settings, without its projects (each would bring its own roots): one project of this folder, transformed as they are.
const [{ testEnvironment, transform }] = projects;

module.exports = {
	...base,
	testEnvironment,
	transform,
	rootDir: '../..',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	testPathIgnorePatterns: ['/node_modules/'],
	// n8n takes 10 to 30 s to start; a workflow waits for mail.
	testTimeout: 180_000,
};
