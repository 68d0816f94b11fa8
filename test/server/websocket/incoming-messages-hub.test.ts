import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import net from 'node:net';
import pino from 'pino';
import WebSocket from 'ws';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { RECORD_FIELDS } from '../../helpers/inboxes';
import { enc, sendMail } from '../../helpers/messages';
import { waitFor } from '../../helpers/webhook-receiver';
import { listen, type Listener } from '../../helpers/websocket';
import { reserveForwarding } from '../../helpers/addresses';
import { MAX_WEBSOCKETS_PER_ACCOUNT, MAX_WEBSOCKETS_PER_IP } from 'mailroom-server/dist/websocket/incoming-messages-hub';
import { query } from '../../helpers/database';

describe('websocket /incoming-messages', () => {
	let server: TestMailroom;
	let alice: { id: string; key: string };
	let bob: { id: string; key: string };

	beforeAll(async () => {
		server = await startTestMailroom();
		alice = await server.createAccount('alice');
		bob = await server.createAccount('bob');
		await reserveForwarding(server, alice.key, 'on@ws.test', { enablews: true });
		await reserveForwarding(server, alice.key, 'off@ws.test', { enablews: false });
		await reserveForwarding(server, bob.key, 'bobs@ws.test', { enablews: true });
		await server.domains.claim('alice-domain.test', alice.id);
		await reserveForwarding(server, alice.key, 'all@alice-domain.test', { enablews: true });
		await query(server, 'UPDATE addresses SET catch_all = ? WHERE email = ?', ['alice-domain.test', 'all@alice-domain.test']);
	});
	afterAll(() => server.stop());

	it("sends frames only for the listed addresses and domains of the key's account that have enablews", async () => {
		const listener = await listen(
			server,
			`key=${enc(alice.key)}&addresses=${enc('on@ws.test,OFF@ws.test,bobs@ws.test,alice-domain.test,bob-domain.test')}`,
		);
		expect(listener.frames[0]).toEqual({
			status: 200,
			msg: 'Listening',
			addresses: ['on@ws.test', 'off@ws.test'],
			domains: ['alice-domain.test'],
		});

		for (const to of ['off@ws.test', 'bobs@ws.test', 'unlisted@ws.test', 'on@ws.test', 'anyone@alice-domain.test']) {
			await server.send({ from: 'sender@example.org', to, subject: `to ${to}`, text: 'hello' });
		}
		await waitFor(() => listener.frames.length >= 3, 'two message frames');
		await new Promise((resolve) => setTimeout(resolve, 300)); // room for frames that should not come
		const emails = listener.frames.slice(1).map((frame) => frame.email!);
		expect(listener.frames.slice(1).every((frame) => frame.status === 200)).toBe(true);
		expect(emails.map((email) => email.subject)).toEqual(['to on@ws.test', 'to anyone@alice-domain.test']);

		const [first] = emails;
		expect(first).toMatchObject({ inbox: 'on@ws.test', domain: 'ws.test', from: [{ address: 'sender@example.org', name: '' }] });
		expect(first.text).toEqual(expect.stringContaining('hello'));
		expect(first.headers.subject).toBe('to on@ws.test');
		expect(first.raw).toEqual(expect.stringContaining('\r\nSubject: to on@ws.test\r\n'));
		for (const field of RECORD_FIELDS) expect(first).toHaveProperty(field);
		expect(first).toMatchObject({ html: null, attachments: [] });
		// JSON in text frames: what a browser gets as a string for JSON.parse(event.data).
		expect(listener.binary).toEqual(listener.frames.map(() => false));
		listener.socket.close();
	});

	it('gives the HTML body, and the attachments with the links that download them, as webhook payloads do', async () => {
		const listener = await listen(server, `key=${enc(alice.key)}&addresses=${enc('on@ws.test')}`);
		const [messageId] = await sendMail(server, {
			to: 'on@ws.test',
			subject: 'with parts',
			html: '<p>Hi <b>there</b></p>',
			attachments: [{ filename: 'a.txt', content: 'attached text', contentType: 'text/plain' }],
		});
		await waitFor(() => listener.frames.length >= 2, 'the message frame');
		const { email } = listener.frames[1];
		expect(email).toMatchObject({ _id: messageId, html: '<p>Hi <b>there</b></p>' });
		const [attachment] = email!.attachments;
		expect(attachment).toMatchObject({ filename: 'a.txt', contentType: 'text/plain', size: 13, contentId: null });
		const download = await fetch(attachment.url, { headers: { 'Service-Key': alice.key } });
		expect(await download.text()).toBe('attached text');
		expect(listener.binary).toEqual([false, false]);
		listener.socket.close();
	});

	it("shows another account's key nothing of alice's addresses", async () => {
		const listener = await listen(server, `key=${enc(bob.key)}&addresses=${enc('on@ws.test,alice-domain.test')}`);
		expect(listener.frames[0]).toEqual({ status: 200, msg: 'Listening', addresses: [], domains: [] });
		await server.send({ from: 'sender@example.org', to: 'on@ws.test', subject: 'private', text: 'x' });
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(listener.frames).toHaveLength(1);
		listener.socket.close();
	});

	it("applies the catch-all's enablews to an address of the domain that does not have it on, as every catch-all setting", async () => {
		await reserveForwarding(server, alice.key, 'quiet@alice-domain.test', { enablews: false });
		const listener = await listen(server, `key=${enc(alice.key)}&addresses=${enc('quiet@alice-domain.test')}`);
		await server.send({ from: 'sender@example.org', to: 'quiet@alice-domain.test', subject: 'via the catch-all', text: 'x' });
		await waitFor(() => listener.frames.length === 2, "the frame the catch-all's enablews sends");
		expect(listener.frames[1].email).toMatchObject({ inbox: 'quiet@alice-domain.test', subject: 'via the catch-all' });
		listener.socket.close();
	});

	it('stops sending once enablews is turned off', async () => {
		const listener = await listen(server, `key=${enc(alice.key)}&addresses=${enc('on@ws.test')}`);
		await server.send({ from: 'sender@example.org', to: 'on@ws.test', subject: 'while on', text: 'x' });
		await waitFor(() => listener.frames.length === 2, 'the frame while enabled');
		await reserveForwarding(server, alice.key, 'on@ws.test', { enablews: false });
		await server.send({ from: 'sender@example.org', to: 'on@ws.test', subject: 'while off', text: 'x' });
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(listener.frames.map((frame) => frame.email?.subject)).toEqual([undefined, 'while on']);
		await reserveForwarding(server, alice.key, 'on@ws.test', { enablews: true });
		listener.socket.close();
	});

	it('answers an unknown key with a 401 frame and closes', async () => {
		const listener = await listen(server, 'key=mr_not-a-real-key&addresses=on%40ws.test');
		expect(listener.frames[0]).toMatchObject({ status: 401 });
		expect(await listener.closed).toBe(1008);
		const noKey = await listen(server, 'addresses=on%40ws.test');
		expect(noKey.frames[0]).toMatchObject({ status: 401 });
		expect(await noKey.closed).toBe(1008);
	});

	/** The subjects of the message frames a listener has got once one has the subject `last` (frames come in the order stored). */
	const subjectsUntil = async (listener: Listener, last: string) => {
		await waitFor(() => listener.frames.some((frame) => frame.email?.subject === last), `the frame of "${last}"`);
		return listener.frames.slice(1).map((frame) => frame.email?.subject);
	};

	it("with scope=account sends every message of the key's account, enablews or not, and of the public addresses it lists", async () => {
		await server.domains.claim('bob-domain.test', bob.id);
		await server.domains.claim('alice-bare.test', alice.id); // no catch-all address: no settings at all
		const aliceAll = await listen(
			server,
			`key=${enc(alice.key)}&scope=account&addresses=${enc('public@ws-public.test,on@ws.test,bobs@ws.test,bob-domain.test,alice-domain.test')}`,
		);
		// The account's own are not listed (they all come); another account's are left out.
		expect(aliceAll.frames[0]).toEqual({
			status: 200,
			msg: 'Listening',
			scope: 'account',
			addresses: ['public@ws-public.test'],
			domains: [],
		});
		const bobAll = await listen(server, `key=${enc(bob.key)}&scope=account&addresses=${enc('public@ws-public.test')}`);
		expect(bobAll.frames[0]).toEqual({
			status: 200,
			msg: 'Listening',
			scope: 'account',
			addresses: ['public@ws-public.test'],
			domains: [],
		});

		const sent = [
			'bobs@ws.test', // bob's, enablews on
			'off@ws.test', // alice's, enablews off
			'unlisted@ws-public.test', // public, listed by neither
			'on@ws.test', // alice's, enablews on
			'anyone@alice-domain.test', // alice's domain, caught by its catch-all
			'quiet@alice-domain.test', // alice's, enablews off
			'anyone@bob-domain.test', // bob's domain
			'someone@alice-bare.test', // alice's domain, no settings
			'public@ws-public.test', // public, listed by both
		];
		for (const to of sent) await server.send({ from: 'sender@example.org', to, subject: `account-wide to ${to}`, text: 'hello' });
		const last = 'account-wide to public@ws-public.test';
		expect(await subjectsUntil(aliceAll, last)).toEqual(
			[
				'off@ws.test',
				'on@ws.test',
				'anyone@alice-domain.test',
				'quiet@alice-domain.test',
				'someone@alice-bare.test',
				'public@ws-public.test',
			].map((to) => `account-wide to ${to}`),
		);
		expect(await subjectsUntil(bobAll, last)).toEqual(
			['bobs@ws.test', 'anyone@bob-domain.test', 'public@ws-public.test'].map((to) => `account-wide to ${to}`),
		);
		// Whole frames by default, as for listed addresses.
		const [first] = aliceAll.frames.slice(1).map((frame) => frame.email!);
		expect(first).toMatchObject({ inbox: 'off@ws.test', html: null, attachments: [] });
		expect(first.text).toEqual(expect.stringContaining('hello'));
		expect(first.raw).toEqual(expect.stringContaining('\r\nSubject: account-wide to off@ws.test\r\n'));
		expect(aliceAll.binary.every((binary) => !binary)).toBe(true);
		aliceAll.socket.close();
		bobAll.socket.close();
	});

	it('stops sending an account-wide listener the mail of an address its account has given up', async () => {
		await reserveForwarding(server, alice.key, 'leaving@ws.test', { enablews: false });
		const listener = await listen(server, `key=${enc(alice.key)}&scope=account`);
		expect(listener.frames[0]).toEqual({ status: 200, msg: 'Listening', scope: 'account', addresses: [], domains: [] });
		await server.send({ from: 'sender@example.org', to: 'leaving@ws.test', subject: 'while reserved', text: 'x' });
		expect(await subjectsUntil(listener, 'while reserved')).toEqual(['while reserved']);
		expect((await server.api(`/api/addresses/${enc('leaving@ws.test')}`, { method: 'DELETE', key: alice.key })).status).toBe(200);
		await server.send({ from: 'sender@example.org', to: 'leaving@ws.test', subject: 'once public', text: 'x' });
		await server.send({ from: 'sender@example.org', to: 'on@ws.test', subject: 'after', text: 'x' });
		expect(await subjectsUntil(listener, 'after')).toEqual(['while reserved', 'after']);
		listener.socket.close();
	});

	it('with frame=record sends the message record only, account-wide or for listed addresses', async () => {
		const accountWide = await listen(server, `key=${enc(alice.key)}&scope=account&frame=record`);
		const listed = await listen(server, `key=${enc(alice.key)}&addresses=${enc('on@ws.test')}&frame=record`);
		const whole = await listen(server, `key=${enc(alice.key)}&addresses=${enc('on@ws.test')}`);
		const [messageId] = await sendMail(server, {
			to: 'on@ws.test',
			subject: 'record only',
			html: '<p>Hi</p>',
			attachments: [{ filename: 'a.txt', content: 'attached text', contentType: 'text/plain' }],
		});
		const listing = await server.api<MessageRecord[]>(`/api/addresses/${enc('on@ws.test')}/messages`, { key: alice.key });
		const record = listing.body.find((message) => message._id === messageId);
		expect(record).toBeDefined();
		for (const listener of [accountWide, listed, whole]) await subjectsUntil(listener, 'record only');
		for (const listener of [accountWide, listed]) {
			expect(listener.frames.slice(1)).toEqual([{ status: 200, email: record }]);
			for (const field of ['text', 'html', 'headers', 'raw']) expect(listener.frames[1].email).not.toHaveProperty(field);
			expect(listener.binary).toEqual([false, false]);
		}
		// The same message in a whole frame, to a listener that did not ask for records, at the same time.
		expect(whole.frames[1].email).toMatchObject({
			_id: messageId,
			html: '<p>Hi</p>',
			attachments: [expect.objectContaining({ filename: 'a.txt' })],
		});
		for (const listener of [accountWide, listed, whole]) listener.socket.close();
	});

	it('refuses a scope or frame it does not know with a 400 that says which values it takes, before the upgrade', async () => {
		expect(await refusedUpgrade(`key=${enc(alice.key)}&scope=everything`)).toEqual({
			status: 400,
			body: { error: 'Bad Request', message: 'scope must be listed or account', field: 'scope' },
		});
		expect(await refusedUpgrade(`key=${enc(alice.key)}&scope=account&frame=headers`)).toEqual({
			status: 400,
			body: { error: 'Bad Request', message: 'frame must be full or record', field: 'frame' },
		});
	});

	it('refuses two different keys, one in the query and one in a header, with the 400 of the REST API, before the upgrade', async () => {
		expect(await refusedUpgrade(`key=${enc(alice.key)}`, { 'Service-Key': bob.key })).toEqual({
			status: 400,
			body: { error: 'Bad Request', message: 'The key query parameter and the key header hold different keys: send one key' },
		});
		// The same key twice is one key.
		const same = await listen(server, `key=${enc(alice.key)}&addresses=on%40ws.test`, { 'Service-Key': alice.key });
		expect(same.frames[0]).toMatchObject({ status: 200 });
		same.socket.close();
	});

	/** Opens the websocket expecting the server to answer the upgrade request with an HTTP error instead. */
	const refusedUpgrade = (query: string, headers?: Record<string, string>) =>
		new Promise<{ status: number; body: unknown }>((resolve, reject) => {
			const socket = new WebSocket(`${server.httpUrl.replace('http', 'ws')}/incoming-messages?${query}`, { headers });
			socket.on('open', () => reject(new Error('the websocket opened')));
			socket.on('unexpected-response', (_request, response) => {
				const chunks: Buffer[] = [];
				response.on('data', (chunk: Buffer) => chunks.push(chunk));
				response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }));
			});
		});
});

