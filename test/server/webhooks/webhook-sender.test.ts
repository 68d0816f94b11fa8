import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { WebhookSender, parseRetryAfter } from 'mailroom-server/dist/webhooks/webhook-sender';
import { piecedBody } from 'mailroom-server/dist/bytes/pieced-body';
import { DeletedWhileReadError, storedPieces } from 'mailroom-server/dist/bytes/stored-bytes';
import { WebhookReceiver } from '../../helpers/webhook-receiver';
import { collect } from '../../helpers/cuts';
import { sendMail } from '../../helpers/messages';
import { waitForStatus, webhookSetup } from '../../helpers/webhooks';
import { reserveForwarding } from '../../helpers/addresses';

describe('webhook request bodies in pieces', () => {
	let receiver: WebhookReceiver;
	let sender: WebhookSender;
	beforeAll(async () => {
		receiver = new WebhookReceiver();
		await receiver.listen();
		// No test here is about the time limit: a body of 10 MB may take seconds on a loaded machine.
		sender = new WebhookSender({ timeoutMs: 30_000 });
	});
	afterAll(async () => {
		sender.close();
		await receiver.close();
	});
	beforeEach(() => {
		receiver.requests.length = 0;
	});

	it('sends many pieces, more than a socket buffers, with the measured length, making them again after measuring', async () => {
		let passes = 0;
		const body = await piecedBody(function* () {
			passes++;
			for (let i = 0; i < 40; i++) yield Buffer.alloc(256 * 1024, String.fromCharCode(97 + (i % 26)));
		});
		expect(body.length).toBe(40 * 256 * 1024);
		const result = await sender.send(receiver.url, body, {}, 'allowed');
		expect(result.statusCode).toBe(200);
		expect(passes).toBe(2);
		const [request] = receiver.requests;
		expect(Number(request.headers['content-length'])).toBe(body.length);
		expect(request.body).toBe(Array.from({ length: 40 }, (_, i) => String.fromCharCode(97 + (i % 26)).repeat(256 * 1024)).join(''));
	});

	it('keeps a small body after measuring it instead of making it again', async () => {
		let passes = 0;
		const body = await piecedBody(() => (passes++, [Buffer.from('{"a":'), Buffer.from('1}')]));
		expect((await sender.send(receiver.url, body, {}, 'allowed')).statusCode).toBe(200);
		expect(passes).toBe(1);
		expect(receiver.requests[0].body).toBe('{"a":1}');
	});

	it('fails the attempt, without hanging, when the body comes out shorter than measured (its message deleted meanwhile)', async () => {
		let pass = 0;
		const body = await piecedBody(function* () {
			pass++;
			for (let i = 0; i < (pass === 1 ? 8 : 3); i++) yield Buffer.alloc(512 * 1024, 'x');
		});
		const result = await sender.send(receiver.url, body, {}, 'allowed');
		expect(result.statusCode).toBeUndefined();
		expect(result.error).toBe('the message changed while it was being sent');
		await new Promise((resolve) => setTimeout(resolve, 100));
		expect(receiver.requests).toEqual([]);
	});

	it('fails the attempt when stored pieces end early while they are sent (deleted meanwhile), and measuring them throws', async () => {
		let pieces = 3;
		const stored = {
			length: 3 * 512 * 1024,
			piece: (seq: number) => Promise.resolve(seq < pieces ? Buffer.alloc(512 * 1024, 'y') : undefined),
		};
		const body = await piecedBody(() => storedPieces(stored));
		pieces = 1;
		const result = await sender.send(receiver.url, body, {}, 'allowed');
		expect(result.error).toBe('the message was deleted while it was being read');
		await expect(piecedBody(() => storedPieces(stored))).rejects.toBeInstanceOf(DeletedWhileReadError);
		expect(await collect(storedPieces(Buffer.from('whole')))).toEqual([Buffer.from('whole')]);
	});
});

describe('webhook redirects in a running server', () => {
	const setup = webhookSetup();

	it('does not follow redirects', async () => {
		const { server, receiver, account: alice } = setup;
		const target = new WebhookReceiver();
		await target.listen();
		receiver.reply = () => ({ status: 302, headers: { location: `${target.url}/elsewhere` } });
		await reserveForwarding(server, alice.key, 'redirect@hooks.test', { webhook: receiver.url });
		const [messageId] = await sendMail(server, { to: 'redirect@hooks.test' });
		const failed = await waitForStatus(server, alice.key, 'redirect@hooks.test', messageId, 'failed');
		expect(failed.lastStatusCode).toBe(302);
		expect(failed.lastError).toMatch(/redirects are not followed/);
		expect(target.requests).toHaveLength(0);
		await target.close();
	});
});

describe('Retry-After', () => {
	it('reads seconds and HTTP dates, and ignores anything else', () => {
		const now = Date.parse('2026-11-22T10:00:00Z');
		expect(parseRetryAfter('120', now)).toBe(120_000);
		expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
		expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
		expect(parseRetryAfter('soon', now)).toBeUndefined();
		expect(parseRetryAfter(undefined, now)).toBeUndefined();
	});
});

describe('webhook response bodies', () => {
	it('are read as far as the 16 KB kept, then the connection is closed: a receiver answering without end is not read in full', async () => {
		let written = 0;
		let closed!: () => void;
		const gone = new Promise<void>((resolve) => (closed = resolve));
		// Answers 200 with a body that never ends, as fast as it is read, until the connection closes.
		const endless = createServer((request, response) => {
			request.resume();
			response.writeHead(200, { 'content-type': 'text/plain' });
			const chunk = Buffer.alloc(64 * 1024, 'z');
			const more = () => {
				while (!response.destroyed && response.write(chunk)) written += chunk.length;
			};
			response.on('drain', more);
			response.on('close', closed);
			more();
		});
		await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
		const sender = new WebhookSender({ timeoutMs: 30_000 });
		try {
			const body = await piecedBody(() => [Buffer.from('{}')]);
			const result = await sender.send(`http://127.0.0.1:${(endless.address() as AddressInfo).port}/`, body, {}, 'allowed');
			expect(result.statusCode).toBe(200);
			expect(result.response!.body.head).toEqual(Buffer.alloc(16 * 1024, 'z'));
			expect(result.response!.body.bytes).toBeGreaterThan(16 * 1024);
			await gone;
			// What the kernel's buffers held when the connection closed, not a body without end.
			expect(written).toBeLessThan(64 * 1024 * 1024);
		} finally {
			sender.close();
			endless.closeAllConnections();
			await new Promise((resolve) => endless.close(resolve));
		}
	});
});
