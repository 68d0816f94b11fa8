import { Client } from 'pg';
import type { ParsedIncomingMail } from 'mailroom-server/dist/mail/incoming-mail';
import type { ParsedAttachment, ParsedMail } from 'mailroom-server/dist/mail/parsed-mail';
import { openPostgresStore, type PostgresStoreOptions } from 'mailroom-server/dist/store/postgres/open';
import type { Store } from 'mailroom-server/dist/store/store';
import type { TestPostgres } from '../../../helpers/postgres';

/** A store on a fresh database of `postgres`, and the database's URL. */
export async function freshStore(
	postgres: TestPostgres,
	options: Partial<PostgresStoreOptions> = {},
): Promise<{ store: Store; url: string }> {
	const url = await postgres.newDatabase();
	return { store: await openPostgresStore(url, { node: 'node-a', role: 'server', ...options }), url };
}

/** Plain SQL on a database, to look beneath the store (or to change what it would not). */
export class Sql {
	private constructor(private readonly client: Client) {}

	static async on(url: string): Promise<Sql> {
		const client = new Client({ connectionString: url });
		await client.connect();
		return new Sql(client);
	}

	async rows<Row = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<Row[]> {
		return (await this.client.query(text, params)).rows as Row[];
	}

	/** The first column of the first row (count(*) read as a number). */
	async value<T = unknown>(text: string, params: unknown[] = []): Promise<T> {
		const [row] = await this.rows(text, params);
		const value = row && Object.values(row)[0];
		return (typeof value === 'string' && /^count|^sum/i.test(text.replace(/^SELECT\s+/i, '')) ? Number(value) : value) as T;
	}

	/** How many rows a table holds. */
	async count(table: string): Promise<number> {
		return this.value<number>(`SELECT count(*) FROM ${table}`);
	}

	close(): Promise<void> {
		return this.client.end();
	}
}

export function attachment(checksum: string, body: string | Buffer, overrides: Partial<ParsedAttachment> = {}): ParsedAttachment {
	const content = Buffer.from(body);
	return {
		checksum,
		contentType: 'text/plain',
		fileName: `${checksum}.txt`,
		length: content.length,
		contentId: null,
		contentDisposition: 'attachment',
		transferEncoding: 'base64',
		content,
		...overrides,
	};
}

/** A parse as the parser makes it, with whatever `overrides` say. */
export function parsedMail(overrides: Partial<ParsedMail> = {}): ParsedMail {
	return {
		subject: 's',
		from: [{ address: 'a@x.test', name: '' }],
		to: [],
		cc: null,
		bcc: null,
		messageId: '<m@x>',
		date: null,
		priority: 'normal',
		headers: [],
		text: 't',
		html: null,
		links: [],
		spam: 0,
		attachments: [],
		...overrides,
	};
}

/** Mail to `inboxes` (each in the domain after its "@"), received now unless `received` says otherwise. */
export function mailTo(inboxes: string[], parsed: Partial<ParsedMail> = {}, received = new Date()): ParsedIncomingMail {
	return {
		raw: Buffer.from('raw'),
		parsed: parsedMail(parsed),
		ip: '127.0.0.1',
		via: '127.0.0.1',
		rtls: false,
		received,
		recipients: inboxes.map((inbox) => ({ inbox, originalInbox: inbox, domain: inbox.slice(inbox.lastIndexOf('@') + 1) })),
	};
}

/** The `_id`s of a JSON array of records. */
export const idsIn = (json: string) => (JSON.parse(json) as { _id: string }[]).map((record) => record._id);

/** The subjects of a JSON array of records. */
export const subjectsIn = (json: string) => (JSON.parse(json) as { subject: string }[]).map((record) => record.subject);
