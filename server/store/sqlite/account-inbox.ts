import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import { SCAN_LIMIT, SEARCH_LIMIT, type AccountInbox, type InboxFilter } from '../store';
import { recordsJson } from '../records-json';
import { recordJsonHead } from './messages';

/** The trigram index finds substrings of at least this many characters; shorter ones are matched by a scan. */
const TRIGRAM = 3;

/** A message is the account's when its inbox is one of its private addresses or in one of its domains. */
const OWNED = `(m.inbox IN (SELECT email FROM addresses WHERE owner = @account)
	OR m.domain IN (SELECT domain FROM domains WHERE owner = @account))`;
/** A record as JSON text (see recordJsonHead), then its spam score. */
const RECORD_JSON = `${recordJsonHead('m')}, m.spam`;

/** What a short term is compared with when the trigram index cannot help: the same text the index holds. */
const addressesOf = (column: string) =>
	`coalesce((SELECT group_concat(json_extract(value, '$.address'), ' ') FROM json_each(${column})), '')`;
const SCAN_EXPRESSION: Record<string, string> = {
	recipients: `(${addressesOf('m.to_json')} || ' ' || m.inbox)`,
	sender: addressesOf('m.from_json'),
	subject: 'm.subject',
};

/** FTS5 phrase: the text matched as a substring, whatever characters it holds. */
const phrase = (text: string) => `"${text.replaceAll('"', '""')}"`;

/**
 * "Account-wide" reads: the mail of all private addresses and domains of an account.
 * The listing merges per-inbox and per-domain index walks instead of sorting the account's whole mail.
 */
export class SqliteAccountInbox implements AccountInbox {
	private readonly ownedDomains: Statement;
	private readonly ownedAddresses: Statement;
	private readonly newestOfInbox: Statement;
	private readonly newestOfDomain: Statement;
	private readonly unreadOfInbox: Statement;
	private readonly unreadOfDomain: Statement;
	private readonly recordBySeq: Statement;
	private readonly queries = new Map<string, Statement>();

	constructor(private readonly db: Db) {
		this.ownedDomains = db.prepare('SELECT domain FROM domains WHERE owner = ?').pluck();
		this.ownedAddresses = db.prepare('SELECT email FROM addresses WHERE owner = ?').pluck();
		const newest = (column: string) =>
			db.prepare(`SELECT seq, received FROM messages WHERE ${column} = ? AND received > ? ORDER BY received DESC, seq DESC LIMIT ?`);
		this.newestOfInbox = newest('inbox');
		this.newestOfDomain = newest('domain');
		this.unreadOfInbox = db.prepare('SELECT count(*) FROM messages WHERE inbox = ? AND read IS NOT 1').pluck();
		this.unreadOfDomain = db.prepare('SELECT count(*) FROM messages WHERE domain = ? AND read IS NOT 1').pluck();
		this.recordBySeq = db.prepare(`SELECT ${RECORD_JSON} FROM messages m WHERE m.seq = ?`).raw();
	}

	async list(account: string, limit: number, skip: number, since = -Infinity): Promise<{ messages: string; unread: number }> {
		const { domains, inboxes } = this.sources(account);
		const wanted = skip + limit;
		const after = Number.isFinite(since) ? since : -1;
		const newest = [
			...domains.flatMap((domain) => this.newestOfDomain.all(domain, after, wanted)),
			...inboxes.flatMap((inbox) => this.newestOfInbox.all(inbox, after, wanted)),
		] as { seq: number; received: number }[];
		newest.sort((a, b) => b.received - a.received || b.seq - a.seq);
		const messages = recordsJson(newest.slice(skip, wanted).map(({ seq }) => this.recordBySeq.get(seq) as [string, number]));
		const unread =
			domains.reduce((sum, domain) => sum + (this.unreadOfDomain.get(domain) as number), 0) +
			inboxes.reduce((sum, inbox) => sum + (this.unreadOfInbox.get(inbox) as number), 0);
		return { messages, unread };
	}

