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
	`
	-- Account-wide search (inbox-search, inbox-filter): trigram full-text index, so substrings of three or more
	-- characters are found through the index. Keyed by messages.seq and kept in step by triggers.
	CREATE VIRTUAL TABLE messages_search USING fts5(
		sender, recipients, subject, content='', contentless_delete=1, tokenize='trigram'
	);
	CREATE TRIGGER messages_search_insert AFTER INSERT ON messages BEGIN
		INSERT INTO messages_search (rowid, sender, recipients, subject) VALUES (
			new.seq,
			coalesce((SELECT group_concat(json_extract(value, '$.address'), ' ') FROM json_each(new.from_json)), ''),
			coalesce((SELECT group_concat(json_extract(value, '$.address'), ' ') FROM json_each(new.to_json)), '') || ' ' || new.inbox,
			new.subject
		);
	END;
	CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN
		DELETE FROM messages_search WHERE rowid = old.seq;
	END;
	INSERT INTO messages_search (rowid, sender, recipients, subject)
		SELECT seq,
			coalesce((SELECT group_concat(json_extract(value, '$.address'), ' ') FROM json_each(from_json)), ''),
			coalesce((SELECT group_concat(json_extract(value, '$.address'), ' ') FROM json_each(to_json)), '') || ' ' || inbox,
			subject
		FROM messages;

	-- Account-wide unread counts read only these small indexes.
	CREATE INDEX messages_inbox_unread ON messages(inbox) WHERE read IS NOT 1;
	CREATE INDEX messages_domain_unread ON messages(domain) WHERE read IS NOT 1;
	-- Starred listing, and the retention sweep's oldest-first walk over what it may delete.
	CREATE INDEX messages_starred ON messages(saved_by, received DESC) WHERE saved_by IS NOT NULL;
	CREATE INDEX messages_unstarred_received ON messages(received) WHERE saved_by IS NULL;
	`,
	`
	-- Webhook signing secrets (Standard Webhooks, whsec_...), one per account; the previous one
	-- keeps signing beside the new one for a day after a rotation so receivers can switch over.
	CREATE TABLE webhook_secrets (
		account_id TEXT PRIMARY KEY REFERENCES accounts(id),
		secret TEXT NOT NULL,
		previous_secret TEXT,
		rotated INTEGER
	);

	-- Secrets the server itself keeps (e.g. the key of the encryptedInbox HMAC).
	CREATE TABLE server_secrets (
		name TEXT PRIMARY KEY,
		value TEXT NOT NULL
	);

	-- encryptedInbox local part (inbox-<hex>) -> the inbox it stands for; an HMAC cannot be reversed.
	CREATE TABLE encrypted_inboxes (
		token TEXT PRIMARY KEY,
		inbox TEXT NOT NULL
	);

	-- One webhook delivery per message record, written in the message's own transaction.
	CREATE TABLE webhook_deliveries (
		id TEXT PRIMARY KEY,
		message_id TEXT NOT NULL,
		account_id TEXT NOT NULL,
		address TEXT NOT NULL,
		url TEXT NOT NULL,
		status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'refused')),
		attempts INTEGER NOT NULL DEFAULT 0,
		-- attempts made before the last manual redelivery: the retry schedule restarts there.
		schedule_start INTEGER NOT NULL DEFAULT 0,
		next_attempt INTEGER,
		last_status_code INTEGER,
		last_error TEXT,
		created INTEGER NOT NULL,
		updated INTEGER NOT NULL
	);
	CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt, id) WHERE status = 'pending';
	CREATE INDEX webhook_deliveries_message ON webhook_deliveries(message_id);
	CREATE INDEX webhook_deliveries_updated ON webhook_deliveries(updated) WHERE status != 'pending';

	-- Recent Activity: one row per webhook attempt.
	CREATE TABLE webhook_attempts (
		seq INTEGER PRIMARY KEY,
		id TEXT NOT NULL UNIQUE,
		delivery_id TEXT NOT NULL,
		account_id TEXT NOT NULL,
		message_id TEXT NOT NULL,
		address TEXT NOT NULL,
		url TEXT NOT NULL,
		attempt INTEGER NOT NULL,
		status TEXT NOT NULL CHECK (status IN ('delivered', 'retrying', 'failed', 'refused')),
		status_code INTEGER,
		error TEXT,
		duration_ms INTEGER NOT NULL,
		time INTEGER NOT NULL,
		next_retry INTEGER
	);
	CREATE INDEX webhook_attempts_account ON webhook_attempts(account_id, time DESC, seq DESC);
	CREATE INDEX webhook_attempts_time ON webhook_attempts(time);

	-- The catch-all address of a domain is looked up for every message without its own webhook.
	CREATE INDEX addresses_catch_all_lookup ON addresses(catch_all) WHERE catch_all IS NOT NULL;
	`,
	`
	-- Mail sent with POST /api/outgoing-messages: one row per message, a status per recipient.
	CREATE TABLE outgoing_messages (
		seq INTEGER PRIMARY KEY,
		id TEXT NOT NULL UNIQUE,
		account_id TEXT NOT NULL REFERENCES accounts(id),
		from_address TEXT NOT NULL,
		subject TEXT NOT NULL,
		sent TEXT NOT NULL,
		recipients_json TEXT NOT NULL,
		status TEXT NOT NULL CHECK (status IN ('queued', 'delivered', 'failed')),
		last_error TEXT,
		attempts INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX outgoing_messages_account ON outgoing_messages(account_id, seq DESC);

	-- Outgoing messages with recipients still to deliver (kept across restarts); the row goes when none is left.
	CREATE TABLE outbox (
		message_id TEXT PRIMARY KEY REFERENCES outgoing_messages(id),
		raw BLOB NOT NULL,
		ip TEXT NOT NULL,
		via TEXT NOT NULL,
		next_attempt INTEGER NOT NULL,
		in_flight INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX outbox_due ON outbox(next_attempt) WHERE in_flight = 0;
	`,
	`
	-- Search covers only private mail (reserved addresses and owned domains), so only private mail is indexed:
	-- public mail, usually the bulk, skips the trigram cost at ingest. A message is in the index exactly while
	-- its inbox is private, so reserving, releasing, claiming and giving up a domain add or remove entries.
	-- The retention sweep walks messages in seq order instead of using an index on received.
	DROP INDEX messages_unstarred_received;
	DROP TRIGGER messages_search_insert;
	INSERT INTO messages_search (messages_search) VALUES ('delete-all');
	CREATE VIEW messages_search_rows AS
		SELECT seq, inbox, domain,
			coalesce((SELECT group_concat(json_extract(value, '$.address'), ' ') FROM json_each(from_json)), '') AS sender,
			coalesce((SELECT group_concat(json_extract(value, '$.address'), ' ') FROM json_each(to_json)), '') || ' ' || inbox AS recipients,
			subject
		FROM messages;
	CREATE TRIGGER messages_search_insert AFTER INSERT ON messages
		WHEN EXISTS (SELECT 1 FROM addresses WHERE email = new.inbox) OR EXISTS (SELECT 1 FROM domains WHERE domain = new.domain)
	BEGIN
		INSERT INTO messages_search (rowid, sender, recipients, subject)
			SELECT seq, sender, recipients, subject FROM messages_search_rows WHERE seq = new.seq;
	END;
	CREATE TRIGGER addresses_search_reserve AFTER INSERT ON addresses
		WHEN NOT EXISTS (SELECT 1 FROM domains WHERE domain = substr(new.email, instr(new.email, '@') + 1))
	BEGIN
		INSERT INTO messages_search (rowid, sender, recipients, subject)
			SELECT seq, sender, recipients, subject FROM messages_search_rows WHERE inbox = new.email;
	END;
	CREATE TRIGGER addresses_search_release AFTER DELETE ON addresses
		WHEN NOT EXISTS (SELECT 1 FROM domains WHERE domain = substr(old.email, instr(old.email, '@') + 1))
	BEGIN
		DELETE FROM messages_search WHERE rowid IN (SELECT seq FROM messages WHERE inbox = old.email);
	END;
	CREATE TRIGGER domains_search_claim AFTER INSERT ON domains BEGIN
		INSERT INTO messages_search (rowid, sender, recipients, subject)
			SELECT seq, sender, recipients, subject FROM messages_search_rows
			WHERE domain = new.domain AND inbox NOT IN (SELECT email FROM addresses);
	END;
	CREATE TRIGGER domains_search_remove AFTER DELETE ON domains BEGIN
		DELETE FROM messages_search
			WHERE rowid IN (SELECT seq FROM messages WHERE domain = old.domain AND inbox NOT IN (SELECT email FROM addresses));
	END;
	INSERT INTO messages_search (rowid, sender, recipients, subject)
		SELECT seq, sender, recipients, subject FROM messages_search_rows
		WHERE inbox IN (SELECT email FROM addresses) OR domain IN (SELECT domain FROM domains);
	`,
	`
	-- Slack summaries (webhookSlack) go through the webhook deliveries, with the same retries and Recent Activity;
	-- kind says which body is posted: the webhook payload, or a Slack message with or without From/To.
	ALTER TABLE webhook_deliveries ADD COLUMN kind TEXT NOT NULL DEFAULT 'webhook' CHECK (kind IN ('webhook', 'slack', 'slack-to-from'));
	`,
	`
	-- Listing an inbox reads its records from this index alone: one inbox's newest records sit together in a few
	-- pages, where the table scatters them over one page each (mail to many inboxes arrives interleaved).
	-- Same key and name as before, now covering every column of a record. Measured on 1,000,000 records: about 5 s.
	DROP INDEX messages_inbox_received;
	CREATE INDEX messages_inbox_received ON messages(inbox, received DESC, seq DESC, id, original_inbox, domain, subject,
		from_json, to_json, cc_json, bcc_json, size, attachments_json, ip, via, rtls, links_json, spam, folder, labels_json, read, saved_by);
	`,
	`
	-- Large (spooled) messages: the raw source and attachment bytes in 1 MB pieces, copied in from the spool files a piece
	-- at a time; contents.raw or attachment_contents.content is then empty. The pieces go with their row.
	CREATE TABLE content_raw_pieces (
		content_id INTEGER NOT NULL REFERENCES contents(id) ON DELETE CASCADE,
		seq INTEGER NOT NULL,
		data BLOB NOT NULL,
		PRIMARY KEY (content_id, seq)
	);
	CREATE TABLE attachment_pieces (
		checksum TEXT NOT NULL REFERENCES attachment_contents(checksum) ON DELETE CASCADE,
		seq INTEGER NOT NULL,
		data BLOB NOT NULL,
		PRIMARY KEY (checksum, seq)
	);
	`,
	`
	-- The text or HTML body of a large (spooled) message, as UTF-8 in 1 MB pieces (split anywhere, so a reader joins them
	-- before decoding); contents.text or contents.html is then ''. The pieces go with their row.
	CREATE TABLE content_body_pieces (
		content_id INTEGER NOT NULL REFERENCES contents(id) ON DELETE CASCADE,
		kind TEXT NOT NULL CHECK (kind IN ('text', 'html')),
		seq INTEGER NOT NULL,
		data BLOB NOT NULL,
		PRIMARY KEY (content_id, kind, seq)
	);
	`,
	`
	-- Webhook subscriptions: beside an address's one webhook, any number of consumers of its mail (an n8n trigger each, say),
	-- each with an optional filter ({"from", "subject", "hasAttachments"}). They go with their address when it is released.
	-- A delivery (and each of its attempts) made for one names it.
	CREATE TABLE webhook_subscriptions (
		id TEXT PRIMARY KEY,
		address TEXT NOT NULL REFERENCES addresses(email) ON DELETE CASCADE,
		url TEXT NOT NULL,
		filter_json TEXT,
		created TEXT NOT NULL
	);
	CREATE INDEX webhook_subscriptions_address ON webhook_subscriptions(address, created);
	ALTER TABLE webhook_deliveries ADD COLUMN subscription_id TEXT;
	ALTER TABLE webhook_attempts ADD COLUMN subscription_id TEXT;
	`,
	`
	-- Sent mail: the received message a reply answers (its _id), and an index by age for the retention sweep, which deletes
	-- sent messages as old as the mail it deletes. Each entry of recipients_json now names its field ('to', 'cc' or 'bcc');
	-- entries written before name none and are read as 'to'.
	ALTER TABLE outgoing_messages ADD COLUMN in_reply_to TEXT;
	CREATE INDEX outgoing_messages_sent ON outgoing_messages(sent);
	`,
	`
	-- Leases: the node attempting a webhook delivery or an outbox entry, and until when. Work held by a node that stops or
	-- dies is taken up by the next one once its lease has run out. Leases replace the outbox's in_flight flag.
	ALTER TABLE webhook_deliveries ADD COLUMN lease_node TEXT;
	ALTER TABLE webhook_deliveries ADD COLUMN lease_until INTEGER;
	CREATE INDEX webhook_deliveries_lease ON webhook_deliveries(lease_node) WHERE lease_node IS NOT NULL;
	DROP INDEX outbox_due;
	ALTER TABLE outbox DROP COLUMN in_flight;
	ALTER TABLE outbox ADD COLUMN lease_node TEXT;
	ALTER TABLE outbox ADD COLUMN lease_until INTEGER;
	CREATE INDEX outbox_due ON outbox(next_attempt);
	`,
	`
	-- Search covers the senders' and To display names and the text body too (of an HTML-only message, the text made from
	-- its HTML): the index gets a column for each. An FTS5 table cannot gain columns, so it is made anew, with its view and
	-- triggers, and filled from the private mail. Only the first 65,536 characters of a text body are indexed (of a body
	-- stored in pieces, of its first piece, which holds at least that many). It reads all private mail once: measured on
	-- 100,000 private messages with bodies of about 1 KB, 320 s on two vCPUs shared with other work (load average 13 to 17).
	DROP TRIGGER messages_search_insert;
	DROP TRIGGER messages_search_delete;
	DROP TRIGGER addresses_search_reserve;
	DROP TRIGGER addresses_search_release;
	DROP TRIGGER domains_search_claim;
	DROP TRIGGER domains_search_remove;
	DROP VIEW messages_search_rows;
	DROP TABLE messages_search;
	CREATE VIRTUAL TABLE messages_search USING fts5(
		sender, sender_names, recipients, recipient_names, subject, body, content='', contentless_delete=1, tokenize='trigram'
	);
	-- What the index holds of a message, by column; searches that cannot use the index compare the same text.
	CREATE VIEW messages_search_rows AS
		SELECT seq, inbox, domain,
			coalesce((SELECT group_concat(json_extract(value, '$.address'), ' ') FROM json_each(from_json)), '') AS sender,
			coalesce((SELECT group_concat(json_extract(value, '$.name'), ' ') FROM json_each(from_json)), '') AS sender_names,
			coalesce((SELECT group_concat(json_extract(value, '$.address'), ' ') FROM json_each(to_json)), '') || ' ' || inbox AS recipients,
			coalesce((SELECT group_concat(json_extract(value, '$.name'), ' ') FROM json_each(to_json)), '') AS recipient_names,
			subject,
			(SELECT CASE WHEN c.text <> '' THEN substr(c.text, 1, 65536)
				ELSE coalesce((SELECT substr(CAST(p.data AS TEXT), 1, 65536) FROM content_body_pieces p
					WHERE p.content_id = c.id AND p.kind = 'text' AND p.seq = 0), '') END
				FROM contents c WHERE c.id = content_id) AS body
		FROM messages;
	CREATE TRIGGER messages_search_insert AFTER INSERT ON messages
		WHEN EXISTS (SELECT 1 FROM addresses WHERE email = new.inbox) OR EXISTS (SELECT 1 FROM domains WHERE domain = new.domain)
	BEGIN
		INSERT INTO messages_search (rowid, sender, sender_names, recipients, recipient_names, subject, body)
			SELECT seq, sender, sender_names, recipients, recipient_names, subject, body FROM messages_search_rows WHERE seq = new.seq;
	END;
	CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN
		DELETE FROM messages_search WHERE rowid = old.seq;
	END;
	CREATE TRIGGER addresses_search_reserve AFTER INSERT ON addresses
		WHEN NOT EXISTS (SELECT 1 FROM domains WHERE domain = substr(new.email, instr(new.email, '@') + 1))
	BEGIN
		INSERT INTO messages_search (rowid, sender, sender_names, recipients, recipient_names, subject, body)
			SELECT seq, sender, sender_names, recipients, recipient_names, subject, body FROM messages_search_rows WHERE inbox = new.email;
	END;
	CREATE TRIGGER addresses_search_release AFTER DELETE ON addresses
		WHEN NOT EXISTS (SELECT 1 FROM domains WHERE domain = substr(old.email, instr(old.email, '@') + 1))
	BEGIN
		DELETE FROM messages_search WHERE rowid IN (SELECT seq FROM messages WHERE inbox = old.email);
	END;
	CREATE TRIGGER domains_search_claim AFTER INSERT ON domains BEGIN
		INSERT INTO messages_search (rowid, sender, sender_names, recipients, recipient_names, subject, body)
			SELECT seq, sender, sender_names, recipients, recipient_names, subject, body FROM messages_search_rows
			WHERE domain = new.domain AND inbox NOT IN (SELECT email FROM addresses);
	END;
	CREATE TRIGGER domains_search_remove AFTER DELETE ON domains BEGIN
		DELETE FROM messages_search
			WHERE rowid IN (SELECT seq FROM messages WHERE domain = old.domain AND inbox NOT IN (SELECT email FROM addresses));
	END;
	INSERT INTO messages_search (rowid, sender, sender_names, recipients, recipient_names, subject, body)
		SELECT seq, sender, sender_names, recipients, recipient_names, subject, body FROM messages_search_rows
		WHERE inbox IN (SELECT email FROM addresses) OR domain IN (SELECT domain FROM domains);
	`,
	`
	-- What each webhook attempt sent and got back, for Recent Activity: the request's headers and the start of its body, the
	-- response's headers and the start of its body (NULL when no response came), each body's whole size beside it. No row
	-- when nothing was sent (refused, or the message gone). Pruned with its attempt.
	CREATE TABLE webhook_exchanges (
		attempt_id TEXT PRIMARY KEY REFERENCES webhook_attempts(id) ON DELETE CASCADE,
		request_headers TEXT NOT NULL,
		request_body BLOB NOT NULL,
		request_bytes INTEGER NOT NULL,
		response_headers TEXT,
		response_body BLOB,
		response_bytes INTEGER
	);
	`,
	`
	-- What a message says beyond its text: who sent it as SPF, DKIM, DMARC and ARC say (JSON; NULL when not verified), what
	-- the person wrote without the quoted thread and the signature (NULL for mail stored before), its one-time codes.
	ALTER TABLE messages ADD COLUMN auth_json TEXT;
	ALTER TABLE messages ADD COLUMN stripped_text TEXT;
	ALTER TABLE messages ADD COLUMN stripped_signature TEXT;
	ALTER TABLE messages ADD COLUMN codes_json TEXT NOT NULL DEFAULT '[]';
	`,
	`
	-- Conversations (server/mail/threading.ts). Each record gets its thread, the account whose thread it is (thread_account,
	-- NULL for public inboxes: the scope, fixed when it is stored) and its Message-ID digested with that scope (message_key),
	-- by which the mail that names it finds its thread; sent mail the same (its scope is its account). mailroom_digest and
	-- mailroom_first_id are JavaScript (server/store/sqlite/database.ts). Records already stored get the thread their own
	-- headers give (the first message their References name, else the one they answer, else their Message-ID, else their
	-- id), in the scope their inbox's owner gives now; sent mail joins the received message it answers (inReplyTo) if that
	-- is its account's, else its own Message-ID's. One pass over all records and their headers, then the listing index is
	-- made anew with the thread in it. Measured on 100,000 records, half of them replies, on two vCPUs shared with other work
	-- (load average 8 to 13): 3.4 to 6.6 s.
	ALTER TABLE messages ADD COLUMN thread_id TEXT NOT NULL DEFAULT '';
	ALTER TABLE messages ADD COLUMN thread_account TEXT;
	ALTER TABLE messages ADD COLUMN message_key TEXT;
	ALTER TABLE outgoing_messages ADD COLUMN thread_id TEXT NOT NULL DEFAULT '';
	ALTER TABLE outgoing_messages ADD COLUMN message_key TEXT;
	-- Most mail answers none: only headers that hold References or In-Reply-To are read as JSON.
	UPDATE messages SET (thread_account, message_key, thread_id) = (
		SELECT o.account, mailroom_digest('message', o.account, mailroom_first_id(c.message_id)),
			mailroom_digest('thread', o.account, coalesce(
				CASE WHEN instr(c.headers, '["references",') THEN mailroom_first_id(
					(SELECT h.value ->> 1 FROM json_each(c.headers) h WHERE h.value ->> 0 = 'references' ORDER BY h.key LIMIT 1)) END,
				CASE WHEN instr(c.headers, '["in-reply-to",') THEN mailroom_first_id(
					(SELECT h.value ->> 1 FROM json_each(c.headers) h WHERE h.value ->> 0 = 'in-reply-to' ORDER BY h.key LIMIT 1)) END,
				mailroom_first_id(c.message_id), messages.id))
		FROM contents c, (SELECT coalesce((SELECT owner FROM addresses WHERE email = messages.inbox),
			(SELECT owner FROM domains WHERE domain = messages.domain)) AS account) o
		WHERE c.id = messages.content_id);
	UPDATE outgoing_messages SET (message_key, thread_id) = (
		SELECT mailroom_digest('message', account_id, s.own), coalesce(
			(SELECT m.thread_id FROM messages m WHERE m.id = outgoing_messages.in_reply_to AND m.thread_account = outgoing_messages.account_id),
			mailroom_digest('thread', account_id, s.own))
		FROM (SELECT '<' || id || '@' || substr(from_address, instr(from_address, '@') + 1) || '>' AS own) s);
	DROP INDEX messages_inbox_received;
	CREATE INDEX messages_inbox_received ON messages(inbox, received DESC, seq DESC, id, original_inbox, domain, subject,
		from_json, to_json, cc_json, bcc_json, size, attachments_json, ip, via, rtls, links_json, spam, folder, labels_json, read, saved_by,
		thread_id, auth_json, stripped_text, stripped_signature, codes_json);
	-- A thread's messages oldest first; the mail a message names, by its key.
	CREATE INDEX messages_thread ON messages(thread_id, received, seq);
	CREATE INDEX messages_message_key ON messages(message_key) WHERE message_key IS NOT NULL;
	CREATE INDEX outgoing_messages_thread ON outgoing_messages(thread_id, sent, seq);
	CREATE INDEX outgoing_messages_message_key ON outgoing_messages(message_key) WHERE message_key IS NOT NULL;
	`,
	`
	-- A large message sent through the API (composed into the spool): its raw source in 1 MB pieces, copied in from the
	-- spool file a piece at a time; outbox.raw is then empty. The pieces go with their outbox row.
	CREATE TABLE outbox_raw_pieces (
		message_id TEXT NOT NULL REFERENCES outbox(message_id) ON DELETE CASCADE,
		seq INTEGER NOT NULL,
		data BLOB NOT NULL,
		PRIMARY KEY (message_id, seq)
	);
	`,
	`
	-- Reply hooks (replyHook of POST /api/outgoing-messages): the first reply to a sent message, a message stored in its
	-- thread (thread ids are per account), is posted to url once, through the webhook queue; then the hook is deleted.
	-- expires_at is epoch ms; expired hooks match nothing and are deleted by the webhook activity prune.
	CREATE TABLE reply_hooks (
		outgoing_id TEXT PRIMARY KEY,
		account_id TEXT NOT NULL,
		thread_id TEXT NOT NULL,
		url TEXT NOT NULL,
		expires_at INTEGER NOT NULL,
		created TEXT NOT NULL
	);
	CREATE INDEX reply_hooks_thread ON reply_hooks (thread_id);
	CREATE INDEX reply_hooks_expires ON reply_hooks (expires_at);
	`,
	`
	-- Chaos settings per account (GET and PUT /api/me/chaos; server/schemas/chaos.ts): failures and delays on purpose at the
	-- SMTP stages of its mail. A row once an account sets them; enabled (0 or 1) beside the JSON, so the SMTP listener reads
	-- only the accounts that have chaos on.
	CREATE TABLE account_chaos (
		account_id TEXT PRIMARY KEY REFERENCES accounts(id),
		enabled INTEGER NOT NULL,
		settings_json TEXT NOT NULL,
		updated TEXT NOT NULL
	);
	`,
	`
	-- What a simplified list item needs and Mailsac's record lacks (messageId, date, replyTo, attachmentFiles), kept with
	-- each record so a listing names them without a request per message. Mail stored before has NULL (the record says null).
	-- The listing index covers the record, so it is made anew with them.
	ALTER TABLE messages ADD COLUMN message_id_header TEXT;
	ALTER TABLE messages ADD COLUMN date_header TEXT;
	ALTER TABLE messages ADD COLUMN reply_to_json TEXT;
	ALTER TABLE messages ADD COLUMN attachment_files_json TEXT;
	DROP INDEX messages_inbox_received;
	CREATE INDEX messages_inbox_received ON messages(inbox, received DESC, seq DESC, id, original_inbox, domain, subject,
		from_json, to_json, cc_json, bcc_json, size, attachments_json, ip, via, rtls, links_json, spam, folder, labels_json, read, saved_by,
		thread_id, auth_json, stripped_text, stripped_signature, codes_json, message_id_header, date_header, reply_to_json,
		attachment_files_json);
	`,
	`
	-- A reply hook's delivery (the webhook queue's post of a reply to n8n's resume URL) retries a 409 (n8n: the execution is
	-- still running, not yet stored as waiting) until the hook's expiry: reply_hook_expires, epoch ms; NULL for other deliveries.
	ALTER TABLE webhook_deliveries ADD COLUMN reply_hook_expires INTEGER;
	`,
	`
	-- Outbound mail you can follow (issue 35). Each relayed recipient's copy goes out with its own envelope sender,
	-- bounces+<token>@<--return-path-domain>: a delivery report sent back to it names the message and the recipient.
	CREATE TABLE return_paths (
		token TEXT PRIMARY KEY,
		outgoing_id TEXT NOT NULL REFERENCES outgoing_messages (id) ON DELETE CASCADE,
		address TEXT NOT NULL
	);
	CREATE INDEX return_paths_outgoing ON return_paths (outgoing_id);
	-- Each change of a recipient's status, recorded in the transaction that makes it; posted to the account's event
	-- subscriptions through webhook_deliveries (event_id set: the event is the payload).
	CREATE TABLE delivery_events (
		seq INTEGER PRIMARY KEY,
		id TEXT NOT NULL UNIQUE,
		account_id TEXT NOT NULL,
		outgoing_id TEXT NOT NULL,
		from_address TEXT NOT NULL,
		subject TEXT NOT NULL,
		recipient TEXT NOT NULL,
		type TEXT NOT NULL CHECK (type IN ('delivered', 'deferred', 'bounced', 'complained', 'failed')),
		status_code TEXT,
		diagnostic TEXT,
		reporting_mta TEXT,
		bounce_message_id TEXT,
		time TEXT NOT NULL
	);
	CREATE INDEX delivery_events_outgoing ON delivery_events (outgoing_id);
	CREATE INDEX delivery_events_time ON delivery_events (time);
	CREATE TABLE event_subscriptions (
		id TEXT PRIMARY KEY,
		account_id TEXT NOT NULL,
		url TEXT NOT NULL,
		events_json TEXT NOT NULL,
		created TEXT NOT NULL
	);
	CREATE INDEX event_subscriptions_account ON event_subscriptions (account_id, created);
	ALTER TABLE webhook_deliveries ADD COLUMN event_id TEXT;
	-- The addresses an account no longer sends to (lower-case): a bounce or a complaint puts them here.
	CREATE TABLE suppressions (
		account_id TEXT NOT NULL,
		address TEXT NOT NULL,
		reason TEXT NOT NULL CHECK (reason IN ('bounced', 'complained')),
		outgoing_id TEXT NOT NULL,
		status_code TEXT,
		diagnostic TEXT,
		bounce_message_id TEXT,
		created TEXT NOT NULL,
		PRIMARY KEY (account_id, address)
	);
	`,
];
