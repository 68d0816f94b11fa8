/** Tests are TypeScript (ts-jest) and exercise the compiled package in dist/ (`npm test` builds first). */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testTimeout: 30000,
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: { warnOnly: false }, tsconfig: { rootDir: '.', noUnusedLocals: true } }] },
};