	async filter(account: string, filter: InboxFilter): Promise<string> {
		const terms: [column: string, text: string][] = [];
		if (filter.to) terms.push(['recipients', filter.to]);
		if (filter.from) terms.push(['sender', filter.from]);
		if (filter.subject) terms.push(['subject', filter.subject]);
		const indexed = terms.filter(([, text]) => [...text].length >= TRIGRAM);
		const scanned = terms.filter(([, text]) => [...text].length < TRIGRAM);
		const params: Record<string, unknown> = { account };
		const conditions = scanned.map(([column, text], i) => {
			params[`scan${i}`] = text.toLowerCase();
			return `instr(lower(${SCAN_EXPRESSION[column]}), @scan${i}) > 0`;
		});
		if (filter.read !== undefined) conditions.push(filter.read ? 'm.read = 1' : 'm.read IS NOT 1');
		const match = indexed.length ? indexed.map(([column, text]) => `${column} : ${phrase(text)}`).join(' AND ') : undefined;
		return this.find(match, conditions, params);
	}

	async search(account: string, query: string): Promise<string> {
		if ([...query].length >= TRIGRAM) return this.find(phrase(query), [], { account });
		const condition = Object.values(SCAN_EXPRESSION)
			.map((expression) => `instr(lower(${expression}), @scan) > 0`)
			.join(' OR ');
		return this.find(undefined, [`(${condition})`], { account, scan: query.toLowerCase() });
	}

	/**
	 * With a full-text match, walks the index newest first (rowid = seq) and stops at the limit. Without one, walks
	 * the newest SCAN_LIMIT messages of each of the account's domains and inboxes, each stopping at the limit, and
	 * merges them: a single query over the whole account would read and sort all of its mail.
	 */
	private find(match: string | undefined, conditions: string[], params: Record<string, unknown>): string {
		if (match) {
			const sql = `SELECT ${RECORD_JSON} FROM messages_search s JOIN messages m ON m.seq = s.rowid
				WHERE messages_search MATCH @match AND ${[OWNED, ...conditions].join(' AND ')} ORDER BY s.rowid DESC LIMIT ${SEARCH_LIMIT}`;
			return recordsJson(this.statement(sql).all({ ...params, match }) as [string, number][]);
		}
		// Each source's newest SCAN_LIMIT messages only: a term matching nothing would otherwise be compared with every
		// message of the account while the event loop waits (about 2 s for a million).
		const walk = (column: 'inbox' | 'domain') =>
			this.statement(`SELECT m.received, m.seq, ${RECORD_JSON} FROM (SELECT * FROM messages INDEXED BY messages_${column}_received
					WHERE ${column} = @source ORDER BY received DESC, seq DESC LIMIT ${SCAN_LIMIT}) m
				WHERE ${['1', ...conditions].join(' AND ')} ORDER BY m.received DESC, m.seq DESC LIMIT ${SEARCH_LIMIT}`);
		const { domains, inboxes } = this.sources(params.account as string);
		const rows = [
			...domains.flatMap((source) => walk('domain').all({ ...params, source })),
			...inboxes.flatMap((source) => walk('inbox').all({ ...params, source })),
		] as [received: number, seq: number, head: string, spam: number][];
		rows.sort((a, b) => b[0] - a[0] || b[1] - a[1]);
		return recordsJson(rows.slice(0, SEARCH_LIMIT).map(([, , head, spam]) => [head, spam]));
	}

	/** Statements made on first use; they return rows as arrays. */
	private statement(sql: string): Statement {
		let statement = this.queries.get(sql);
		if (!statement) this.queries.set(sql, (statement = this.db.prepare(sql).raw()));
		return statement;
	}

	/** The account's domains, and its private addresses outside them (their mail is already in the domains). */
	private sources(account: string): { domains: string[]; inboxes: string[] } {
		const domains = this.ownedDomains.all(account) as string[];
		const owned = new Set(domains);
		const inboxes = (this.ownedAddresses.all(account) as string[]).filter((email) => !owned.has(email.slice(email.lastIndexOf('@') + 1)));
		return { domains, inboxes };
	}
}
