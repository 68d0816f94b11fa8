import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import type { SqliteAddressStore } from './addresses';
import { DomainError, type DomainStore } from '../store';
import { nowIso } from '../ids';
import type { DomainRecord } from '../../schemas/domain';

const SELECT = `SELECT d.domain AS _id, d.owner, d.created,
	(SELECT a.email FROM addresses a WHERE a.catch_all = d.domain LIMIT 1) AS catchAll
	FROM domains d`;

export class SqliteDomainStore implements DomainStore {
	// Asked for each recipient SMTP accepts and each outgoing recipient: prepared once.
	private readonly selectOwned: Statement;

	constructor(
		private readonly db: Db,
		private readonly addresses: SqliteAddressStore,
	) {
		this.selectOwned = db.prepare('SELECT 1 FROM domains WHERE domain = ?');
	}

	async isOwned(domain: string): Promise<boolean> {
		return this.selectOwned.get(domain) !== undefined;
	}

	async get(domain: string): Promise<DomainRecord | undefined> {
		return this.getNow(domain);
	}

	async list(owner?: string): Promise<DomainRecord[]> {
		return (
			owner === undefined
				? this.db.prepare(`${SELECT} ORDER BY d.domain`).all()
				: this.db.prepare(`${SELECT} WHERE d.owner = ? ORDER BY d.domain`).all(owner)
		) as DomainRecord[];
	}

	async claim(domain: string, owner: string): Promise<DomainRecord> {
		return this.db
			.transaction(() => {
				const existing = this.getNow(domain);
				if (existing && existing.owner !== owner) throw new DomainError(`${domain} is owned by another account`);
				if (existing) return existing;
				// Domains hold only [a-z0-9.-], so they need no LIKE escaping.
				const othersAddress = this.db
					.prepare("SELECT email FROM addresses WHERE email LIKE '%@' || ? AND owner != ? LIMIT 1")
					.get(domain, owner) as { email: string } | undefined;
				if (othersAddress) throw new DomainError(`${othersAddress.email} is reserved by another account, so ${domain} cannot be claimed`);
				this.db.prepare('INSERT INTO domains (domain, owner, created) VALUES (?, ?, ?)').run(domain, owner, nowIso());
				return this.getNow(domain)!;
			})
			.immediate();
	}

	async remove(domain: string): Promise<DomainRecord | undefined> {
		return this.db
			.transaction(() => {
				const existing = this.getNow(domain);
				if (!existing) return undefined;
				this.addresses.setCatchAllNow(domain, null, existing.owner);
				this.db.prepare('DELETE FROM domains WHERE domain = ?').run(domain);
				return existing;
			})
			.immediate();
	}

	private getNow(domain: string): DomainRecord | undefined {
		return this.db.prepare(`${SELECT} WHERE d.domain = ?`).get(domain) as DomainRecord | undefined;
	}
}
