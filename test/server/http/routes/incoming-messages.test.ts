import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ErrorBody } from 'mailroom-server/dist/schemas/error';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { enc } from '../../../helpers/messages';
import { listen } from '../../../helpers/websocket';

describe('GET /incoming-messages: the route and where its key comes from', () => {
	let server: TestMailroom;
	let alice: { id: string; key: string };

	beforeAll(async () => {
		server = await startTestMailroom();
		alice = await server.createAccount('alice');
	});
	afterAll(() => server.stop());

	it('answers a plain HTTP request with 426 Upgrade Required', async () => {
		const response = await server.api<ErrorBody>(`/incoming-messages?key=${enc(alice.key)}`);
		expect(response.status).toBe(426);
		expect(response.body).toEqual({ error: 'Upgrade Required', message: expect.stringContaining('websocket') });
	});

	it.each(['Service-Key', 'Mailsac-Key'])(
		'takes the key from the %s header of a client that can send one, instead of ?key=',
		async (header) => {
			expect((await server.api('/api/addresses/ws%40incoming.test', { method: 'POST', key: alice.key })).status).toBe(200);
			const listener = await listen(server, 'addresses=ws%40incoming.test', { [header]: alice.key });
			expect(listener.frames[0]).toEqual({ status: 200, msg: 'Listening', addresses: ['ws@incoming.test'], domains: [] });
			listener.socket.close();
			await listener.closed;
		},
	);
});
