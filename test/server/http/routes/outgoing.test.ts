import { describe, expect, it } from '@jest/globals';
import type { ErrorBody } from 'mailroom-server/dist/schemas/error';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { OutgoingRecord } from 'mailroom-server/dist/schemas/outgoing';
import { expectError } from '../../../helpers/messages';
import { credits, postOutgoing, sendingSetup, type Sent } from '../../../helpers/outgoing';

describe('POST and GET /api/outgoing-messages', () => {
	const setup = sendingSetup();

	/** Sends with alice's key in the header, another key, or (null) none; `Body` is the answer expected. */
	const send = <Body = Sent>(body: Record<string, unknown>, key: string | null = setup.alice.key) =>
		postOutgoing<Body>(setup.server, key ?? undefined, body);

	it('accepts the key in the body or the header, and refuses unknown keys with 401', async () => {
		const { server, alice } = setup;
		const mail = { from: 'alice@local.test', to: 'keys@local.test', subject: 'k', text: 'k' };
		expect((await send({ ...mail, _serviceKey: alice.key }, null)).status).toBe(200);
		expect((await send(mail)).status).toBe(200);
		const noKey = await send<ErrorBody>(mail, null);
		expect(noKey.status).toBe(401);
		expect(noKey.body.error).toBe('Unauthorized');
		expect((await send({ ...mail, _serviceKey: 'mr_unknown' }, null)).status).toBe(401);
		expect((await send(mail, 'mr_unknown')).status).toBe(401);
		expect((await server.api<MessageRecord[]>('/api/addresses/keys@local.test/messages')).body).toHaveLength(2);
	});

	it('lists sent mail newest first with status and last error', async () => {
		const { server, alice } = setup;
		// Three sends, the last two refused by the relay (for one recipient, then for all).
		await send({ from: 'alice@local.test', to: 'first@local.test', subject: 'first', text: 't' });
		await send({ from: 'alice@local.test', to: ['bounce@remote.test', 'fine@remote.test'], subject: 'half', text: 't' });
		await send({ from: 'alice@local.test', to: 'bounce@remote.test', subject: 'all', text: 't' });
		const list = await server.api<OutgoingRecord[]>('/api/outgoing-messages?limit=3', { key: alice.key });
		expect(list.status).toBe(200);
		expect(list.body).toHaveLength(3);
		expect(list.body.map((m) => m.subject)).toEqual(['all', 'half', expect.any(String)]);
		expect(list.body[0]).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/^550 /), to: ['bounce@remote.test'] });
		expect(Object.keys(list.body[0]).sort()).toEqual([
			'_id',
			'attempts',
			'bcc',
			'cc',
			'from',
			'inReplyTo',
			'lastError',
			'recipients',
			'sent',
			'status',
			'subject',
			'threadId',
			'to',
		]);
		expect(Object.keys(list.body[0].recipients[0]).sort()).toEqual([
			'address',
			'bounceMessageId',
			'diagnostic',
			'error',
			'field',
			'note',
			'reportingMta',
			'returnPath',
			'route',
			'status',
			'statusCode',
		]);
		expect((await server.api('/api/outgoing-messages')).status).toBe(401);
		expect((await server.api('/api/outgoing-messages?limit=0', { key: alice.key })).status).toBe(400);
	});

	it('refuses a field it does not know with 400 naming it, charging nothing', async () => {
		const { server, alice } = setup;
		const before = await credits(server, alice.key);
		const mail = { from: 'alice@local.test', to: 'typo@local.test', subject: 's', text: 't' };
		for (const field of ['attachment', 'CC', 'reply_to', 'html_body']) {
			expectError(
				await send({ ...mail, [field]: 'x' }),
				400,
				new RegExp(`^${field} is not a field of this request; its fields are to, from, `),
				field,
			);
		}
		expect(await credits(server, alice.key)).toBe(before);
		expect((await server.api('/api/addresses/typo@local.test/messages')).body).toEqual([]);
	});

	it('describes every field of the send body and of the sent message in the OpenAPI document', async () => {
		type Properties = Record<string, { description?: string; items?: { properties?: Properties } }>;
		const doc = (
			await setup.server.api<{
				paths: Record<string, { post: { requestBody: { content: Record<string, { schema: { properties: Properties } }> } } }>;
				components: { schemas: Record<string, { properties: Properties }> };
			}>('/openapi.json')
		).body;
		const body = doc.paths['/api/outgoing-messages'].post.requestBody.content['application/json'].schema.properties;
		const outgoing = doc.components.schemas.Outgoing.properties;
		const undescribed = (properties: Properties, where: string) =>
			Object.entries(properties)
				.filter(([, schema]) => !schema.description)
				.map(([name]) => `${where}.${name}`);
		expect([
			...undescribed(body, 'body'),
			...undescribed(body.attachments.items!.properties!, 'body.attachments[]'),
			...undescribed(Object.fromEntries(['cc', 'bcc', 'inReplyTo', 'recipients'].map((name) => [name, outgoing[name]])), 'Outgoing'),
			...undescribed({ field: outgoing.recipients.items!.properties!.field }, 'Outgoing.recipients[]'),
		]).toEqual([]);
	});
});
