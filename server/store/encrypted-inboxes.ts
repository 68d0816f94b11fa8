import { createHmac, randomBytes } from 'node:crypto';
import type { Db } from './database';
import type { Recipient } from '../mail/incoming-mail';

const TOKEN = /^inbox-[0-9a-f]{40}$/;
const KEY_NAME = 'encrypted-inbox-key';

/**
 * encryptedInbox: an opaque, stable alias per inbox (`inbox-<hex>`, an HMAC of the address with a
 * server secret). Mail to `<token>@<domain>` lands in the inbox it stands for. An HMAC cannot be
 * reversed, so every token handed out is also written to a mapping table.
 */
export class EncryptedInboxStore {
	private readonly key: Buffer;
	private readonly insert;
	private readonly lookup;

	constructor(db: Db) {
		db.prepare('INSERT OR IGNORE INTO server_secrets (name, value) VALUES (?, ?)').run(KEY_NAME, randomBytes(32).toString('hex'));
		this.key = Buffer.from((db.prepare('SELECT value FROM server_secrets WHERE name = ?').get(KEY_NAME) as { value: string }).value, 'hex');
		this.insert = db.prepare('INSERT OR IGNORE INTO encrypted_inboxes (token, inbox) VALUES (?, ?)');
		this.lookup = db.prepare('SELECT inbox FROM encrypted_inboxes WHERE token = ?');
	}

	/** The token of an inbox: the local part of its encrypted address. */
	tokenFor(inbox: string): string {
		return `inbox-${createHmac('sha256', this.key).update(inbox).digest('hex').slice(0, 40)}`;
	}

	/**
	 * Records the token of an inbox before it is handed out, so mail to it can be routed; whether it is new. One known
	 * already costs no write (a payload read through the API hands it out again each time).
	 */
	remember(inbox: string): boolean {
		const token = this.tokenFor(inbox);
		return this.lookup.get(token) === undefined && this.insert.run(token, inbox).changes === 1;
	}

	/** The recipient for mail sent to an encrypted address, or undefined when `address` is not one. */
	resolve(address: string, domain: string): Recipient | undefined {
		const local = address.slice(0, address.length - domain.length - 1);
		if (!TOKEN.test(local)) return undefined;
		const row = this.lookup.get(local) as { inbox: string } | undefined;
		if (!row || !row.inbox.endsWith(`@${domain}`)) return undefined;
		return { inbox: row.inbox, originalInbox: address, domain };
	}
}
