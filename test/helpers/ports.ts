import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { waitFor } from './webhook-receiver';

/**
 * The first port the kernel hands out by itself (to `listen(0)` and to outgoing connections). A port chosen below it cannot
 * be taken by another test's client socket or ephemeral server between our probe and the server that listens on it.
 */
const EPHEMERAL_START = (() => {
	try {
		return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]) || 32768;
	} catch {
		return 32768;
	}
})();
const LOWEST = 10_000;
/** Above the ports chosen from; were the kernel's range to start low, ports in it are chosen (racy, but never none). */
const HIGHEST = Math.max(EPHEMERAL_START, LOWEST + 10_000);

/** Resolves whether a listener could bind 127.0.0.1:port just now. */
function bindable(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const probe = createServer();
		probe.once('error', () => resolve(false));
		probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
	});
}

/** A port on 127.0.0.1 on which nothing listens (for now): for a server to start on, or a peer that is down. */
export async function freePort(): Promise<number> {
	for (;;) {
		const port = LOWEST + Math.floor(Math.random() * (HIGHEST - LOWEST));
		if (await bindable(port)) return port;
	}
}

/** Whether something accepts connections on host:port now. */
export function accepts(host: string, port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = connect(port, host);
		socket.on('connect', () => (socket.destroy(), resolve(true)));
		socket.on('error', () => resolve(false));
	});
}

/** Resolves once nothing listens on the port any more: a server stopped accepting. */
export async function untilRefused(port: number, host = '127.0.0.1'): Promise<void> {
	await waitFor(async () => !(await accepts(host, port)), `nothing to listen on ${host}:${port}`);
}
