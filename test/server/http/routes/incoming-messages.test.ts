import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ErrorBody } from 'mailroom-server/dist/schemas/error';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { enc } from '../../../helpers/messages';

describe('GET /incoming-messages without a websocket', () => {
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
});
