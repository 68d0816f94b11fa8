import { readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { Me } from 'mailroom-server/dist/schemas/account';
import type { ForwardingRecord } from 'mailroom-server/dist/schemas/address';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { sameStore, startTestMailroom, tempDataDir, type TestMailroom } from '../helpers/mailroom';
import { inboxMessages } from '../helpers/inboxes';
import { postOutgoing, senderAccount } from '../helpers/outgoing';
import { accepts, freePort } from '../helpers/ports';
import { waitFor } from '../helpers/webhook-receiver';

/** Everything a restart must keep, read through the API. */
async function snapshot(server: TestMailroom, keys: { owner: string; admin: string }) {
	const list = (inbox: string, key?: string) =>
		server.api<MessageRecord[]>(`/api/addresses/${inbox}/messages`, { key }).then((response) => response.body);
	const publicList = await list('public@restart.test');
	return {
		publicList,
		publicText: (await server.api(`/api/text/public@restart.test/${publicList[0]._id}`)).text,
		privateList: await list('private@restart.test', keys.owner),
		privateWithoutKey: (await server.api('/api/addresses/private@restart.test/messages')).status,
		forwarding: (await server.api<ForwardingRecord>('/api/addresses/private@restart.test', { key: keys.owner })).body,
		owner: (await server.api<Me>('/api/me', { key: keys.owner })).body,
		admin: (await server.api<Me>('/api/me', { key: keys.admin })).body,
	};
}

describe('a restart on the same data folder', () => {
	const dataDir = tempDataDir();
	afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

	it('keeps messages, accounts, keys, reserved addresses and webhook settings', async () => {
		const first = await startTestMailroom({ dataDir });
		const owner = await first.createAccount('keeper', 3);
		const keys = { owner: owner.key, admin: first.adminKey };
		let before: Awaited<ReturnType<typeof snapshot>>;
		try {
			expect((await first.api('/api/addresses/private@restart.test', { method: 'POST', key: owner.key })).status).toBe(200);
			await first.send({ from: 'a@sender.test', to: 'public@restart.test', subject: 'older', text: 'See https://example.org/older' });
			await first.send({
				from: 'a@sender.test',
				to: ['public@restart.test', 'private@restart.test'],
				subject: 'newer',
				html: '<p>Read <a href="https://example.org/newer">this</a></p>',
				attachments: [{ filename: 'a.txt', content: 'attached' }],
			});
			const forwarding = await first.api('/api/private-address-forwarding/private@restart.test', {
				method: 'PUT',
				key: owner.key,
				body: { webhook: 'https://example.org/hooks/restart' },
			});
			expect(forwarding.status).toBe(200);
			before = await snapshot(first, keys);
			expect(before.publicList.map((message) => message.subject)).toEqual(['newer', 'older']);
			expect(before.privateList).toHaveLength(1);
			expect(before.privateWithoutKey).toBe(401);
			expect(before.forwarding.webhook).toBe('https://example.org/hooks/restart');
		} finally {
			await first.stop({ removeData: false });
		}

		const second = await startTestMailroom(sameStore(first));
		try {
			expect(second.bootstrap).toBeUndefined();
			expect(await snapshot(second, keys)).toEqual(before);
			// and the restarted server goes on receiving
			await second.send({ from: 'a@sender.test', to: 'public@restart.test', subject: 'after', text: 'after' });
			const subjects = (await second.api<MessageRecord[]>('/api/addresses/public@restart.test/messages')).body.map(
				(message) => message.subject,
			);
			expect(subjects).toEqual(['after', 'newer', 'older']);
		} finally {
			await second.stop({ removeData: false });
		}
	});
});

describe('plus-addressing (which inbox holds mail to name+tag@domain)', () => {
	/** The inbox and originalInbox of each record of the public inbox `inbox`. */
	const places = async (server: TestMailroom, inbox: string, key?: string) =>
		(await inboxMessages(server, inbox, key)).map((record) => [record.inbox, record.originalInbox, record.subject]);

	it('keeps a+1@ and a+2@ apart by default: each is its own test inbox', async () => {
		const server = await startTestMailroom({ domains: ['plus.test'] });
		try {
			for (const to of ['a+1@plus.test', 'a+2@plus.test']) await server.send({ from: 's@sender.test', to, subject: to, text: 'x' });
			expect(await places(server, 'a+1@plus.test')).toEqual([['a+1@plus.test', 'a+1@plus.test', 'a+1@plus.test']]);
			expect(await places(server, 'a+2@plus.test')).toEqual([['a+2@plus.test', 'a+2@plus.test', 'a+2@plus.test']]);
			expect(await places(server, 'a@plus.test')).toEqual([]);
		} finally {
			await server.stop();
		}
	});

	it("with --plus-addressing, keeps mail to a+tag@ in a@'s inbox, private when a@ is, local copies of sent mail too", async () => {
		const server = await startTestMailroom({ domains: ['plus.test'], plusAddressing: true });
		try {
			await server.send({ from: 's@sender.test', to: 'a+news@plus.test', subject: 'tagged', text: 'x' });
			await server.send({ from: 's@sender.test', to: '+only@plus.test', subject: 'no name', text: 'x' });
			expect(await places(server, 'a@plus.test')).toEqual([['a@plus.test', 'a+news@plus.test', 'tagged']]);
			expect(await places(server, 'a+news@plus.test')).toEqual([]);
			expect(await places(server, '+only@plus.test')).toEqual([['+only@plus.test', '+only@plus.test', 'no name']]);

			// The owner of me@ gets me+anything@'s mail, privately.
			const owner = await senderAccount(server, 'owner', 'me@plus.test', 5);
			await server.send({ from: 's@sender.test', to: 'Me+Shop@plus.test', subject: 'private', text: 'x' });
			expect((await server.api('/api/addresses/me%40plus.test/messages')).status).toBe(401);
			expect(await places(server, 'me@plus.test', owner.key)).toEqual([['me@plus.test', 'me+shop@plus.test', 'private']]);

			// Sent mail's local copies are kept as received mail is.
			const sent = await postOutgoing(server, owner.key, { from: 'me@plus.test', to: 'a+reply@plus.test', subject: 'sent', text: 'x' });
			expect(sent.body.status).toBe('delivered');
			expect((await places(server, 'a@plus.test'))[0]).toEqual(['a@plus.test', 'a+reply@plus.test', 'sent']);
		} finally {
			await server.stop();
		}
	});
});

/** The threads of this process (the server's worker threads among them), as Linux counts them. */
const threadCount = () => Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]);

