import type { ForwardingRecord } from '../../schemas/address';
import type { AddressStore, ForwardingUpdate } from '../store';
import { nowIso } from '../ids';
import { changesAnything, toForwardingRecord, updatedColumns, type AddressRow } from '../address-records';
import { domainOf, type Ownership } from './ownership';
import type { SqlDb } from './sql-db';

/** Reserving and releasing change whose mail an inbox is: each holds its domain (see Ownership). */
export class SqlAddressStore implements AddressStore {
	constructor(
		private readonly db: SqlDb,
		private readonly ownership: Ownership,
	) {}

	async get(email: string): Promise<ForwardingRecord | undefined> {
		const row = await this.db.row<AddressRow>('SELECT * FROM addresses WHERE email = $1', [email]);
		return row && toForwardingRecord(row);
	}

	async listByOwner(owner: string): Promise<ForwardingRecord[]> {
		return (await this.db.rows<AddressRow>('SELECT * FROM addresses WHERE owner = $1 ORDER BY email', [owner])).map(toForwardingRecord);
	}

	async ownerOfInbox(email: string, domain: string): Promise<string | null> {
		const row = await this.db.row<{ owner: string }>(
			'SELECT owner FROM addresses WHERE email = $1 UNION ALL SELECT owner FROM domains WHERE domain = $2 LIMIT 1',
			[email, domain],
		);
		return row?.owner ?? null;
	}

	reserve(email: string, owner: string, settings: ForwardingUpdate = {}): Promise<ForwardingRecord> {
		return this.db.transaction(async (tx) => {
			await this.ownership.lock(tx, [domainOf(email)]);
			const now = nowIso();
			const inserted = await tx.run(
				'INSERT INTO addresses (email, owner, created, updated) VALUES ($1, $2, $3, $3) ON CONFLICT (email) DO NOTHING',
				[email, owner, now],
			);
			if (inserted) await this.ownership.reserved(tx, email);
			const addresses = this.on(tx);
			return inserted && changesAnything(settings) ? addresses.update(email, settings) : (await addresses.get(email))!;
		});
	}

	reserveAll(emails: string[], owner: string): Promise<ForwardingRecord[]> {
		return this.db.transaction(async (tx) => {
			// All at once, in the one order every node takes them in.
			await this.ownership.lock(tx, emails.map(domainOf));
			const addresses = this.on(tx);
			const reserved: ForwardingRecord[] = [];
			for (const email of emails) reserved.push(await addresses.reserve(email, owner));
			return reserved;
		});
	}

	async catchAllOf(domain: string): Promise<ForwardingRecord | undefined> {
		const row = await this.db.row<AddressRow>('SELECT * FROM addresses WHERE catch_all = $1 LIMIT 1', [domain]);
		return row && toForwardingRecord(row);
	}

	setCatchAll(domain: string, email: string | null, owner: string): Promise<ForwardingRecord | undefined> {
		return this.db.transaction(async (tx) => {
			await this.ownership.lock(tx, email === null ? [domain] : [domain, domainOf(email)]);
			const now = nowIso();
			await tx.run('UPDATE addresses SET catch_all = NULL, updated = $1 WHERE catch_all = $2', [now, domain]);
			if (email === null) return undefined;
			const addresses = this.on(tx);
			await addresses.reserve(email, owner);
			await tx.run('UPDATE addresses SET catch_all = $1, updated = $2 WHERE email = $3', [domain, now, email]);
			return addresses.get(email);
		});
	}

	release(email: string): Promise<void> {
		return this.db.transaction(async (tx) => {
			await this.ownership.lock(tx, [domainOf(email)]);
			// Its webhook subscriptions go with it (ON DELETE CASCADE).
			if (await tx.run('DELETE FROM addresses WHERE email = $1', [email])) await this.ownership.released(tx, email);
		});
	}

	async update(email: string, changes: ForwardingUpdate): Promise<ForwardingRecord> {
		const columns = updatedColumns(changes);
		const assignments = columns.map(({ column }, i) => `${column} = $${i + 1}`);
		const row = await this.db.row<AddressRow>(
			`UPDATE addresses SET ${[...assignments, `updated = $${columns.length + 1}`].join(', ')} WHERE email = $${columns.length + 2}
				RETURNING *`,
			[...columns.map(({ value }) => value), nowIso(), email],
		);
		// Callers update an address they hold. One that is gone yields nothing (the contract promises a record).
		return (row && toForwardingRecord(row)) as ForwardingRecord;
	}

	/** This store within a transaction. */
	on(tx: SqlDb): SqlAddressStore {
		return new SqlAddressStore(tx, this.ownership);
	}
}
