/** `npm run test:e2e`: a real n8n (installed by install-n8n.sh) with our package, against a real Mailroom. Not part of `npm test`. */
const base = require('../../jest.config');

module.exports = {
	...base,
	rootDir: '../..',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	testPathIgnorePatterns: ['/node_modules/'],
	// n8n takes 10 to 30 s to start; a workflow waits for mail.
	testTimeout: 180_000,
};
