import { createHmac, randomBytes } from 'node:crypto';
import type { Recipient } from '../mail/incoming-mail';
import { ROTATION_OVERLAP_MS, type SigningSecrets } from './store';

/** A Standard Webhooks secret: "whsec_" and 32 random bytes in base64. */
export function newWebhookSecret(): string {
	return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A row of webhook_secrets, as either engine reads it. */
export interface SecretRow {
	secret: string;
	previous_secret: string | null;
	rotated: number | null;
}

/** The secrets to sign with at `now`: the previous one too while the overlap after a rotation lasts. */
export function signingSecrets(row: SecretRow, now: number): SigningSecrets {
	const overlapping = row.rotated !== null && now - row.rotated < ROTATION_OVERLAP_MS;
	return { secret: row.secret, previous: overlapping ? row.previous_secret : null };
}

/** The server_secrets entry that keys the encryptedInbox HMAC. */
export const ENCRYPTED_INBOX_KEY = 'encrypted-inbox-key';

/** A new server secret (hex), as stored in server_secrets. */
export const newServerSecret = () => randomBytes(32).toString('hex');

/** The encryptedInbox token of an inbox: `inbox-` and an HMAC of the address with the server's key. */
export function inboxToken(key: Buffer, inbox: string): string {
	return `inbox-${createHmac('sha256', key).update(inbox).digest('hex').slice(0, 40)}`;
}

const TOKEN = /^inbox-[0-9a-f]{40}$/;

/** The token in an address of `domain` when its local part is one (else undefined). */
export function tokenIn(address: string, domain: string): string | undefined {
	const local = address.slice(0, address.length - domain.length - 1);
	return TOKEN.test(local) ? local : undefined;
}

/** Where mail to an encrypted address goes: the inbox its token stands for, when that inbox is in the address's domain. */
export function encryptedRecipient(address: string, domain: string, inbox: string | undefined): Recipient | undefined {
	return inbox?.endsWith(`@${domain}`) ? { inbox, originalInbox: address, domain } : undefined;
}
