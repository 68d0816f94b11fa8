import { SCAN_LIMIT, SEARCH_LIMIT, type AccountInbox, type InboxFilter } from '../store';
import type { SearchQuery } from '../../mail/search-query';
import { matchesNothing, planFilter, planSearch, receivedIn, type Check, type SearchPlan } from '../search-plan';
import type { Db } from './database';
import { RECORD_JSON, recordArray, type RecordJsonRow } from './record-json';
import { indexedText } from './search-index';

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

/** Values of a statement's parameters, $1 first, as conditions are written. */
class Parameters {
	readonly values: unknown[] = [];

	/** Its placeholder. */
	add(value: unknown): string {
		this.values.push(value);
		return `$${this.values.length}`;
	}
}

/**
 * A check as a condition on `m` (the message) and `s` (its messages_search row). Texts are LIKE patterns of the term
 * spelt as the index's text is, which leaves no LIKE wildcard in it. Each check says what its negation is: NOT would
 * turn a NULL (an unread message's read) into no match.
 */
function condition(check: Check, params: Parameters): string {
	const [holds, fails] = ((): [string, string] => {
		switch (check.kind) {
			case 'text': {
				const pattern = params.add(`%${indexedText(check.text)}%`);
				const any = `(${check.columns.map((column) => `s.${column} LIKE ${pattern}`).join(' OR ')})`;
				return [any, `NOT ${any}`];
			}
			case 'read':
				return ['m.read = 1', 'm.read IS DISTINCT FROM 1'];
			case 'starred':
				return ['m.saved_by IS NOT NULL', 'm.saved_by IS NULL'];
			case 'attachment':
				return ['m.attachments_json IS NOT NULL', 'm.attachments_json IS NULL'];
			case 'label': {
				const has = `m.labels_json::jsonb ? ${params.add(check.label)}`;
				return [has, `NOT ${has}`];
			}
		}
	})();
	return check.negated ? fails : holds;
}

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
		return this.find(account, planFilter(filter));
	}

	search(account: string, query: SearchQuery): Promise<string> {
		return this.find(account, planSearch(query));
	}

	/**
	 * With texts the trigram index can find, looks through all of the account's mail and takes the newest (by seq, as
	 * SQLite takes its index's rowids). Otherwise looks at the newest SCAN_LIMIT messages of each of the account's domains
	 * and inboxes in the range of `received` only, as SQLite does: a check matching nothing would else be made on all of them.
	 */
	private async find(account: string, plan: SearchPlan): Promise<string> {
		if (matchesNothing(plan)) return '[]';
		const params = new Parameters();
		params.add(account);
		const indexed = plan.indexed.map((check) => condition(check, params));
		const checks = plan.checks.map((check) => condition(check, params));
		const sql = indexed.length
			? `SELECT ${RECORD_JSON} FROM messages_search s JOIN messages m ON m.seq = s.seq
				WHERE ${[...indexed, ...checks, ...receivedIn(plan, 'm.received', params), OWNED].join(' AND ')}
				ORDER BY s.seq DESC LIMIT ${SEARCH_LIMIT}`
			: this.scan(plan, checks, params);
		return recordArray(await this.db.rows<RecordJsonRow>(sql, params.values));
	}

	/** Each source's newest SCAN_LIMIT messages in the range of `received`, checked, the newest SEARCH_LIMIT of all. */
	private scan(plan: SearchPlan, checks: string[], params: Parameters): string {
		const range = receivedIn(plan, 'received', params);
		return `WITH ${SOURCES} SELECT head, spam FROM (${eachSource(
			(column) => `SELECT m.received, m.seq, ${RECORD_JSON}
				FROM (SELECT * FROM messages WHERE ${[`${column} = source.name`, ...range].join(' AND ')}
					ORDER BY received DESC, seq DESC LIMIT ${SCAN_LIMIT}) m
				LEFT JOIN messages_search s ON s.seq = m.seq
				WHERE ${checks.length ? checks.join(' AND ') : 'true'} ORDER BY m.received DESC, m.seq DESC LIMIT ${SEARCH_LIMIT}`,
		)}) newest ORDER BY received DESC, seq DESC LIMIT ${SEARCH_LIMIT}`;
	}
}
