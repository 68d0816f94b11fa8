import type { Recipient } from '../../mail/incoming-mail';
import type { EncryptedInboxStore } from '../store';
import { ENCRYPTED_INBOX_KEY, encryptedRecipient, inboxToken, newServerSecret, tokenIn } from '../secrets';
import type { SqlDb } from './sql-db';

/** The key of the encryptedInbox HMAC, made by the first server (or node) that opens the database and read by every other. */
export async function loadInboxKey(db: SqlDb): Promise<Buffer> {
	await db.run('INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
		ENCRYPTED_INBOX_KEY,
		newServerSecret(),
	]);
	const row = await db.row<{ value: string }>('SELECT value FROM server_secrets WHERE name = $1', [ENCRYPTED_INBOX_KEY]);
	return Buffer.from(row!.value, 'hex');
}

/**
 * encryptedInbox: an opaque, stable alias per inbox (`inbox-<hex>`, an HMAC of the address with a server secret). Mail to
 * `<token>@<domain>` lands in the inbox it stands for. An HMAC cannot be reversed, so every token handed out is also
 * written to a mapping table.
 */
export class SqlEncryptedInboxStore implements EncryptedInboxStore {
	constructor(
		private readonly db: SqlDb,
		private readonly key: Buffer,
	) {}

	tokenFor(inbox: string): Promise<string> {
		return Promise.resolve(inboxToken(this.key, inbox));
	}

	/** One known already costs no write (a payload read through the API hands it out again each time). */
	async remember(inbox: string): Promise<boolean> {
		const token = inboxToken(this.key, inbox);
		if (await this.db.row('SELECT 1 FROM encrypted_inboxes WHERE token = $1', [token])) return false;
		return (
			(await this.db.run('INSERT INTO encrypted_inboxes (token, inbox) VALUES ($1, $2) ON CONFLICT (token) DO NOTHING', [token, inbox])) ===
			1
		);
	}

	async resolve(address: string, domain: string): Promise<Recipient | undefined> {
		const token = tokenIn(address, domain);
		if (token === undefined) return undefined;
		const row = await this.db.row<{ inbox: string }>('SELECT inbox FROM encrypted_inboxes WHERE token = $1', [token]);
		return encryptedRecipient(address, domain, row?.inbox);
	}
}
