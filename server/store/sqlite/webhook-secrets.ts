import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import type { SigningSecrets, WebhookSecretStore } from '../store';
import { newWebhookSecret, signingSecrets, type SecretRow } from '../secrets';

/** Per-account webhook signing secrets, created on first use. */
export class SqliteWebhookSecretStore implements WebhookSecretStore {
	private readonly select: Statement;
	private readonly insert: Statement;
	private readonly replace: Statement;

	constructor(db: Db) {
		this.select = db.prepare('SELECT secret, previous_secret, rotated FROM webhook_secrets WHERE account_id = ?');
		this.insert = db.prepare('INSERT OR IGNORE INTO webhook_secrets (account_id, secret) VALUES (?, ?)');
		this.replace = db.prepare('UPDATE webhook_secrets SET secret = ?, previous_secret = ?, rotated = ? WHERE account_id = ?');
	}

	async get(accountId: string): Promise<string> {
		return this.row(accountId).secret;
	}

	async signing(accountId: string, now: number): Promise<SigningSecrets> {
		return signingSecrets(this.row(accountId), now);
	}

	async rotate(accountId: string): Promise<string> {
		const current = this.row(accountId).secret;
		const secret = newWebhookSecret();
		this.replace.run(secret, current, Date.now(), accountId);
		return secret;
	}

	/** Reads first: signing runs per attempt and should not write. */
	private row(accountId: string): SecretRow {
		const row = this.select.get(accountId) as SecretRow | undefined;
		if (row) return row;
		this.insert.run(accountId, newWebhookSecret());
		return this.select.get(accountId) as SecretRow;
	}
}
