/**
 * Schema versions, applied in order; `PRAGMA user_version` records how many ran.
 * Never edit a shipped entry: append a new one.
 */
export const MIGRATIONS: string[] = [
	`
	CREATE TABLE accounts (
		id TEXT PRIMARY KEY,
		name TEXT NOT NULL UNIQUE,
		credits INTEGER NOT NULL DEFAULT 0 CHECK (credits >= 0),
		is_admin INTEGER NOT NULL DEFAULT 0,
		created TEXT NOT NULL
	);

	CREATE TABLE api_keys (
		id TEXT PRIMARY KEY,
		account_id TEXT NOT NULL REFERENCES accounts(id),
		hash TEXT NOT NULL UNIQUE,
		label TEXT NOT NULL DEFAULT '',
		created TEXT NOT NULL,
		revoked TEXT
	);
	CREATE INDEX api_keys_account ON api_keys(account_id);

	-- Forwarding records of private addresses (spec 2.2).
	CREATE TABLE addresses (
		email TEXT PRIMARY KEY,
		owner TEXT NOT NULL REFERENCES accounts(id),
		forward TEXT,
		enablews INTEGER NOT NULL DEFAULT 0,
		webhook TEXT,
		webhook_slack TEXT,
		webhook_slack_to_from INTEGER,
		catch_all TEXT,
		password TEXT,
		info TEXT NOT NULL DEFAULT '',
		created TEXT NOT NULL,
		updated TEXT NOT NULL
	);
	CREATE INDEX addresses_owner ON addresses(owner);

	-- Domains owned by an account: all their mail is private to it.
	CREATE TABLE domains (
		domain TEXT PRIMARY KEY,
		owner TEXT NOT NULL REFERENCES accounts(id),
		created TEXT NOT NULL
	);

	-- One row per accepted SMTP transaction, shared by the records of all its recipients.
	CREATE TABLE contents (
		id INTEGER PRIMARY KEY,
		message_id TEXT NOT NULL,
		date TEXT,
		priority TEXT NOT NULL,
		headers TEXT NOT NULL,
		text TEXT NOT NULL,
		html TEXT,
		raw BLOB NOT NULL
	);

	-- One row per recipient inbox (spec 2.1). Big content lives in contents.
	CREATE TABLE messages (
		seq INTEGER PRIMARY KEY,
		id TEXT NOT NULL UNIQUE,
		inbox TEXT NOT NULL,
		original_inbox TEXT NOT NULL,
		domain TEXT NOT NULL,
		received INTEGER NOT NULL,
		subject TEXT NOT NULL,
		from_json TEXT NOT NULL,
		to_json TEXT NOT NULL,
		cc_json TEXT,
		bcc_json TEXT,
		size INTEGER NOT NULL,
		attachments_json TEXT,
		ip TEXT NOT NULL,
		via TEXT NOT NULL,
		rtls INTEGER NOT NULL,
		links_json TEXT NOT NULL,
		spam REAL NOT NULL,
		folder TEXT NOT NULL DEFAULT 'inbox',
		labels_json TEXT NOT NULL DEFAULT '[]',
		read INTEGER,
		saved_by TEXT,
		content_id INTEGER NOT NULL REFERENCES contents(id)
	);
	CREATE INDEX messages_inbox_received ON messages(inbox, received DESC, seq DESC);
	CREATE INDEX messages_domain_received ON messages(domain, received DESC, seq DESC);
	CREATE INDEX messages_content ON messages(content_id);

	-- Attachment bytes, stored once per distinct content (identifier = MD5 hex).
	CREATE TABLE attachment_contents (
		checksum TEXT PRIMARY KEY,
		content BLOB NOT NULL
	);

	CREATE TABLE content_attachments (
		content_id INTEGER NOT NULL REFERENCES contents(id),
		position INTEGER NOT NULL,
		checksum TEXT NOT NULL REFERENCES attachment_contents(checksum),
		content_type TEXT NOT NULL,
		file_name TEXT,
		length INTEGER NOT NULL,
		content_id_header TEXT,
		content_disposition TEXT,
		transfer_encoding TEXT,
		PRIMARY KEY (content_id, position)
	);
	CREATE INDEX content_attachments_checksum ON content_attachments(checksum);
	`,
];
