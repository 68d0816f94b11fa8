import type { Db } from './database';
import type { AddressStore } from './addresses';
import { nowIso } from './ids';
import type { DomainRecord } from '../schemas/domain';

/** Why a domain cannot be claimed; the API answers 403, the CLI prints the message. */
export class DomainError extends Error {}

const SELECT = `SELECT d.domain AS _id, d.owner, d.created,
	(SELECT a.email FROM addresses a WHERE a.catch_all = d.domain LIMIT 1) AS catchAll
	FROM domains d`;

export class DomainStore {
	// Asked for each recipient SMTP accepts and each outgoing recipient: prepared once.
	private readonly selectOwned;

	constructor(
		private readonly db: Db,
		private readonly addresses: AddressStore,
	) {
		this.selectOwned = db.prepare('SELECT 1 FROM domains WHERE domain = ?');
	}

	/** Whether an account owns the domain. */
	isOwned(domain: string): boolean {
		return this.selectOwned.get(domain) !== undefined;
	}

	get(domain: string): DomainRecord | undefined {
		return this.db.prepare(`${SELECT} WHERE d.domain = ?`).get(domain) as DomainRecord | undefined;
	}

	/** Every owned domain, or only those of one account. */
	list(owner?: string): DomainRecord[] {
		return (
			owner === undefined
				? this.db.prepare(`${SELECT} ORDER BY d.domain`).all()
				: this.db.prepare(`${SELECT} WHERE d.owner = ? ORDER BY d.domain`).all(owner)
		) as DomainRecord[];
	}

	/**
	 * Gives `domain` to `owner`; the existing record, unchanged, when the owner already has it.
	 * Refused when another account owns it or holds reserved addresses in it (their mail would change hands).
	 */
	claim(domain: string, owner: string): DomainRecord {
		return this.db
			.transaction(() => {
				const existing = this.get(domain);
				if (existing && existing.owner !== owner) throw new DomainError(`${domain} is owned by another account`);
				if (existing) return existing;
				// Domains hold only [a-z0-9.-], so they need no LIKE escaping.
				const othersAddress = this.db
					.prepare("SELECT email FROM addresses WHERE email LIKE '%@' || ? AND owner != ? LIMIT 1")
					.get(domain, owner) as { email: string } | undefined;
				if (othersAddress) throw new DomainError(`${othersAddress.email} is reserved by another account, so ${domain} cannot be claimed`);
				this.db.prepare('INSERT INTO domains (domain, owner, created) VALUES (?, ?, ?)').run(domain, owner, nowIso());
				return this.get(domain)!;
			})
			.immediate();
	}

	/** Gives a domain up: its mail becomes public again (reserved addresses stay reserved) and it has no catch-all. */
	remove(domain: string): DomainRecord | undefined {
		return this.db
			.transaction(() => {
				const existing = this.get(domain);
				if (!existing) return undefined;
				this.addresses.setCatchAll(domain, null, existing.owner);
				this.db.prepare('DELETE FROM domains WHERE domain = ?').run(domain);
				return existing;
			})
			.immediate();
	}
}
