/**
 * Tests are TypeScript (ts-jest) and exercise the compiled package in dist/ (`npm test` builds first).
 * Some dependencies are ES modules only (sanitize-html's htmlparser2, content-disposition 3): Node loads them with
 * require(), and Jest does too when Node runs it with --experimental-vm-modules (the test scripts do).
 */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// The crash-safety test is slow: `npm run test:crash` runs it on its own.
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/crash/'],
	testTimeout: 30000,
	transform: {
		// TS151002: ts-jest warns of tsconfig's `module: node20` (which lets TypeScript see ES-module-only packages); in this
		// CommonJS package every file still compiles to CommonJS, type-checked.
		'^.+\\.ts$': ['ts-jest', { diagnostics: { warnOnly: false, ignoreCodes: [151002] }, tsconfig: { rootDir: '.', noUnusedLocals: true } }],
	},
};
