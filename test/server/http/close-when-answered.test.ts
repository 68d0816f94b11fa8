import { describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import net from 'node:net';
import { startTestMailroom } from '../../helpers/mailroom';
import { waitFor } from '../../helpers/webhook-receiver';

/** What the server sent on `socket` until it closed the connection; `undefined` if it is still open after `ms`. */
async function untilClosed(socket: net.Socket, ms: number): Promise<string | undefined> {
	const chunks: Buffer[] = [];
	socket.on('data', (chunk: Buffer) => chunks.push(chunk));
	let timer: NodeJS.Timeout | undefined;
	const closed = await Promise.race([
		once(socket, 'end').then(() => true),
		new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
	]);
	clearTimeout(timer);
	return closed ? Buffer.concat(chunks).toString() : undefined;
}

describe('a request in progress when the server stops', () => {
	it('is answered, then its keep-alive connection is closed, so the stop does not wait for the client to hang up', async () => {
		const server = await startTestMailroom();
		const socket = net.connect(server.httpPort, '127.0.0.1');
		let stopped: Promise<void> | undefined;
		try {
			await once(socket, 'connect');
			const body = JSON.stringify({ forward: 'copy@example.test' });
			socket.write(
				'POST /api/addresses/held@example.test HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\nExpect: 100-continue\r\n' +
					`Service-Key: ${server.adminKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
			);
			// Node says 100 Continue as it hands the request to Fastify, which routes it at once: the request is under way.
			const [continued] = (await once(socket, 'data')) as [Buffer];
			expect(continued.toString()).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
			stopped = server.stop();
			// Once the listener is closed the stop has ended the connections that were idle; this one waits for its body.
			await waitFor(() => !server.http.server.listening, 'the HTTP listener to close');
			socket.write(body);
			const answer = (await untilClosed(socket, 5000)) ?? 'nothing: the connection was still open 5 s later';
			expect(answer).toMatch(/^HTTP\/1\.1 200 /);
			expect(answer).toMatch(/\r\nconnection: keep-alive\r\n/i); // the answer's headers had promised to keep it
			await stopped;
		} finally {
			socket.destroy();
			await (stopped ?? server.stop());
		}
	});
});
