import { Client, Pool, types, type CustomTypesConfig, type PoolClient, type QueryConfig, type QueryResult, type QueryResultRow } from 'pg';
import type { Logger } from '../../log';
import { StoreUnavailableError } from '../store';
import { POSTGRES, type Sql, type SqlDb } from '../sql/sql-db';

const INT8 = 20;

/**
 * This pool's own type parsers (pg's global ones stay as they are for anything else in the process): int8 (BIGINT
 * columns, count(*)) as numbers, as SQLite gives them (no value of ours comes near 2^53).
 */
const TYPES: CustomTypesConfig = {
	getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
		oid === INT8 && format !== 'binary'
			? Number
			: (types.getTypeParser(oid, format) as (value: string) => unknown)) as CustomTypesConfig['getTypeParser'],
};

/** Where the database is, for messages: host:port/database, never the password. */
export interface Target {
	host: string;
	port: string;
	database: string;
	user: string;
}

export const describeTarget = (target: Target) => `${target.host}:${target.port}/${target.database}`;

/** Reads a PostgreSQL URL (postgres://user:password@host:port/database) for describing it; pg reads it for connecting. */
export function targetOf(url: string): Target {
	const parsed = new URL(url);
	const user = decodeURIComponent(parsed.username) || process.env.PGUSER || 'postgres';
	return {
		host: decodeURIComponent(parsed.hostname) || parsed.searchParams.get('host') || process.env.PGHOST || 'localhost',
		port: parsed.port || process.env.PGPORT || '5432',
		database: decodeURIComponent(parsed.pathname.slice(1)) || process.env.PGDATABASE || user,
		user,
	};
}

/** A pool of `max` connections to `url`, with this engine's type parsers (PoolDb runs statements on it). */
export function openPool(url: string, max: number, logger?: Logger): Pool {
	// A server that does not answer (a dropped network) fails a request after 10 s instead of hanging it.
	const pool = new Pool({ connectionString: url, max, types: TYPES, connectionTimeoutMillis: 10_000, keepAlive: true });
	// An idle connection that breaks (the server restarted, say) is dropped by the pool; the next query opens another.
	pool.on('error', (err) => logger?.warn({ err }, 'an idle PostgreSQL connection broke'));
	return pool;
}

const CONNECTION_CODES = new Set([
	'ECONNREFUSED',
	'ECONNRESET',
	'ETIMEDOUT',
	'EPIPE',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'ENOTFOUND',
	'EAI_AGAIN',
	// admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections
	'57P01',
	'57P02',
	'57P03',
	'53300',
]);
const CONNECTION_MESSAGES = /^Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect/;

/**
 * Whether an error says the database cannot be reached now (rather than that a statement is wrong). Read by its fields,
 * not instanceof: socket errors come from Node's own realm, and a refused connection to each address of a host as an
 * AggregateError of them.
 */
export function isConnectionFailure(err: unknown): boolean {
	if (typeof err !== 'object' || err === null) return false;
	const { code, message, errors } = err as { code?: unknown; message?: unknown; errors?: unknown };
	if (Array.isArray(errors) && errors.some(isConnectionFailure)) return true;
	if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
	return typeof message === 'string' && CONNECTION_MESSAGES.test(message);
}

/** An error's message, or its code when it has none (an AggregateError of refused connections). */
export function reasonOf(err: unknown): string {
	const { message, code } = (typeof err === 'object' && err !== null ? err : {}) as { message?: unknown; code?: unknown };
	return (typeof message === 'string' && message) || String(code ?? err);
}

/**
 * PostgreSQL text cannot hold U+0000: it is stored as U+FFFD (bodies, kept as bytes, keep theirs). A last guard only: the
 * parser replaces it in what it reads from mail (withoutNul) and the API refuses it, so both engines store the same text.
 */
export const storable = (text: string) => (text.includes('\0') ? text.replaceAll('\0', '\uFFFD') : text);
const storableParam = (value: unknown): unknown =>
	typeof value === 'string' ? storable(value) : Array.isArray(value) ? value.map(storableParam) : value;

export { prepared, type Prepared } from '../sql/sql-db';

/** Statements on the database: on the pool, or on the one connection of a transaction or session. */
export type Db = SqlDb;

/**
 * Cancels the statement the backend `pid` runs now, if any (pg_cancel_backend): node-postgres takes no AbortSignal. It
 * runs on a connection of its own, not one of the pool's, which may all be held by statements waiting to be cancelled.
 * A cancel that cannot be made (the database is away, or refuses another connection) is given up: a search's
 * statement_timeout still ends its statement. Every Db of this engine is made here, so each can.
 */
export const cancelBackend = (db: Db, pid: number): Promise<void> => (db as Statements).cancelBackend(pid);

