import type { SigningSecrets, WebhookSecretStore } from '../store';
import { newWebhookSecret, signingSecrets, type SecretRow } from '../secrets';
import type { Db } from './database';

export class PostgresWebhookSecretStore implements WebhookSecretStore {
	constructor(private readonly db: Db) {}

	async get(accountId: string): Promise<string> {
		return (await this.signing(accountId, Date.now())).secret;
	}

	async signing(accountId: string, now: number): Promise<SigningSecrets> {
		const select = 'SELECT secret, previous_secret, rotated FROM webhook_secrets WHERE account_id = $1';
		let row = await this.db.row<SecretRow>(select, [accountId]);
		if (!row) {
			// Two nodes may make one at once: the first insert wins, and both read it.
			await this.db.run('INSERT INTO webhook_secrets (account_id, secret) VALUES ($1, $2) ON CONFLICT (account_id) DO NOTHING', [
				accountId,
				newWebhookSecret(),
			]);
			row = (await this.db.row<SecretRow>(select, [accountId]))!;
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
