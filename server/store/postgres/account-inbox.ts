import { SCAN_LIMIT, SEARCH_LIMIT, type AccountInbox, type InboxFilter } from '../store';
import type { SearchQuery } from '../../mail/search-query';
import { matchesNothing, planFilter, planSearch, receivedIn, type Check, type SearchPlan, type TextCheck } from '../search-plan';
import { bodyWordQuery } from './body-words';
import { cancelBackend, type Db } from './database';
import { RECORD_JSON, recordArray, type RecordJsonRow } from './record-json';
import { indexedText, searchedText } from './search-index';
import { checkBudget, SearchAbandonedError, SearchTimeoutError, unbounded, type SearchBudget } from '../search-budget';

/** PostgreSQL's code for a statement cancelled: by statement_timeout, or by pg_cancel_backend once the caller is gone. */
const QUERY_CANCELED = '57014';

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

/**
 * How a search goes through messages_search: it compares entries one by one, newest first, for as long as that promises
 * to fill the page soonest (about 7 µs an entry with a kilobyte body), then takes the rest from the indexes, which yield
 * every match (a few µs each) and so are the faster way to a term that is rare. FIRST_WALK entries are compared first; then
 * the rate of matches so far says how many more the page would take, and up to WALK_AT_MOST are walked if so.
 */
const FIRST_WALK = 250;
const WALK_AT_MOST = 6000;

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
			case 'authenticated':
				return [`(m.auth_json::jsonb ->> 'authenticated') = 'true'`, `(m.auth_json::jsonb ->> 'authenticated') IS DISTINCT FROM 'true'`];
			case 'auth': {
				if (check.method !== 'dkim') {
					const result = `(m.auth_json::jsonb #>> '{${check.method},result}')`;
					const value = params.add(check.result);
					return [`${result} = ${value}`, `${result} IS DISTINCT FROM ${value}`];
				}
				// dkim:none is a message without signatures; any other result, one of its signatures with it.
				const count = `jsonb_array_length(m.auth_json::jsonb -> 'dkim')`;
				if (check.result === 'none') return [`${count} = 0`, `${count} IS DISTINCT FROM 0`];
				const has = `coalesce(m.auth_json::jsonb -> 'dkim' @> jsonb_build_array(jsonb_build_object('result', ${params.add(check.result)}::text)), false)`;
				return [has, `NOT ${has}`];
			}
		}
	})();
	return check.negated ? fails : holds;
}

/**
 * A text to find through the indexes, as a condition on `s`: the trigram index's columns with LIKE, the body through its
 * words (compared with LIKE too unless the words decide), or compared for a body not indexed by words.
 */
function indexedCondition(check: TextCheck, params: Parameters): string {
	const pattern = params.add(`%${indexedText(check.text)}%`);
	const found = check.columns.map((column) => {
		if (column !== 'body') return `s.${column} LIKE ${pattern}`;
		const words = bodyWordQuery(searchedText(check.text))!;
		const inWords = `s.body_words @@ ${params.add(words.tsquery)}::tsquery`;
		const compared = `s.body LIKE ${pattern}`;
		// Compared first, where the words do not decide: a match on LIKE is checked against the words (which the index
		// needs) after it, and most candidates fail it, without reading their words.
		return `${words.exact ? inWords : `(${compared} AND ${inWords})`} OR (s.body_words IS NULL AND ${compared})`;
	});
	return `(${found.join(' OR ')})`;
}

