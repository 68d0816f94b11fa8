import type { Db } from './database';
import { nowIso } from './ids';
import type { ForwardingRecord } from '../schemas/address';

export type ForwardingUpdate = Partial<
	Pick<ForwardingRecord, 'forward' | 'enablews' | 'webhook' | 'webhookSlack' | 'webhookSlackToFrom' | 'info'>
>;

interface AddressRow {
	email: string;
	owner: string;
	forward: string | null;
	enablews: number;
	webhook: string | null;
	webhook_slack: string | null;
	webhook_slack_to_from: number | null;
	catch_all: string | null;
	info: string;
	created: string;
	updated: string;
}

const toRecord = (row: AddressRow): ForwardingRecord => ({
	_id: row.email,
	owner: row.owner,
	forward: row.forward,
	enablews: row.enablews === 1,
	webhook: row.webhook,
	webhookSlack: row.webhook_slack,
	webhookSlackToFrom: row.webhook_slack_to_from === null ? null : row.webhook_slack_to_from === 1,
	catchAll: row.catch_all,
	// Addresses have no mailbox password here; the field is kept for API compatibility.
	password: null,
	info: row.info,
	created: row.created,
	updated: row.updated,
});

const COLUMN_OF: Record<keyof ForwardingUpdate, string> = {
	forward: 'forward',
	enablews: 'enablews',
	webhook: 'webhook',
	webhookSlack: 'webhook_slack',
	webhookSlackToFrom: 'webhook_slack_to_from',
	info: 'info',
};

const toColumnValue = (value: unknown) => (typeof value === 'boolean' ? (value ? 1 : 0) : value);

export class AddressStore {
	constructor(private readonly db: Db) {}

	get(email: string): ForwardingRecord | undefined {
		const row = this.db.prepare('SELECT * FROM addresses WHERE email = ?').get(email) as AddressRow | undefined;
		return row && toRecord(row);
	}

	listByOwner(owner: string): ForwardingRecord[] {
		return (this.db.prepare('SELECT * FROM addresses WHERE owner = ? ORDER BY email').all(owner) as AddressRow[]).map(toRecord);
	}

	/** The account whose private mail this inbox is: the address's owner, else its domain's owner. */
	ownerOfInbox(email: string, domain: string): string | null {
		const row = this.db
			.prepare('SELECT owner FROM addresses WHERE email = ? UNION ALL SELECT owner FROM domains WHERE domain = ? LIMIT 1')
			.get(email, domain) as { owner: string } | undefined;
		return row?.owner ?? null;
	}

	/**
	 * Reserves a free address for `owner` with the given settings; returns the existing record, unchanged,
	 * when someone (the caller included) already holds it.
	 */
	reserve(email: string, owner: string, settings: ForwardingUpdate = {}): ForwardingRecord {
		return this.db
			.transaction(() => {
				const now = nowIso();
				const inserted = this.db
					.prepare('INSERT OR IGNORE INTO addresses (email, owner, created, updated) VALUES (?, ?, ?, ?)')
					.run(email, owner, now, now).changes;
				return inserted && Object.values(settings).some((value) => value !== undefined) ? this.update(email, settings) : this.get(email)!;
			})
			.immediate();
	}

	/** Reserves every address for `owner` in one transaction; callers check first that none is someone else's. */
	reserveAll(emails: string[], owner: string): ForwardingRecord[] {
		return this.db.transaction(() => emails.map((email) => this.reserve(email, owner))).immediate();
	}

	/** The address that catches the forwarding of `domain`, if one is set. */
	catchAllOf(domain: string): ForwardingRecord | undefined {
		const row = this.db.prepare('SELECT * FROM addresses WHERE catch_all = ? LIMIT 1').get(domain) as AddressRow | undefined;
		return row && toRecord(row);
	}

	/**
	 * Makes `email` (reserved for `owner` if it is not yet) the one catch-all address of `domain`, or with null
	 * leaves the domain without one.
	 */
	setCatchAll(domain: string, email: string | null, owner: string): ForwardingRecord | undefined {
		return this.db
			.transaction(() => {
				const now = nowIso();
				this.db.prepare('UPDATE addresses SET catch_all = NULL, updated = ? WHERE catch_all = ?').run(now, domain);
				if (email === null) return undefined;
				this.reserve(email, owner);
				this.db.prepare('UPDATE addresses SET catch_all = ?, updated = ? WHERE email = ?').run(domain, now, email);
				return this.get(email);
			})
			.immediate();
	}

	release(email: string): void {
		this.db.prepare('DELETE FROM addresses WHERE email = ?').run(email);
	}

	update(email: string, changes: ForwardingUpdate): ForwardingRecord {
		const fields = (Object.keys(changes) as (keyof ForwardingUpdate)[]).filter((field) => changes[field] !== undefined);
		const assignments = fields.map((field) => `${COLUMN_OF[field]} = @${field}`);
		const values = Object.fromEntries(fields.map((field) => [field, toColumnValue(changes[field])]));
		this.db
			.prepare(`UPDATE addresses SET ${[...assignments, 'updated = @updated'].join(', ')} WHERE email = @email`)
			.run({ ...values, updated: nowIso(), email });
		return this.get(email)!;
	}
}