describe('a start that fails part-way (its HTTP port taken)', () => {
	it('closes what it had started: the SMTP listener, the ingest and parser threads and the store', async () => {
		// A start and a stop first, so the threads a process keeps (libuv's pool, V8's) are there before the count.
		await (await startTestMailroom()).stop({ removeData: true });
		const threads = threadCount();
		const taken = createServer();
		await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
		const smtpPort = await freePort();
		const dataDir = tempDataDir();
		try {
			const start = startTestMailroom({
				dataDir,
				smtpPort,
				smtpHost: '127.0.0.1',
				httpHost: '127.0.0.1',
				httpPort: (taken.address() as AddressInfo).port,
			});
			await expect(start).rejects.toMatchObject({
				code: 'EADDRINUSE',
				message: `The HTTP port ${(taken.address() as AddressInfo).port} on 127.0.0.1 is already in use (--http-port / MAILROOM_HTTP_PORT): stop what holds it or choose another port`,
			});
			expect(await accepts('127.0.0.1', smtpPort)).toBe(false);
			await waitFor(() => threadCount() <= threads, `the threads to end (${threadCount()} now, ${threads} before)`);
			// The store was closed: a second start on the same folder and SMTP port opens it and serves.
			const next = await startTestMailroom({ dataDir, smtpPort, smtpHost: '127.0.0.1' });
			await next.stop();
		} finally {
			taken.close();
			rmSync(dataDir, { recursive: true, force: true });
		}
	});
});
