import type { AccountStatsReader, HeldByAccount } from '../store';
import type { SqlDb } from './sql-db';

export class SqlAccountStatsReader implements AccountStatsReader {
	constructor(private readonly db: SqlDb) {}

	async read(account: string): Promise<HeldByAccount> {
		const [addresses, domains, held, starred] = await Promise.all([
			this.db.rows<{ email: string }>('SELECT email FROM addresses WHERE owner = $1 ORDER BY email', [account]),
			this.db.rows<{ domain: string }>('SELECT domain FROM domains WHERE owner = $1 ORDER BY domain', [account]),
			// The account's private mail: its reserved addresses and every address of its domains.
			this.db.row<{ messages: number; bytes: number }>(
				`SELECT count(*) AS messages, CAST(coalesce(sum(size), 0) AS BIGINT) AS bytes FROM messages
					WHERE inbox IN (SELECT email FROM addresses WHERE owner = $1) OR domain IN (SELECT domain FROM domains WHERE owner = $1)`,
				[account],
			),
			this.db.row<{ n: number }>('SELECT count(*) AS n FROM messages WHERE saved_by = $1', [account]),
		]);
		return {
			addresses: addresses.map((row) => row.email),
			domains: domains.map((row) => row.domain),
			storedMessages: held!.messages,
			starredMessages: starred!.n,
			inboxBytes: held!.bytes,
		};
	}
}
