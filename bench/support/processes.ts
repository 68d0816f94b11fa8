import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Benchmarks drive real server processes, so their memory can be read from /proc apart from the load generator's. */

export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

export async function waitForPort(port: number, timeoutMs = 15000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		const open = await new Promise<boolean>((resolve) => {
			const socket = connect(port, '127.0.0.1');
			socket.once('connect', () => (socket.destroy(), resolve(true)));
			socket.once('error', () => resolve(false));
		});
		if (open) return;
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
}

/** Resident and peak resident memory of a process, in MB. */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
	return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

/** CPU time (user + system, all threads) a process has used so far, in ms. */
export function cpuMsOf(pid: number): number {
	const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
	// utime and stime are fields 14 and 15 of /proc/pid/stat, in clock ticks (100 per second on Linux).
	return (Number(fields[11]) + Number(fields[12])) * 10;
}

export interface ServerProcess {
	child: ChildProcess;
	smtpPort: number;
	httpPort: number;
	httpUrl: string;
	dataDir: string;
	key: string;
	stop(): Promise<void>;
}

// The shipped server: the mailroom-server package as `npm run build` puts it together.
const CLI = require.resolve('mailroom-server/dist/cli.js');

/** BENCH_SERVER_ARGS (e.g. "--durability normal") passes settings to the benchmarked server. */
function serverArgsFromEnv(): string[] {
	return (process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean);
}

/** Starts `mailroom serve` on a temporary data folder and free ports; resolves once both listen. */
export async function startMailroomProcess(extraArgs: string[] = [], dataDir?: string): Promise<ServerProcess> {
	const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'mailroom-bench-'));
	const [smtpPort, httpPort] = [await freePort(), await freePort()];
	const child = spawn(
		process.execPath,
		// Benchmarks read far faster than the default per-client rate limits allow.
		[
			CLI,
			'serve',
			'--data-dir',
			dir,
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
			...extraArgs,
			...serverArgsFromEnv(),
		],
		{ stdio: ['ignore', 'pipe', 'inherit'] },
	);
	let output = '';
	child.stdout.on('data', (chunk) => (output += chunk));
	await waitForPort(smtpPort);
	await waitForPort(httpPort);
	const printedKey = () => /^\s+(mr_\S+)$/m.exec(output)?.[1];
	// A new data folder's first key is printed as the server starts: its line may reach the pipe after the ports open.
	for (let waited = 0; !dataDir && !printedKey() && waited < 5000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
	const key = printedKey() ?? '';
	return {
		child,
		smtpPort,
		httpPort,
		httpUrl: `http://127.0.0.1:${httpPort}`,
		dataDir: dir,
		key,
		stop: async () => {
			await stopProcess(child);
			if (!dataDir) rmSync(dir, { recursive: true, force: true });
		},
	};
}

export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
	return new Promise((resolve) => {
		child.once('exit', () => resolve());
		child.kill(signal);
	});
}

/** A new API key of the admin account of a data folder (the one printed on first start is shown only once). */
export function createAdminKey(dataDir: string): string {
	const output = execFileSync(process.execPath, [CLI, 'keys', 'create', 'admin', '--label', 'benchmark', '--data-dir', dataDir], {
		encoding: 'utf8',
	});
	const key = /^\s+(mr_\S+)$/m.exec(output)?.[1];
	if (!key) throw new Error(`no key in: ${output}`);
	return key;
}

/** Starts a compiled bench script (e.g. the no-op SMTP server) as its own process on a free port. */
export async function startScriptProcess(
	script: string,
	args: string[] = [],
): Promise<{ child: ChildProcess; port: number; stop(): Promise<void> }> {
	const port = await freePort();
	const child = spawn(process.execPath, [join(__dirname, '..', script), String(port), ...args], {
		stdio: ['ignore', 'inherit', 'inherit'],
	});
	await waitForPort(port);
	return { child, port, stop: () => stopProcess(child) };
}
