import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { expectError, sendMail } from '../../helpers/messages';

/**
 * PostgreSQL text cannot hold U+0000, so the API refuses it, on every engine (the postgres project runs this file again on
 * PostgreSQL); mail's come as U+FFFD from the parser (test/server/store/nul-characters.test.ts).
 */
describe('NUL characters (U+0000)', () => {
	let server: TestMailroom;
	let key: string;
	let id: string;
	beforeAll(async () => {
		server = await startTestMailroom();
		key = (await server.createAccount('alice', 10)).key;
		expect((await server.api('/api/addresses/mine@nul.test', { method: 'POST', key })).status).toBe(200);
		[id] = await sendMail(server, { to: 'mine@nul.test' });
	});
	afterAll(() => server.stop());

	it('refuses one in a path parameter, the query or the body with 400, naming the field', async () => {
		const label = await server.api(`/api/addresses/mine@nul.test/messages/${id}/labels/a%00b`, { method: 'PUT', key });
		expectError(label, 400, /^The label in the path contains a NUL character/);
		const query = await server.api('/api/addresses/mine@nul.test/wait-for-message?timeout=1000&subject=a%00b', { key });
		expectError(query, 400, /^subject contains a NUL character/, 'subject');
		const body = await server.api('/api/private-address-forwarding/mine@nul.test', { method: 'PUT', key, body: { info: 'a\u0000b' } });
		expectError(body, 400, /^info contains a NUL character/, 'info');
		const nested = await server.api('/api/outgoing-messages', {
			method: 'POST',
			key,
			body: { from: 'mine@nul.test', to: ['x@nul.test'], subject: 's', text: 't', headers: { 'X-Note': 'a\u0000b' } },
		});
		expectError(nested, 400, /^headers\.X-Note contains a NUL character/, 'headers.X-Note');
		// Found however deep it lies (the body is walked without recursion: this one nests deeper than the call stack).
		const depth = 200_000;
		const deep = `{"info":${'['.repeat(depth)}"a\\u0000b"${']'.repeat(depth)}}`;
		const deepResponse = await server.api('/api/private-address-forwarding/mine@nul.test', { method: 'PUT', key, body: deep });
		expectError(deepResponse, 400);
		expect((deepResponse.body as { message: string }).message).toBe(
			`info${'[0]'.repeat(depth)} contains a NUL character (U+0000), which the API does not take`,
		);
		// In the name of a field, the object holding it is named.
		const name = await server.api('/api/private-address-forwarding/mine@nul.test', { method: 'PUT', key, body: { 'in\u0000fo': 'x' } });
		expectError(name, 400, /^A field name in the body contains a NUL character/);
		// Nothing was changed or sent.
		const record = (await server.api<MessageRecord>(`/api/addresses/mine@nul.test/messages/${id}`, { key })).body;
		expect(record.labels).toEqual([]);
		expect((await server.api<{ info: string }>('/api/addresses/mine@nul.test', { key })).body.info).toBe('');
		expect((await server.api<unknown[]>('/api/outgoing-messages', { key })).body).toEqual([]);
	});
});
