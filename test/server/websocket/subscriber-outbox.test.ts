import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { enc } from '../../helpers/messages';
import { waitFor } from '../../helpers/webhook-receiver';
import { listen, pausedReading, resumeReading } from '../../helpers/websocket';
import { reserveForwarding } from '../../helpers/addresses';
import { sevenBitMail } from '../../helpers/large-messages';
import { parseMetrics } from '../../helpers/metrics';

/** The websocket clients the server counts (its metrics' gauge). */
async function subscribers(server: TestMailroom): Promise<number> {
	const response = await fetch(`${server.metricsUrl!}/metrics`);
	return parseMetrics(await response.text()).value('mailroom_websocket_subscribers') ?? -1;
}

describe('a websocket client that stops reading', () => {
	let server: TestMailroom;
	let alice: { id: string; key: string };

	beforeAll(async () => {
		server = await startTestMailroom();
		alice = await server.createAccount('alice');
		await reserveForwarding(server, alice.key, 'on@ws.test', { enablews: true });
	});
	afterAll(() => server.stop());

	it('is dropped instead of buffered for without bound', async () => {
		const listener = await listen(server, `key=${enc(alice.key)}&addresses=${enc('on@ws.test')}`);
		pausedReading(listener); // frames pile up in the kernel, then in the server
		// Frames of about 50 KB (the text three times: text, strippedText and raw), each made once and sent whole (under 64 KB):
		// 400 of them are 20 MB, far beyond the 8 MB a client may leave unread. A larger frame is made as the client reads it,
		// and only the number of frames waiting counts against it (the next test).
		const body = `${randomBytes(45).toString('base64')}\n`.repeat(250);
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
});

describe('websocket frames of a large message, sent as clients read them', () => {
	let server: TestMailroom;
	let owner: { id: string; key: string };
	/**
	 * 12 MB of text: its frame (text and raw source, 24 MB) is more than the kernel's socket buffers hold. Lines of ASCII
	 * short enough to go as they are (7bit): quoted-printable would cost the sender seconds per message, and is not tested here.
	 */
	const largeText = `${'x'.repeat(74)}\n`.repeat(160_000);
	/**
	 * How long a wait for frames may take before the test gives up: each waits for an event (frames arriving, a socket
	 * closing), and a 12 MB message takes many seconds to store and frame on a loaded machine (on PostgreSQL most).
	 */
	const GIVE_UP_MS = 80_000;

	beforeAll(async () => {
		server = await startTestMailroom({ metricsPort: 0 });
		owner = await server.createAccount('large');
		await reserveForwarding(server, owner.key, 'big@ws.test', { enablews: true });
	});
	afterAll(() => server.stop());

	it('reach a slow client complete and in order, without holding up a fast one', async () => {
		const fast = await listen(server, `key=${enc(owner.key)}&addresses=big@ws.test`);
		const slow = await listen(server, `key=${enc(owner.key)}&addresses=big@ws.test`);
		pausedReading(slow);
		await server.send(sevenBitMail({ from: 'big@example.org', to: 'big@ws.test', subject: 'large', text: largeText }));
		await server.send({ from: 'small@example.org', to: 'big@ws.test', subject: 'small', text: 'after it' });
		await waitFor(() => fast.frames.length === 3, 'both frames on the fast client', GIVE_UP_MS);
		expect(slow.frames).toHaveLength(1);
		resumeReading(slow);
		await waitFor(() => slow.frames.length === 3, 'both frames on the slow client', GIVE_UP_MS);
		for (const { frames } of [fast, slow]) {
			expect(frames.slice(1).map((frame) => frame.email!.subject)).toEqual(['large', 'small']);
			expect(frames[1].email!.text).toBe(largeText);
		}
		fast.socket.close();
		slow.socket.close();
	}, 180_000);

	it('drop a client that stalls on one while 1,000 more frames wait behind it', async () => {
		const listener = await listen(server, `key=${enc(owner.key)}&addresses=big@ws.test`);
		pausedReading(listener);
		await server.send(sevenBitMail({ from: 'big@example.org', to: 'big@ws.test', subject: 'stalled', text: largeText }));
		// Small frames, a few MB in all: only their number drops the client, not their bytes.
		for (let i = 0; i < 1001; i += 50) {
			const batch = Array.from({ length: Math.min(50, 1001 - i) }, (_, j) => `waiting ${i + j}`);
			await Promise.all(batch.map((subject) => server.send({ from: 'small@example.org', to: 'big@ws.test', subject, text: 'x' })));
		}
		// The frames are made one message after another, after the 250s: on a loaded machine they may still be on their way when
		// the last 250 comes. The client reads again once the server has dropped it (it is no longer counted), not before.
		await waitFor(async () => (await subscribers(server)) === 0, 'the server to drop the stalled client', GIVE_UP_MS);
		resumeReading(listener);
		expect(await listener.closed).toBe(1006); // terminated, no close frame
		expect(listener.frames.length).toBeLessThan(1003);
	}, 180_000);

	it('close the socket with 1011 when the message is deleted after its frame has begun, and send the next ones', async () => {
		const listener = await listen(server, `key=${enc(owner.key)}&addresses=big@ws.test`);
		let closedWith: number | undefined;
		void listener.closed.then((code) => (closedWith = code));
		const tcp = pausedReading(listener);
		await server.send(sevenBitMail({ from: 'big@example.org', to: 'big@ws.test', subject: 'deleted while sent', text: largeText }));
		const [stored] = (await server.api<MessageRecord[]>('/api/addresses/big@ws.test/messages', { key: owner.key })).body;
		expect(stored.subject).toBe('deleted while sent');
		// Take the first 64 KB of the frame (nothing else sent to this client is that large), proof that it has begun, then read
		// nothing more until the message is gone.
		const begun = new Promise<void>((resolve) => {
			let bytes = 0;
			const count = (chunk: Buffer) => {
				bytes += chunk.length;
				if (bytes < 64 * 1024) return;
				tcp.off('data', count);
				resolve();
			};
			tcp.on('data', count);
		});
		tcp.resume();
		await begun;
		tcp.pause();
		expect((await server.api(`/api/addresses/big@ws.test/messages/${stored._id}`, { method: 'DELETE', key: owner.key })).status).toBe(200);
		resumeReading(listener);
		await waitFor(() => closedWith !== undefined || listener.frames.length > 1, 'the socket closed or the frame whole', GIVE_UP_MS);
		expect(closedWith).toBe(1011);
		expect(listener.frames).toHaveLength(1); // only "Listening": the partial frame is not a message

		const next = await listen(server, `key=${enc(owner.key)}&addresses=big@ws.test`);
		await server.send({ from: 'small@example.org', to: 'big@ws.test', subject: 'next', text: 'still here' });
		await waitFor(() => next.frames.length === 2, 'the next frame', GIVE_UP_MS);
		expect(next.frames[1].email!.subject).toBe('next');
		next.socket.close();
	}, 180_000);
});
