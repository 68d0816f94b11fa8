import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { waitFor } from '../../helpers/webhook-receiver';
import { SpoolingPair } from '../../helpers/spooling-pair';

const enc = encodeURIComponent;

interface Listener {
	frames: { status: number; msg?: string; addresses?: string[]; domains?: string[]; email?: Record<string, unknown> }[];
	closed: Promise<number>;
	socket: WebSocket;
}

/** Opens /incoming-messages and collects every frame. */
async function listen(server: TestMailroom, query: string): Promise<Listener> {
	const socket = new WebSocket(`${server.httpUrl.replace('http', 'ws')}/incoming-messages?${query}`);
	const frames: Listener['frames'] = [];
	socket.on('message', (data) => frames.push(JSON.parse(data.toString())));
	const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
	await waitFor(() => frames.length > 0, 'the first frame');
	return { frames, closed, socket };
}

/** The client stops reading: what the server sends stays in the kernel's buffers, then in the server. */
function pausedReading(listener: Listener): import('node:net').Socket {
	const tcp = (listener.socket as unknown as { _socket: import('node:net').Socket })._socket;
	tcp.pause();
	return tcp;
}

function resumeReading(listener: Listener): void {
	(listener.socket as unknown as { _socket: import('node:net').Socket })._socket.resume();
}

async function reserve(server: TestMailroom, key: string, email: string, enablews: boolean): Promise<void> {
	expect((await server.api(`/api/addresses/${enc(email)}`, { method: 'POST', key })).status).toBe(200);
	const put = await server.api(`/api/private-address-forwarding/${enc(email)}`, { method: 'PUT', key, body: { enablews } });
	expect(put.status).toBe(200);
	expect(put.body.enablews).toBe(enablews);
}

describe('websocket /incoming-messages', () => {
	let server: TestMailroom;
	let alice: { id: string; key: string };
	let bob: { id: string; key: string };

	beforeAll(async () => {
		server = await startTestMailroom();
		alice = server.createAccount('alice');
		bob = server.createAccount('bob');
		await reserve(server, alice.key, 'on@ws.test', true);
		await reserve(server, alice.key, 'off@ws.test', false);
		await reserve(server, bob.key, 'bobs@ws.test', true);
		server.domains.claim('alice-domain.test', alice.id);
		await reserve(server, alice.key, 'all@alice-domain.test', true);
		server.db.prepare('UPDATE addresses SET catch_all = ? WHERE email = ?').run('alice-domain.test', 'all@alice-domain.test');
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
		expect((first.headers as Record<string, string>).subject).toBe('to on@ws.test');
		expect(first.raw).toEqual(expect.stringContaining('\r\nSubject: to on@ws.test\r\n'));
		for (const field of [
			'_id',
			'to',
			'cc',
			'bcc',
			'originalInbox',
			'received',
			'size',
			'attachments',
			'ip',
			'via',
			'folder',
			'labels',
			'read',
			'rtls',
			'links',
			'spam',
		]) {
			expect(first).toHaveProperty(field);
		}
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
		await reserve(server, alice.key, 'quiet@alice-domain.test', false);
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
		await reserve(server, alice.key, 'on@ws.test', false);
		await server.send({ from: 'sender@example.org', to: 'on@ws.test', subject: 'while off', text: 'x' });
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(listener.frames.map((frame) => frame.email?.subject)).toEqual([undefined, 'while on']);
		await reserve(server, alice.key, 'on@ws.test', true);
		listener.socket.close();
	});

	it('drops a client that stops reading instead of buffering for it without bound', async () => {
		const listener = await listen(server, `key=${enc(alice.key)}&addresses=${enc('on@ws.test')}`);
		pausedReading(listener); // frames pile up in the kernel, then in the server
		// Frames of about 50 KB, each made once and sent whole: 400 of them are 20 MB, far beyond the 8 MB a client may leave unread.
		const body = `${randomBytes(45).toString('base64')}\n`.repeat(400);
		const sent = 400;
		for (let i = 0; i < sent; i += 20) {
			await Promise.all(
				Array.from({ length: 20 }, (_, j) =>
					server.send({ from: 'sender@example.org', to: 'on@ws.test', subject: `frame ${i + j}`, text: body }),
				),
			);
		}
		resumeReading(listener);
		expect(await listener.closed).toBe(1006); // terminated, no close frame
		expect(listener.frames.length - 1).toBeLessThan(sent);
	}, 90_000);

	it('answers an unknown key with a 401 frame and closes', async () => {
		const listener = await listen(server, 'key=mr_not-a-real-key&addresses=on%40ws.test');
		expect(listener.frames[0]).toMatchObject({ status: 401 });
		expect(await listener.closed).toBe(1008);
		const noKey = await listen(server, 'addresses=on%40ws.test');
		expect(noKey.frames[0]).toMatchObject({ status: 401 });
		expect(await noKey.closed).toBe(1008);
	});

	it('answers a plain HTTP request with 426 Upgrade Required', async () => {
		const response = await server.api(`/incoming-messages?key=${enc(alice.key)}`);
		expect(response.status).toBe(426);
		expect(response.body).toEqual({ error: 'Upgrade Required', message: expect.stringContaining('websocket') });
	});
});

