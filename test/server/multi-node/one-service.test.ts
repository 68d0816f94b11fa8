import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Me } from 'mailroom-server/dist/schemas/account';
import type { DomainRecord } from 'mailroom-server/dist/schemas/domain';
import type { ForwardingRecord } from 'mailroom-server/dist/schemas/address';
import type { AttachmentMeta, MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { WebhookSubscription } from 'mailroom-server/dist/schemas/webhook';
import { queryValue } from '../../helpers/database';
import { dataDirs } from '../../helpers/mailroom';
import { KEY, runCli, type ServeProcess } from '../../helpers/mailroom-cli';
import { composeMail } from '../../helpers/large-messages';
import { enc } from '../../helpers/messages';
import { admin, loggedErrors, reserve, sendTo, startNodes, stopNode } from '../../helpers/nodes';
import { startPostgres, type TestPostgres } from '../../helpers/postgres';
import { listen } from '../../helpers/websocket';
import { waitFor } from '../../helpers/webhook-receiver';

/**
 * Three `mailroom serve` processes on one PostgreSQL database act as one service: what is made through one is there on
 * the others at once, mail received by one is read and deleted through another, and mail one stores wakes the others'
 * websockets and waiters.
 */

const newDataDir = dataDirs();

let postgres: TestPostgres;
let databaseUrl: string;
let a: ServeProcess;
let b: ServeProcess;
let c: ServeProcess;
/** Every node. */
let nodes: ServeProcess[];
/** The admin key, printed by whichever node made the admin account. */
let adminKey: string;

beforeAll(async () => {
	postgres = await startPostgres();
	databaseUrl = await postgres.newDatabase();
	// All at once on the empty database: they migrate it and make the admin account one after the other.
	nodes = await startNodes(3, databaseUrl, newDataDir);
	[a, b, c] = nodes;
	adminKey = await Promise.any(nodes.map((node) => node.key()));
}, 60_000);

afterAll(async () => {
	await Promise.all((nodes ?? []).map((node) => stopNode(node)));
	for (const node of nodes ?? []) expect(loggedErrors(node)).toEqual([]);
	await postgres?.stop();
}, 60_000);

/** GET `path` through a node as raw bytes. */
async function bytesOf(node: ServeProcess, path: string, key: string): Promise<{ status: number; length: string | null; bytes: Buffer }> {
	const response = await fetch(`${node.httpUrl}${path}`, { headers: { 'Service-Key': key } });
	return { status: response.status, length: response.headers.get('content-length'), bytes: Buffer.from(await response.arrayBuffer()) };
}

describe('nodes on one database are one service', () => {
	it('has one admin account, made by one node, whose key works on every node', async () => {
		for (const node of nodes) {
			expect(await node.api<Me>('/api/me', { key: adminKey })).toMatchObject({ status: 200, body: { name: 'admin', admin: true } });
		}
		const { stdout } = await admin(databaseUrl, 'accounts', 'list');
		expect(stdout.trim().split('\n').slice(1)).toEqual([expect.stringMatching(/^\S+\s+admin\s+0\s+admin\s/)]);
		// Each node prints the key right after it starts running (see serve in server/cli.ts): long done by now.
		expect(nodes.filter((node) => KEY.test(node.output))).toHaveLength(1);
		expect(nodes.filter((node) => node.output.includes('Created the admin account'))).toHaveLength(1);
	});

	it('sees a key, a reserved address, a domain and a webhook subscription made through another node at once', async () => {
		const created = await runCli(['accounts', 'create', 'owner', '--database-url', databaseUrl]);
		const ownerKey = KEY.exec(created.stdout)![0];

		// Made through a, all four.
		const made = await a.api<{ key: string }>('/api/me/keys', { method: 'POST', key: ownerKey, body: { label: 'made on a' } });
		expect(made.status).toBe(200);
		await reserve(a, ownerKey, 'mine@one.test', { webhook: 'https://hooks.example/mine' });
		expect((await a.api(`/api/domains/owned.test`, { method: 'POST', key: ownerKey })).status).toBe(200);
		const subscribed = await a.api<WebhookSubscription>(`/api/addresses/${enc('mine@one.test')}/webhooks`, {
			method: 'POST',
			key: ownerKey,
			body: { url: 'https://hooks.example/sub', filter: { subject: 'invoice' } },
		});
		expect(subscribed.status).toBe(201);

		for (const other of [b, c]) {
			expect(await other.api<Me>('/api/me', { key: made.body.key })).toMatchObject({ status: 200, body: { name: 'owner' } });
			expect(await other.api<ForwardingRecord>(`/api/addresses/${enc('mine@one.test')}`, { key: ownerKey })).toMatchObject({
				status: 200,
				body: { _id: 'mine@one.test', webhook: 'https://hooks.example/mine' },
			});
			expect((await other.api(`/api/addresses/${enc('mine@one.test')}/messages`)).status).toBe(401);
			expect((await other.api(`/api/addresses/${enc('mine@one.test')}`, { method: 'POST', key: adminKey })).status).toBe(403);
			expect((await other.api<DomainRecord[]>('/api/domains', { key: ownerKey })).body.map((domain) => domain._id)).toEqual(['owned.test']);
			expect((await other.api(`/api/addresses/${enc('anyone@owned.test')}/messages`)).status).toBe(401);
			const { body: subscriptions } = await other.api<WebhookSubscription[]>(`/api/addresses/${enc('mine@one.test')}/webhooks`, {
				key: ownerKey,
			});
			expect(subscriptions).toEqual([subscribed.body]);
		}
	});

	it('lists, reads and deletes through one node the mail another received, a large spooled message included', async () => {
		const file = randomBytes(1536 * 1024);
		const raw = await composeMail({
			from: 'big@sender.test',
			to: 'reader@one.test',
			subject: 'large one',
			text: 'The file is attached: https://example.org/file',
			attachments: [
				{ filename: 'file.bin', content: file },
				{ filename: 'note.txt', content: 'a small note' },
			],
		});
		expect(raw.length).toBeGreaterThan(1024 * 1024); // past the spool threshold (1 MB): received into a/spool, stored in pieces
		const [large] = await sendTo(a, { envelope: { from: 'big@sender.test', to: ['reader@one.test'] }, raw });
		const [small] = await sendTo(a, { from: 'small@sender.test', to: 'reader@one.test', subject: 'small one', text: 'hello from a' });
		// Its raw source in 1 MB pieces, as only a spooled message's is stored.
		expect(await queryValue({ config: { dataDir: '', databaseUrl } }, 'SELECT count(*) FROM content_raw_pieces')).toBe(
			Math.ceil(raw.length / 2 ** 20),
		);

		const listed = await b.inbox('reader@one.test');
		expect(listed.map((message) => [message._id, message.subject])).toEqual([
			[small, 'small one'],
			[large, 'large one'],
		]);
		expect((await b.api(`/api/text/${enc('reader@one.test')}/${small}`)).body).toBe('hello from a\n');
		expect((await b.api<string>(`/api/text/${enc('reader@one.test')}/${large}`)).body).toContain('The file is attached');

		const rawServed = await bytesOf(b, `/api/raw/${enc('reader@one.test')}/${large}`, adminKey);
		expect(rawServed.status).toBe(200);
		expect(rawServed.length).toBe(String(raw.length));
		expect(rawServed.bytes.equals(raw)).toBe(true);

		const { body: attachments } = await b.api<AttachmentMeta[]>(`/api/addresses/${enc('reader@one.test')}/messages/${large}/attachments`);
		expect(attachments.map((attachment) => [attachment.fileName, attachment.length])).toEqual([
			['file.bin', file.length],
			['note.txt', 12],
		]);
		const downloaded = await bytesOf(
			b,
			`/api/addresses/${enc('reader@one.test')}/messages/${large}/attachments/${attachments[0].checksum}`,
			adminKey,
		);
		expect(downloaded.status).toBe(200);
		expect(downloaded.bytes.equals(file)).toBe(true);

		expect((await b.api(`/api/addresses/${enc('reader@one.test')}/messages/${large}`, { method: 'DELETE' })).status).toBe(200);
		expect((await a.inbox('reader@one.test')).map((message) => message._id)).toEqual([small]);
		expect((await a.api(`/api/raw/${enc('reader@one.test')}/${large}`)).status).toBe(404);
	});
});

describe('mail one node stores wakes the others', () => {
	let ownerKey: string;
	beforeAll(async () => {
		ownerKey = KEY.exec((await admin(databaseUrl, 'accounts', 'create', 'listener')).stdout)![0];
		await reserve(a, ownerKey, 'live@events.test', { enablews: true });
	});

	it('pushes a websocket frame on the other nodes for mail one stored', async () => {
		const listeners = await Promise.all([b, c].map((node) => listen(node, `key=${ownerKey}&addresses=${enc('live@events.test')}`)));
		try {
			for (const listener of listeners) expect(listener.frames[0]).toMatchObject({ status: 200, addresses: ['live@events.test'] });
			const [id] = await sendTo(a, { to: 'live@events.test', subject: 'pushed across', text: 'from a' });
			for (const listener of listeners) {
				const frame = await waitFor(() => listener.frames.find((f) => f.email), 'the frame');
				expect(frame.email).toMatchObject({ _id: id, subject: 'pushed across', text: 'from a\n' });
			}
		} finally {
			for (const listener of listeners) listener.socket.close();
		}
	});

	it('answers a wait on one node as soon as another stores the mail', async () => {
		const timeoutMs = 20_000;
		const started = Date.now();
		const path = `/api/addresses/${enc('live@events.test')}/wait-for-message?subject=awaited&timeout=${timeoutMs}`;
		const waiting = b.api<MessageRecord>(path, { key: ownerKey });
		// Time for b to register the waiter before the mail comes: what is stored before then b finds by looking, not by a wake.
		await new Promise((resolve) => setTimeout(resolve, 500));
		const [id] = await sendTo(a, { to: 'live@events.test', subject: 'the awaited one' });
		const sent = Date.now();
		const answer = await waiting;
		expect(answer).toMatchObject({ status: 200, body: { _id: id, subject: 'the awaited one' } });
		expect(Date.now() - sent).toBeLessThan(2000);
		expect(Date.now() - started).toBeLessThan(timeoutMs / 2);
	});

	it('puts chaos settings changed through one node in force on the others as they hear of it', async () => {
		/** The reply to RCPT TO of the address, on a node. */
		const rcptReply = async (node: ServeProcess) => {
			const { client } = await node.smtp();
			for (const line of ['EHLO client.test', 'MAIL FROM:<app@sender.test>']) expect(await client.command(line)).toMatch(/^250/);
			const reply = await client.command('RCPT TO:<live@events.test>');
			client.close();
			return reply;
		};
		const setChaos = async (body: unknown) =>
			expect((await a.api('/api/me/chaos', { method: 'PUT', key: ownerKey, body })).status).toBe(200);
		await setChaos({ enabled: true, rcptTo: { code: 550, probability: 1 } });
		for (const node of [b, c]) await waitFor(async () => (await rcptReply(node)).startsWith('550 5.0.0 Mailroom chaos'), 'chaos on');
		await setChaos({ enabled: false });
		for (const node of [b, c]) await waitFor(async () => (await rcptReply(node)).startsWith('250 '), 'chaos off');
	});
});

describe('the admin CLI on the shared database, while the nodes run', () => {
	/** `mailroom <args>` naming the database with the flag, or with MAILROOM_DATABASE_URL. */
	const byFlag = (...args: string[]) => admin(databaseUrl, ...args);
	const byEnv = async (...args: string[]) => {
		const result = await runCli(args, { MAILROOM_DATABASE_URL: databaseUrl });
		expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
		return result;
	};
	const me = (node: ServeProcess, key: string) => node.api<Me>('/api/me', { key });

	it('makes accounts, keys and credits every node uses at once', async () => {
		const created = await byEnv('accounts', 'create', 'ci', '--credits', '5');
		const firstKey = KEY.exec(created.stdout)![0];
		for (const node of nodes) expect(await me(node, firstKey)).toMatchObject({ status: 200, body: { name: 'ci', sendsRemaining: 5 } });
		expect((await byFlag('accounts', 'list')).stdout).toMatch(/^\S+\s+ci\s+5\s/m);

		const made = await byFlag('keys', 'create', 'ci', '--label', 'deploy');
		const key = KEY.exec(made.stdout)![0];
		const keyId = /API key \(id (\S+)\)/.exec(made.stdout)![1];
		for (const node of nodes) expect((await me(node, key)).status).toBe(200);
		expect((await byEnv('keys', 'list', 'ci')).stdout).toMatch(new RegExp(`^${keyId}\\s+deploy\\s+\\S+\\s+active$`, 'm'));

		await byEnv('credits', 'add', 'ci', '10');
		for (const node of nodes) expect((await me(node, key)).body.sendsRemaining).toBe(15);

		await byFlag('keys', 'revoke', keyId);
		for (const node of nodes) expect((await me(node, key)).status).toBe(401);
		expect((await me(b, firstKey)).status).toBe(200);
		expect((await byFlag('keys', 'list', 'ci')).stdout).toMatch(new RegExp(`^${keyId}\\s+deploy\\s+\\S+\\s+revoked \\S+$`, 'm'));
	});

	it('gives and takes domains: every node makes their mail private, and public again, at once', async () => {
		const key = KEY.exec((await byFlag('accounts', 'create', 'domainer')).stdout)![0];
		await byEnv('domains', 'add', 'domainer', 'Cli.test');
		expect((await byFlag('domains', 'list')).stdout).toMatch(/^cli\.test\s+domainer\s/m);
		for (const node of nodes)
			expect((await node.api<DomainRecord[]>('/api/domains', { key })).body.map((d) => d._id)).toEqual(['cli.test']);

		await sendTo(a, { to: 'x@cli.test', subject: 'private mail' });
		expect((await b.api(`/api/addresses/${enc('x@cli.test')}/messages`)).status).toBe(401);
		expect((await b.inbox('x@cli.test', key)).map((message) => message.subject)).toEqual(['private mail']);

		await byEnv('domains', 'remove', 'cli.test');
		for (const node of nodes) {
			expect((await node.inbox('x@cli.test')).map((message) => message.subject)).toEqual(['private mail']);
			expect((await node.api<DomainRecord[]>('/api/domains', { key })).body).toEqual([]);
		}
		expect((await byFlag('domains', 'list')).stdout).not.toMatch(/cli\.test/);
	});
});
