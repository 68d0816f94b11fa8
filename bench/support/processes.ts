import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onFreePorts, untilListening } from './ports';

/** Benchmarks drive real server processes, so their memory can be read from /proc apart from the load generator's. */

export interface ServerProcess {
	child: ChildProcess;
	smtpPort: number;
	httpPort: number;
	httpUrl: string;
	dataDir: string;
	/** The flags that say where its store is (--data-dir, and --database-url on PostgreSQL), for admin commands. */
	storeArgs: string[];
	/** The admin's first API key, printed by a server starting on a new store; empty otherwise. */
	key: string;
	stop(): Promise<void>;
}

export interface MailroomProcessOptions {
	/** Keep the data folder here (not removed by `stop`); default a temporary one. */
	dataDir?: string;
	/** The PostgreSQL database to keep the store in (--database-url); default SQLite in the data folder. */
	databaseUrl?: string;
	/** Whether the store is new, so that the server prints the admin's first key (default: a temporary SQLite store). */
	newStore?: boolean;
	/** More settings, before BENCH_SERVER_ARGS. */
	args?: string[];
}

// The shipped server: the mailroom-server package as `npm run build` puts it together, or (BENCH_SERVER_CLI) the cli.js of
// another build, e.g. a copy that a rebuild of the tree cannot change in the middle of a long measurement.
const CLI = process.env.BENCH_SERVER_CLI ?? require.resolve('mailroom-server/dist/cli.js');

/** BENCH_SERVER_ARGS (e.g. "--durability normal") passes settings to the benchmarked server. */
function serverArgsFromEnv(): string[] {
	return (process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean);
}

/** Starts `mailroom serve` on free ports, its store as `options` say; resolves once it listens on both. */
export async function startMailroomProcess(options: MailroomProcessOptions = {}): Promise<ServerProcess> {
	const { dataDir, databaseUrl } = options;
	const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'mailroom-bench-'));
	const storeArgs = ['--data-dir', dir, ...(databaseUrl ? ['--database-url', databaseUrl] : [])];
	return onFreePorts(2, async ([smtpPort, httpPort]) => {
		const child = spawn(
			process.execPath,
			// Benchmarks read far faster than the default per-client rate limits allow.
			[
				CLI,
				'serve',
				...storeArgs,
				'--smtp-port',
				String(smtpPort),
				'--http-port',
				String(httpPort),
				'--log-level',
				'warn',
				'--rate-limit-ip',
				'100000000',
				'--rate-limit-key',
				'100000000',
				...(options.args ?? []),
				...serverArgsFromEnv(),
			],
			{ stdio: ['ignore', 'pipe', 'inherit'] },
		);
		let output = '';
		child.stdout.on('data', (chunk) => (output += chunk));
		await untilListening(child, [smtpPort, httpPort]).catch(async (err: unknown) => {
			await stopProcess(child);
			throw err;
		});
		const printedKey = () => /^\s+(mr_\S+)$/m.exec(output)?.[1];
		// A new store's first key is printed as the server starts: its line may reach the pipe after the ports open.
		const newStore = options.newStore ?? (!dataDir && !databaseUrl);
		for (let waited = 0; newStore && !printedKey() && waited < 5000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
		return {
			child,
			smtpPort,
			httpPort,
			httpUrl: `http://127.0.0.1:${httpPort}`,
			dataDir: dir,
			storeArgs,
			key: printedKey() ?? '',
			stop: async () => {
				await stopProcess(child);
				if (!dataDir) rmSync(dir, { recursive: true, force: true });
			},
		};
	});
}

export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
	return new Promise((resolve) => {
		child.once('exit', () => resolve());
		child.kill(signal);
	});
}

/** A new API key of the admin account of a server's store (the one printed on first start is shown only once). */
export function createAdminKey(server: ServerProcess): string {
	const output = execFileSync(process.execPath, [CLI, 'keys', 'create', 'admin', '--label', 'benchmark', ...server.storeArgs], {
		encoding: 'utf8',
	});
	const key = /^\s+(mr_\S+)$/m.exec(output)?.[1];
	if (!key) throw new Error(`no key in: ${output}`);
	return key;
}

/** Adds outgoing-message credits to the admin account of a server's store. */
export function addAdminCredits(server: ServerProcess, credits: number): void {
	execFileSync(process.execPath, [CLI, 'credits', 'add', 'admin', String(credits), ...server.storeArgs], { encoding: 'utf8' });
}

/** Starts a compiled bench script (e.g. the no-op SMTP server) as its own process on a free port. */
export function startScriptProcess(
	script: string,
	args: string[] = [],
): Promise<{ child: ChildProcess; port: number; stop(): Promise<void> }> {
	return onFreePorts(1, async ([port]) => {
		const child = spawn(process.execPath, [join(__dirname, '..', script), String(port), ...args], {
			stdio: ['ignore', 'inherit', 'inherit'],
		});
		await untilListening(child, [port]).catch(async (err: unknown) => {
			await stopProcess(child);
			throw err;
		});
		return { child, port, stop: () => stopProcess(child) };
	});
}