/** Runs one statement; a failure to reach the database becomes a StoreUnavailableError. */
abstract class Statements implements Db {
	readonly dialect = POSTGRES;
	abstract readonly outside: Db;
	abstract transaction<T>(work: (tx: Db) => Promise<T>): Promise<T>;
	abstract cancelBackend(pid: number): Promise<void>;
	protected abstract send<Row extends QueryResultRow>(config: QueryConfig): Promise<QueryResult<Row>>;

	constructor(readonly target: Target) {}

	async rows<Row>(sql: Sql, params: unknown[] = []): Promise<Row[]> {
		return (await this.execute<Row & QueryResultRow>(sql, params)).rows;
	}

	async row<Row>(sql: Sql, params: unknown[] = []): Promise<Row | undefined> {
		return (await this.rows<Row>(sql, params))[0];
	}

	async run(sql: Sql, params: unknown[] = []): Promise<number> {
		return (await this.execute(sql, params)).rowCount ?? 0;
	}

	protected unavailable(err: unknown): StoreUnavailableError {
		return new StoreUnavailableError(`PostgreSQL at ${describeTarget(this.target)} is unavailable: ${reasonOf(err)}`, { cause: err });
	}

	private async execute<Row extends QueryResultRow>(sql: Sql, params: unknown[]) {
		const statement = typeof sql === 'string' ? { text: sql } : sql;
		try {
			return await this.send<Row>({ ...statement, values: params.map(storableParam) });
		} catch (err) {
			throw isConnectionFailure(err) ? this.unavailable(err) : err;
		}
	}
}

/** The database through the pool: each statement on whichever connection is free. */
export class PoolDb extends Statements {
	readonly outside = this;

	constructor(
		private readonly pool: Pool,
		target: Target,
	) {
		super(target);
	}

	transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
		return this.session((db) => db.transaction(work));
	}

	protected send<Row extends QueryResultRow>(config: QueryConfig): Promise<QueryResult<Row>> {
		return this.pool.query<Row>(config);
	}

	async cancelBackend(pid: number): Promise<void> {
		const { options } = this.pool;
		// The password is not enumerable in the pool's options (pg-pool hides it from logs): named.
		const client = new Client({ ...options, password: options.password, application_name: 'mailroom cancel' });
		// Its breaking while connected must not crash the process: the cancel is then given up.
		client.on('error', () => undefined);
		try {
			await client.connect();
			await client.query('SELECT pg_cancel_backend($1)', [pid]);
		} catch {
			// Given up: statement_timeout still ends the statement.
		} finally {
			await client.end().catch(() => undefined);
		}
	}

	/**
	 * Runs `use` with one connection of the pool to itself (for a transaction, or for session-level advisory locks). A
	 * connection that broke meanwhile is closed rather than handed to the next user.
	 */
	async session<T>(use: (db: Db) => Promise<T>): Promise<T> {
		let client: PoolClient;
		try {
			client = await this.pool.connect();
		} catch (err) {
			throw isConnectionFailure(err) ? this.unavailable(err) : err;
		}
		// Between statements nothing listens to the connection: without this, its breaking would crash the process.
		const ignore = () => undefined;
		client.on('error', ignore);
		const session = new ClientDb(client, this.target, this, false);
		try {
			return await use(session);
		} finally {
			session.end();
			client.off('error', ignore);
			client.release(session.broken);
		}
	}
}

/** The database through one connection of the pool, in a transaction or not. */
class ClientDb extends Statements {
	/** Whether the connection is unusable (it failed, or a transaction could not be ended on it). */
	broken = false;
	private ended = false;
	/** The statement sent last: a connection runs one at a time, so statements issued together (Promise.all) queue here. */
	private last: Promise<unknown> = Promise.resolve();

	constructor(
		private readonly client: PoolClient,
		target: Target,
		readonly outside: PoolDb,
		private readonly inTransaction: boolean,
	) {
		super(target);
	}

	cancelBackend(pid: number): Promise<void> {
		return this.outside.cancelBackend(pid);
	}

	/** Runs `work` on this connection: in the transaction it is in, or in a new one. */
	async transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
		if (this.inTransaction) return work(this);
		const tx = new ClientDb(this.client, this.target, this.outside, true);
		try {
			await tx.run('BEGIN');
			const result = await work(tx);
			await tx.run('COMMIT');
			return result;
		} catch (err) {
			await tx.run('ROLLBACK').catch(() => (this.broken = true));
			throw err;
		} finally {
			this.broken ||= tx.broken;
			tx.end();
		}
	}

	/** Refuses any later statement: the connection goes back to the pool, where it may be in someone else's transaction. */
	end(): void {
		this.ended = true;
	}

	protected send<Row extends QueryResultRow>(config: QueryConfig): Promise<QueryResult<Row>> {
		if (this.ended) throw new Error('a statement after the end of its transaction');
		const sent = this.last.then(() => this.client.query<Row>(config));
		this.last = sent.catch(() => undefined);
		return sent;
	}

	protected unavailable(err: unknown): StoreUnavailableError {
		this.broken = true;
		return super.unavailable(err);
	}
}
