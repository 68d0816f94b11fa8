import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import { newId } from 'mailroom-server/dist/store/ids';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { OutgoingRecipient } from 'mailroom-server/dist/schemas/outgoing';
import { sameStore, startTestMailroom, tempDataDir } from '../../helpers/mailroom';
import { freePort } from '../../helpers/ports';
import { startTestRelay } from '../../helpers/smtp-relay';
import { waitFor, WebhookReceiver } from '../../helpers/webhook-receiver';
import { jsonBody } from '../../helpers/webhooks';
import { listOutgoing, postOutgoing, receivedCopy, senderAccount, sendingSetup } from '../../helpers/outgoing';
import { spoolEntries } from '../../helpers/spool';
import { reserveForwarding } from '../../helpers/addresses';
import { queryValue } from '../../helpers/database';

describe('local delivery beside the relay', () => {
	const setup = sendingSetup();

	it('delivers local recipients into their inbox through ingest (webhooks fire), and relays the rest, in one send', async () => {
		const { server, relay, alice } = setup;
		const receiver = new WebhookReceiver();
		await receiver.listen();
		const dan = await server.createAccount('dan');
		await reserveForwarding(server, dan.key, 'dan@local.test', { webhook: `${receiver.url}/dan` });
		const delivered: string[][] = [];
		let statusAtCommit: Promise<string> | undefined;
		const onStored = (records: { inbox: string }[]) => {
			delivered.push(records.map((r) => r.inbox));
			// Emitted right after the commit that stored the copies (read before the attempt's outcome is): it must have marked them delivered too.
			statusAtCommit = queryValue(server, 'SELECT recipients_json FROM outgoing_messages ORDER BY seq DESC LIMIT 1');
		};
		server.ingest.on('stored', onStored);
		const relayedBefore = relay.received.length;
		const res = await postOutgoing(server, alice.key, {
			from: 'alice@local.test',
			to: ['Dan <dan@local.test>', 'erin@remote.test', 'dan@local.test', 'Fay@local.test'],
			subject: 'Mixed',
			text: 'to everyone',
		});
		server.ingest.off('stored', onStored);
		expect(res.status).toBe(200);
		expect(res.body.status).toBe('delivered');
		expect(res.body.to).toEqual(['dan@local.test', 'erin@remote.test', 'fay@local.test']);
		expect(res.body.recipients.map((r) => r.route)).toEqual(['local', 'relay', 'local']);
		expect(delivered).toEqual([['dan@local.test', 'fay@local.test']]);
		expect(
			(JSON.parse(await statusAtCommit!) as OutgoingRecipient[]).filter((r) => r.address.endsWith('@local.test')).map((r) => r.status),
		).toEqual(['delivered', 'delivered']);

		const inbox = await server.api<MessageRecord[]>('/api/addresses/dan@local.test/messages', { key: dan.key });
		expect(inbox.body).toHaveLength(1);
		expect(inbox.body[0]).toMatchObject({
			from: [{ address: 'alice@local.test', name: '' }],
			subject: 'Mixed',
			inbox: 'dan@local.test',
			ip: '127.0.0.1',
			rtls: false,
		});
		expect(inbox.body[0].to.map((a) => a.address)).toEqual(['dan@local.test', 'erin@remote.test', 'fay@local.test']);
		expect((await server.api(`/api/text/dan@local.test/${inbox.body[0]._id}`, { key: dan.key })).text).toBe('to everyone\n');

		const hook = await waitFor(() => receiver.requests[0], 'the webhook request');
		await receiver.close();
		expect(hook.url).toBe('/dan');
		expect(jsonBody(hook)).toMatchObject({
			_id: inbox.body[0]._id,
			subject: 'Mixed',
			inbox: 'dan@local.test',
			from: [{ address: 'alice@local.test' }],
		});
		expect((await server.api('/api/addresses/fay@local.test/messages')).body).toHaveLength(1);

		const [relayed] = (await relay.waitFor(relayedBefore + 1)).slice(relayedBefore);
		expect(relayed.to).toEqual(['erin@remote.test']);
		expect(relayed.parsed.subject).toBe('Mixed');
	});
});

