import type { IDataObject } from 'n8n-workflow';

/** How far a delivery's timestamp may be from now, either way (Standard Webhooks' usual tolerance). */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

const header = (headers: IDataObject, name: string) => {
	const value = headers[name];
	return typeof value === 'string' ? value : undefined;
};

const fromBase64 = (text: string) => Uint8Array.from(atob(text), (char) => char.charCodeAt(0));

/** The parts of a Standard Webhooks signature that can be checked without the secret. */
export function signatureProblem(headers: IDataObject, now = Date.now()): string | undefined {
	const [id, timestamp, signature] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => header(headers, name));
	if (!id || !timestamp || !signature) return 'The request has no webhook signature';
	const seconds = Number(timestamp);
	if (!Number.isInteger(seconds) || Math.abs(now / 1000 - seconds) > TIMESTAMP_TOLERANCE_SECONDS) {
		return 'The webhook timestamp is too far from the current time';
	}
	return undefined;
}

/**
 * Whether the webhook-signature header holds a v1 signature (HMAC-SHA256 of
 * "<webhook-id>.<webhook-timestamp>.<body>") made with this `whsec_` secret. Uses WebCrypto, whose
 * verify compares in constant time.
 */
export async function hasValidSignature(secret: string, headers: IDataObject, body: Uint8Array): Promise<boolean> {
	let key: Awaited<ReturnType<typeof crypto.subtle.importKey>>;
	try {
		key = await crypto.subtle.importKey('raw', fromBase64(secret.replace(/^whsec_/, '')), { name: 'HMAC', hash: 'SHA-256' }, false, [
			'verify',
		]);
	} catch {
		return false;
	}
	const prefix = new TextEncoder().encode(`${header(headers, 'webhook-id')}.${header(headers, 'webhook-timestamp')}.`);
	const signed = new Uint8Array(prefix.length + body.length);
	signed.set(prefix);
	signed.set(body, prefix.length);
	for (const part of (header(headers, 'webhook-signature') ?? '').split(' ')) {
		const [version, value] = part.split(',');
		if (version !== 'v1' || !value) continue;
		try {
			if (await crypto.subtle.verify('HMAC', key, fromBase64(value), signed)) return true;
		} catch {
			// Not base64: not a signature of ours.
		}
	}
	return false;
}
