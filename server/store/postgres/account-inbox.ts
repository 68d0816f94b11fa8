import { SCAN_LIMIT, SEARCH_LIMIT, type AccountInbox, type InboxFilter } from '../store';
import type { Db } from './database';
import { RECORD_JSON, recordArray, type RecordJsonRow } from './record-json';
import { fold, type SearchText } from './search-index';

/** The trigram index finds substrings of at least this many characters; shorter ones are matched by a scan. */
const TRIGRAM = 3;

/**
 * The account's sources of mail, as `source(name)` tables: its domains, and its private addresses outside them (their
 * mail is in the domains already). $1 is the account.
 */
const SOURCES = `owned_domains AS (SELECT domain AS name FROM domains WHERE owner = $1),
	own_inboxes AS (SELECT email AS name FROM addresses
		WHERE owner = $1 AND substring(email FROM '[^@]*$') NOT IN (SELECT name FROM owned_domains))`;

/** `walk` (a query on `source.name`) run for each source, the rows of all put together. */
const eachSource = (walk: (column: 'domain' | 'inbox') => string) => `
	SELECT found.* FROM owned_domains source CROSS JOIN LATERAL (${walk('domain')}) found
	UNION ALL SELECT found.* FROM own_inboxes source CROSS JOIN LATERAL (${walk('inbox')}) found`;

/** A message is the account's when its inbox is one of its private addresses or in one of its domains. */
const OWNED = `(m.inbox IN (SELECT email FROM addresses WHERE owner = $1) OR m.domain IN (SELECT domain FROM domains WHERE owner = $1))`;

/** A LIKE pattern for text containing `term`, folded as the indexed text is. */
const containing = (term: string) => `%${fold(term).replace(/[\\%_]/g, '\\$&')}%`;

const isIndexable = (term: string) => [...term].length >= TRIGRAM;

/**
 * "Account-wide" reads: the mail of all private addresses and domains of an account, rendered as JSON by the database.
 * The listing merges walks of each domain's and address's index, newest first, instead of sorting the account's whole
 * mail; search and filter find terms through the trigram index of messages_search.
 */
export class PostgresAccountInbox implements AccountInbox {
	constructor(private readonly db: Db) {}

	async list(account: string, limit: number, skip: number, since = -Infinity): Promise<{ messages: string; unread: number }> {
		const after = Number.isFinite(since) ? since : -1;
		const [rows, counted] = await Promise.all([
			this.db.rows<RecordJsonRow>(
				`WITH ${SOURCES}, newest AS (${eachSource(
					(column) => `SELECT seq, received FROM messages WHERE ${column} = source.name AND received > $2
						ORDER BY received DESC, seq DESC LIMIT $3`,
				)})
				SELECT ${RECORD_JSON} FROM (SELECT seq, received FROM newest ORDER BY received DESC, seq DESC OFFSET $4 LIMIT $5) page
				JOIN messages m ON m.seq = page.seq ORDER BY page.received DESC, page.seq DESC`,
				[account, after, skip + limit, skip, limit],
			),
			this.db.row<{ unread: number }>(
				`WITH ${SOURCES} SELECT
					(SELECT count(*) FROM owned_domains source JOIN messages m ON m.domain = source.name WHERE m.read IS DISTINCT FROM 1)
					+ (SELECT count(*) FROM own_inboxes source JOIN messages m ON m.inbox = source.name WHERE m.read IS DISTINCT FROM 1) AS unread`,
				[account],
			),
		]);
		return { messages: recordArray(rows), unread: counted!.unread };
	}

	filter(account: string, filter: InboxFilter): Promise<string> {
		const terms: [column: keyof SearchText, text: string][] = [];
		if (filter.to) terms.push(['recipients', filter.to]);
		if (filter.from) terms.push(['sender', filter.from]);
		if (filter.subject) terms.push(['subject', filter.subject]);
		const conditions = terms.map(([column], i) => `s.${column} LIKE $${i + 2}`);
		if (filter.read !== undefined) conditions.push(filter.read ? 'm.read = 1' : 'm.read IS DISTINCT FROM 1');
		const indexed = terms.some(([, text]) => isIndexable(text));
		return this.find(indexed, conditions, [account, ...terms.map(([, text]) => containing(text))]);
	}

	search(account: string, query: string): Promise<string> {
		const condition = '(s.sender LIKE $2 OR s.recipients LIKE $2 OR s.subject LIKE $2)';
		return this.find(isIndexable(query), [condition], [account, containing(query)]);
	}

	/**
	 * With a term the trigram index can find, looks through all of the account's mail and takes the newest (by seq, as
	 * SQLite takes its index's rowids). Otherwise looks at the newest SCAN_LIMIT messages of each of the account's domains
	 * and inboxes only, as SQLite does: a short term matching nothing would else be compared with all of them.
	 */
	private async find(indexed: boolean, conditions: string[], params: unknown[]): Promise<string> {
		const where = conditions.length ? conditions.join(' AND ') : 'true';
		const sql = indexed
			? `SELECT ${RECORD_JSON} FROM messages_search s JOIN messages m ON m.seq = s.seq
				WHERE ${where} AND ${OWNED} ORDER BY s.seq DESC LIMIT ${SEARCH_LIMIT}`
			: `WITH ${SOURCES} SELECT head, spam FROM (${eachSource(
					(column) => `SELECT m.received, m.seq, ${RECORD_JSON}
						FROM (SELECT * FROM messages WHERE ${column} = source.name ORDER BY received DESC, seq DESC LIMIT ${SCAN_LIMIT}) m
						LEFT JOIN messages_search s ON s.seq = m.seq
						WHERE ${where} ORDER BY m.received DESC, m.seq DESC LIMIT ${SEARCH_LIMIT}`,
				)}) newest ORDER BY received DESC, seq DESC LIMIT ${SEARCH_LIMIT}`;
		return recordArray(await this.db.rows<RecordJsonRow>(sql, params));
	}
}
