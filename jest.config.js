/**
 * Tests are TypeScript (ts-jest) and exercise the compiled package in dist/ (`npm test` builds first).
 * Some dependencies are ES modules only (sanitize-html's htmlparser2, content-disposition 3): Node loads them with
 * require(), and Jest does too when Node runs it with --experimental-vm-modules (the test scripts do).
 *
 * Two projects: every test as it is (the store suites run each case on SQLite and on PostgreSQL themselves), and the
 * server's feature tests again with their servers on PostgreSQL. One throwaway PostgreSQL serves the whole run
 * (test/postgres-global-setup.ts); each server or store gets a database of its own on it.
 */
const typescript = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	transform: {
		// TS151002: ts-jest warns of tsconfig's `module: node20` (which lets TypeScript see ES-module-only packages); in this
		// CommonJS package every file still compiles to CommonJS, type-checked.
		'^.+\\.ts$': ['ts-jest', { diagnostics: { warnOnly: false, ignoreCodes: [151002] }, tsconfig: { rootDir: '.', noUnusedLocals: true } }],
	},
};

module.exports = {
	testTimeout: 30000,
	// Workers, even on a machine of two cores (Jest would run every file in its own process there), recycled once they hold
	// this much: test files leak a little each (modules evaluated in vm contexts), and ~200 of them in one heap run out.
	workerIdleMemoryLimit: '1GB',
	globalSetup: '<rootDir>/test/postgres-global-setup.ts',
	globalTeardown: '<rootDir>/test/postgres-global-teardown.ts',
	projects: [
		{
			...typescript,
			displayName: 'sqlite',
			testMatch: ['**/*.test.ts'],
			// The crash-safety test is slow: `npm run test:crash` runs it on its own.
			testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/crash/'],
		},
		{
			...typescript,
			displayName: 'postgres',
			// What stores, reads and acts on mail through a running server; the store suites run on both engines already.
			testMatch: [
				'<rootDir>/test/server/{http,ingest,metrics,outbound,retention,smtp,waiting,webhooks,websocket,payload}/**/*.test.ts',
				'<rootDir>/test/server/app.test.ts',
			],
			setupFiles: ['<rootDir>/test/on-postgres.ts'],
		},
	],
};
