import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import type { AccountStatsReader, HeldByAccount } from '../store';

export class SqliteAccountStatsReader implements AccountStatsReader {
	private readonly addresses: Statement;
	private readonly domains: Statement;
	private readonly stored: Statement;
	private readonly starred: Statement;

	constructor(db: Db) {
		this.addresses = db.prepare('SELECT email FROM addresses WHERE owner = ? ORDER BY email').pluck();
		this.domains = db.prepare('SELECT domain FROM domains WHERE owner = ? ORDER BY domain').pluck();
		// The account's private mail: its reserved addresses and every address of its domains.
		this.stored = db.prepare(`SELECT count(*) AS storedMessages, coalesce(sum(size), 0) AS inboxBytes FROM messages
			WHERE inbox IN (SELECT email FROM addresses WHERE owner = @account) OR domain IN (SELECT domain FROM domains WHERE owner = @account)`);
		this.starred = db.prepare('SELECT count(*) FROM messages WHERE saved_by = ?').pluck();
	}

	async read(account: string): Promise<HeldByAccount> {
		const { storedMessages, inboxBytes } = this.stored.get({ account }) as { storedMessages: number; inboxBytes: number };
		return {
			addresses: this.addresses.all(account) as string[],
			domains: this.domains.all(account) as string[],
			storedMessages,
			starredMessages: this.starred.get(account) as number,
			inboxBytes,
		};
	}
}
