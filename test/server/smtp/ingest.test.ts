import { createHash } from 'node:crypto';
import nodemailer from 'nodemailer';
import { startTestMailroom, tempDataDir, type TestMailroom } from '../../helpers/mailroom';
import { selfSignedCertificate } from '../../helpers/tls';
import { RawSmtp } from '../../helpers/raw-smtp';

const md5 = (data: string | Buffer) => createHash('md5').update(data).digest('hex');

/** A raw SMTP conversation, for replies nodemailer would hide. Returns every reply line. */
async function smtpDialogue(port: number, commands: string[]): Promise<string[]> {
	const { client, greeting } = await RawSmtp.connect(port);
	const replies = [greeting];
	for (const command of commands) replies.push(await client.command(command));
	client.close();
	return replies.flatMap((reply) => reply.split('\n'));
}

describe('SMTP ingest', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom({ domains: ['example.test', 'other.test'], maxMessageSize: 64 * 1024 });
	});
	afterAll(() => server.stop());

	async function onlyMessage(inbox: string) {
		const list = await server.api(`/api/addresses/${encodeURIComponent(inbox)}/messages`);
		expect(list.status).toBe(200);
		expect(list.body).toHaveLength(1);
		return list.body[0];
	}

	it('stores a record with exactly the fields and JSON types of spec 2.1', async () => {
		const info = await server.send({
			from: '"Ann Sender" <ann@sender.test>',
			to: 'Types@Example.test',
			subject: 'Field check',
			text: 'hello',
		});
		expect(info.response).toMatch(/^250 /);
		const record = await onlyMessage('types@example.test');
		expect(Object.keys(record).sort()).toEqual(
			[
				'_id',
				'from',
				'to',
				'cc',
				'bcc',
				'subject',
				'savedBy',
				'originalInbox',
				'inbox',
				'domain',
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
			].sort(),
		);
		expect(record).toMatchObject({
			from: [{ address: 'ann@sender.test', name: 'Ann Sender' }],
			to: [{ address: 'types@example.test', name: '' }],
			cc: null,
			bcc: null,
			subject: 'Field check',
			savedBy: null,
			originalInbox: 'types@example.test',
			inbox: 'types@example.test',
			domain: 'example.test',
			attachments: null,
			ip: '127.0.0.1',
			via: '127.0.0.1',
			folder: 'inbox',
			labels: [],
			read: null,
			rtls: false,
			links: [],
		});
		expect(typeof record._id).toBe('string');
		expect(record.received).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
		expect(record.spam).toBeGreaterThanOrEqual(0);
		expect(record.spam).toBeLessThanOrEqual(1);
		expect(Number.isInteger(record.size)).toBe(true);
		expect(record.size).toBeGreaterThan(100);
	});

	it('keeps the exact size of the raw message and its source', async () => {
		const raw = 'From: a@sender.test\r\nTo: raw@example.test\r\nSubject: exact\r\n\r\nbody line\r\n';
		await server.send({ envelope: { from: 'a@sender.test', to: ['raw@example.test'] }, raw });
		const record = await onlyMessage('raw@example.test');
		expect(record.size).toBe(Buffer.byteLength(raw));
		expect(record.subject).toBe('exact');
	});

	it('stores multipart text+HTML with links from both bodies', async () => {
		await server.send({
			from: 'news@sender.test',
			to: 'multi@example.test',
			subject: 'Both parts',
			text: 'Plain version: https://example.org/plain and again https://example.org/plain',
			html: '<p>HTML version: <a href="https://example.org/html">click</a> <a href="mailto:x@y.z">mail</a></p>',
		});
		const record = await onlyMessage('multi@example.test');
		expect(record.links.sort()).toEqual(['https://example.org/html', 'https://example.org/plain']);
		const text = await server.api(`/api/text/multi@example.test/${record._id}`);
		expect(text.status).toBe(200);
		expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
		expect(text.text).toBe('Plain version: [1] and again [1]\n\n\n\n[1] https://example.org/plain\n');
	});

	it('converts HTML-only mail to text with numbered links', async () => {
		await server.send({
			from: 'html@sender.test',
			to: 'htmlonly@example.test',
			subject: 'HTML only',
			html: '<h1>Welcome</h1><p>Please <a href="https://example.org/verify?t=1">verify your address</a> or <a href="https://example.org/help">get help</a>.</p>',
		});
		const record = await onlyMessage('htmlonly@example.test');
		expect(record.links).toEqual(['https://example.org/verify?t=1', 'https://example.org/help']);
		const text = await server.api(`/api/text/htmlonly@example.test/${record._id}`);
		expect(text.text).toContain('verify your address [1] or get help [2]');
		expect(text.text).toMatch(/\n\n\n\n\[1\] https:\/\/example\.org\/verify\?t=1\n\[2\] https:\/\/example\.org\/help\n$/);
		expect(text.text).not.toContain('<');
	});

	it('identifies attachments by the MD5 of their content', async () => {
		const pdf = Buffer.from('%PDF-1.4 fake pdf content for the test');
		const large = Buffer.alloc(24 * 1024, 'large attachment ');
		await server.send({
			from: 'files@sender.test',
			to: 'files@example.test',
			subject: 'Attachments',
			text: 'two files',
			attachments: [
				{ filename: 'notes.txt', content: 'some notes' },
				{ filename: 'doc.pdf', content: pdf, contentType: 'application/pdf' },
				// large enough to own its memory, so the parser worker moves it instead of copying
				{ filename: 'big.bin', content: large },
			],
		});
		const record = await onlyMessage('files@example.test');
		expect(record.attachments).toEqual([md5('some notes'), md5(pdf), md5(large)]);
	});

	it('stores one record per recipient inbox, each with its own id, and keeps cc and bcc', async () => {
		const info = await server.send({
			from: 'boss@sender.test',
			to: ['One@example.test', 'two@example.test'],
			cc: 'Carol <carol@other.test>',
			bcc: 'dave@example.test',
			subject: 'Team',
			text: 'hi all',
		});
		expect(info.accepted).toHaveLength(4);
		const records = await Promise.all(['one@example.test', 'two@example.test', 'carol@other.test', 'dave@example.test'].map(onlyMessage));
		expect(new Set(records.map((r) => r._id)).size).toBe(4);
		for (const record of records) {
			expect(record.inbox).toBe(record.originalInbox);
			expect(record.to).toEqual([
				{ address: 'one@example.test', name: '' },
				{ address: 'two@example.test', name: '' },
			]);
			expect(record.cc).toEqual([{ address: 'carol@other.test', name: 'Carol' }]);
		}
		expect(records[2].domain).toBe('other.test');
	});

	it('keeps a Bcc header as a list of address objects', async () => {
		const raw = 'From: a@sender.test\r\nTo: x@example.test\r\nBcc: Hidden <hidden@example.test>\r\nSubject: bcc\r\n\r\nb\r\n';
		await server.send({ envelope: { from: 'a@sender.test', to: ['bcchead@example.test'] }, raw });
		const record = await onlyMessage('bcchead@example.test');
		expect(record.bcc).toEqual([{ address: 'hidden@example.test', name: 'Hidden' }]);
	});

	it('decodes non-UTF-8 charsets and encoded headers', async () => {
		const body = Buffer.from('Grüße aus Köln', 'latin1').toString('base64');
		const raw = [
			'From: =?ISO-8859-1?Q?J=FCrgen_M=FCller?= <jm@sender.test>',
			'To: charset@example.test',
			'Subject: =?UTF-8?B?0J/RgNC40LLQtdGCLCDQvNC40YAh?=',
			'MIME-Version: 1.0',
			'Content-Type: text/plain; charset=ISO-8859-1',
			'Content-Transfer-Encoding: base64',
			'',
			body,
			'',
		].join('\r\n');
		await server.send({ envelope: { from: 'jm@sender.test', to: ['charset@example.test'] }, raw });
		const record = await onlyMessage('charset@example.test');
		expect(record.subject).toBe('Привет, мир!');
		expect(record.from).toEqual([{ address: 'jm@sender.test', name: 'Jürgen Müller' }]);
		const text = await server.api(`/api/text/charset@example.test/${record._id}`);
		expect(text.text.trim()).toBe('Grüße aus Köln');
	});

	it('decodes a Windows-1251 body', async () => {
		const raw = Buffer.concat([
			Buffer.from(
				'From: a@sender.test\r\nTo: cp1251@example.test\r\nSubject: cp\r\nContent-Type: text/plain; charset=windows-1251\r\n\r\n',
			),
			Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]),
			Buffer.from('\r\n'),
		]);
		await server.send({ envelope: { from: 'a@sender.test', to: ['cp1251@example.test'] }, raw });
		const record = await onlyMessage('cp1251@example.test');
		expect((await server.api(`/api/text/cp1251@example.test/${record._id}`)).text.trim()).toBe('Привет');
	});

	it('stores malformed MIME instead of crashing or refusing it', async () => {
		const raw = [
			'From: broken@sender.test',
			'To: malformed@example.test',
			'Subject: broken',
			'Content-Type: multipart/mixed; boundary="never-closed"',
			'',
			'--never-closed',
			'Content-Type: text/plain',
			'Content-Transfer-Encoding: base64',
			'',
			'!!!not base64 at all###',
			'--wrong-boundary--',
			'',
		].join('\r\n');
		const info = await server.send({ envelope: { from: 'broken@sender.test', to: ['malformed@example.test'] }, raw });
		expect(info.response).toMatch(/^250 /);
		const record = await onlyMessage('malformed@example.test');
		expect(record.subject).toBe('broken');
		expect(record.size).toBe(Buffer.byteLength(raw));
		// the server still works afterwards
		await server.send({ from: 'a@sender.test', to: 'after@example.test', subject: 'after', text: 'ok' });
		expect((await onlyMessage('after@example.test')).subject).toBe('after');
	});

	it('gives 552 for mail over the size limit and stores nothing of it', async () => {
		const replies = await smtpDialogue(server.smtpPort, ['EHLO client.test']);
		expect(replies.some((line) => /^250[- ]SIZE 65536$/.test(line))).toBe(true);
		await expect(
			server.send({ from: 'big@sender.test', to: 'big@example.test', subject: 'too big', text: 'x'.repeat(80 * 1024) }),
		).rejects.toMatchObject({ responseCode: 552 });
		expect((await server.api('/api/addresses/big@example.test/messages')).body).toEqual([]);
	});

	it('gives 550 for a recipient in a domain that is not accepted', async () => {
		const replies = await smtpDialogue(server.smtpPort, [
			'EHLO client.test',
			'MAIL FROM:<a@sender.test>',
			'RCPT TO:<someone@elsewhere.test>',
		]);
		expect(replies[replies.length - 1]).toMatch(/^550 /);
		await expect(server.send({ from: 'a@sender.test', to: 'someone@elsewhere.test', text: 'x' })).rejects.toMatchObject({
			responseCode: 550,
		});
	});

	it('announces each delivery with exactly the record the API serves', async () => {
		const announced = new Promise<unknown[]>((resolve) => server.ingest.once('stored', resolve));
		await server.send({
			from: '"Eve" <eve@sender.test>',
			to: 'announce@example.test',
			cc: 'cc@example.test',
			subject: 'same',
			html: '<a href="https://x.test/">x</a>',
			attachments: [{ filename: 'a.txt', content: 'a' }],
		});
		const [record] = await announced;
		expect(JSON.parse(JSON.stringify(record))).toEqual(await onlyMessage('announce@example.test'));
	});

	it('answers 250 only with the id of a stored record', async () => {
		const info = await server.send({ from: 'a@sender.test', to: 'ack@example.test', subject: 'ack', text: 'x' });
		const id = /stored as (\S+)/.exec(info.response)![1];
		expect((await onlyMessage('ack@example.test'))._id).toBe(id);
	});
});

describe('SMTP ingest over STARTTLS', () => {
	it('marks mail received over TLS with rtls: true', async () => {
		const { cert, key } = selfSignedCertificate(tempDataDir());
		const server = await startTestMailroom({ tlsCert: cert, tlsKey: key });
		try {
			const transport = nodemailer.createTransport({
				host: '127.0.0.1',
				port: server.smtpPort,
				requireTLS: true,
				tls: { rejectUnauthorized: false },
			});
			await transport.sendMail({ from: 'tls@sender.test', to: 'secure@any.test', subject: 'tls', text: 'over tls' });
			await server.send({ from: 'plain@sender.test', to: 'insecure@any.test', subject: 'plain', text: 'plain' });
			transport.close();
			expect((await server.api('/api/addresses/secure@any.test/messages')).body[0].rtls).toBe(true);
			expect((await server.api('/api/addresses/insecure@any.test/messages')).body[0].rtls).toBe(false);
		} finally {
			await server.stop();
		}
	});
});