describe('websockets open at once', () => {
	let server: TestMailroom;
	let alice: { id: string; key: string };

	beforeAll(async () => {
		server = await startTestMailroom();
		alice = await server.createAccount('alice');
		await reserveForwarding(server, alice.key, 'on@ws.test', { enablews: true });
	});
	afterAll(() => server.stop());

	it(`keeps at most ${MAX_WEBSOCKETS_PER_ACCOUNT} websockets open per account and ${MAX_WEBSOCKETS_PER_IP} per client IP: the next gets a 429 frame and 1008`, async () => {
		const open = async (account: { key: string }, count: number) =>
			Promise.all(Array.from({ length: count }, () => listen(server, `key=${enc(account.key)}&addresses=on%40ws.test`)));
		const carols = await Promise.all(Array.from({ length: 2 }, (_, i) => server.createAccount(`carol-${i}`)));
		const held = await open(carols[0], MAX_WEBSOCKETS_PER_ACCOUNT);
		expect(held.every((listener) => listener.frames[0].status === 200)).toBe(true);
		const [overAccount] = await open(carols[0], 1);
		expect(overAccount.frames[0]).toEqual({ status: 429, msg: expect.stringMatching(/at most 100 at once/) });
		expect(await overAccount.closed).toBe(1008);
		held.push(...(await open(carols[1], MAX_WEBSOCKETS_PER_IP - MAX_WEBSOCKETS_PER_ACCOUNT)));
		const [overIp] = await open(alice, 1);
		expect(overIp.frames[0]).toEqual({ status: 429, msg: 'Too many websockets from 127.0.0.1: at most 200 at once' });
		expect(await overIp.closed).toBe(1008);
		// A closed one frees its place.
		held[0].socket.close();
		await held[0].closed;
		await waitFor(async () => {
			const [next] = await open(alice, 1);
			held.push(next);
			return next.frames[0].status === 200;
		}, 'a place freed');
		for (const listener of held) listener.socket.close();
		await Promise.all(held.map((listener) => listener.closed));
	});
});

