import { randomBytes } from 'node:crypto';
import type { Db } from './database';

/** After a rotation the previous secret keeps signing beside the new one this long, so receivers can switch over. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export interface SigningSecrets {
	secret: string;
	/** The secret before the last rotation, while the overlap lasts. */
	previous: string | null;
}

/** A Standard Webhooks secret: "whsec_" and 32 random bytes in base64. */
function newSecret(): string {
	return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Per-account webhook signing secrets, created on first use. */
export class WebhookSecretStore {
	private readonly select;
	private readonly insert;
	private readonly replace;

	constructor(db: Db) {
		this.select = db.prepare('SELECT secret, previous_secret, rotated FROM webhook_secrets WHERE account_id = ?');
		this.insert = db.prepare('INSERT OR IGNORE INTO webhook_secrets (account_id, secret) VALUES (?, ?)');
		this.replace = db.prepare('UPDATE webhook_secrets SET secret = ?, previous_secret = ?, rotated = ? WHERE account_id = ?');
	}

	get(accountId: string): string {
		return this.signing(accountId, Date.now()).secret;
	}

	/** The secrets to sign with at `now`. Reads first: signing runs per attempt and should not write. */
	signing(accountId: string, now: number): SigningSecrets {
		type Row = { secret: string; previous_secret: string | null; rotated: number | null };
		let row = this.select.get(accountId) as Row | undefined;
		if (!row) {
			this.insert.run(accountId, newSecret());
			row = this.select.get(accountId) as Row;
		}
		const overlapping = row.rotated !== null && now - row.rotated < ROTATION_OVERLAP_MS;
		return { secret: row.secret, previous: overlapping ? row.previous_secret : null };
	}

	rotate(accountId: string): string {
		const current = this.get(accountId);
		const secret = newSecret();
		this.replace.run(secret, current, Date.now(), accountId);
		return secret;
	}
}