describe('relay retries', () => {
	it('queues while the relay is down and delivers once it is up', async () => {
		const port = await freePort();
		const server = await startTestMailroom({
			domains: ['local.test'],
			relayUrl: `smtp://127.0.0.1:${port}`,
			relayRetryDelays: Array<number>(200).fill(50),
		});
		try {
			const account = await senderAccount(server, 'a', 'a@local.test', 2);
			const res = await postOutgoing(server, account.key, {
				from: 'a@local.test',
				to: 'later@remote.test',
				subject: 'when you are back',
				text: 't',
			});
			expect(res.status).toBe(200);
			expect(res.body).toMatchObject({
				status: 'queued',
				creditsRemaining: 1,
				recipients: [{ status: 'queued', error: expect.stringMatching(/ECONNREFUSED|connect/i) }],
			});
			expect(res.body.lastError).toMatch(/ECONNREFUSED|connect/i);

			const relay = await startTestRelay({ port });
			try {
				const [mail] = await relay.waitFor(1);
				expect(mail.to).toEqual(['later@remote.test']);
				expect(mail.parsed.subject).toBe('when you are back');
				let listed: { status: string; attempts: number }[] = [];
				await waitFor(async () => {
					listed = await listOutgoing(server, account.key);
					return listed[0].status === 'delivered';
				}, 'status delivered');
				expect(listed[0].attempts).toBeGreaterThan(1);
				expect(relay.received).toHaveLength(1);
			} finally {
				await relay.close();
			}
		} finally {
			await server.stop();
		}
	});

	it('retries after a 4xx reply and fails for good once the retries are used up', async () => {
		let deferrals = 2;
		const relay = await startTestRelay({
			refuse: (rcpt) => {
				if (rcpt.startsWith('never@')) return { code: 451, message: 'Try again later' };
				if (deferrals-- > 0) return { code: 451, message: 'Greylisted' };
				return undefined;
			},
		});
		const server = await startTestMailroom({ domains: ['local.test'], relayUrl: relay.url, relayRetryDelays: [20, 20, 20] });
		try {
			const account = await senderAccount(server, 'a', 'a@local.test', 2);
			const post = (to: string) => postOutgoing(server, account.key, { from: 'a@local.test', to, subject: to, text: 't' });
			const grey = await post('grey@remote.test');
			expect(grey.body).toMatchObject({ status: 'queued', lastError: expect.stringMatching(/^451 .*Greylisted/) });
			await relay.waitFor(1);

			const never = await post('never@remote.test');
			expect(never.body.status).toBe('queued');
			let listed: { subject: string; status: string; attempts: number; lastError: string | null }[] = [];
			await waitFor(async () => {
				listed = await listOutgoing(server, account.key);
				return listed.every((m) => m.status !== 'queued');
			}, 'retries to end');
			expect(listed.find((m) => m.subject === 'grey@remote.test')).toMatchObject({ status: 'delivered', attempts: 3 });
			expect(listed.find((m) => m.subject === 'never@remote.test')).toMatchObject({
				status: 'failed',
				attempts: 4,
				lastError: expect.stringMatching(/^gave up after 4 attempts: 451 /),
			});
			expect(relay.received).toHaveLength(1);
		} finally {
			await server.stop();
			await relay.close();
		}
	});

	it('keeps queued mail across a restart and delivers it after', async () => {
		const port = await freePort();
		const dataDir = tempDataDir();
		const config = {
			dataDir,
			domains: ['local.test'],
			relayUrl: `smtp://127.0.0.1:${port}`,
			relayRetryDelays: Array<number>(50).fill(200),
		};
		const first = await startTestMailroom(config);
		const account = await senderAccount(first, 'a', 'a@local.test', 1);
		const res = await postOutgoing(first, account.key, {
			from: 'a@local.test',
			to: 'restart@remote.test',
			subject: 'survives',
			text: 't',
		});
		expect(res.body.status).toBe('queued');
		await first.stop({ removeData: false });

		const relay = await startTestRelay({ port });
		const second = await startTestMailroom({ ...config, ...sameStore(first) });
		try {
			const [mail] = await relay.waitFor(1);
			expect(mail.parsed.subject).toBe('survives');
			expect(mail.parsed.messageId).toBe(`<${res.body._id}@local.test>`);
			await waitFor(async () => (await listOutgoing(second, account.key))[0].status === 'delivered', 'status delivered');
		} finally {
			await second.stop();
			await relay.close();
		}
	});
});

describe('a large message left in the outbox', () => {
	it('is delivered from its stored pieces: into the local inbox and through the relay, byte for byte', async () => {
		const relay = await startTestRelay();
		// A short lease: the outbox looks for work left by other nodes at least once a second.
		const server = await startTestMailroom({ domains: ['local.test'], relayUrl: relay.url, spoolThreshold: 64 * 1024, workLease: 1000 });
		try {
			const account = await senderAccount(server, 'left', 'left@local.test', 2);
			const mail = { from: 'left@local.test', to: 'left-in@local.test', cc: 'left@remote.test', subject: 'left behind' };
			// Two pieces of the outbox's (1 MB each).
			const attachments = [{ filename: 'file.bin', content: randomBytes(1024 * 1024) }];
			const raw = await new MailComposer({ ...mail, text: 'see the file', attachments }).compile().build();
			// As a send composed into the spool leaves it: the outbox keeps it in pieces, copied from that file.
			const spoolPath = join(server.config.dataDir, 'left-behind.eml');
			writeFileSync(spoolPath, raw);
			// Recorded by a node that stopped before its first attempt: its lease has run out, so this node takes the entry up.
			await server.store.outgoing.record(
				{
					id: newId(),
					accountId: account.id,
					from: mail.from,
					subject: mail.subject,
					sent: new Date().toISOString(),
					recipients: [
						{ address: mail.to, field: 'to', route: 'local', note: null, returnPath: null },
						{ address: mail.cc, field: 'cc', route: 'relay', note: null, returnPath: null },
					],
					inReplyTo: null,
					raw: { spoolPath, byteLength: raw.length },
					ip: '192.0.2.1',
					via: '127.0.0.1',
				},
				{ node: 'a node that stopped', until: Date.now() - 1 },
			);
			const delivered = async () => (await listOutgoing(server, account.key))[0].status === 'delivered';
			await waitFor(delivered, 'the message delivered', 20_000);
			expect((await receivedCopy(server, mail.to)).raw.equals(raw)).toBe(true);
			const [relayed] = await relay.waitFor(1);
			expect(relayed.raw === raw.toString()).toBe(true);
			// The local copy was parsed from a spool file written from the pieces, and removed once stored.
			expect(spoolEntries(server)).toEqual([]);
		} finally {
			await server.stop();
			await relay.close();
		}
	});
});
