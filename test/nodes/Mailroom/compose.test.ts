import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { simpleParser } from 'mailparser';
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { enc } from '../../helpers/messages';
import { nodeJson, runNode, startNodeFixture, type NodeFixture } from '../../helpers/n8n';

/**
 * What Send and Reply share (compose.ts): Email Format, copies, Reply-To, sender name, headers and attachments from
 * binary data, through Email → Send in n8n-core's real ExecuteContext against a real server that delivers locally.
 */
describe('Mailroom node: composing an email', () => {
	let fixture: NodeFixture;
	beforeAll(async () => {
		fixture = await startNodeFixture({ account: 'composer', credits: 50 });
		await fixture.server.addresses.reserve('news@example.test', fixture.account.id);
	});
	afterAll(() => fixture.stop());

	const send = (parameters: INodeParameters, items?: INodeExecutionData[]) =>
		nodeJson(fixture.n8n, { resource: 'email', operation: 'send', from: 'news@example.test', subject: 'Hello', ...parameters }, { items });
	const api = <Body>(path: string) => fixture.server.api<Body>(path, { key: fixture.account.key });
	/** The newest message of an inbox: its record, headers, raw source and HTML as received. */
	const received = async (inbox: string) => {
		const [message] = (await api<MessageRecord[]>(`/api/addresses/${enc(inbox)}/messages?limit=1`)).body;
		const path = `/api/addresses/${enc(inbox)}/messages/${message._id}`;
		return {
			message,
			path,
			headers: (await api<Record<string, string[]>>(`${path}/headers`)).body,
			raw: (await api(`/api/raw/${enc(inbox)}/${message._id}`)).text,
			html: (await api(`/api/dirty/${enc(inbox)}/${message._id}`)).text,
		};
	};

	it('Email Format: Text sends only the text, HTML only the HTML, Both both', async () => {
		const body = { text: 'Plain words', html: '<p>Marked <b>up</b></p>' };
		await send({ to: 'format-text@example.test', emailFormat: 'text', ...body });
		await send({ to: 'format-html@example.test', emailFormat: 'html', ...body });
		await send({ to: 'format-both@example.test', emailFormat: 'both', ...body });
		const [text, html, both] = await Promise.all(['text', 'html', 'both'].map((format) => received(`format-${format}@example.test`)));
		expect(text.raw).toContain('Plain words');
		expect(text.raw).not.toContain('<b>up</b>');
		expect(html.raw).not.toContain('Plain words');
		expect(html.html.trimEnd()).toBe('<p>Marked <b>up</b></p>');
		expect(both.raw).toMatch(/^Content-Type: multipart\/alternative/m);
		expect(both.raw).toContain('Plain words');
		expect(both.html).toBe('<p>Marked <b>up</b></p>');
	});

	it('CC and BCC get the mail, each for one credit; BCC appears in no copy of it', async () => {
		const [sent] = await send({
			to: 'main@example.test',
			text: 'For all of you',
			options: { ccEmail: 'copy1@example.test, "Doe, Jane" <copy2@example.test>', bccEmail: 'hidden@example.test' },
		});
		expect(sent).toMatchObject({
			to: ['main@example.test'],
			cc: ['copy1@example.test', 'copy2@example.test'],
			bcc: ['hidden@example.test'],
			status: 'delivered',
			recipients: [
				{ address: 'main@example.test', field: 'to', status: 'delivered' },
				{ address: 'copy1@example.test', field: 'cc', status: 'delivered' },
				{ address: 'copy2@example.test', field: 'cc', status: 'delivered' },
				{ address: 'hidden@example.test', field: 'bcc', status: 'delivered' },
			],
		});
		const credits = sent.creditsRemaining as number;
		for (const inbox of ['main@example.test', 'copy1@example.test', 'copy2@example.test', 'hidden@example.test']) {
			const { message, raw } = await received(inbox);
			expect(message).toMatchObject({
				to: [{ address: 'main@example.test' }],
				cc: expect.arrayContaining([{ address: 'copy2@example.test', name: 'Doe, Jane' }]),
			});
			expect(raw).not.toContain('hidden@example.test');
			expect(raw).not.toMatch(/^Bcc:/im);
		}
		const [next] = await send({ to: 'main@example.test', text: 'one more' });
		expect(next.creditsRemaining).toBe(credits - 1);
	});

	it('Sender Name, Reply To and Headers become the From name, Reply-To and extra header lines', async () => {
		await send({
			to: 'headers@example.test',
			text: 'hi',
			options: {
				senderName: 'Newsroom "Daily", Inc.',
				replyTo: 'Desk <desk@example.test>',
				headers: {
					header: [
						{ name: 'X-Campaign', value: 'spring' },
						{ name: 'List-Unsubscribe', value: '<mailto:unsub@example.test>' },
					],
				},
			},
		});
		const { message, headers } = await received('headers@example.test');
		expect(message.from).toEqual([{ address: 'news@example.test', name: 'Newsroom "Daily", Inc.' }]);
		expect(headers['reply-to']).toEqual(['Desk <desk@example.test>']);
		expect(headers['x-campaign']).toEqual(['spring']);
		expect(headers['list-unsubscribe']).toEqual(['<mailto:unsub@example.test>']);
	});

	it('a header Mailroom sets itself is refused with its 400', async () => {
		await expect(
			send({ to: 'headers@example.test', text: 'hi', options: { headers: { header: [{ name: 'Subject', value: 'forged' }] } } }),
		).rejects.toMatchObject({ name: 'NodeApiError', httpCode: '400', message: expect.stringMatching(/subject/i) });
	});

	it('Attachments: the binary properties named arrive as attachments byte for byte, with their file names and types', async () => {
		const pdf = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x10, 0x80, 0x0d, 0x0a]);
		const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
		const items = [
			{
				json: {},
				binary: {
					invoice: { data: pdf.toString('base64'), mimeType: 'application/pdf', fileName: 'invoice.pdf' },
					logo: { data: png.toString('base64'), mimeType: 'image/png', fileName: 'logo.png' },
					unused: { data: Buffer.from('not sent').toString('base64'), mimeType: 'text/plain', fileName: 'unused.txt' },
				},
			},
		];
		const [sent] = await send({ to: 'files@example.test', text: 'See attached', options: { attachments: 'invoice, logo' } }, items);
		expect(sent.status).toBe('delivered');
		const { path } = await received('files@example.test');
		const listed = (
			await api<{ fileName: string; contentType: string; contentId: string | null; checksum: string }[]>(`${path}/attachments`)
		).body;
		expect(listed.map(({ fileName, contentType, contentId }) => [fileName, contentType, contentId])).toEqual([
			['invoice.pdf', 'application/pdf', null],
			['logo.png', 'image/png', null],
		]);
		for (const [index, bytes] of [pdf, png].entries()) {
			const response = await fetch(`${fixture.server.httpUrl}${path}/attachments/${listed[index].checksum}`, {
				headers: { 'Service-Key': fixture.account.key },
			});
			expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes);
		}
	});

	it('only images the HTML refers to with cid: (property or file name) are inline; the rest are attachments', async () => {
		const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
		const file = (fileName: string, mimeType: string, bytes = png) => ({ data: bytes.toString('base64'), mimeType, fileName });
		const binary = {
			invoice: file('invoice.pdf', 'application/pdf', Buffer.from('%PDF-1.4 not really')),
			logo: file('logo.png', 'image/png'),
			photo: file('team-photo.png', 'image/png'),
			chart: file('chart.png', 'image/png'),
		};
		await send(
			{
				to: 'inline@example.test',
				emailFormat: 'html',
				html: '<p><img src="cid:logo"> <img src="cid:team-photo.png"></p>',
				options: { attachments: 'invoice, logo, photo, chart' },
			},
			[{ json: {}, binary }],
		);
		const { raw } = await received('inline@example.test');
		const parsed = await simpleParser(raw);
		expect(parsed.headers.get('content-type')).toMatchObject({ value: 'multipart/mixed' });
		expect(raw).toMatch(/^Content-Type: multipart\/related/m);
		const parts = parsed.attachments.map(({ filename, contentDisposition, related, cid }) => ({
			filename,
			contentDisposition,
			related: related ?? false,
			cid,
		}));
		expect(parts).toEqual(
			expect.arrayContaining([
				{ filename: 'logo.png', contentDisposition: 'inline', related: true, cid: 'logo' },
				{ filename: 'team-photo.png', contentDisposition: 'inline', related: true, cid: 'team-photo.png' },
				{ filename: 'invoice.pdf', contentDisposition: 'attachment', related: false, cid: undefined },
				{ filename: 'chart.png', contentDisposition: 'attachment', related: false, cid: undefined },
			]),
		);
		expect(parts).toHaveLength(4);

		// HTML that refers to none of them: no multipart/related at all, every file an attachment.
		await send(
			{ to: 'plain-files@example.test', emailFormat: 'html', html: '<p>Files attached</p>', options: { attachments: 'logo, invoice' } },
			[{ json: {}, binary }],
		);
		const plain = await received('plain-files@example.test');
		expect(plain.raw).not.toMatch(/multipart\/related/);
		expect(plain.raw).not.toMatch(/^Content-ID:/im);
		expect((await simpleParser(plain.raw)).attachments.map((a) => [a.filename, a.contentDisposition])).toEqual([
			['logo.png', 'attachment'],
			['invoice.pdf', 'attachment'],
		]);
	});

	it("Attachments naming a binary property the item does not have: n8n's error, nothing sent", async () => {
		const before = (await nodeJson(fixture.n8n, { resource: 'account', operation: 'get' }))[0].sendsRemaining;
		await expect(
			runNode(fixture.n8n, {
				resource: 'email',
				operation: 'send',
				from: 'news@example.test',
				to: 'files@example.test',
				text: 'x',
				options: { attachments: 'missing' },
			}),
		).rejects.toMatchObject({ message: expect.stringMatching(/missing/) });
		expect((await nodeJson(fixture.n8n, { resource: 'account', operation: 'get' }))[0].sendsRemaining).toBe(before);
	});
});
