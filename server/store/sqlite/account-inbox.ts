import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import { SCAN_LIMIT, SEARCH_LIMIT, type AccountInbox, type InboxFilter } from '../store';
import type { SearchQuery } from '../../mail/search-query';
import {
	COLUMNS_OF,
	foldCase,
	isIndexable,
	matchesNothing,
	planFilter,
	planSearch,
	receivedIn,
	type Check,
	type SearchPlan,
	type TextCheck,
} from '../search-plan';
import { recordsJson } from '../records-json';
import { recordJsonHead } from './messages';

/** A message is the account's when its inbox is one of its private addresses or in one of its domains. */
const OWNED = `(m.inbox IN (SELECT email FROM addresses WHERE owner = @account)
	OR m.domain IN (SELECT domain FROM domains WHERE owner = @account))`;
/** A record as JSON text (see recordJsonHead), then its spam score. */
const RECORD_JSON = `${recordJsonHead('m')}, m.spam`;

/** Statements kept for reuse, by their SQL: queries differ in the shape of their conditions only, but those are many. */
const KEPT_STATEMENTS = 200;

/**
 * contains_folded(term, text, ...): whether some text, folded as the term was (see foldCase), contains it. Checks of text
 * the trigram index cannot decide compare, through it, the text the index holds (the view messages_search_rows).
 */
const CONTAINS_FOLDED = 'contains_folded';
const containsFolded = (term: unknown, ...texts: unknown[]) =>
	texts.some((text) => typeof text === 'string' && foldCase(text).includes(term as string)) ? 1 : 0;

/** FTS5 phrase: the text matched as a substring, whatever characters it holds. */
const phrase = (text: string) => `"${text.replaceAll('"', '""')}"`;

/** An FTS5 query for a text in some columns (all of them: no column filter). */
const ftsQuery = ({ columns, text }: TextCheck) =>
	columns.length === COLUMNS_OF.any.length ? phrase(text) : `{${columns.join(' ')}} : ${phrase(text)}`;

/** Named parameters of a statement, as conditions are written. */
class Parameters {
	readonly values: Record<string, unknown>;

	constructor(account: string) {
		this.values = { account };
	}

	/** Its placeholder. */
	add(value: unknown): string {
		const name = `p${Object.keys(this.values).length}`;
		this.values[name] = value;
		return `@${name}`;
	}
}

/**
 * A check as a condition on `m` (the message) and, for texts, `r` (its row of messages_search_rows). Each check says
 * what its negation is: NOT would turn a NULL (an unread message's read) into no match.
 */
function condition(check: Check, params: Parameters): string {
	const [holds, fails] = ((): [string, string] => {
		switch (check.kind) {
			case 'text': {
				const contains = `${CONTAINS_FOLDED}(${params.add(foldCase(check.text))}, ${check.columns.map((column) => `r.${column}`).join(', ')})`;
				return [`${contains} = 1`, `${contains} = 0`];
			}
			case 'read':
				return ['m.read = 1', 'm.read IS NOT 1'];
			case 'starred':
				return ['m.saved_by IS NOT NULL', 'm.saved_by IS NULL'];
			case 'attachment':
				return ['m.attachments_json IS NOT NULL', 'm.attachments_json IS NULL'];
			case 'label': {
				const has = `EXISTS (SELECT 1 FROM json_each(m.labels_json) WHERE value = ${params.add(check.label)})`;
				return [has, `NOT ${has}`];
			}
		}
	})();
	return check.negated ? fails : holds;
}

/** The join that gives checks of text the text the index holds: only when some check needs it (it reads the body). */
const searchRowsFor = (checks: Check[]) =>
	checks.some((check) => check.kind === 'text') ? 'JOIN messages_search_rows r ON r.seq = m.seq' : '';

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
		db.function(CONTAINS_FOLDED, { deterministic: true, varargs: true }, containsFolded);
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
		return this.find(account, planFilter(filter));
	}

	async search(account: string, query: SearchQuery): Promise<string> {
		return this.find(account, planSearch(query));
	}

	private find(account: string, plan: SearchPlan): string {
		if (matchesNothing(plan)) return '[]';
		const params = new Parameters(account);
		return plan.indexed.length ? this.findIndexed(plan, params) : this.scan(plan, params);
	}

	/**
	 * Walks the full-text index newest first (rowid = seq) and stops at the limit. Negated texts the index can decide are
	 * left out by the index itself (FTS5's NOT); the other checks are made on each message it yields.
	 */
	private findIndexed(plan: SearchPlan, params: Parameters): string {
		const excluded = plan.checks.filter((check): check is TextCheck => check.kind === 'text' && isIndexable(check.text));
		const checks = plan.checks.filter((check) => !excluded.includes(check as TextCheck));
		const match =
			`(${plan.indexed.map((check) => `(${ftsQuery(check)})`).join(' AND ')})` +
			excluded.map((check) => ` NOT (${ftsQuery(check)})`).join('');
		const conditions = [
			`messages_search MATCH ${params.add(match)}`,
			OWNED,
			...checks.map((check) => condition(check, params)),
			...receivedIn(plan, 'm.received', params),
		];
		const sql = `SELECT ${RECORD_JSON} FROM messages_search s JOIN messages m ON m.seq = s.rowid ${searchRowsFor(checks)}
			WHERE ${conditions.join(' AND ')} ORDER BY s.rowid DESC LIMIT ${SEARCH_LIMIT}`;
		return recordsJson(this.statement(sql).all(params.values) as [string, number][]);
	}

	/**
	 * Walks the newest SCAN_LIMIT messages (in the range of `received`) of each of the account's domains and inboxes,
	 * each stopping at the limit, and merges them: a single query over the whole account would read and sort all of its
	 * mail, and a check matching nothing would be made on every message of it while the event loop waits.
	 */
	private scan(plan: SearchPlan, params: Parameters): string {
		const checks = plan.checks.map((check) => condition(check, params));
		const range = receivedIn(plan, 'received', params);
		const walk = (column: 'inbox' | 'domain') =>
			this.statement(`SELECT m.received, m.seq, ${RECORD_JSON} FROM (SELECT * FROM messages INDEXED BY messages_${column}_received
					WHERE ${[`${column} = @source`, ...range].join(' AND ')} ORDER BY received DESC, seq DESC LIMIT ${SCAN_LIMIT}) m
					${searchRowsFor(plan.checks)}
				WHERE ${['1', ...checks].join(' AND ')} ORDER BY m.received DESC, m.seq DESC LIMIT ${SEARCH_LIMIT}`);
		const { domains, inboxes } = this.sources(params.values.account as string);
		const rows = [
			...domains.flatMap((source) => walk('domain').all({ ...params.values, source })),
			...inboxes.flatMap((source) => walk('inbox').all({ ...params.values, source })),
		] as [received: number, seq: number, head: string, spam: number][];
		rows.sort((a, b) => b[0] - a[0] || b[1] - a[1]);
		return recordsJson(rows.slice(0, SEARCH_LIMIT).map(([, , head, spam]) => [head, spam]));
	}

	/** Statements made on first use, the most recent KEPT_STATEMENTS kept; they return rows as arrays. */
	private statement(sql: string): Statement {
		let statement = this.queries.get(sql);
		if (statement) this.queries.delete(sql);
		else statement = this.db.prepare(sql).raw();
		this.queries.set(sql, statement);
		if (this.queries.size > KEPT_STATEMENTS) this.queries.delete(this.queries.keys().next().value!);
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
