/** Tests are TypeScript (ts-jest) and exercise the compiled package in dist/ (`npm test` builds first). */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// The crash-safety test is slow: `npm run test:crash` runs it on its own.
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/crash/'],
	testTimeout: 30000,
	transform: {
		'^.+\\.ts$': ['ts-jest', { diagnostics: { warnOnly: false }, tsconfig: { rootDir: '.', noUnusedLocals: true } }],
		// ESM-only dependencies (content-disposition 3, under @fastify/static): Node 20 loads them with require(), Jest cannot.
		'^.+/node_modules/content-disposition/.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs' } }],
	},
	// Also when nested (node_modules/@fastify/static/node_modules/content-disposition).
	transformIgnorePatterns: ['/node_modules/(?!(.*/)?content-disposition/)'],
};
