import type { AddressObject } from '../../schemas/message';
import { SEARCH_BODY_CHARS, firstCharacters, foldCase, type SearchColumn } from '../search-plan';
import type { Db } from './database';
import { bodyLexemes } from './body-words';
import { domainOf } from '../sql/ownership';
import { trigramText } from './trigram-text';

/**
 * What account-wide search compares terms with, for one record, by column of messages_search (as SQLite's): its senders'
 * addresses and names, its To addresses and inbox, its To names, its subject, and the start of its text body. Folded
 * and spelt for the trigram index by JavaScript (see trigramText), as the terms are; and the body's words as the word
 * index takes them (see body-words.ts), or null for a body with too many to index.
 */
export type SearchText = Record<SearchColumn, string> & { body_words: string | null };

/** The columns of messages_search after seq, in the order the statements below list them. */
export const SEARCH_COLUMNS: (keyof SearchText)[] = [
	'sender',
	'sender_names',
	'recipients',
	'recipient_names',
	'subject',
	'body',
	'body_words',
];

/** SEARCH_COLUMNS' values as a statement gives them, from texts named `value(column)`: body_words' lexemes made a tsvector. */
export const searchValues = (value: (column: keyof SearchText) => string): string =>
	SEARCH_COLUMNS.map((column) =>
		column === 'body_words' ? `array_to_tsvector(string_to_array(${value(column)}, ' '))` : value(column),
	).join(', ');

/**
 * A text (or a term) as messages_search holds it: well-formed as it is when read back from the database (a lone surrogate
 * becomes U+FFFD), folded, and spelt for the trigram index (which also leaves no NUL, which PostgreSQL text cannot hold).
 */
export const indexedText = (text: string): string => trigramText(searchedText(text));

/** A text (or a term) well-formed and folded, as search compares it. */
export const searchedText = (text: string): string => foldCase(wellFormed(text));

const wellFormed = (text: string) => (/[\uD800-\uDFFF]/.test(text) ? Buffer.from(text).toString() : text);

const joined = (list: AddressObject[], part: 'address' | 'name') => list.map((entry) => entry[part]).join(' ');

/** The parts of a message's search text that all its records share (all but the recipients, which name the inbox). */
export interface SharedSearchText {
	from: AddressObject[];
	to: AddressObject[];
	subject: string;
	/** The start of the text body: at least its first SEARCH_BODY_CHARS characters. */
	bodyStart: string;
}

/** The search text of each record of a message, made once per message: only the inbox differs between its records. */
export function searchTextOf(message: SharedSearchText): (inbox: string) => SearchText {
	const body = searchedText(firstCharacters(message.bodyStart, SEARCH_BODY_CHARS));
	const shared = {
		sender: indexedText(joined(message.from, 'address')),
		sender_names: indexedText(joined(message.from, 'name')),
		recipient_names: indexedText(joined(message.to, 'name')),
		subject: indexedText(message.subject),
		body: trigramText(body),
		// Lexemes hold no spaces: joined by them, a body's travel as one text.
		body_words: bodyLexemes(body)?.join(' ') ?? null,
	};
	const toAddresses = joined(message.to, 'address');
	return (inbox) => ({ ...shared, recipients: indexedText(`${toAddresses} ${inbox}`) });
}

/** Rows indexed at a time when an inbox becomes private (their bodies' starts in memory together). */
const BATCH = 500;

/** Bytes of a body read to index it: its first SEARCH_BODY_CHARS characters, of at most 4 bytes each in UTF-8. */
const BODY_BYTES = SEARCH_BODY_CHARS * 4;

interface IndexedRow {
	seq: number;
	received: number;
	inbox: string;
	from_json: string;
	to_json: string;
	subject: string;
	/** The start of the text body as stored (UTF-8): its column, or its first piece for a large one. */
	body: Buffer;
}

/** How a batch of messages to index is walked: its order, the condition for "after the cursor" (from parameter `n`). */
interface Walk {
	order: string;
	after: (n: number) => string;
	start: number[];
	next: (last: IndexedRow) => number[];
}

/** Newest first along the inbox or domain index. */
const NEWEST_FIRST: Walk = {
	order: 'm.received DESC, m.seq DESC',
	after: (n) => `(m.received, m.seq) < ($${n}, $${n + 1})`,
	start: [Number.MAX_SAFE_INTEGER, 0],
	next: (last) => [last.received, last.seq],
};

/** Along seq: all of the mail. */
const BY_SEQ: Walk = {
	order: 'm.seq DESC',
	after: (n) => `m.seq < $${n}`,
	start: [Number.MAX_SAFE_INTEGER],
	next: (last) => [last.seq],
};

