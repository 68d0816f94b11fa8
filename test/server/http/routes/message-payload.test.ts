import { describe, expect, it } from '@jest/globals';
import { Value } from 'typebox/value';
import { AddressObjectSchema, type MessageRecord } from 'mailroom-server/dist/schemas/message';
import { WebhookPayloadSchema } from 'mailroom-server/dist/schemas/payload';
import { reserveForwarding } from '../../../helpers/addresses';
import { countRows } from '../../../helpers/inboxes';
import { enc, expectError, sendMail } from '../../../helpers/messages';
import { firstPost, PAYLOAD_FIELDS, webhookSetup, type PayloadJson } from '../../../helpers/webhooks';

/** What the test reads of the OpenAPI document. */
interface OpenApiDocument {
	paths: Record<string, { get: { summary: string; responses: Record<string, { content: Record<string, { schema: unknown }> }> } }>;
	components: { schemas: Record<string, { properties: Record<string, unknown> }> };
}

describe('GET /api/addresses/:email/messages/:messageId/payload', () => {
	// Large mail (over 64 KB here) has its bodies stored in pieces. Every delivery succeeds: the default retries and timeout.
	const setup = webhookSetup('alice', { spoolThreshold: 64 * 1024 });

	const payloadOf = (email: string, messageId: string, key?: string, query = '') =>
		setup.server.api<PayloadJson>(`/api/addresses/${enc(email)}/messages/${messageId}/payload${query}`, { key });
	const recordOf = (email: string, messageId: string, key?: string) =>
		setup.server.api<MessageRecord>(`/api/addresses/${enc(email)}/messages/${messageId}`, { key });

	const text = 'Order 7 ships today, track it at https://shop.test/track/7';
	const html = '<p>Order <b>7</b> ships today, <a href="https://shop.test/track/7">track it</a></p>';

	/** A message with Cc, both bodies and two attachments to a private address with a webhook; its id and what the webhook got. */
	async function deliveredWhole(email: string) {
		const { server, receiver, account: alice } = setup;
		const path = `/${email.split('@')[0]}`;
		await reserveForwarding(server, alice.key, email, { webhook: `${receiver.url}${path}` });
		const [messageId] = await sendMail(server, {
			from: '"Shop" <orders@shop.test>',
			to: email,
			cc: ['"Carl" <carl@example.org>', 'dora@example.org'],
			subject: 'Order 7',
			text,
			html,
			attachments: [
				{ filename: 'invoice.pdf', content: Buffer.from('%PDF-1.4 \x00\xff'), contentType: 'application/pdf' },
				{ filename: 'logo.png', content: Buffer.from('png bytes'), contentType: 'image/png', cid: 'logo@shop' },
			],
		});
		return { messageId, posted: await firstPost(receiver, path) };
	}

	it('answers the very JSON the webhook was sent for the message: spec 2.3 fields, then html, cc, attachments and threadId', async () => {
		const email = 'whole@payload.test';
		const { messageId, posted } = await deliveredWhole(email);
		const response = await payloadOf(email, messageId, setup.account.key);

		expect(response.status).toBe(200);
		expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
		expect(response.text).toBe(posted.body);
		expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(posted.body));
		const payload = response.body;
		expect(Object.keys(payload).sort()).toEqual([...PAYLOAD_FIELDS].sort());
		// The text as sent: links stay where they are, not numbered as GET /api/text numbers them.
		expect(payload.text.trim()).toBe(text);
		expect((await setup.server.api(`/api/text/${enc(email)}/${messageId}`, { key: setup.account.key })).text).toContain('[1]');
		expect(payload.html).toBe(html);
		expect(payload.cc).toEqual([
			{ address: 'carl@example.org', name: 'Carl' },
			{ address: 'dora@example.org', name: '' },
		]);
		const { body: record } = await recordOf(email, messageId, setup.account.key);
		expect(payload.attachments.map(({ filename, checksum }) => ({ filename, checksum }))).toEqual([
			{ filename: 'logo.png', checksum: record.attachments![0] },
			{ filename: 'invoice.pdf', checksum: record.attachments![1] },
		]);
	});

	it('gives html null, and the text as sent, for mail without an HTML part', async () => {
		const [messageId] = await sendMail(setup.server, { to: 'plain@payload.test', subject: 'Plain', text });
		// A public address: no key needed, as for its record.
		const { status, body } = await payloadOf('plain@payload.test', messageId);
		expect(status).toBe(200);
		expect(body.html).toBeNull();
		expect(body.text.trim()).toBe(text);
		expect(body).toMatchObject({ _id: messageId, subject: 'Plain', cc: null, attachments: [] });
	});

	it("is open to exactly the callers of the message's record: a private address's only to its owner's key", async () => {
		const email = 'private@payload.test';
		const { messageId } = await deliveredWhole(email);
		const mallory = await setup.server.createAccount('mallory-payload');
		const callers = {
			'no key': undefined,
			'an unknown key': 'k_not-a-key',
			"another account's key": mallory.key,
			"the owner's key": setup.account.key,
		};
		const statuses = async (ask: (key?: string) => Promise<{ status: number }>): Promise<Record<string, number>> =>
			Object.fromEntries(
				await Promise.all(Object.entries(callers).map(async ([who, key]): Promise<[string, number]> => [who, (await ask(key)).status])),
			);

		const payloadStatuses = await statuses((key) => payloadOf(email, messageId, key));
		expect(payloadStatuses).toEqual(await statuses((key) => recordOf(email, messageId, key)));
		expect(payloadStatuses).toEqual({ 'no key': 401, 'an unknown key': 401, "another account's key": 403, "the owner's key": 200 });
	});

	it('answers 404 as the record does for a message the inbox does not hold', async () => {
		const [elsewhere] = await sendMail(setup.server, { to: 'other@payload.test' });
		for (const messageId of ['NoSuchMessage1', elsewhere]) {
			const response = await payloadOf('empty@payload.test', messageId);
			expectError(response, 404, /empty@payload\.test/);
			expect(response.body).toEqual((await recordOf('empty@payload.test', messageId)).body);
		}
	});

	it('leaves out the raw source with raw=0, and refuses a query parameter it does not take', async () => {
		const [messageId] = await sendMail(setup.server, { to: 'noraw@payload.test', text });
		const whole = (await payloadOf('noraw@payload.test', messageId)).body;
		const { status, body } = await payloadOf('noraw@payload.test', messageId, undefined, '?raw=0');
		expect(status).toBe(200);
		expect(Object.keys(body)).toEqual(Object.keys(whole).filter((field) => field !== 'raw'));
		expect(body).toEqual({ ...whole, raw: undefined });
		expectError(await payloadOf('noraw@payload.test', messageId, undefined, '?raw=2'), 400, /raw/);
		expectError(await payloadOf('noraw@payload.test', messageId, undefined, '?html=0'), 400, /html/);
	});

	it('streams a large message, its bodies stored in pieces, exactly as the webhook got it', async () => {
		const { server, receiver, account: alice } = setup;
		const email = 'large@payload.test';
		await reserveForwarding(server, alice.key, email, { webhook: `${receiver.url}/large` });
		// Over 1 MB of JSON, made again as it is sent; characters of every UTF-8 length (and a surrogate pair) across the pieces.
		const line = (i: number) => `Line ${i}: café, €uro, ✓ and 😀 at https://example.test/${i % 50}\n`;
		const largeText = Array.from({ length: 18_000 }, (_, i) => line(i)).join('');
		const piecesBefore = await countRows(server, 'content_body_pieces');
		const [messageId] = await sendMail(server, { to: email, text: largeText, html: `<pre>${largeText}</pre>` });
		expect(await countRows(server, 'content_body_pieces')).toBeGreaterThan(piecesBefore);
		const posted = await firstPost(receiver, '/large');
		const response = await payloadOf(email, messageId, alice.key);
		expect(response.status).toBe(200);
		expect(Buffer.byteLength(posted.body)).toBeGreaterThan(4 * 1024 * 1024);
		expect(response.text).toBe(posted.body);
		expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(posted.body));
		expect(response.body.text).toBe(largeText);
	});

	it('hands out an encryptedInbox that mail can be sent to, for an address that never had a webhook', async () => {
		const [messageId] = await sendMail(setup.server, { to: 'alias@payload.test', subject: 'first' });
		const { encryptedInbox } = (await payloadOf('alias@payload.test', messageId)).body;
		await sendMail(setup.server, { to: `${encryptedInbox}@payload.test`, subject: 'through the alias' });
		const listing = await setup.server.api<MessageRecord[]>('/api/addresses/alias%40payload.test/messages');
		expect(listing.body.map((message) => [message.subject, message.originalInbox])).toEqual([
			['through the alias', `${encryptedInbox}@payload.test`],
			['first', 'alias@payload.test'],
		]);
	});

	it('is documented as the WebhookPayload schema, which names every field the answer has and matches it', async () => {
		const [messageId] = await sendMail(setup.server, { to: 'schema@payload.test', cc: 'carl@example.org', html });
		const { body: payload } = await payloadOf('schema@payload.test', messageId);
		expect(Value.Check({ AddressObject: AddressObjectSchema }, WebhookPayloadSchema, payload)).toBe(true);

		const { body: doc } = await setup.server.api<OpenApiDocument>('/openapi.json');
		const operation = doc.paths['/api/addresses/{email}/messages/{messageId}/payload'].get;
		expect(operation.summary).toMatch(/webhook payload/);
		expect(operation.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/WebhookPayload' });
		expect(Object.keys(doc.components.schemas.WebhookPayload.properties).sort()).toEqual([...PAYLOAD_FIELDS].sort());
	});
});
