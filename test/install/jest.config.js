/** `npm run test:install`: the packages installed from their `npm pack` tarballs, as users install them. Not part of `npm test`. */
const { projects, ...base } = require('../../jest.config');

// The suite's settings, without its projects (each would bring its own roots): one project of this folder, transformed as they are.
const [{ testEnvironment, transform }] = projects;

module.exports = {
	...base,
	testEnvironment,
	transform,
	rootDir: '../..',
	roots: ['<rootDir>/test/install'],
	testMatch: ['**/*.install.ts'],
	testPathIgnorePatterns: ['/node_modules/'],
	// npm install fetches the dependencies (from npm's cache when they are in it): 40 s warm, minutes cold.
	testTimeout: 600_000,
};
