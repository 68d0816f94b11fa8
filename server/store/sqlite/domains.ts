import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import type { SqliteAddressStore } from './addresses';
import { DomainError, type DomainStore } from '../store';
import { nowIso } from '../ids';
import { assertOwnable, ownableParents, parentOwnedByAnother, subdomainOwnedByAnother } from '../domain-tree';
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
		assertOwnable(domain);
		return this.db
			.transaction(() => {
				const existing = this.getNow(domain);
				if (existing && existing.owner !== owner) throw new DomainError(`${domain} is owned by another account`);
				if (existing) return existing;
				this.assertTreeIsOwners(domain, owner);
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

	/** Refuses a domain with a domain above or below it that another account owns (see domain-tree). */
	private assertTreeIsOwners(domain: string, owner: string): void {
		const parents = ownableParents(domain);
		const parent = parents.length
			? (this.db
					.prepare(`SELECT domain FROM domains WHERE domain IN (${parents.map(() => '?').join(', ')}) AND owner != ? LIMIT 1`)
					.get(...parents, owner) as { domain: string } | undefined)
			: undefined;
		if (parent) throw parentOwnedByAnother(domain, parent.domain);
		// Domains hold only [a-z0-9.-], so they need no LIKE escaping.
		const subdomain = this.db
			.prepare("SELECT domain FROM domains WHERE domain LIKE '%.' || ? AND owner != ? LIMIT 1")
			.get(domain, owner) as { domain: string } | undefined;
		if (subdomain) throw subdomainOwnedByAnother(domain, subdomain.domain);
	}

	private getNow(domain: string): DomainRecord | undefined {
		return this.db.prepare(`${SELECT} WHERE d.domain = ?`).get(domain) as DomainRecord | undefined;
	}
}
