import { createHmac, type Hmac } from 'node:crypto';
import type { SigningSecrets } from '../store/store';

/** Standard Webhooks secrets are this prefix and the key in base64. */
const SECRET_PREFIX = 'whsec_';

const keyOf = (secret: string) => Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');

/**
 * Standard Webhooks headers: `v1,` and the base64 HMAC-SHA256 of "id.timestamp.body", for a body hashed a piece at a
 * time as it is measured (the standardwebhooks package signs only a whole string, and a large message's body is
 * megabytes; the tests verify with that package). During a rotation overlap the body is signed with both secrets
 * (space-separated signatures), so a receiver that still has the old secret keeps verifying.
 */
export class WebhookSigner {
	private readonly timestamp: string;
	private readonly hmacs: Hmac[];

	constructor(
		secrets: SigningSecrets,
		private readonly webhookId: string,
		time: Date,
	) {
		this.timestamp = String(Math.floor(time.getTime() / 1000));
		this.hmacs = [secrets.secret, secrets.previous]
			.filter((secret): secret is string => secret !== null)
			.map((secret) => createHmac('sha256', keyOf(secret)).update(`${webhookId}.${this.timestamp}.`));
	}

	/** The body's next piece. */
	update(piece: Buffer): void {
		for (const hmac of this.hmacs) hmac.update(piece);
	}

	/** Once every piece went by. */
	headers(): Record<string, string> {
		return {
			'webhook-id': this.webhookId,
			'webhook-timestamp': this.timestamp,
			'webhook-signature': this.hmacs.map((hmac) => `v1,${hmac.digest('base64')}`).join(' '),
		};
	}
}
