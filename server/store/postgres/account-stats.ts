import type { AccountStatsReader, HeldByAccount } from '../store';
import type { Db } from './database';

export class PostgresAccountStatsReader implements AccountStatsReader {
	constructor(private readonly db: Db) {}

	async read(account: string): Promise<HeldByAccount> {
		// The account's private mail: its reserved addresses and every address of its domains.
		const row = await this.db.row<HeldByAccount>(
			`WITH held AS (
				SELECT count(*) AS messages, coalesce(sum(size), 0)::bigint AS bytes FROM messages
				WHERE inbox IN (SELECT email FROM addresses WHERE owner = $1) OR domain IN (SELECT domain FROM domains WHERE owner = $1)
			)
			SELECT ARRAY(SELECT email FROM addresses WHERE owner = $1 ORDER BY email) AS addresses,
				ARRAY(SELECT domain FROM domains WHERE owner = $1 ORDER BY domain) AS domains,
				held.messages AS "storedMessages",
				(SELECT count(*) FROM messages WHERE saved_by = $1) AS "starredMessages",
				held.bytes AS "inboxBytes"
			FROM held`,
			[account],
		);
		return row!;
	}
}