/**
 * Keeps messages_search holding exactly the private mail: a message is in it while its inbox is reserved or its domain is
 * owned. Storing a message indexes it then and there (see MessageStore.insert); these follow the changes of ownership,
 * as SQLite's triggers do. Call them inside the transaction that makes the change, holding its domain's lock.
 */
export class SearchIndex {
	constructor(private readonly tx: Db) {}

	/** An address was reserved: its mail is private now, unless its domain's was already. */
	async reserved(email: string): Promise<void> {
		if (!(await this.owned(domainOf(email)))) await this.add('m.inbox = $1', [email], NEWEST_FIRST);
	}

	/** An address was released: its mail is public again, unless its domain is owned. */
	async released(email: string): Promise<void> {
		if (await this.owned(domainOf(email))) return;
		await this.tx.run('DELETE FROM messages_search WHERE seq IN (SELECT seq FROM messages WHERE inbox = $1)', [email]);
	}

	/** A domain was claimed: the mail of its addresses that are not reserved is private now. */
	claimed(domain: string): Promise<void> {
		return this.add('m.domain = $1 AND m.inbox NOT IN (SELECT email FROM addresses)', [domain], NEWEST_FIRST);
	}

	/** A domain was given up: the mail of its addresses that are not reserved is public again. */
	async givenUp(domain: string): Promise<void> {
		await this.tx.run(
			`DELETE FROM messages_search
				WHERE seq IN (SELECT seq FROM messages WHERE domain = $1 AND inbox NOT IN (SELECT email FROM addresses))`,
			[domain],
		);
	}

	/** Makes every entry anew from the mail (the index's columns changed): all private mail, along seq. */
	async rebuild(): Promise<void> {
		await this.tx.run('TRUNCATE messages_search');
		await this.add('(m.inbox IN (SELECT email FROM addresses) OR m.domain IN (SELECT domain FROM domains))', [], BY_SEQ);
	}

	private async owned(domain: string): Promise<boolean> {
		return (await this.tx.row('SELECT 1 FROM domains WHERE domain = $1', [domain])) !== undefined;
	}

	/** Indexes the messages `condition` selects (with `params`), a batch at a time along `walk`. */
	private async add(condition: string, params: unknown[], walk: Walk): Promise<void> {
		for (let cursor = walk.start; ;) {
			const rows = await this.tx.rows<IndexedRow>(
				`SELECT m.seq, m.received, m.inbox, m.from_json, m.to_json, m.subject,
						CASE WHEN octet_length(c.text) > 0 THEN substring(c.text FROM 1 FOR ${BODY_BYTES})
							ELSE coalesce((SELECT substring(p.data FROM 1 FOR ${BODY_BYTES}) FROM content_body_pieces p
								WHERE p.content_id = c.id AND p.kind = 'text' AND p.seq = 0), '') END AS body
					FROM messages m JOIN contents c ON c.id = m.content_id
					WHERE ${condition} AND ${walk.after(params.length + 1)} ORDER BY ${walk.order} LIMIT ${BATCH}`,
				[...params, ...cursor],
			);
			if (rows.length === 0) return;
			await this.insert(rows);
			cursor = walk.next(rows[rows.length - 1]);
		}
	}

	private async insert(rows: IndexedRow[]): Promise<void> {
		const texts = rows.map((row) =>
			searchTextOf({
				from: JSON.parse(row.from_json) as AddressObject[],
				to: JSON.parse(row.to_json) as AddressObject[],
				subject: row.subject,
				bodyStart: row.body.toString(),
			})(row.inbox),
		);
		await insertEntries(
			this.tx,
			rows.map((row) => row.seq),
			texts,
		);
	}
}

/** Enters the search texts of the messages `seqs` in messages_search, in one statement (an entry there already stays). */
export async function insertEntries(db: Db, seqs: number[], texts: SearchText[]): Promise<void> {
	await db.run(
		`INSERT INTO messages_search (seq, ${SEARCH_COLUMNS.join(', ')})
			SELECT seq, ${searchValues((column) => column)}
			FROM unnest($1::bigint[], ${SEARCH_COLUMNS.map((_, i) => `$${i + 2}::text[]`).join(', ')}) AS entry (seq, ${SEARCH_COLUMNS.join(', ')})
			ON CONFLICT (seq) DO NOTHING`,
		[seqs, ...SEARCH_COLUMNS.map((column) => texts.map((text) => text[column]))],
	);
}
