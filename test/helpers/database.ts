import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import type { MailroomConfig } from 'mailroom-server/dist/config/settings';

/**
 * Raw SQL on a server's database, whichever engine keeps it: for tests that look at or change what the API does not show
 * (a table's rows, an age to pretend). Parameters are written `?`; integers come back as numbers on both engines.
 */
export async function query<Row = Record<string, unknown>>(
	server: { config: Pick<MailroomConfig, 'dataDir' | 'databaseUrl'> },
	sql: string,
	params: unknown[] = [],
): Promise<Row[]> {
	const { databaseUrl, dataDir } = server.config;
	if (!databaseUrl) {
		const db = new Database(join(dataDir, 'mailroom.sqlite'));
		try {
			return run<Row>(db, sql, params);
		} finally {
			db.close();
		}
	}
	const client = await pgClient(databaseUrl);
	try {
		return await pgRows<Row>(client, sql, params);
	} finally {
		await client.end();
	}
}

/**
 * Raw SQL as query() runs it, for a test that runs hundreds of queries: on one connection, open while `use` runs (query()
 * opens one for each, a new PostgreSQL backend and its password exchange: some 40 ms).
 */
export async function withQueries<T>(
	server: Parameters<typeof query>[0],
	use: (query: <Row = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<Row[]>) => Promise<T>,
): Promise<T> {
	const connection = await connect(server);
	try {
		return await use((sql, params = []) => connection.rows(sql, params));
	} finally {
		await connection.close();
	}
}

interface Connection {
	rows<Row>(sql: string, params: unknown[]): Promise<Row[]>;
	close(): Promise<void>;
}

async function connect(server: Parameters<typeof query>[0]): Promise<Connection> {
	const { databaseUrl, dataDir } = server.config;
	if (!databaseUrl) {
		const db = new Database(join(dataDir, 'mailroom.sqlite'));
		return {
			rows: (sql, params) => new Promise((resolve) => resolve(run(db, sql, params))),
			close: () => {
				db.close();
				return Promise.resolve();
			},
		};
	}
	const client = await pgClient(databaseUrl);
	return { rows: (sql, params) => pgRows(client, sql, params), close: () => client.end() };
}

function run<Row>(db: Database.Database, sql: string, params: unknown[]): Row[] {
	const statement = db.prepare(sql);
	return statement.reader ? (statement.all(...params) as Row[]) : (statement.run(...params), []);
}

async function pgClient(databaseUrl: string): Promise<pg.Client> {
	const client = new pg.Client({ connectionString: databaseUrl, types: { getTypeParser: integersAsNumbers } });
	await client.connect();
	return client;
}

async function pgRows<Row>(client: pg.Client, sql: string, params: unknown[]): Promise<Row[]> {
	let n = 0;
	return (
		await client.query(
			sql.replace(/\?/g, () => `$${++n}`),
			params,
		)
	).rows as Row[];
}

/** The first column of the first row (a count, say). */
export async function queryValue<Value = number>(server: Parameters<typeof query>[0], sql: string, params: unknown[] = []): Promise<Value> {
	const [row] = await query(server, sql, params);
	return (row ? Object.values(row)[0] : undefined) as Value;
}

/** The first column of every row. */
export async function queryColumn<Value = unknown>(
	server: Parameters<typeof query>[0],
	sql: string,
	params: unknown[] = [],
): Promise<Value[]> {
	return (await query(server, sql, params)).map((row) => Object.values(row)[0] as Value);
}

const INT8 = 20;
const NUMERIC = 1700;
const integersAsNumbers = ((oid: number) =>
	oid === INT8 || oid === NUMERIC
		? Number
		: (pg.types.getTypeParser(oid) as (value: string) => unknown)) as pg.CustomTypesConfig['getTypeParser'];
