import type { Db } from './database';
import type { ForwardingRecord } from '../../schemas/address';
import type { AddressStore, ForwardingUpdate } from '../store';
import { nowIso } from '../ids';
import { changesAnything, toForwardingRecord, updatedColumns, type AddressRow } from '../address-records';

export class SqliteAddressStore implements AddressStore {
	constructor(private readonly db: Db) {}

	async get(email: string): Promise<ForwardingRecord | undefined> {
		return this.getNow(email);
	}

	async listByOwner(owner: string): Promise<ForwardingRecord[]> {
		return (this.db.prepare('SELECT * FROM addresses WHERE owner = ? ORDER BY email').all(owner) as AddressRow[]).map(toForwardingRecord);
	}

	async ownerOfInbox(email: string, domain: string): Promise<string | null> {
		const row = this.db
			.prepare('SELECT owner FROM addresses WHERE email = ? UNION ALL SELECT owner FROM domains WHERE domain = ? LIMIT 1')
			.get(email, domain) as { owner: string } | undefined;
		return row?.owner ?? null;
	}

	async reserve(email: string, owner: string, settings: ForwardingUpdate = {}): Promise<ForwardingRecord> {
		return this.db.transaction(() => this.reserveNow(email, owner, settings)).immediate();
	}

	async reserveAll(emails: string[], owner: string): Promise<ForwardingRecord[]> {
		return this.db.transaction(() => emails.map((email) => this.reserveNow(email, owner))).immediate();
	}

	async catchAllOf(domain: string): Promise<ForwardingRecord | undefined> {
		const row = this.db.prepare('SELECT * FROM addresses WHERE catch_all = ? LIMIT 1').get(domain) as AddressRow | undefined;
		return row && toForwardingRecord(row);
	}

	async setCatchAll(domain: string, email: string | null, owner: string): Promise<ForwardingRecord | undefined> {
		return this.db.transaction(() => this.setCatchAllNow(domain, email, owner)).immediate();
	}

	async release(email: string): Promise<void> {
		this.db.prepare('DELETE FROM addresses WHERE email = ?').run(email);
	}

	async update(email: string, changes: ForwardingUpdate): Promise<ForwardingRecord> {
		return this.updateNow(email, changes);
	}

	/** For DomainStore.remove: within its transaction. */
	setCatchAllNow(domain: string, email: string | null, owner: string): ForwardingRecord | undefined {
		const now = nowIso();
		this.db.prepare('UPDATE addresses SET catch_all = NULL, updated = ? WHERE catch_all = ?').run(now, domain);
		if (email === null) return undefined;
		this.reserveNow(email, owner);
		this.db.prepare('UPDATE addresses SET catch_all = ?, updated = ? WHERE email = ?').run(domain, now, email);
		return this.getNow(email);
	}

	private getNow(email: string): ForwardingRecord | undefined {
		const row = this.db.prepare('SELECT * FROM addresses WHERE email = ?').get(email) as AddressRow | undefined;
		return row && toForwardingRecord(row);
	}

	private reserveNow(email: string, owner: string, settings: ForwardingUpdate = {}): ForwardingRecord {
		const now = nowIso();
		const inserted = this.db
			.prepare('INSERT OR IGNORE INTO addresses (email, owner, created, updated) VALUES (?, ?, ?, ?)')
			.run(email, owner, now, now).changes;
		return inserted && changesAnything(settings) ? this.updateNow(email, settings) : this.getNow(email)!;
	}

	private updateNow(email: string, changes: ForwardingUpdate): ForwardingRecord {
		const columns = updatedColumns(changes);
		const assignments = columns.map(({ column }) => `${column} = ?`);
		this.db
			.prepare(`UPDATE addresses SET ${[...assignments, 'updated = ?'].join(', ')} WHERE email = ?`)
			.run(...columns.map(({ value }) => value), nowIso(), email);
		return this.getNow(email)!;
	}
}
