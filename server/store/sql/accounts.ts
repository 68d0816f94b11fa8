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
import { prepared, type SqlDb } from './sql-db';

/** Runs on every API request that carries a key. */
const ACCOUNT_OF_KEY = prepared(
	'account-of-key',
	'SELECT a.* FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = $1 AND k.revoked IS NULL',
);

export class SqlAccountStore implements AccountStore {
	constructor(private readonly db: SqlDb) {}

	async isEmpty(): Promise<boolean> {
		return (await this.db.row('SELECT 1 FROM accounts LIMIT 1')) === undefined;
	}

	async create(name: string, options: { admin?: boolean; credits?: number } = {}): Promise<Account> {
		checkAccountName(name);
		if (await this.find(name)) throw accountExists(name);
		const account: Account = { id: newId(), name, credits: options.credits ?? 0, isAdmin: options.admin ?? false, created: nowIso() };
		// Another node (or the CLI beside the server) may create the same name meanwhile: the unique name decides.
		const inserted = await this.db.run(
			'INSERT INTO accounts (id, name, credits, is_admin, created) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO NOTHING',
			[account.id, account.name, account.credits, account.isAdmin ? 1 : 0, account.created],
		);
		if (!inserted) throw accountExists(name);
		return account;
	}

	async list(): Promise<Account[]> {
		return (await this.db.rows<AccountRow>('SELECT * FROM accounts ORDER BY created, name')).map(toAccount);
	}

	async find(idOrName: string): Promise<Account | undefined> {
		const row = await this.db.row<AccountRow>('SELECT * FROM accounts WHERE id = $1 OR name = $1 LIMIT 1', [idOrName]);
		return row && toAccount(row);
	}

	async require(idOrName: string): Promise<Account> {
		const account = await this.find(idOrName);
		if (!account) throw noAccount(idOrName);
		return account;
	}

	async createKey(accountId: string, label = '', key = newApiKey()): Promise<{ key: string; info: ApiKeyInfo }> {
		const info: ApiKeyInfo = { id: newId(), accountId, label, created: nowIso(), revoked: null };
		await this.db.run('INSERT INTO api_keys (id, account_id, hash, label, created) VALUES ($1, $2, $3, $4, $5)', [
			info.id,
			accountId,
			hashKey(key),
			label,
			info.created,
		]);
		return { key, info };
	}

	listKeys(accountId: string): Promise<ApiKeyInfo[]> {
		return this.db.rows<ApiKeyInfo>(`SELECT ${KEY_INFO_COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created, id`, [accountId]);
	}

	async revokeKey(keyId: string): Promise<ApiKeyInfo> {
		const revoked = await this.db.row<ApiKeyInfo>(
			`UPDATE api_keys SET revoked = $1 WHERE id = $2 AND revoked IS NULL RETURNING ${KEY_INFO_COLUMNS}`,
			[nowIso(), keyId],
		);
		if (revoked) return revoked;
		if (await this.db.row('SELECT 1 FROM api_keys WHERE id = $1', [keyId])) throw keyAlreadyRevoked(keyId);
		throw noKey(keyId);
	}

	keyInfo(key: string): Promise<ApiKeyInfo | undefined> {
		return this.db.row<ApiKeyInfo>(`SELECT ${KEY_INFO_COLUMNS} FROM api_keys WHERE hash = $1`, [hashKey(key)]);
	}

	async forKey(key: string): Promise<Account | undefined> {
		const row = await this.db.row<AccountRow>(ACCOUNT_OF_KEY, [hashKey(key)]);
		return row && toAccount(row);
	}

	async addCredits(accountId: string, credits: number): Promise<Account> {
		checkCredits(credits);
		await this.db.run('UPDATE accounts SET credits = credits + $1 WHERE id = $2', [credits, accountId]);
		return this.require(accountId);
	}
}
