import type { ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Free ports for the servers a benchmark starts. A port found free may be taken by another process (tests running on the
 * same machine) before the server binds it: the server then fails, and a plain connection to the port would reach the
 * other process. So a server counts as started only once its own process listens on its ports, and a start that fails is
 * tried again on new ports.
 */

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

/** The inodes of the TCP sockets listening on `port` (from /proc/net: any process's). */
function listeningInodes(port: number): Set<string> {
	const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
	const inodes = new Set<string>();
	for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
		let text = '';
		try {
			text = readFileSync(table, 'utf8');
		} catch {
			continue;
		}
		for (const line of text.split('\n').slice(1)) {
			// sl, local address, remote address, state (0A: listening), ..., inode (the tenth field)
			const fields = line.trim().split(/\s+/);
			if (fields.length > 9 && fields[1].endsWith(hexPort) && fields[3] === '0A') inodes.add(fields[9]);
		}
	}
	return inodes;
}

/** Whether process `pid` itself listens on TCP `port`. */
export function listensOn(pid: number, port: number): boolean {
	const inodes = listeningInodes(port);
	if (inodes.size === 0) return false;
	try {
		return readdirSync(`/proc/${pid}/fd`).some((fd) => {
			try {
				return inodes.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? '');
			} catch {
				return false;
			}
		});
	} catch {
		return false;
	}
}

/** Resolves once `child` listens on every one of `ports`; rejects if it exits first or does not in `timeoutMs`. */
export async function untilListening(child: ChildProcess, ports: number[], timeoutMs = 30000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!ports.every((port) => listensOn(child.pid!, port))) {
		if (child.exitCode !== null || child.signalCode !== null)
			throw new Error(`the server exited (${child.exitCode ?? child.signalCode}) before listening`);
		if (Date.now() > deadline) throw new Error(`the server does not listen on ${ports.join(' and ')} after ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}

/** Runs `start` on `count` free ports; should it fail (a port taken meanwhile, say), on new ones, up to `attempts` times. */
export async function onFreePorts<T>(count: number, start: (ports: number[]) => Promise<T>, attempts = 3): Promise<T> {
	for (let attempt = 1; ; attempt++) {
		const ports: number[] = [];
		while (ports.length < count) {
			const port = await freePort();
			if (!ports.includes(port)) ports.push(port);
		}
		try {
			return await start(ports);
		} catch (err) {
			if (attempt >= attempts) throw err;
			console.error(`  (starting on ports ${ports.join(', ')} failed: ${(err as Error).message}; trying other ports)`);
		}
	}
}
