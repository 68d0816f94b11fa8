import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ErrorBody } from 'mailroom-server/dist/schemas/error';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { OutgoingRecord } from 'mailroom-server/dist/schemas/outgoing';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { startTestRelay, type TestRelay } from '../../helpers/smtp-relay';
import { credits, listOutgoing, postOutgoing, senderAccount, type Sent } from '../../helpers/effects-outbound';

describe('POST and GET /api/outgoing-messages', () => {
	let relay: TestRelay;
	let server: TestMailroom;
	let alice: { id: string; key: string };

	beforeAll(async () => {
		relay = await startTestRelay({
			refuse: (rcpt) => (rcpt.startsWith('bounce@') ? { code: 550, message: 'No such user here' } : undefined),
		});
		server = await startTestMailroom({ domains: ['local.test'], relayUrl: relay.url, relayRetryDelays: [50, 50, 50] });
		alice = await senderAccount(server, 'alice', 'alice@local.test', 1000);
	});
	afterAll(async () => {
		await server.stop();
		await relay.close();
	});

	/** Sends with alice's key in the header, another key, or (null) none; `Body` is the answer expected. */
	const send = <Body = Sent>(body: Record<string, unknown>, key: string | null = alice.key) =>
		postOutgoing<Body>(server, key ?? undefined, body);

	it('accepts the key in the body or the header, and refuses unknown keys with 401', async () => {
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
			'from',
			'lastError',
			'recipients',
			'sent',
			'status',
			'subject',
			'to',
		]);
		expect((await server.api('/api/outgoing-messages')).status).toBe(401);
		expect((await server.api('/api/outgoing-messages?limit=0', { key: alice.key })).status).toBe(400);
	});

	it('never overspends under concurrent sends', async () => {
		const busy = await senderAccount(server, 'busy', 'busy@local.test', 7);
		const results = await Promise.all(
			Array.from({ length: 12 }, (_, i) =>
				send({ from: 'busy@local.test', to: [`c${i}a@local.test`, `c${i}b@remote.test`], subject: `c${i}`, text: 't' }, busy.key),
			),
		);
		const statuses = results.map((r) => r.status).sort();
		expect(statuses).toEqual([...Array<number>(3).fill(200), ...Array<number>(9).fill(402)]);
		expect(await credits(server, busy.key)).toBe(1);
		expect(await listOutgoing(server, busy.key)).toHaveLength(3);
		expect(
			results
				.filter((r) => r.status === 200)
				.map((r) => r.body.creditsRemaining)
				.sort(),
		).toEqual([1, 3, 5]);
	});
});

describe('sending on a server that accepts every domain', () => {
	it('keeps all mail inside when it accepts every domain (no --domains, no relay)', async () => {
		const server = await startTestMailroom({ domains: [] });
		try {
			const account = await senderAccount(server, 'a', 'a@anywhere.test', 1);
			const res = await postOutgoing(server, account.key, { from: 'a@anywhere.test', to: 'someone@gmail.com', subject: 's', text: 't' });
			expect(res.body.recipients).toEqual([{ address: 'someone@gmail.com', route: 'local', status: 'delivered', error: null }]);
			expect((await server.api<MessageRecord[]>('/api/addresses/someone@gmail.com/messages')).body).toHaveLength(1);
		} finally {
			await server.stop();
		}
	});
});
