import type { SigningSecrets, WebhookSecretStore } from '../store';
import { newWebhookSecret, signingSecrets, type SecretRow } from '../secrets';
import type { SqlDb } from './sql-db';

const SELECT = 'SELECT secret, previous_secret, rotated FROM webhook_secrets WHERE account_id = $1';

/** Per-account webhook signing secrets, created on first use. */
export class SqlWebhookSecretStore implements WebhookSecretStore {
	constructor(private readonly db: SqlDb) {}

	async get(accountId: string): Promise<string> {
		return (await this.signing(accountId, Date.now())).secret;
	}

	/** Reads first: signing runs per attempt and should not write. */
	async signing(accountId: string, now: number): Promise<SigningSecrets> {
		let row = await this.db.row<SecretRow>(SELECT, [accountId]);
		if (!row) {
			// Two nodes may make one at once: the first insert wins, and both read it.
			await this.db.run('INSERT INTO webhook_secrets (account_id, secret) VALUES ($1, $2) ON CONFLICT (account_id) DO NOTHING', [
				accountId,
				newWebhookSecret(),
			]);
			row = (await this.db.row<SecretRow>(SELECT, [accountId]))!;
		}
		return signingSecrets(row, now);
	}

	async rotate(accountId: string): Promise<string> {
		await this.get(accountId);
		const secret = newWebhookSecret();
		// The secret replaced is read in the same statement, so rotations at once each keep the one they replaced.
		await this.db.run('UPDATE webhook_secrets SET previous_secret = secret, secret = $1, rotated = $2 WHERE account_id = $3', [
			secret,
			Date.now(),
			accountId,
		]);
		return secret;
	}
}
