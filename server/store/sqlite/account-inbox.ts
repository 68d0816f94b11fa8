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
import { between, checkBudget, nextSpan, unbounded, type SearchBudget } from '../search-budget';

/** A message is the account's when its inbox is one of its private addresses or in one of its domains. */
const OWNED = `(m.inbox IN (SELECT email FROM addresses WHERE owner = @account)
	OR m.domain IN (SELECT domain FROM domains WHERE owner = @account))`;
/** A record as JSON text (see recordJsonHead), then its spam score. */
const RECORD_JSON = `${recordJsonHead('m')}, m.spam`;

/** Statements kept for reuse, by their SQL: queries differ in the shape of their conditions only, but those are many. */
const KEPT_STATEMENTS = 200;

/**
 * texts_match(checks, text, ...): whether the texts pass every check of text the trigram index cannot decide, each check
 * (JSON: the folded term, the indexes of the texts it looks in, whether negated) a substring test of texts folded as the
 * term was (see foldCase). One call a message, each text read and folded once whatever the number of checks: a call a
 * check made SQLite read the row's texts (a body of 64K characters) and JavaScript fold them again for each of up to 20
 * checks: one message of one repeated letter was a piece of 30-140 ms on a loaded machine (under 10 ms now).
 */
const TEXTS_MATCH = 'texts_match';
interface FoldedCheck {
	term: string;
	texts: number[];
	negated: boolean;
}
const parsedChecks = new Map<string, FoldedCheck[]>();
function textsMatch(checksJson: unknown, ...texts: unknown[]): number {
	let checks = parsedChecks.get(checksJson as string);
	if (!checks) {
		checks = JSON.parse(checksJson as string) as FoldedCheck[];
		if (parsedChecks.size >= KEPT_STATEMENTS) parsedChecks.clear();
		parsedChecks.set(checksJson as string, checks);
	}
	const folded: (string | undefined)[] = [];
	const fold = (at: number) => (folded[at] ??= typeof texts[at] === 'string' ? foldCase(texts[at]) : '');
	for (const { term, texts: within, negated } of checks) {
		if (within.some((at) => fold(at).includes(term)) === negated) return 0;
	}
	return 1;
}

/** FTS5 phrase: the text matched as a substring, whatever characters it holds. */
const phrase = (text: string) => `"${text.replaceAll('"', '""')}"`;

/** The trigrams of a text, folded as the index folds it (near enough: see foldCase), each once, in order. */
function distinctTrigrams(text: string): { trigrams: string[]; repeated: boolean } {
	const chars = [...foldCase(text)];
	const seen = new Set<string>();
	for (let at = 0; at + 3 <= chars.length; at++) seen.add(chars.slice(at, at + 3).join(''));
	return { trigrams: [...seen], repeated: seen.size < chars.length - 2 };
}

/**
 * An FTS5 query for a text in some columns (all of them: no column filter), and whether the index's match is the answer.
 * A phrase whose trigrams are distinct is matched in time linear in the text; one that repeats a trigram (1,000 × "a")
 * costs FTS5 the product of its length and the text's (seconds a message of "a"s). Such a text is looked up by its
 * distinct trigrams instead, each anywhere, and the candidates are then compared whole.
 */
function ftsQuery({ columns, text }: TextCheck): { query: string; exact: boolean } {
	const { trigrams, repeated } = distinctTrigrams(text);
	const query = repeated ? `(${trigrams.map(phrase).join(' AND ')})` : phrase(text);
	return { query: columns.length === COLUMNS_OF.any.length ? query : `{${columns.join(' ')}} : ${query}`, exact: !repeated };
}

/**
 * An indexed search takes the index's matches newest first, CANDIDATES at a time: each such query reads the terms' index
 * entries anew, from the newest, so not few at a time. (A term in a message many thousand times has an entry as long, a
 * position each: taken 16 at a time, the 500 matches of bodies of 64K "a" cost 4 to 58 ms a query, 1-3 s in all; 4,096
 * at once, one read of some 15-50 ms.) It checks them in batches that aim at PIECE_MS / 2 (see nextSpan), the event loop
 * free between batches: a message whose body must be compared against up to 20 terms costs up to a millisecond, one
 * decided by the index and its columns microseconds, so the first batch is small or large by that.
 */
const CANDIDATES = 4096;
const FIRST_BATCH = { compared: 4, decided: CANDIDATES };
const BATCHES = { min: 1, max: CANDIDATES };
/** The messages of a source a piece of a scan looks at, at first; a message with its body to compare costs milliseconds. */
const FIRST_SCAN_PIECE = { compared: 4, decided: 256 };
const SCAN_PIECES = { min: 1, max: SCAN_LIMIT };

