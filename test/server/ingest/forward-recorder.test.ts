import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Me } from 'mailroom-server/dist/schemas/account';
import type { OutgoingRecord } from 'mailroom-server/dist/schemas/outgoing';
import { inboxMessages } from '../../helpers/inboxes';
import { largeRaw, sendLarge } from '../../helpers/large-messages';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { enc, sendMail } from '../../helpers/messages';
import { startTestRelay, type TestRelay } from '../../helpers/smtp-relay';
import { waitFor } from '../../helpers/webhook-receiver';

const raw = (server: TestMailroom, email: string, id: string, key?: string) =>
	server.api(`/api/raw/${enc(email)}/${id}`, { key }).then((response) => response.text);
const credits = (server: TestMailroom, key: string) => server.api<Me>('/api/me', { key }).then((me) => me.body.sendsRemaining);
const outgoingOf = (server: TestMailroom, key: string) =>
	server.api<OutgoingRecord[]>('/api/outgoing-messages', { key }).then((list) => list.body);

describe('forward: local addresses (no relay: a sandbox keeps all mail inside)', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom();
	});
	afterAll(() => server.stop());

	it('re-sends each message to the forward address, unchanged but for one header, for one credit', async () => {
		const ann = await server.createAccount('ann', 5);
		await server.api(`/api/addresses/${enc('fwd@example.test')}`, { method: 'POST', key: ann.key, body: { forward: 'copy@example.test' } });
		await sendMail(server, { to: 'fwd@example.test', subject: 'Forward me', text: 'the body' });

		const [copy] = await waitFor(
			() => inboxMessages(server, 'copy@example.test').then((list) => (list.length ? list : undefined)),
			'the forwarded copy',
		);
		expect(copy.subject).toBe('Forward me');
		const source = await raw(server, 'copy@example.test', copy._id);
		expect(source).toMatch(/^X-Mailroom-Forwarded-For: fwd@example\.test\r\n/);
		expect(source).toContain('the body');
		// The original stays where it was delivered.
		expect(await inboxMessages(server, 'fwd@example.test', ann.key)).toHaveLength(1);
		expect(await credits(server, ann.key)).toBe(4);
		const outgoing = await waitFor(
			() => outgoingOf(server, ann.key).then((list) => list[0]?.status === 'delivered' && list),
			'the forward to be marked delivered',
		);
		expect(outgoing).toEqual([
			expect.objectContaining({ from: 'fwd@example.test', to: ['copy@example.test'], subject: 'Forward me', status: 'delivered' }),
		]);
	});

	it('forwards nothing without credits, and the message is still stored', async () => {
		const poor = await server.createAccount('poor', 0);
		await server.api(`/api/addresses/${enc('poor@example.test')}`, {
			method: 'POST',
			key: poor.key,
			body: { forward: 'poor-copy@example.test' },
		});
		await sendMail(server, { to: 'poor@example.test' });
		await sendMail(server, { to: 'after@example.test' }); // a later message that has arrived proves the first was handled
		await waitFor(() => inboxMessages(server, 'after@example.test').then((list) => list.length), 'a later message');
		expect(await inboxMessages(server, 'poor@example.test', poor.key)).toHaveLength(1);
		expect(await inboxMessages(server, 'poor-copy@example.test')).toEqual([]);
		expect(await outgoingOf(server, poor.key)).toEqual([]);
	});

	it('stops a forwarding loop after a few hops', async () => {
		const loop = await server.createAccount('loop', 100);
		await server.api(`/api/addresses/${enc('ping@example.test')}`, {
			method: 'POST',
			key: loop.key,
			body: { forward: 'pong@example.test' },
		});
		await server.api(`/api/addresses/${enc('pong@example.test')}`, {
			method: 'POST',
			key: loop.key,
			body: { forward: 'ping@example.test' },
		});
		await sendMail(server, { to: 'ping@example.test', subject: 'loop' });
		// ping (original) -> pong (1 hop) -> ping (2) -> pong (3): a message forwarded 3 times goes no further.
		await waitFor(() => inboxMessages(server, 'pong@example.test', loop.key).then((list) => list.length === 2), 'two copies at pong');
		await sendMail(server, { to: 'after-loop@example.test' });
		await waitFor(() => inboxMessages(server, 'after-loop@example.test').then((list) => list.length), 'a later message');
		expect(await inboxMessages(server, 'ping@example.test', loop.key)).toHaveLength(2);
		expect(await inboxMessages(server, 'pong@example.test', loop.key)).toHaveLength(2);
		expect(await credits(server, loop.key)).toBe(97);
	});

	it("uses the catch-all address's forward for addresses of the domain without a forward of their own", async () => {
		const dom = await server.createAccount('dom', 5);
		await server.api('/api/domains/catch-forward.test', { method: 'POST', key: dom.key });
		await server.api('/api/domains/catch-forward.test', { method: 'PUT', key: dom.key, body: { catchAll: 'all@catch-forward.test' } });
		await server.api(`/api/addresses/${enc('all@catch-forward.test')}`, {
			method: 'PUT',
			key: dom.key,
			body: { forward: 'collector@example.test' },
		});
		await server.api(`/api/addresses/${enc('own@catch-forward.test')}`, {
			method: 'POST',
			key: dom.key,
			body: { forward: 'own-copy@example.test' },
		});
		await sendMail(server, { to: ['anyone@catch-forward.test', 'own@catch-forward.test'], subject: 'to the domain' });
		await waitFor(() => inboxMessages(server, 'collector@example.test').then((list) => list.length), 'the catch-all copy');
		await waitFor(() => inboxMessages(server, 'own-copy@example.test').then((list) => list.length), "the address's own copy");
		expect(await inboxMessages(server, 'collector@example.test')).toHaveLength(1);
		expect(await raw(server, 'collector@example.test', (await inboxMessages(server, 'collector@example.test'))[0]._id)).toMatch(
			/^X-Mailroom-Forwarded-For: anyone@catch-forward\.test\r\n/,
		);
	});
});

