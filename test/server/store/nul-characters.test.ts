import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AttachmentMeta, MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { composeMail } from '../../helpers/large-messages';
import { omit, sendRawTo } from '../../helpers/messages';
import { onlyMessage } from '../../helpers/inboxes';
import { startPostgres, type TestPostgres } from '../../helpers/postgres';
import { ENGINES, type Engine } from '../../helpers/stores';

/**
 * What the API reads of message `id`: its record (but what differs between two deliveries: its id, its time, and the thread
 * of a message without a Message-ID, which is its own), text, headers, attachments and source.
 */
async function readBack(server: TestMailroom, inbox: string, id: string) {
	const path = `/api/addresses/${inbox}/messages/${id}`;
	const record = (await server.api<MessageRecord>(path)).body;
	return {
		record: omit(record, '_id', 'received', 'threadId'),
		text: (await server.api(`/api/text/${inbox}/${id}`)).text,
		headers: (await server.api<Record<string, string[]>>(`${path}/headers`)).body,
		decodedHeaders: (await server.api<Record<string, string[]>>(`${path}/headers?decoded=1`)).body,
		attachments: (await server.api<AttachmentMeta[]>(`${path}/attachments`)).body,
		raw: (await server.api(`/api/raw/${inbox}/${id}`)).text,
	};
}

/**
 * PostgreSQL text cannot hold U+0000, which mail can carry. The parser reads it as U+FFFD in everything it takes from a
 * message's headers (subject, names, addresses, header values, file names), and the bodies and the raw source are kept as
 * bytes: so the same message, sent over SMTP by a real client, is stored and read back alike on every engine.
 */
describe('mail with NUL characters, stored on every engine', () => {
	let postgres: TestPostgres;
	const servers = new Map<Engine, TestMailroom>();
	beforeAll(async () => {
		postgres = await startPostgres();
		for (const engine of ENGINES) {
			servers.set(engine, await startTestMailroom({ databaseUrl: engine === 'postgres' ? await postgres.newDatabase() : undefined }));
		}
	});
	afterAll(async () => {
		for (const server of servers.values()) await server.stop();
		await postgres.stop();
	});

	/** What every engine reads back of the message `send` delivers to `inbox`; each engine's stored the same. */
	async function onEveryEngine(inbox: string, send: (server: TestMailroom) => Promise<unknown>) {
		const read = [];
		for (const server of servers.values()) {
			await send(server);
			read.push(await readBack(server, inbox, (await onlyMessage(server, inbox))._id));
		}
		const [sqlite, ...others] = read;
		for (const other of others) expect(other).toEqual(sqlite);
		return sqlite;
	}

	it('reads NUL characters encoded in headers as U+FFFD, and keeps those of the body (encoded by nodemailer)', async () => {
		// Built once, so that both engines get the same bytes (nodemailer picks new boundaries and ids for each message it builds).
		const raw = await composeMail({
			from: { name: 'Nul\0Name', address: 'from@sender.test' },
			to: 'encoded@nul.test',
			subject: 'a\0b',
			text: 'body\0nul',
			headers: { 'X-Note': 'kept\0here' },
			attachments: [{ filename: 'f\0.txt', content: 'file' }],
		});
		const read = await onEveryEngine('encoded@nul.test', (server) => sendRawTo(server, 'encoded@nul.test', raw));
		expect(read.record).toMatchObject({ subject: 'a\uFFFDb', from: [{ address: 'from@sender.test', name: 'Nul\uFFFDName' }] });
		expect(read.text).toBe('body\0nul');
		expect(read.decodedHeaders['x-note']).toEqual(['kept\uFFFDhere']);
		expect(read.attachments.map((attachment) => attachment.fileName)).toEqual(['f\uFFFD.txt']);
		expect(read.raw).toBe(raw.toString());
	});

	it('reads NUL bytes in headers as U+FFFD, and keeps those of the body and the raw source (raw bytes)', async () => {
		const raw = Buffer.from(
			['From: "Nul\0Name" <from@sender.test>', 'To: raw@nul.test', 'Subject: a\0b', 'X-Note: kept\0here', '', 'body\0nul', ''].join('\r\n'),
		);
		const read = await onEveryEngine('raw@nul.test', (server) => sendRawTo(server, 'raw@nul.test', raw));
		expect(read.record.subject).toBe('a\uFFFDb');
		expect(read.headers['x-note']).toEqual(['kept\uFFFDhere']);
		expect(read.text).toBe('body\0nul\n');
		expect(read.raw).toBe(raw.toString());
	});
});
