import { Client } from 'pg';
import { openPostgresStore, type PostgresStoreOptions } from 'mailroom-server/dist/store/postgres/open';
import type { Store } from 'mailroom-server/dist/store/store';
import type { TestPostgres } from '../../../helpers/postgres';

// What the PostgreSQL-only suites share; mail and records are made with the helpers of every store suite.
export { idsIn, mailTo, subjectsIn } from '../../../helpers/stores';

/** A store on a fresh database of `postgres`, and the database's URL. */
export async function freshStore(
	postgres: TestPostgres,
	options: Partial<PostgresStoreOptions> = {},
): Promise<{ store: Store; url: string }> {
	const url = await postgres.newDatabase();
	return { store: await openPostgresStore(url, { node: 'node-a', role: 'server', ...options }), url };
}

/** Plain SQL on a database, to look beneath the store (or to change what it would not). */
export class Sql {
	private constructor(private readonly client: Client) {}

	static async on(url: string): Promise<Sql> {
		const client = new Client({ connectionString: url });
		await client.connect();
		return new Sql(client);
	}

	async rows<Row = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<Row[]> {
		return (await this.client.query(text, params)).rows as Row[];
	}

	/** The first column of the first row (count(*) read as a number). */
	async value<T = unknown>(text: string, params: unknown[] = []): Promise<T> {
		const [row] = await this.rows(text, params);
		const value = row && Object.values(row)[0];
		return (typeof value === 'string' && /^count|^sum/i.test(text.replace(/^SELECT\s+/i, '')) ? Number(value) : value) as T;
	}

	/** How many rows a table holds. */
	async count(table: string): Promise<number> {
		return this.value<number>(`SELECT count(*) FROM ${table}`);
	}

	close(): Promise<void> {
		return this.client.end();
	}
}