/** Whether the indexes can find the text: the body's words only hold word pieces of three characters or more. */
const canFind = (check: TextCheck) => !check.columns.includes('body') || bodyWordQuery(searchedText(check.text)) !== undefined;

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

	filter(account: string, filter: InboxFilter, budget = unbounded()): Promise<string> {
		return this.find(account, planFilter(filter), budget);
	}

	search(account: string, query: SearchQuery, budget = unbounded()): Promise<string> {
		return this.find(account, planSearch(query), budget);
	}

	/**
	 * Runs the search's statements in one transaction whose statements PostgreSQL cancels once the budget's time is up, or
	 * once its caller is gone, so that no statement holds a connection of the pool past either; between statements the
	 * budget is checked (see findOn).
	 */
	private async find(account: string, plan: SearchPlan, budget: SearchBudget): Promise<string> {
		if (matchesNothing(plan)) return '[]';
		checkBudget(budget);
		try {
			return await this.db.transaction(async (tx) => {
				const { pid } = await this.limit(tx, budget);
				return await this.cancelledWhenGone(pid, budget, () => this.findOn(tx, account, plan, budget));
			});
		} catch (err) {
			if ((err as { code?: unknown }).code !== QUERY_CANCELED) throw err;
			throw budget.signal?.aborted ? new SearchAbandonedError() : new SearchTimeoutError(budget.limitMs);
		}
	}

	/**
	 * Sets the transaction's statement_timeout to the budget's time left, if it has a limit, and reads the pid of its
	 * backend, if the budget has a caller who may go: one statement for both, none for neither.
	 */
	private async limit(tx: Db, { deadline, signal }: SearchBudget): Promise<{ pid?: number }> {
		const params = Number.isFinite(deadline) ? [`${Math.max(1, Math.ceil(deadline - Date.now()))}ms`] : [];
		const columns = [
			...(signal ? ['pg_backend_pid() AS pid'] : []),
			...(params.length ? [`set_config('statement_timeout', $1, true)`] : []),
		];
		return columns.length ? (await tx.row<{ pid?: number }>(`SELECT ${columns.join(', ')}`, params))! : {};
	}

	/**
	 * Runs `work`, cancelling the statement that backend `pid` runs once the budget's caller goes away. The work's end
	 * waits for the cancel to be made, so that it cannot reach the backend once its connection is back in the pool.
	 */
	private async cancelledWhenGone<T>(pid: number | undefined, budget: SearchBudget, work: () => Promise<T>): Promise<T> {
		const { signal } = budget;
		if (!signal || pid === undefined) return work();
		let cancelled: Promise<void> | undefined;
		const cancel = () => {
			cancelled = cancelBackend(this.db, pid);
		};
		signal.addEventListener('abort', cancel, { once: true });
		try {
			checkBudget(budget);
			return await work();
		} finally {
			signal.removeEventListener('abort', cancel);
			await cancelled;
		}
	}

	/**
	 * With texts the indexes can find, looks through all of the account's mail and takes the newest (by seq, as SQLite
	 * takes its index's rowids): the newest entries one by one, then the older ones through the indexes (see FIRST_WALK).
	 * Otherwise looks at the newest SCAN_LIMIT messages of each of the account's domains and inboxes in the range of
	 * `received` only, as SQLite does: a check matching nothing would else be made on all of them.
	 */
	private async findOn(db: Db, account: string, plan: SearchPlan, budget: SearchBudget): Promise<string> {
		// A term such as `a.b` has no word piece to find in bodies: it is looked for as a term too short for the index is.
		const findable = plan.indexed.filter(canFind);
		const checked = [...plan.indexed.filter((check) => !canFind(check)), ...plan.checks];
		if (findable.length === 0) {
			const params = new Parameters();
			params.add(account);
			const checks = checked.map((check) => condition(check, params));
			return recordArray(await db.rows<RecordJsonRow>(this.scan(plan, checks, params), params.values));
		}
		const found: RecordJsonRow[] = [];
		const compared = (params: Parameters) => [...findable, ...checked].map((check) => condition(check, params));
		let [walked, walk, newerThan] = [0, FIRST_WALK, Infinity];
		for (;;) {
			const boundary = await this.seqBelow(db, newerThan, walk);
			found.push(...(await this.entries(db, account, plan, { below: newerThan, from: boundary }, 'walk', compared, found.length)));
			if (found.length === SEARCH_LIMIT || boundary === undefined) return recordArray(found);
			checkBudget(budget);
			walked += walk;
			newerThan = boundary;
			if (found.length === 0) break;
			// The entries the rest of the page should take at the rate found so far, with a margin.
			walk = Math.ceil(((SEARCH_LIMIT - found.length) * walked * 1.5) / found.length);
			if (walk > WALK_AT_MOST) break;
		}
		found.push(
			...(await this.entries(
				db,
				account,
				plan,
				{ below: newerThan },
				'indexes',
				(params) => [...findable.map((check) => indexedCondition(check, params)), ...checked.map((check) => condition(check, params))],
				found.length,
			)),
		);
		return recordArray(found);
	}

	/** The seq of the `count`th newest entry below `newerThan`: the oldest a walk of `count` entries reaches; none if fewer are left. */
	private async seqBelow(db: Db, newerThan: number, count: number): Promise<number | undefined> {
		const below = Number.isFinite(newerThan) ? 'WHERE seq < $1' : '';
		return (
			await db.row<{ seq: number }>(
				`SELECT seq FROM messages_search ${below} ORDER BY seq DESC OFFSET ${count - 1} LIMIT 1`,
				below ? [newerThan] : [],
			)
		)?.seq;
	}

	/**
	 * The newest entries of messages_search with seq in `range` (below `below`, from `from` on) whose messages are the
	 * account's and meet `conditions`, as many as the page still takes after `found`. `walk` compares the entries newest
	 * first; `indexes` takes the indexes' matches and sorts them: it orders and bounds them by an expression rather than by
	 * seq, the primary key, so that the planner can neither walk instead nor read all of the range, not knowing that
	 * comparing each entry's words costs more. Each match's message is then looked up by itself, in that order, until the
	 * page is full.
	 */
	private entries(
		db: Db,
		account: string,
		plan: SearchPlan,
		range: { below: number; from?: number },
		way: 'walk' | 'indexes',
		conditions: (params: Parameters) => string[],
		found: number,
	): Promise<RecordJsonRow[]> {
		const params = new Parameters();
		params.add(account);
		const newest = way === 'walk' ? 'seq' : 'seq + 0';
		const bounds = [
			...(Number.isFinite(range.below) ? [`${newest} < ${params.add(range.below)}`] : []),
			...(range.from === undefined ? [] : [`${newest} >= ${params.add(range.from)}`]),
		];
		const where = [...conditions(params), ...receivedIn(plan, 'm.received', params), OWNED];
		return db.rows<RecordJsonRow>(
			`SELECT ${RECORD_JSON} FROM (SELECT *, ${newest} AS newest FROM messages_search
					${bounds.length ? `WHERE ${bounds.join(' AND ')}` : ''} ORDER BY newest DESC) s
				CROSS JOIN LATERAL (SELECT * FROM messages WHERE seq = s.seq OFFSET 0) m
				WHERE ${where.join(' AND ')} ORDER BY s.newest DESC LIMIT ${SEARCH_LIMIT - found}`,
			params.values,
		);
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
