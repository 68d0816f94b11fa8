import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { countRows, inboxMessages, messageCount } from '../../helpers/inboxes';
import { sendLarge } from '../../helpers/large-messages';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { sendMail } from '../../helpers/messages';
import { listOutgoing, postOutgoing, senderAccount } from '../../helpers/outgoing';
import { freePort } from '../../helpers/ports';
import { query, queryValue } from '../../helpers/database';

const DAY = 24 * 60 * 60 * 1000;
const HOUR = 60 * 60 * 1000;

describe('retention sweep', () => {
	let server: TestMailroom;
	let account: { id: string; key: string };
	const count = (sql: string) => queryValue(server, sql);
	const idsIn = async (inbox: string) => (await inboxMessages(server, inbox)).map((m) => m._id);
	const star = (inbox: string, id: string) =>
		server.api(`/api/addresses/${inbox}/messages/${id}/star`, { method: 'PUT', key: account.key });

	beforeEach(async () => {
		server = await startTestMailroom({ retentionMaxAge: DAY, retentionMaxPerInbox: 3, retentionSweepInterval: HOUR });
		account = await server.createAccount('keeper');
	});
	afterEach(() => server.stop());

	it('keeps the newest messages of an inbox up to the limit, and every starred one', async () => {
		const ids: string[] = [];
		for (let i = 0; i < 6; i++) ids.push(...(await sendMail(server, { to: 'full@example.test', subject: `m${i}` })));
		await star('full@example.test', ids[0]);
		await sendMail(server, { to: 'small@example.test' });
		expect(await server.retention.sweep()).toEqual({ expired: 0, overflow: 2, sent: 0 });
		expect(await idsIn('full@example.test')).toEqual([ids[5], ids[4], ids[3], ids[0]]);
		expect(await idsIn('small@example.test')).toHaveLength(1);
		expect(await server.retention.sweep()).toEqual({ expired: 0, overflow: 0, sent: 0 });
	});

	it('deletes messages past the maximum age with their raw mail and unshared attachments; starred mail stays', async () => {
		const shared = { filename: 'shared.txt', content: 'kept while a young message has it' };
		const [starred] = await sendMail(server, { to: 'old@example.test', subject: 'starred' });
		const [old] = await sendMail(server, {
			to: 'old@example.test',
			subject: 'old',
			attachments: [{ filename: 'own.txt', content: 'only mine' }, shared],
		});
		const [young] = await sendMail(server, { to: 'young@example.test', subject: 'young', attachments: [shared] });
		await star('old@example.test', starred);
		await query(server, 'UPDATE messages SET received = received - ? WHERE id IN (?, ?)', [2 * DAY, starred, old]);
		expect([await count('SELECT count(*) FROM contents'), await count('SELECT count(*) FROM attachment_contents')]).toEqual([3, 2]);

		expect(await server.retention.sweep()).toEqual({ expired: 1, overflow: 0, sent: 0 });
		expect(await idsIn('old@example.test')).toEqual([starred]);
		expect(await idsIn('young@example.test')).toEqual([young]);
		expect((await server.api(`/api/raw/old@example.test/${old}`)).status).toBe(404);
		expect([await count('SELECT count(*) FROM contents'), await count('SELECT count(*) FROM attachment_contents')]).toEqual([2, 1]);
		const download = await server.api(`/api/addresses/young@example.test/messages/${young}/attachments/shared.txt`);
		expect(download.text).toBe(shared.content);
	});
});

describe('retention sweep of sent mail', () => {
	it('deletes sent messages past the maximum age once settled; those still in the outbox stay', async () => {
		// A relay nobody listens on: mail to remote.test waits in the outbox for a retry an hour away.
		const server = await startTestMailroom({
			domains: ['local.test'],
			relayUrl: `smtp://127.0.0.1:${await freePort()}`,
			relayRetryDelays: [HOUR],
			retentionMaxAge: DAY,
			retentionSweepInterval: HOUR,
		});
		try {
			const sender = await senderAccount(server, 'sender', 'sender@local.test', 10);
			const send = async (subject: string, to: string) =>
				(await postOutgoing(server, sender.key, { from: 'sender@local.test', to, subject, text: 't' })).body;
			const delivered = await send('old and delivered', 'kept@local.test');
			const queued = await send('old and queued', 'waiting@remote.test');
			await send('young', 'kept@local.test');
			expect([delivered.status, queued.status]).toEqual(['delivered', 'queued']);
			const twoDaysAgo = new Date(Date.now() - 2 * DAY).toISOString();
			await query(server, 'UPDATE outgoing_messages SET sent = ? WHERE id IN (?, ?)', [twoDaysAgo, delivered._id, queued._id]);

			expect(await server.retention.sweep()).toEqual({ expired: 0, overflow: 0, sent: 1 });
			expect((await listOutgoing(server, sender.key)).map((m) => m.subject)).toEqual(['young', 'old and queued']);
			// The copies in the inboxes are received mail, kept by their own age.
			expect(await messageCount(server, 'kept@local.test')).toBe(2);
			expect(await server.retention.sweep()).toEqual({ expired: 0, overflow: 0, sent: 0 });
		} finally {
			await server.stop();
		}
	});
});

describe('retention sweep in the background', () => {
	it('runs on its interval after start', async () => {
		const server = await startTestMailroom({ retentionMaxPerInbox: 1, retentionSweepInterval: 100 });
		try {
			for (let i = 0; i < 3; i++) await sendMail(server, { to: 'busy@example.test' });
			let left = 3;
			for (let tries = 0; tries < 200 && left > 1; tries++) {
				await new Promise((resolve) => setTimeout(resolve, 50));
				left = await messageCount(server, 'busy@example.test');
			}
			expect(left).toBe(1);
		} finally {
			await server.stop();
		}
	});
});

describe('retention sweep of large (spooled) messages', () => {
	it('deletes their pieces with them', async () => {
		const server = await startTestMailroom({ spoolThreshold: 64 * 1024, retentionMaxPerInbox: 1 });
		try {
			await sendLarge(server, 'full@spool.test');
			const onePiecesWorth = await countRows(server, 'content_raw_pieces');
			await sendLarge(server, 'full@spool.test');
			expect(await countRows(server, 'content_raw_pieces')).toBe(2 * onePiecesWorth);
			await server.retention.sweep();
			expect(await countRows(server, 'content_raw_pieces')).toBe(onePiecesWorth);
			expect(await countRows(server, 'attachment_pieces')).toBe(4);
		} finally {
			await server.stop();
		}
	});
});
