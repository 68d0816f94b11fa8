import type { DomainRecord } from '../../schemas/domain';
import { DomainError, type DomainStore } from '../store';
import { nowIso } from '../ids';
import { assertOwnable, ownableParents, parentOwnedByAnother, subdomainOwnedByAnother, treeRootOf } from '../domain-tree';
import { SqlAddressStore } from './addresses';
import type { Ownership } from './ownership';
import { prepared, type SqlDb } from './sql-db';

const SELECT = `SELECT d.domain AS "_id", d.owner, d.created,
	(SELECT a.email FROM addresses a WHERE a.catch_all = d.domain LIMIT 1) AS "catchAll"
	FROM domains d`;

/** Asked for each recipient SMTP accepts and each outgoing recipient. */
const IS_OWNED = prepared('domain-is-owned', 'SELECT 1 FROM domains WHERE domain = $1');

/** Claiming and giving up hold the domain (see Ownership), so two claims, or a claim and a reservation, take turns. */
export class SqlDomainStore implements DomainStore {
	constructor(
		private readonly db: SqlDb,
		private readonly ownership: Ownership,
	) {}

	async isOwned(domain: string): Promise<boolean> {
		return (await this.db.row(IS_OWNED, [domain])) !== undefined;
	}

	get(domain: string): Promise<DomainRecord | undefined> {
		return this.db.row<DomainRecord>(`${SELECT} WHERE d.domain = $1`, [domain]);
	}

	list(owner?: string): Promise<DomainRecord[]> {
		return owner === undefined
			? this.db.rows<DomainRecord>(`${SELECT} ORDER BY d.domain`)
			: this.db.rows<DomainRecord>(`${SELECT} WHERE d.owner = $1 ORDER BY d.domain`, [owner]);
	}

	async claim(domain: string, owner: string): Promise<DomainRecord> {
		assertOwnable(domain);
		return this.db.transaction(async (tx) => {
			// The tree's root too: two claims in one tree (a domain and its subdomain) take turns, so both see the other.
			await this.ownership.lock(tx, [domain, treeRootOf(domain)]);
			const domains = new SqlDomainStore(tx, this.ownership);
			const existing = await domains.get(domain);
			if (existing && existing.owner !== owner) throw new DomainError(`${domain} is owned by another account`);
			if (existing) return existing;
			const parent = await tx.row<{ domain: string }>(
				`SELECT domain FROM domains WHERE ${tx.dialect.inList('domain', '$1')} AND owner <> $2 LIMIT 1`,
				[tx.dialect.list(ownableParents(domain)), owner],
			);
			if (parent) throw parentOwnedByAnother(domain, parent.domain);
			// Domains hold only [a-z0-9.-], so they need no LIKE escaping.
			const subdomain = await tx.row<{ domain: string }>(
				"SELECT domain FROM domains WHERE domain LIKE ('%.' || $1) AND owner <> $2 LIMIT 1",
				[domain, owner],
			);
			if (subdomain) throw subdomainOwnedByAnother(domain, subdomain.domain);
			const othersAddress = await tx.row<{ email: string }>(
				"SELECT email FROM addresses WHERE email LIKE ('%@' || $1) AND owner <> $2 LIMIT 1",
				[domain, owner],
			);
			if (othersAddress) throw new DomainError(`${othersAddress.email} is reserved by another account, so ${domain} cannot be claimed`);
			await tx.run('INSERT INTO domains (domain, owner, created) VALUES ($1, $2, $3)', [domain, owner, nowIso()]);
			await this.ownership.claimed(tx, domain);
			return (await domains.get(domain))!;
		});
	}

	remove(domain: string): Promise<DomainRecord | undefined> {
		return this.db.transaction(async (tx) => {
			await this.ownership.lock(tx, [domain]);
			const existing = await new SqlDomainStore(tx, this.ownership).get(domain);
			if (!existing) return undefined;
			await new SqlAddressStore(tx, this.ownership).setCatchAll(domain, null, existing.owner);
			await tx.run('DELETE FROM domains WHERE domain = $1', [domain]);
			await this.ownership.givenUp(tx, domain);
			return existing;
		});
	}
}