describe('forward: to another domain through the relay', () => {
	let server: TestMailroom;
	let relay: TestRelay;
	beforeAll(async () => {
		relay = await startTestRelay();
		server = await startTestMailroom({ domains: ['example.test'], relayUrl: relay.url, relayRetryDelays: [50, 50] });
	});
	afterAll(async () => {
		await server.stop();
		await relay.close();
	});

	it("relays the copy with a return path of the forward's as envelope sender (its bounces come back to the address)", async () => {
		const ann = await server.createAccount('ann', 2);
		await server.api(`/api/addresses/${enc('out@example.test')}`, { method: 'POST', key: ann.key, body: { forward: 'me@elsewhere.test' } });
		await sendMail(server, { to: 'out@example.test', from: 'Sender <sender@origin.test>', subject: 'Relayed' });
		const [mail] = await relay.waitFor(1);
		const [forward] = (await server.api<OutgoingRecord[]>('/api/outgoing-messages', { key: ann.key })).body;
		expect(forward.from).toBe('out@example.test');
		expect(mail.from).toBe(forward.recipients[0].returnPath);
		expect(mail.from).toMatch(/^bounces\+[a-z2-7]{20}@/);
		expect(mail.to).toEqual(['me@elsewhere.test']);
		expect(mail.parsed.subject).toBe('Relayed');
		expect(mail.parsed.from?.value).toEqual([{ name: 'Sender', address: 'sender@origin.test' }]);
		expect(mail.parsed.headers.get('x-mailroom-forwarded-for')).toBe('out@example.test');
		expect(await credits(server, ann.key)).toBe(1);
	});
});

describe('forward: a large (spooled) message', () => {
	let spooling: TestMailroom;
	beforeAll(async () => {
		spooling = await startTestMailroom({ spoolThreshold: 64 * 1024 });
	});
	afterAll(() => spooling.stop());

	it('is forwarded whole (the forward reads it from its spool file inside the transaction)', async () => {
		const owner = await spooling.createAccount('forwarder', 5);
		await spooling.api('/api/addresses/fwd@spool.test', { method: 'POST', key: owner.key, body: { forward: 'copy@spool.test' } });
		await sendLarge(spooling, 'fwd@spool.test');
		const [copy] = await waitFor(
			() => inboxMessages(spooling, 'copy@spool.test').then((list) => (list.length ? list : undefined)),
			'the forwarded copy',
		);
		const source = Buffer.from(await (await fetch(`${spooling.httpUrl}/api/raw/copy@spool.test/${copy._id}`)).arrayBuffer());
		expect(source.equals(Buffer.concat([Buffer.from('X-Mailroom-Forwarded-For: fwd@spool.test\r\n'), await largeRaw()]))).toBe(true);
	});
});
