import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { AttachmentMeta } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom } from '../../helpers/mailroom';
import { expectError } from '../../helpers/messages';
import { attachmentBytes, credits, postOutgoing, receivedCopy, senderAccount, sendingSetup } from '../../helpers/outgoing';

describe('the attachments of a send', () => {
	const setup = sendingSetup();

	it('arrive byte for byte in the local inboxes (to, cc and bcc) and through the relay', async () => {
		const { server, relay, alice } = setup;
		const binary = randomBytes(100_000);
		const text = Buffer.from('Line one\r\nLine two, café\r\n');
		const pixel = randomBytes(300);
		const relayedBefore = relay.received.length;
		const res = await postOutgoing(server, alice.key, {
			from: 'alice@local.test',
			to: 'files@local.test',
			cc: 'files-cc@local.test',
			bcc: ['files-bcc@local.test', 'files@remote.test'],
			subject: 'files',
			text: 'three files',
			html: '<p>inline: <img src="cid:pixel@mailroom.test"></p>',
			attachments: [
				{ filename: 'data.bin', content: binary.toString('base64') },
				{ filename: 'notes – März.txt', contentType: 'text/plain; charset=utf-8', content: text.toString('base64') },
				{ filename: 'pixel.png', contentType: 'image/png', content: pixel.toString('base64'), contentId: 'pixel@mailroom.test' },
			],
		});
		expect(res.status).toBe(200);
		expect(res.body.status).toBe('delivered');

		for (const inbox of ['files@local.test', 'files-cc@local.test', 'files-bcc@local.test']) {
			const { record } = await receivedCopy(server, inbox);
			const metas = (await server.api<AttachmentMeta[]>(`/api/addresses/${inbox}/messages/${record._id}/attachments`)).body;
			// The inline image sits with the HTML (multipart/related), ahead of the others.
			expect(metas.map((m) => [m.fileName, m.contentType, m.length, m.contentId])).toEqual([
				['pixel.png', 'image/png', pixel.length, '<pixel@mailroom.test>'],
				['data.bin', 'application/octet-stream', binary.length, null],
				['notes – März.txt', 'text/plain', text.length, null],
			]);
			const served = await Promise.all(metas.map((m) => attachmentBytes(server, inbox, record._id, m.checksum)));
			expect(served.map((bytes) => bytes.toString('hex'))).toEqual([pixel, binary, text].map((bytes) => bytes.toString('hex')));
		}
		const [relayed] = (await relay.waitFor(relayedBefore + 1)).slice(relayedBefore);
		expect(relayed.parsed.attachments.map((a) => a.content.toString('hex'))).toEqual([pixel, binary, text].map((b) => b.toString('hex')));
	});

	it('refuses with 400 content that is not base64, too many attachments, and fields an attachment does not have', async () => {
		const { server, alice } = setup;
		const before = await credits(server, alice.key);
		const send = (attachments: unknown) =>
			postOutgoing(server, alice.key, { from: 'alice@local.test', to: 'refused@local.test', text: 't', attachments });
		for (const content of ['not base64!', 'QUJD\r\nRE', 'QUJDR', 'QU=JD', 'QUJD===', 'QUJD RA==']) {
			expectError(
				await send([{ filename: 'a.txt', content }]),
				400,
				/^attachments\[0\]\.content is not base64 \(RFC 4648/,
				'attachments[0].content',
			);
		}
		const one = { filename: 'a.txt', content: 'QUJD' };
		expectError(await send(Array.from({ length: 21 }, () => one)), 400, /^attachments must have at most 20 items$/, 'attachments');
		expectError(
			await send([{ ...one, name: 'a.txt' }]),
			400,
			/^attachments\[0\]\.name is not a field of attachments\[0\]; /,
			'attachments[0].name',
		);
		expectError(await send([{ content: 'QUJD' }]), 400, /filename/);
		expectError(
			await send([{ ...one, filename: 'a\r\nb.txt' }]),
			400,
			/^attachments\[0\]\.filename must be a file name without control characters$/,
			'attachments[0].filename',
		);
		expectError(
			await send([{ ...one, contentType: 'text/plain\r\nBcc: x@remote.test' }]),
			400,
			/^attachments\[0\]\.contentType must be a MIME type/,
			'attachments[0].contentType',
		);
		expectError(
			await send([{ ...one, contentId: '<id@x>' }]),
			400,
			/^attachments\[0\]\.contentId must be a Content-ID/,
			'attachments[0].contentId',
		);
		expect(await credits(server, alice.key)).toBe(before);
		expect((await server.api('/api/addresses/refused@local.test/messages')).body).toEqual([]);
	});
});

describe('attachments against --max-message-size', () => {
	it('takes a body carrying a message just under the limit, refuses one composing over it with 413, and a body over the send limit with 413', async () => {
		const maxMessageSize = 3 * 1024 * 1024;
		const server = await startTestMailroom({ domains: ['local.test'], maxMessageSize });
		try {
			const account = await senderAccount(server, 'a', 'a@local.test', 5);
			const send = (bytes: number) =>
				postOutgoing(server, account.key, {
					from: 'a@local.test',
					to: 'big@local.test',
					subject: 'big',
					text: 't',
					attachments: [{ filename: 'big.bin', content: randomBytes(bytes).toString('base64') }],
				});
			// Base64 in the JSON body is larger than the 1 MB a JSON body may otherwise be.
			const under = await send(2 * 1024 * 1024);
			expect(under.status).toBe(200);
			expect(under.body.status).toBe('delivered');
			const { record } = await receivedCopy(server, 'big@local.test');
			expect(record.size).toBeLessThanOrEqual(maxMessageSize);

			expectError(
				await send(2.5 * 1024 * 1024),
				413,
				/^The composed message is \d+ bytes, more than the maximum message size of 3145728 bytes$/,
			);
			const limit = 2 * maxMessageSize + 1024 * 1024;
			expectError(await send(limit), 413, new RegExp(`^The request body is larger than ${limit} bytes, the most this endpoint reads$`));
			expect(await credits(server, account.key)).toBe(4);
		} finally {
			await server.stop();
		}
	});
});
