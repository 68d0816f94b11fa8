import { Webhook } from 'standardwebhooks';
import type { SigningSecrets } from '../store/webhook-secrets';

const signers = new Map<string, Webhook>();

function signer(secret: string): Webhook {
	let webhook = signers.get(secret);
	if (!webhook) {
		// Old secrets are dropped now and then; a rotation makes at most one new entry per account.
		if (signers.size > 10_000) signers.clear();
		webhook = new Webhook(secret);
		signers.set(secret, webhook);
	}
	return webhook;
}

/**
 * Standard Webhooks headers. During a rotation overlap the body is signed with both secrets
 * (space-separated signatures), so a receiver that still has the old secret keeps verifying.
 */
export function signatureHeaders(secrets: SigningSecrets, webhookId: string, time: Date, body: string): Record<string, string> {
	const signatures = [secrets.secret, secrets.previous].filter((secret): secret is string => secret !== null).map((secret) => signer(secret).sign(webhookId, time, body));
	return {
		'webhook-id': webhookId,
		'webhook-timestamp': String(Math.floor(time.getTime() / 1000)),
		'webhook-signature': signatures.join(' '),
	};
}
