/**
 * The Jest config of a suite run apart from `npm test` (test:e2e, test:install, test:container): the suite's settings without
 * its projects (each would bring its own roots), one project of `folder` transformed as they are.
 */
const path = require('node:path');
const { projects, ...base } = require('../jest.config');

const [{ testEnvironment, transform }] = projects;

module.exports = function separateSuite(folder, testMatch, testTimeout) {
	return {
		...base,
		testEnvironment,
		transform,
		rootDir: path.resolve(__dirname, '..'),
		roots: [`<rootDir>/${folder}`],
		testMatch: [testMatch],
		testPathIgnorePatterns: ['/node_modules/'],
		testTimeout,
	};
};