/** Whether a check compares a message's body (up to its first 64K characters): the costly kind. */
const comparesBody = (checks: Check[]) => checks.some((check) => check.kind === 'text' && check.columns.includes('body'));

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
 * A check other than of text as a condition on `m` (the message); texts are checked together (see conditions). Each says
 * what its negation is: NOT would turn a NULL (an unread message's read) into no match.
 */
function condition(check: Exclude<Check, TextCheck>, params: Parameters): string {
	const [holds, fails] = ((): [string, string] => {
		switch (check.kind) {
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
			case 'authenticated':
				return [`json_extract(m.auth_json, '$.authenticated') = 1`, `json_extract(m.auth_json, '$.authenticated') IS NOT 1`];
			case 'auth': {
				if (check.method !== 'dkim') {
					const result = `json_extract(m.auth_json, '$.${check.method}.result')`;
					const value = params.add(check.result);
					return [`${result} = ${value}`, `${result} IS NOT ${value}`];
				}
				// dkim:none is a message without signatures; any other result, one of its signatures with it.
				if (check.result === 'none')
					return [`json_array_length(m.auth_json, '$.dkim') = 0`, `json_array_length(m.auth_json, '$.dkim') IS NOT 0`];
				const has = `EXISTS (SELECT 1 FROM json_each(m.auth_json, '$.dkim') WHERE json_extract(value, '$.result') = ${params.add(check.result)})`;
				return [has, `NOT ${has}`];
			}
		}
	})();
	return check.negated ? fails : holds;
}

/**
 * The checks as conditions on `m` and `r`: those of text together, as one call of texts_match over the columns they look
 * in (each read once), the others each as its own.
 */
function conditions(checks: Check[], params: Parameters): string[] {
	const texts = checks.filter((check): check is TextCheck => check.kind === 'text');
	const others = checks.filter((check): check is Exclude<Check, TextCheck> => check.kind !== 'text');
	if (texts.length === 0) return others.map((check) => condition(check, params));
	const columns = [...new Set(texts.flatMap((check) => check.columns))];
	const folded: FoldedCheck[] = texts.map((check) => ({
		term: foldCase(check.text),
		texts: check.columns.map((column) => columns.indexOf(column)),
		negated: check.negated,
	}));
	const call = `${TEXTS_MATCH}(${params.add(JSON.stringify(folded))}, ${columns.map((column) => `r.${column}`).join(', ')}) = 1`;
	// After the others: a message they refuse is never read for its texts.
	return [...others.map((check) => condition(check, params)), call];
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
		db.function(TEXTS_MATCH, { deterministic: true, varargs: true }, textsMatch);
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

	async filter(account: string, filter: InboxFilter, budget = unbounded()): Promise<string> {
		return this.find(account, planFilter(filter), budget);
	}

	async search(account: string, query: SearchQuery, budget = unbounded()): Promise<string> {
		return this.find(account, planSearch(query), budget);
	}

	private async find(account: string, plan: SearchPlan, budget: SearchBudget): Promise<string> {
		if (matchesNothing(plan)) return '[]';
		// Not even a first piece for a caller gone already.
		checkBudget(budget);
		const params = new Parameters(account);
		return plan.indexed.length ? this.findIndexed(plan, params, budget) : this.scan(plan, params, budget);
	}

	/**
	 * Walks the full-text index newest first (rowid = seq) and stops at the limit. Negated texts the index can decide are
	 * left out by the index itself (FTS5's NOT); the other checks are made on each message it yields, in batches that each
	 * take a few milliseconds, the event loop free between them (see CANDIDATES and search-budget.ts).
	 */
	private async findIndexed(plan: SearchPlan, params: Parameters, budget: SearchBudget): Promise<string> {
		const negated = plan.checks.filter((check): check is TextCheck => check.kind === 'text' && isIndexable(check.text));
		const found = plan.indexed.map((check) => ({ check, ...ftsQuery(check) }));
		// Left out by the index: the negated texts it decides. One it only narrows down is compared instead, as are the
		// texts it only narrows down, on each candidate.
		const excluded = negated.map((check) => ({ check, ...ftsQuery(check) })).filter(({ exact }) => exact);
		const inIndex = new Set<Check>(excluded.map(({ check }) => check));
		const checks = [
			...found.filter(({ exact }) => !exact).map(({ check }) => check),
			...plan.checks.filter((check) => !inIndex.has(check)),
		];
		const match = `(${found.map(({ query }) => `(${query})`).join(' AND ')})` + excluded.map(({ query }) => ` NOT (${query})`).join('');
		const candidates = this.statement(
			`SELECT s.rowid FROM messages_search s WHERE messages_search MATCH ${params.add(match)} AND s.rowid < @below
				ORDER BY s.rowid DESC LIMIT ${CANDIDATES}`,
		);
		const where = [
			'm.seq IN (SELECT value FROM json_each(@seqs))',
			OWNED,
			...receivedIn(plan, 'm.received', params),
			...conditions(checks, params),
		];
		const checked = this.statement(`SELECT ${RECORD_JSON} FROM messages m ${searchRowsFor(checks)}
			WHERE ${where.join(' AND ')} ORDER BY m.seq DESC`);
		const rows: [string, number][] = [];
		let [below, batch, pending, more] = [
			Number.MAX_SAFE_INTEGER,
			FIRST_BATCH[comparesBody(checks) ? 'compared' : 'decided'],
			[] as number[],
			true,
		];
		while (rows.length < SEARCH_LIMIT) {
			if (pending.length === 0) {
				if (!more) break;
				pending = (candidates.all({ ...params.values, below }) as [number][]).map(([seq]) => seq);
				more = pending.length === CANDIDATES;
				if (pending.length === 0) break;
				below = pending[pending.length - 1];
			}
			const started = performance.now();
			rows.push(...(checked.all({ ...params.values, seqs: JSON.stringify(pending.splice(0, batch)) }) as [string, number][]));
			batch = nextSpan(batch, performance.now() - started, BATCHES);
			if (rows.length < SEARCH_LIMIT) await between(budget);
		}
		return recordsJson(rows.slice(0, SEARCH_LIMIT));
	}

	/**
	 * Walks the newest SCAN_LIMIT messages (in the range of `received`) of each of the account's domains and inboxes,
	 * each stopping at the limit, and merges them: a single query over the whole account would read and sort all of its
	 * mail. Each walk goes in pieces that each take a few milliseconds (a piece starts below the last message of the one
	 * before it, by the index's order), the event loop free between them: a check matching nothing is made on every message
	 * looked at.
	 */
	private async scan(plan: SearchPlan, params: Parameters, budget: SearchBudget): Promise<string> {
		const range = receivedIn(plan, 'received', params);
		// Older than the last message looked at: (received, seq) below the boundary, in the index's order.
		const older = ['received <= @lastReceived', '(received < @lastReceived OR seq < @lastSeq)'];
		const pieceOf = (column: 'inbox' | 'domain') =>
			this.statement(`SELECT seq, received FROM messages INDEXED BY messages_${column}_received
				WHERE ${[`${column} = @source`, ...range, ...older].join(' AND ')} ORDER BY received DESC, seq DESC LIMIT @piece`);
		const checked = this.statement(`SELECT m.received, m.seq, ${RECORD_JSON} FROM messages m ${searchRowsFor(plan.checks)}
			WHERE ${['m.seq IN (SELECT value FROM json_each(@seqs))', ...conditions(plan.checks, params)].join(' AND ')}`);
		const { domains, inboxes } = this.sources(params.values.account as string);
		const rows: [received: number, seq: number, head: string, spam: number][] = [];
		let piece = FIRST_SCAN_PIECE[comparesBody(plan.checks) ? 'compared' : 'decided'];
		for (const [column, source] of [...domains.map((d) => ['domain', d] as const), ...inboxes.map((i) => ['inbox', i] as const)]) {
			let [lastReceived, lastSeq, looked, matched] = [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 0, 0];
			// Newest first: once a source has given SEARCH_LIMIT matches, the rest of it is older than all of them.
			while (looked < SCAN_LIMIT && matched < SEARCH_LIMIT) {
				const started = performance.now();
				const values = { ...params.values, source, lastReceived, lastSeq, piece: Math.min(piece, SCAN_LIMIT - looked) };
				const seqs = pieceOf(column).all(values) as [seq: number, received: number][];
				if (seqs.length === 0) break;
				const part = checked.all({ ...params.values, seqs: JSON.stringify(seqs.map(([seq]) => seq)) }) as typeof rows;
				rows.push(...part);
				matched += part.length;
				looked += seqs.length;
				[lastSeq, lastReceived] = seqs[seqs.length - 1];
				piece = nextSpan(piece, performance.now() - started, SCAN_PIECES);
				await between(budget);
			}
		}
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
