import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import type { Account, AccountStore, ApiKeyInfo } from '../store';
import { newId, nowIso } from '../ids';
import {
	KEY_INFO_COLUMNS,
	accountExists,
	checkAccountName,
	checkCredits,
	hashKey,
	keyAlreadyRevoked,
	newApiKey,
	noAccount,
	noKey,
	toAccount,
	type AccountRow,
} from '../account-records';

export class SqliteAccountStore implements AccountStore {
	// Runs on every API request that carries a key: prepared once.
	private readonly selectByKeyHash: Statement;

	constructor(private readonly db: Db) {
		this.selectByKeyHash = db.prepare(
			'SELECT a.* FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = ? AND k.revoked IS NULL',
		);
	}

	async isEmpty(): Promise<boolean> {
		return this.db.prepare('SELECT 1 FROM accounts LIMIT 1').get() === undefined;
	}

	async create(name: string, options: { admin?: boolean; credits?: number } = {}): Promise<Account> {
		checkAccountName(name);
		if (this.findNow(name)) throw accountExists(name);
		const account: Account = { id: newId(), name, credits: options.credits ?? 0, isAdmin: options.admin ?? false, created: nowIso() };
		this.db
			.prepare('INSERT INTO accounts (id, name, credits, is_admin, created) VALUES (?, ?, ?, ?, ?)')
			.run(account.id, account.name, account.credits, account.isAdmin ? 1 : 0, account.created);
		return account;
	}

	async list(): Promise<Account[]> {
		return (this.db.prepare('SELECT * FROM accounts ORDER BY created, name').all() as AccountRow[]).map(toAccount);
	}

	async find(idOrName: string): Promise<Account | undefined> {
		return this.findNow(idOrName);
	}

	async require(idOrName: string): Promise<Account> {
		const account = this.findNow(idOrName);
		if (!account) throw noAccount(idOrName);
		return account;
	}

	async createKey(accountId: string, label = ''): Promise<{ key: string; info: ApiKeyInfo }> {
		const key = newApiKey();
		const info: ApiKeyInfo = { id: newId(), accountId, label, created: nowIso(), revoked: null };
		this.db
			.prepare('INSERT INTO api_keys (id, account_id, hash, label, created) VALUES (?, ?, ?, ?, ?)')
			.run(info.id, accountId, hashKey(key), label, info.created);
		return { key, info };
	}

	async listKeys(accountId: string): Promise<ApiKeyInfo[]> {
		return this.db.prepare(`SELECT ${KEY_INFO_COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY created`).all(accountId) as ApiKeyInfo[];
	}

	async revokeKey(keyId: string): Promise<ApiKeyInfo> {
		const result = this.db.prepare('UPDATE api_keys SET revoked = ? WHERE id = ? AND revoked IS NULL').run(nowIso(), keyId);
		const key = this.db.prepare(`SELECT ${KEY_INFO_COLUMNS} FROM api_keys WHERE id = ?`).get(keyId) as ApiKeyInfo | undefined;
		if (!key) throw noKey(keyId);
		if (result.changes === 0) throw keyAlreadyRevoked(keyId);
		return key;
	}

	async keyInfo(key: string): Promise<ApiKeyInfo | undefined> {
		return this.db.prepare(`SELECT ${KEY_INFO_COLUMNS} FROM api_keys WHERE hash = ?`).get(hashKey(key)) as ApiKeyInfo | undefined;
	}

	async forKey(key: string): Promise<Account | undefined> {
		const row = this.selectByKeyHash.get(hashKey(key)) as AccountRow | undefined;
		return row && toAccount(row);
	}

	async addCredits(accountId: string, credits: number): Promise<Account> {
		checkCredits(credits);
		this.db.prepare('UPDATE accounts SET credits = credits + ? WHERE id = ?').run(credits, accountId);
		return this.require(accountId);
	}

	private findNow(idOrName: string): Account | undefined {
		const row = this.db.prepare('SELECT * FROM accounts WHERE id = ? OR name = ?').get(idOrName, idOrName) as AccountRow | undefined;
		return row && toAccount(row);
	}
}
