/**
 * Tests are TypeScript (transpiled by SWC) and exercise the compiled package in dist/ (`npm test` builds first).
 * Some dependencies are ES modules only (sanitize-html's htmlparser2, content-disposition 3): Node loads them with
 * require(), and Jest does too when Node runs it with --experimental-vm-modules (the test scripts do).
 *
 * Two projects: every test as it is (the store suites run each case on SQLite and on PostgreSQL themselves), and the
 * server's feature tests again with their servers on PostgreSQL. One throwaway PostgreSQL serves the whole run
 * (test/postgres-global-setup.ts); each server or store gets a database of its own on it.
 */
const { existsSync, readFileSync, readdirSync } = require('node:fs');
const { dirname, join, resolve } = require('node:path');

/** The test helper whose servers store on the engine MAILROOM_TEST_ENGINE names (see TEST_ENGINE there). */
const ENGINE_HELPER = resolve(__dirname, 'test/helpers/mailroom.ts');

/** Whether a test file starts servers on the engine under test: it imports ENGINE_HELPER, itself or through other helpers. */
function onTheEngine(file, seen = new Set()) {
	if (file === ENGINE_HELPER) return true;
	if (seen.has(file)) return false;
	seen.add(file);
	const imports = [...readFileSync(file, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)].map((match) =>
		resolve(dirname(file), `${match[1]}.ts`),
	);
	return imports.some((imported) => onTheEngine(imported, seen));
}

/**
 * Server feature tests whose subject sits above the store and is the same on either engine (rendering, validation, the
 * OpenAPI document, SMTP timers and AUTH, signing, the SSRF policy, message composition, metrics listeners, a websocket
 * client's backpressure): run once, on SQLite. What they read and write through the store is covered on both engines by
 * the store suites (test/server/store/), and by the files that stay in the postgres project.
 */
const ABOVE_THE_STORE = [
	'http/render/html-sanitizer',
	// Streaming large bodies over HTTP; the pieces they stream from are read back on both engines in store/content-pieces.
	'http/render/stored-body',
	'http/openapi',
	'http/validation-messages',
	'http/params',
	'http/request-bodies',
	'http/close-when-answered',
	'smtp/time-limits',
	'smtp/smtp-auth',
	'websocket/subscriber-outbox',
	'webhooks/target-policy',
	'webhooks/signature',
	'webhooks/slack-payload',
	'metrics/http-metrics',
	'metrics/metrics-listener',
	'outbound/address-fields',
	'outbound/extra-headers',
].map((name) => resolve(__dirname, 'test/server', `${name}.test.ts`));
for (const file of ABOVE_THE_STORE) if (!existsSync(file)) throw new Error(`jest.config.js: ABOVE_THE_STORE names ${file}, which is gone`);

const testFilesUnder = (dir) =>
	readdirSync(dir, { recursive: true })
		.filter((name) => name.endsWith('.test.ts'))
		.map((name) => join(dir, name));

// The servers the tests start (their threads, and `mailroom serve` processes) keep the compiled code of the modules they
// load, as `mailroom serve` does for itself: most of a thread's start is loading them.
process.env.NODE_COMPILE_CACHE ??= join(require('node:os').tmpdir(), 'mailroom-test-compile-cache');

const typescript = {
	// Node's environment, with Node's own require for the compiled server (packages/mailroom-server/dist): each of its
	// modules is a stub that hands out the module Node loaded (test/native-server-transform.js). A worker then loads the
	// server and its dependencies once, for all the files it runs, rather than once per file into that file's context
	// (1.2 to 2 s of CPU a file); and the server's code runs compiled and warmed up by the files before. Tests hold no
	// mocks of server modules (a module is shared by the files of a worker), and the server keeps no state in its modules.
	// What the server makes is of Node's realm, not the file's: `instanceof Error` in a test is false for the server's
	// errors (a test checks their message, or util.types.isNativeError).
	testEnvironment: '<rootDir>/test/native-environment.js',
	roots: ['<rootDir>/test'],
	// Transpiled only, by SWC: `npm run lint` type-checks the tests with the rest of the tree (tsconfig.json), and checking
	// each file again in every worker took about half the suite's time.
	transform: {
		'/packages/mailroom-server/dist/.+\\.js$': '<rootDir>/test/native-server-transform.js',
		'^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
	},
};

module.exports = {
	testTimeout: 30000,
	// The default report, then the run's time and its slowest files.
	reporters: ['default', '<rootDir>/test/timing-reporter.js'],
	// Three workers on a machine of two cores (Jest's default there is one): most files spend much of their time waiting
	// (on sockets, timers, child processes), so a third keeps both cores busy. Each is recycled once it holds this much:
	// test files leak a little each (modules evaluated in vm contexts), and ~200 of them in one heap run out.
	maxWorkers: 3,
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
			// What stores, reads and acts on mail through a running server, again on PostgreSQL: the server's feature tests that
			// start servers through the engine-aware helper, but for those above the store. The store suites run on both engines
			// already, and files that start no server (pure functions, the parser) would only repeat themselves.
			testMatch: [
				...[
					'http',
					'ingest',
					'metrics',
					'outbound',
					'retention',
					'sender-auth',
					'smtp',
					'waiting',
					'webhooks',
					'websocket',
					'payload',
				].flatMap((folder) => testFilesUnder(resolve(__dirname, 'test/server', folder))),
				resolve(__dirname, 'test/server/app.test.ts'),
			].filter((file) => onTheEngine(file) && !ABOVE_THE_STORE.includes(file)),
			setupFiles: ['<rootDir>/test/on-postgres.ts'],
		},
	],
};