describe('a websocket client that breaks the protocol', () => {
	it('is closed and logged as one warning line, without a stack trace, even before it sends a key', async () => {
		const lines: string[] = [];
		const server = await startTestMailroom(
			{},
			pino({ level: 'info', base: undefined }, { write: (line: string) => void lines.push(line) }),
		);
		try {
			const socket = net.connect(server.httpPort, '127.0.0.1');
			await new Promise((resolve) => socket.once('connect', resolve));
			socket.write(
				'GET /incoming-messages HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
					'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
			);
			await new Promise((resolve) => socket.once('data', resolve)); // 101 Switching Protocols
			socket.write(Buffer.from([0xff, 0xff, 0x00, 0x00])); // reserved bits set: not a frame
			await new Promise((resolve) => socket.once('close', resolve));
			const entries = () => lines.map((line) => JSON.parse(line) as { level: number; msg: string; err?: unknown });
			const broke = await waitFor(() => entries().find((entry) => /broke the protocol/.test(entry.msg)), 'the warning');
			expect(broke).toMatchObject({ level: 40, reason: 'Invalid WebSocket frame: RSV2 and RSV3 must be clear', ip: '127.0.0.1' });
			expect(entries().filter((entry) => entry.level >= 50 || entry.err)).toEqual([]);
		} finally {
			await server.stop();
		}
	});
});