describe('websocket frames of a large message', () => {
	it('are made from its stored pieces in fragments, arrive as one frame in order, and equal those of the same message kept in memory', async () => {
		const pair = await SpoolingPair.start();
		try {
			// Multi-byte characters, quotes and line breaks everywhere, so the pieces and fragments cut through them.
			const text = Array.from({ length: 50_000 }, (_, i) => `Zürich 😀 “line” ${i}\\ "quoted"\n`).join('');
			const emails = [];
			for (const server of [pair.spooling, pair.inMemory]) {
				const owner = server.createAccount('large');
				await reserve(server, owner.key, 'big@ws.test', true);
				const listener = await listen(server, `key=${enc(owner.key)}&addresses=big@ws.test`);
				await server.send({
					from: 'big@example.org',
					to: 'big@ws.test',
					subject: 'Large',
					text,
					messageId: '<large@ws.test>',
					date: new Date('2026-11-22T10:00:00Z'),
				});
				await server.send({ from: 'small@example.org', to: 'big@ws.test', subject: 'Small', text: 'after it' });
				await waitFor(() => listener.frames.length >= 3, 'both message frames');
				const [large, small] = listener.frames.slice(1).map((frame) => frame.email!);
				expect(small.subject).toBe('Small');
				const raw = await fetch(`${server.httpUrl}/api/raw/big@ws.test/${large._id}`, { headers: { 'Service-Key': owner.key } });
				expect(large.raw).toBe(
					Buffer.from(await raw.arrayBuffer())
						.toString('utf8')
						.replace(/\r?\n/g, '\r\n'),
				);
				emails.push(large);
				listener.socket.close();
			}
			const [streamed, whole] = emails;
			expect((streamed.text as string).trim()).toBe(text.trim());
			expect(pair.bodyPieces(streamed._id as string, 'text')).toBeGreaterThan(1);
			const sameMessage = ({ _id, received, ...rest }: Record<string, unknown>) => rest; // eslint-disable-line @typescript-eslint/no-unused-vars
			expect(sameMessage(streamed)).toEqual(sameMessage(whole));
		} finally {
			await pair.stop();
		}
	});
});

