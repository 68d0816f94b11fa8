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
			const statement = db.prepare(sql);
			return statement.reader ? (statement.all(...params) as Row[]) : (statement.run(...params), []);
		} finally {
			db.close();
		}
	}
	const client = new pg.Client({ connectionString: databaseUrl, types: { getTypeParser: integersAsNumbers } });
	await client.connect();
	try {
		let n = 0;
		return (
			await client.query(
				sql.replace(/\?/g, () => `$${++n}`),
				params,
			)
		).rows as Row[];
	} finally {
		await client.end();
	}
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
