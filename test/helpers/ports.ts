import { connect, createServer, type AddressInfo } from 'node:net';
import { waitFor } from './webhook-receiver';

/** A port on 127.0.0.1 on which nothing listens (for now): for a server to start on, or a peer that is down. */
export function freePort(): Promise<number> {
	return new Promise((resolve) => {
		const probe = createServer().listen(0, '127.0.0.1', () => {
			const { port } = probe.address() as AddressInfo;
			probe.close(() => resolve(port));
		});
	});
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
