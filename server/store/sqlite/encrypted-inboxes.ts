import type { Statement } from 'better-sqlite3';
import type { Db } from './database';
import type { Recipient } from '../../mail/incoming-mail';
import type { EncryptedInboxStore } from '../store';
import { ENCRYPTED_INBOX_KEY, encryptedRecipient, inboxToken, newServerSecret, tokenIn } from '../secrets';

/**
 * encryptedInbox: an opaque, stable alias per inbox (`inbox-<hex>`, an HMAC of the address with a
 * server secret). Mail to `<token>@<domain>` lands in the inbox it stands for. An HMAC cannot be
 * reversed, so every token handed out is also written to a mapping table.
 */
export class SqliteEncryptedInboxStore implements EncryptedInboxStore {
	private readonly key: Buffer;
	private readonly insert: Statement;
	private readonly lookup: Statement;

	constructor(db: Db) {
		db.prepare('INSERT OR IGNORE INTO server_secrets (name, value) VALUES (?, ?)').run(ENCRYPTED_INBOX_KEY, newServerSecret());
		const { value } = db.prepare('SELECT value FROM server_secrets WHERE name = ?').get(ENCRYPTED_INBOX_KEY) as { value: string };
		this.key = Buffer.from(value, 'hex');
		this.insert = db.prepare('INSERT OR IGNORE INTO encrypted_inboxes (token, inbox) VALUES (?, ?)');
		this.lookup = db.prepare('SELECT inbox FROM encrypted_inboxes WHERE token = ?').pluck();
	}

	async tokenFor(inbox: string): Promise<string> {
		return inboxToken(this.key, inbox);
	}

	/** One known already costs no write (a payload read through the API hands it out again each time). */
	async remember(inbox: string): Promise<boolean> {
		const token = inboxToken(this.key, inbox);
		return this.lookup.get(token) === undefined && this.insert.run(token, inbox).changes === 1;
	}

	async resolve(address: string, domain: string): Promise<Recipient | undefined> {
		const token = tokenIn(address, domain);
		return token === undefined ? undefined : encryptedRecipient(address, domain, this.lookup.get(token) as string | undefined);
	}
}
