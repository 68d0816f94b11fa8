import { createHash, randomBytes } from 'node:crypto';
import type { Db } from './database';
import { newId, nowIso } from './ids';

export interface Account {
	id: string;
	name: string;
	credits: number;
	isAdmin: boolean;
	created: string;
}

export interface ApiKeyInfo {
	id: string;
	accountId: string;
	label: string;
	created: string;
	revoked: string | null;
}

export class AccountError extends Error {}

interface AccountRow {
	id: string;
	name: string;
	credits: number;
	is_admin: number;
	created: string;
}

const toAccount = (row: AccountRow): Account => ({
	id: row.id,
	name: row.name,
	credits: row.credits,
	isAdmin: row.is_admin === 1,
	created: row.created,
});

/** Keys are random and long, so a plain SHA-256 is enough to store them safely. */
export function hashKey(key: string): string {
	return createHash('sha256').update(key).digest('hex');
}

const ACCOUNT_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

export class AccountStore {
	// Runs on every API request that carries a key: prepared once.
	private readonly selectByKeyHash;

	constructor(private readonly db: Db) {
		this.selectByKeyHash = db.prepare(
			'SELECT a.* FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = ? AND k.revoked IS NULL',
		);
	}

	isEmpty(): boolean {
		return this.db.prepare('SELECT 1 FROM accounts LIMIT 1').get() === undefined;
	}

	create(name: string, options: { admin?: boolean; credits?: number } = {}): Account {
		if (!ACCOUNT_NAME.test(name)) throw new AccountError(`account name "${name}" must be 1-64 letters, digits, ".", "_", "@" or "-"`);
		if (this.find(name)) throw new AccountError(`an account named "${name}" already exists`);
		const account: Account = { id: newId(), name, credits: options.credits ?? 0, isAdmin: options.admin ?? false, created: nowIso() };
		this.db
			.prepare('INSERT INTO accounts (id, name, credits, is_admin, created) VALUES (?, ?, ?, ?, ?)')
			.run(account.id, account.name, account.credits, account.isAdmin ? 1 : 0, account.created);
		return account;
	}

	list(): Account[] {
		return (this.db.prepare('SELECT * FROM accounts ORDER BY created, name').all() as AccountRow[]).map(toAccount);
	}

	/** By id or by name. */
	find(idOrName: string): Account | undefined {
		const row = this.db.prepare('SELECT * FROM accounts WHERE id = ? OR name = ?').get(idOrName, idOrName) as AccountRow | undefined;
		return row && toAccount(row);
	}

	require(idOrName: string): Account {
		const account = this.find(idOrName);
		if (!account) throw new AccountError(`no account "${idOrName}" (see: mailroom accounts list)`);
		return account;
	}

	/** Returns the new key in clear text: the only time it is ever visible. */
	createKey(accountId: string, label = ''): { key: string; info: ApiKeyInfo } {
		const key = `mr_${randomBytes(24).toString('base64url')}`;
		const info: ApiKeyInfo = { id: newId(), accountId, label, created: nowIso(), revoked: null };
		this.db
			.prepare('INSERT INTO api_keys (id, account_id, hash, label, created) VALUES (?, ?, ?, ?, ?)')
			.run(info.id, accountId, hashKey(key), label, info.created);
		return { key, info };
	}

	listKeys(accountId: string): ApiKeyInfo[] {
		return this.db
			.prepare('SELECT id, account_id AS accountId, label, created, revoked FROM api_keys WHERE account_id = ? ORDER BY created')
			.all(accountId) as ApiKeyInfo[];
	}

	revokeKey(keyId: string): ApiKeyInfo {
		const result = this.db.prepare('UPDATE api_keys SET revoked = ? WHERE id = ? AND revoked IS NULL').run(nowIso(), keyId);
		const key = this.db.prepare('SELECT id, account_id AS accountId, label, created, revoked FROM api_keys WHERE id = ?').get(keyId) as
			ApiKeyInfo | undefined;
		if (!key) throw new AccountError(`no API key with id "${keyId}" (see: mailroom keys list <account>)`);
		if (result.changes === 0) throw new AccountError(`API key "${keyId}" was already revoked`);
		return key;
	}

	/** The record of a clear-text key (revoked or not), or undefined for an unknown one. */
	keyInfo(key: string): ApiKeyInfo | undefined {
		return this.db.prepare('SELECT id, account_id AS accountId, label, created, revoked FROM api_keys WHERE hash = ?').get(hashKey(key)) as
			ApiKeyInfo | undefined;
	}

	/** The account a live key belongs to, or undefined for an unknown or revoked key. */
	forKey(key: string): Account | undefined {
		const row = this.selectByKeyHash.get(hashKey(key)) as AccountRow | undefined;
		return row && toAccount(row);
	}

	addCredits(accountId: string, credits: number): Account {
		if (!Number.isInteger(credits) || credits <= 0) throw new AccountError(`credits must be a positive whole number, got ${credits}`);
		this.db.prepare('UPDATE accounts SET credits = credits + ? WHERE id = ?').run(credits, accountId);
		return this.require(accountId);
	}
}
