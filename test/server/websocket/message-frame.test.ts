import { describe, expect, it } from '@jest/globals';
import { enc, omit } from '../../helpers/messages';
import { SpoolingPair } from '../../helpers/spooling-pair';
import { waitFor } from '../../helpers/webhook-receiver';
import { listen, type FrameEmail } from '../../helpers/websocket';
import { reserveForwarding } from '../../helpers/addresses';

describe('websocket frames of a large message', () => {
	it('are made from its stored pieces in fragments, arrive as one frame in order, and equal those of the same message kept in memory', async () => {
		const pair = await SpoolingPair.start();
		try {
			// Multi-byte characters, quotes and line breaks everywhere, so the pieces and fragments cut through them.
			const text = Array.from({ length: 50_000 }, (_, i) => `Zürich 😀 “line” ${i}\\ "quoted"\n`).join('');
			const emails: FrameEmail[] = [];
			for (const server of [pair.spooling, pair.inMemory]) {
				const owner = await server.createAccount('large');
				await reserveForwarding(server, owner.key, 'big@ws.test', { enablews: true });
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
				// The large one in fragments too: a text frame, as a browser's JSON.parse(event.data) needs.
				expect(listener.binary).toEqual([false, false, false]);
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
			expect(streamed.text.trim()).toBe(text.trim());
			expect(await pair.bodyPieces(streamed._id, 'text')).toBeGreaterThan(1);
			// Each server's own: the record, its time and its thread (of an account of that server).
			const sameMessage = (email: FrameEmail) => omit(email, '_id', 'received', 'threadId');
			expect(sameMessage(streamed)).toEqual(sameMessage(whole));
		} finally {
			await pair.stop();
		}
	}, 90_000); // two servers, and nodemailer's quoted-printable of 2.5 MB twice: over 30 s on a busy machine
});