describe('websocket frames of a large message, sent as clients read them', () => {
	let server: TestMailroom;
	let owner: { id: string; key: string };
	/** 12 MB of text: its frame (text and raw source, 24 MB) is more than the kernel's socket buffers hold. */
	const largeText = `${'x'.repeat(99)}\n`.repeat(120_000);

	beforeAll(async () => {
		server = await startTestMailroom();
		owner = server.createAccount('large');
		await reserve(server, owner.key, 'big@ws.test', true);
	});
	afterAll(() => server.stop());

	it('reach a slow client complete and in order, without holding up a fast one', async () => {
		const fast = await listen(server, `key=${enc(owner.key)}&addresses=big@ws.test`);
		const slow = await listen(server, `key=${enc(owner.key)}&addresses=big@ws.test`);
		pausedReading(slow);
		await server.send({ from: 'big@example.org', to: 'big@ws.test', subject: 'large', text: largeText });
		await server.send({ from: 'small@example.org', to: 'big@ws.test', subject: 'small', text: 'after it' });
		await waitFor(() => fast.frames.length === 3, 'both frames on the fast client');
		expect(slow.frames).toHaveLength(1);
		resumeReading(slow);
		await waitFor(() => slow.frames.length === 3, 'both frames on the slow client');
		for (const { frames } of [fast, slow]) {
			expect(frames.slice(1).map((frame) => frame.email!.subject)).toEqual(['large', 'small']);
			expect(frames[1].email!.text).toBe(largeText);
		}
		fast.socket.close();
		slow.socket.close();
	});

	it('drop a client that stalls on one while 1,000 more frames wait behind it', async () => {
		const listener = await listen(server, `key=${enc(owner.key)}&addresses=big@ws.test`);
		pausedReading(listener);
		await server.send({ from: 'big@example.org', to: 'big@ws.test', subject: 'stalled', text: largeText });
		// Small frames, a few MB in all: only their number drops the client, not their bytes.
		for (let i = 0; i < 1001; i += 50) {
			const batch = Array.from({ length: Math.min(50, 1001 - i) }, (_, j) => `waiting ${i + j}`);
			await Promise.all(batch.map((subject) => server.send({ from: 'small@example.org', to: 'big@ws.test', subject, text: 'x' })));
		}
		let closedWith: number | undefined;
		void listener.closed.then((code) => (closedWith = code));
		resumeReading(listener);
		await waitFor(() => closedWith !== undefined || listener.frames.length === 1003, 'the socket closed or every frame sent');
		expect(closedWith).toBe(1006); // terminated, no close frame
		expect(listener.frames.length).toBeLessThan(1003);
	}, 90_000);

	it('close the socket with 1011 when the message is deleted after its frame has begun, and send the next ones', async () => {
		const listener = await listen(server, `key=${enc(owner.key)}&addresses=big@ws.test`);
		let closedWith: number | undefined;
		void listener.closed.then((code) => (closedWith = code));
		const tcp = pausedReading(listener);
		await server.send({ from: 'big@example.org', to: 'big@ws.test', subject: 'deleted while sent', text: largeText });
		const [stored] = (await server.api('/api/addresses/big@ws.test/messages', { key: owner.key })).body as {
			_id: string;
			subject: string;
		}[];
		expect(stored.subject).toBe('deleted while sent');
		// Take the first bytes of the frame, proof that it has begun, then read nothing more until the message is gone.
		const begun = new Promise((resolve) => tcp.once('data', resolve));
		tcp.resume();
		await begun;
		tcp.pause();
		expect((await server.api(`/api/addresses/big@ws.test/messages/${stored._id}`, { method: 'DELETE', key: owner.key })).status).toBe(200);
		tcp.resume();
		await waitFor(() => closedWith !== undefined || listener.frames.length > 1, 'the socket closed or the frame whole');
		expect(closedWith).toBe(1011);
		expect(listener.frames).toHaveLength(1); // only "Listening": the partial frame is not a message

		const next = await listen(server, `key=${enc(owner.key)}&addresses=big@ws.test`);
		await server.send({ from: 'small@example.org', to: 'big@ws.test', subject: 'next', text: 'still here' });
		await waitFor(() => next.frames.length === 2, 'the next frame');
		expect(next.frames[1].email!.subject).toBe('next');
		next.socket.close();
	});
});
