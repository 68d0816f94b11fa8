import { StoreOpenError } from '../store';
import { describeTarget, type Db, type PoolDb } from './database';
import { LockKind } from './locks';
import { SearchIndex } from './search-index';

/** Text compared byte by byte, as SQLite's BINARY collation does: the same order and equality whatever the server's locale. */
const TEXT = 'TEXT COLLATE "C"';

/** A schema version: SQL, or work that needs JavaScript too (the search index's text is folded and spelt by JavaScript). */
export type Migration = string | ((tx: Db) => Promise<void>);

/**
 * Schema versions, applied in order; the table schema_version records how many ran. Never change what a shipped entry
 * leaves behind: append a new one (work may only move to a later entry, so that every upgrade ends in the same schema).
 * Tables and columns are named as in the SQLite schema (server/store/sqlite/migrations.ts), so both engines read rows
 * alike: flags are INTEGER 0/1, times epoch ms (BIGINT), JSON is TEXT.
 */
export const MIGRATIONS: Migration[] = [
	`
	CREATE EXTENSION IF NOT EXISTS pg_trgm;

	CREATE TABLE accounts (
		id ${TEXT} PRIMARY KEY,
		name ${TEXT} NOT NULL UNIQUE,
		credits BIGINT NOT NULL DEFAULT 0 CHECK (credits >= 0),
		is_admin INTEGER NOT NULL DEFAULT 0,
		created ${TEXT} NOT NULL
	);

	CREATE TABLE api_keys (
		id ${TEXT} PRIMARY KEY,
		account_id ${TEXT} NOT NULL REFERENCES accounts (id),
		hash ${TEXT} NOT NULL UNIQUE,
		label ${TEXT} NOT NULL DEFAULT '',
		created ${TEXT} NOT NULL,
		revoked ${TEXT}
	);
	CREATE INDEX api_keys_account ON api_keys (account_id);

	-- Forwarding records of private addresses.
	CREATE TABLE addresses (
		email ${TEXT} PRIMARY KEY,
		owner ${TEXT} NOT NULL REFERENCES accounts (id),
		forward ${TEXT},
		enablews INTEGER NOT NULL DEFAULT 0,
		webhook ${TEXT},
		webhook_slack ${TEXT},
		webhook_slack_to_from INTEGER,
		catch_all ${TEXT},
		info ${TEXT} NOT NULL DEFAULT '',
		created ${TEXT} NOT NULL,
		updated ${TEXT} NOT NULL
	);
	CREATE INDEX addresses_owner ON addresses (owner);
	-- A domain has one catch-all address at most, looked up for every message without a webhook of its own.
	CREATE UNIQUE INDEX addresses_catch_all ON addresses (catch_all) WHERE catch_all IS NOT NULL;

	-- Domains owned by an account: all their mail is private to it.
	CREATE TABLE domains (
		domain ${TEXT} PRIMARY KEY,
		owner ${TEXT} NOT NULL REFERENCES accounts (id),
		created ${TEXT} NOT NULL
	);
	CREATE INDEX domains_owner ON domains (owner);

	-- One row per accepted SMTP transaction, shared by the records of all its recipients. The bodies are kept as UTF-8
	-- bytes: text cannot hold the NUL characters a body may have. A large message's raw source and large bodies are in
	-- pieces (below), their columns here empty.
	CREATE TABLE contents (
		id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		message_id ${TEXT} NOT NULL,
		date ${TEXT},
		priority ${TEXT} NOT NULL,
		headers ${TEXT} NOT NULL,
		text BYTEA NOT NULL,
		html BYTEA,
		raw BYTEA NOT NULL
	);

	-- One row per recipient inbox. Big content lives in contents.
	CREATE TABLE messages (
		seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		id ${TEXT} NOT NULL UNIQUE,
		inbox ${TEXT} NOT NULL,
		original_inbox ${TEXT} NOT NULL,
		domain ${TEXT} NOT NULL,
		received BIGINT NOT NULL,
		subject ${TEXT} NOT NULL,
		from_json ${TEXT} NOT NULL,
		to_json ${TEXT} NOT NULL,
		cc_json ${TEXT},
		bcc_json ${TEXT},
		size BIGINT NOT NULL,
		attachments_json ${TEXT},
		ip ${TEXT} NOT NULL,
		via ${TEXT} NOT NULL,
		rtls INTEGER NOT NULL,
		links_json ${TEXT} NOT NULL,
		spam DOUBLE PRECISION NOT NULL,
		folder ${TEXT} NOT NULL DEFAULT 'inbox',
		labels_json ${TEXT} NOT NULL DEFAULT '[]',
		read INTEGER,
		saved_by ${TEXT},
		content_id BIGINT NOT NULL REFERENCES contents (id)
	);
	-- Listings walk an inbox or a domain newest first; the account-wide listing merges such walks.
	CREATE INDEX messages_inbox_received ON messages (inbox, received DESC, seq DESC);
	CREATE INDEX messages_domain_received ON messages (domain, received DESC, seq DESC);
	CREATE INDEX messages_content ON messages (content_id);
	-- Account-wide unread counts read only these small indexes.
	CREATE INDEX messages_inbox_unread ON messages (inbox) WHERE read IS DISTINCT FROM 1;
	CREATE INDEX messages_domain_unread ON messages (domain) WHERE read IS DISTINCT FROM 1;
	CREATE INDEX messages_starred ON messages (saved_by, received DESC, seq) WHERE saved_by IS NOT NULL;

	-- Account-wide search: the text it compares, folded to lower case by JavaScript (lower() depends on the server's
	-- locale), of private mail only (reserved addresses and owned domains), as SQLite's messages_search. Trigrams find any
	-- substring of three characters or more through the index.
	CREATE TABLE messages_search (
		seq BIGINT PRIMARY KEY REFERENCES messages (seq) ON DELETE CASCADE,
		sender ${TEXT} NOT NULL,
		recipients ${TEXT} NOT NULL,
		subject ${TEXT} NOT NULL
	);
	CREATE INDEX messages_search_trigrams ON messages_search
		USING gin (sender gin_trgm_ops, recipients gin_trgm_ops, subject gin_trgm_ops);

	-- Attachment bytes, stored once per checksum (MD5 hex).
	CREATE TABLE attachment_contents (
		checksum ${TEXT} PRIMARY KEY,
		content BYTEA NOT NULL
	);

	CREATE TABLE content_attachments (
		content_id BIGINT NOT NULL REFERENCES contents (id),
		position INTEGER NOT NULL,
		checksum ${TEXT} NOT NULL REFERENCES attachment_contents (checksum),
		content_type ${TEXT} NOT NULL,
		file_name ${TEXT},
		length BIGINT NOT NULL,
		content_id_header ${TEXT},
		content_disposition ${TEXT},
		transfer_encoding ${TEXT},
		PRIMARY KEY (content_id, position)
	);
	CREATE INDEX content_attachments_checksum ON content_attachments (checksum);

	-- Large (spooled) messages: the raw source, attachments and large bodies (UTF-8, split anywhere) in 1 MB pieces,
	-- copied in from the spool files a piece at a time. The pieces go with their row.
	CREATE TABLE content_raw_pieces (
		content_id BIGINT NOT NULL REFERENCES contents (id) ON DELETE CASCADE,
		seq INTEGER NOT NULL,
		data BYTEA NOT NULL,
		PRIMARY KEY (content_id, seq)
	);
	CREATE TABLE attachment_pieces (
		checksum ${TEXT} NOT NULL REFERENCES attachment_contents (checksum) ON DELETE CASCADE,
		seq INTEGER NOT NULL,
		data BYTEA NOT NULL,
		PRIMARY KEY (checksum, seq)
	);
	CREATE TABLE content_body_pieces (
		content_id BIGINT NOT NULL REFERENCES contents (id) ON DELETE CASCADE,
		kind ${TEXT} NOT NULL CHECK (kind IN ('text', 'html')),
		seq INTEGER NOT NULL,
		data BYTEA NOT NULL,
		PRIMARY KEY (content_id, kind, seq)
	);
	-- Stored uncompressed (most is compressed already, or random): writing skips a futile compression, and reading a
	-- range of an attachment fetches only the chunks that hold it.
	ALTER TABLE attachment_contents ALTER COLUMN content SET STORAGE EXTERNAL;
	ALTER TABLE content_raw_pieces ALTER COLUMN data SET STORAGE EXTERNAL;
	ALTER TABLE attachment_pieces ALTER COLUMN data SET STORAGE EXTERNAL;
	ALTER TABLE content_body_pieces ALTER COLUMN data SET STORAGE EXTERNAL;

	-- Webhook signing secrets, one per account; the previous one keeps signing for a day after a rotation.
	CREATE TABLE webhook_secrets (
		account_id ${TEXT} PRIMARY KEY REFERENCES accounts (id),
		secret ${TEXT} NOT NULL,
		previous_secret ${TEXT},
		rotated BIGINT
	);

	-- Secrets the server itself keeps (the key of the encryptedInbox HMAC).
	CREATE TABLE server_secrets (
		name ${TEXT} PRIMARY KEY,
		value ${TEXT} NOT NULL
	);

	-- encryptedInbox local part (inbox-<hex>) -> the inbox it stands for; an HMAC cannot be reversed.
	CREATE TABLE encrypted_inboxes (
		token ${TEXT} PRIMARY KEY,
		inbox ${TEXT} NOT NULL
	);

	-- Webhook subscriptions of an address, each with an optional filter; they go with their address.
	CREATE TABLE webhook_subscriptions (
		id ${TEXT} PRIMARY KEY,
		address ${TEXT} NOT NULL REFERENCES addresses (email) ON DELETE CASCADE,
		url ${TEXT} NOT NULL,
		filter_json ${TEXT},
		created ${TEXT} NOT NULL
	);
	CREATE INDEX webhook_subscriptions_address ON webhook_subscriptions (address, created, id);

	-- One delivery per message record and webhook, written in the message's own transaction. A node attempting it holds
	-- its lease (lease_node, until lease_until): no other node takes it before the lease runs out.
	CREATE TABLE webhook_deliveries (
		id ${TEXT} PRIMARY KEY,
		message_id ${TEXT} NOT NULL,
		account_id ${TEXT} NOT NULL,
		address ${TEXT} NOT NULL,
		url ${TEXT} NOT NULL,
		kind ${TEXT} NOT NULL DEFAULT 'webhook' CHECK (kind IN ('webhook', 'slack', 'slack-to-from')),
		subscription_id ${TEXT},
		status ${TEXT} NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'refused')),
		attempts INTEGER NOT NULL DEFAULT 0,
		-- attempts made before the last manual redelivery: the retry schedule restarts there.
		schedule_start INTEGER NOT NULL DEFAULT 0,
		lease_node ${TEXT},
		lease_until BIGINT,
		next_attempt BIGINT,
		last_status_code INTEGER,
		last_error ${TEXT},
		created BIGINT NOT NULL,
		updated BIGINT NOT NULL
	);
	CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt, id) WHERE status = 'pending';
	CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (lease_node) WHERE lease_node IS NOT NULL;
	CREATE INDEX webhook_deliveries_message ON webhook_deliveries (message_id);
	CREATE INDEX webhook_deliveries_updated ON webhook_deliveries (updated) WHERE status <> 'pending';

	-- Recent Activity: one row per webhook attempt.
	CREATE TABLE webhook_attempts (
		seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		id ${TEXT} NOT NULL UNIQUE,
		delivery_id ${TEXT} NOT NULL,
		account_id ${TEXT} NOT NULL,
		message_id ${TEXT} NOT NULL,
		address ${TEXT} NOT NULL,
		url ${TEXT} NOT NULL,
		subscription_id ${TEXT},
		attempt INTEGER NOT NULL,
		status ${TEXT} NOT NULL CHECK (status IN ('delivered', 'retrying', 'failed', 'refused')),
		status_code INTEGER,
		error ${TEXT},
		duration_ms BIGINT NOT NULL,
		time BIGINT NOT NULL,
		next_retry BIGINT
	);
	CREATE INDEX webhook_attempts_account ON webhook_attempts (account_id, time DESC, seq DESC);
	CREATE INDEX webhook_attempts_time ON webhook_attempts (time);

	-- Sent mail: one row per message, a status per recipient (each naming its field: to, cc or bcc).
	CREATE TABLE outgoing_messages (
		seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		id ${TEXT} NOT NULL UNIQUE,
		account_id ${TEXT} NOT NULL REFERENCES accounts (id),
		from_address ${TEXT} NOT NULL,
		subject ${TEXT} NOT NULL,
		sent ${TEXT} NOT NULL,
		recipients_json ${TEXT} NOT NULL,
		in_reply_to ${TEXT},
		status ${TEXT} NOT NULL CHECK (status IN ('queued', 'delivered', 'failed')),
		last_error ${TEXT},
		attempts INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX outgoing_messages_account ON outgoing_messages (account_id, seq DESC);
	CREATE INDEX outgoing_messages_sent ON outgoing_messages (sent);

	-- Sent messages with recipients still to deliver; the row goes when none is left. Leased as webhook deliveries are.
	CREATE TABLE outbox (
		message_id ${TEXT} PRIMARY KEY REFERENCES outgoing_messages (id),
		raw BYTEA NOT NULL,
		ip ${TEXT} NOT NULL,
		via ${TEXT} NOT NULL,
		next_attempt BIGINT NOT NULL,
		lease_node ${TEXT},
		lease_until BIGINT
	);
	CREATE INDEX outbox_due ON outbox (next_attempt, message_id);
	CREATE INDEX outbox_leased ON outbox (lease_node) WHERE lease_node IS NOT NULL;
	`,
	`
	-- Search covers the senders' and To display names and the text body too (of an HTML-only message, the text made from its
	-- HTML): messages_search gets a column for each. Its entries are made anew, and its indexes made after them, by the
	-- version that indexes bodies by their words (below), which this one ran itself when it shipped: every upgrade still
	-- ends in the same schema and the same entries.
	DROP INDEX messages_search_trigrams;
	ALTER TABLE messages_search
		ADD COLUMN sender_names ${TEXT} NOT NULL DEFAULT '',
		ADD COLUMN recipient_names ${TEXT} NOT NULL DEFAULT '',
		ADD COLUMN body ${TEXT} NOT NULL DEFAULT '';
	`,
	`
	-- What each webhook attempt sent and got back (see the SQLite schema); pruned with its attempt.
	CREATE TABLE webhook_exchanges (
		attempt_id ${TEXT} PRIMARY KEY REFERENCES webhook_attempts (id) ON DELETE CASCADE,
		request_headers ${TEXT} NOT NULL,
		request_body BYTEA NOT NULL,
		request_bytes INTEGER NOT NULL,
		response_headers ${TEXT},
		response_body BYTEA,
		response_bytes INTEGER
	);
	`,
	async (tx) => {
		// Bodies are found through their words (body-words.ts), not their trigrams, which narrowed a search poorly: body_words
		// holds each body's word suffixes (NULL for a body with too many: the trigram index keeps covering those bodies
		// only). Every entry is made anew (texts folded and spelt by JavaScript, in any locale, see trigram-text.ts), then
		// the indexes made (faster than keeping them up to date row by row). Only the first 65,536 characters of a text
		// body are indexed. Measured on 100,000 private messages with bodies of about 1 KB: 123 s on a quiet machine.
		await tx.run(`
			DROP INDEX IF EXISTS messages_search_trigrams;
			ALTER TABLE messages_search ADD COLUMN body_words tsvector;
		`);
		await new SearchIndex(tx).rebuild();
		await tx.run(`
			SET LOCAL maintenance_work_mem = '256MB';
			CREATE INDEX messages_search_trigrams ON messages_search USING gin (sender gin_trgm_ops, sender_names gin_trgm_ops,
				recipients gin_trgm_ops, recipient_names gin_trgm_ops, subject gin_trgm_ops);
			CREATE INDEX messages_search_words ON messages_search USING gin (body_words);
			CREATE INDEX messages_search_unworded ON messages_search USING gin (body gin_trgm_ops) WHERE body_words IS NULL;
		`);
	},
	`
	-- What a message says beyond its text (see the SQLite schema).
	ALTER TABLE messages
		ADD COLUMN auth_json ${TEXT},
		ADD COLUMN stripped_text ${TEXT},
		ADD COLUMN stripped_signature ${TEXT},
		ADD COLUMN codes_json ${TEXT} NOT NULL DEFAULT '[]';
	`,
	`
	-- Conversations (server/mail/threading.ts), as in the SQLite schema: each record's thread, the account whose thread it
	-- is (NULL for public inboxes) and its Message-ID digested with that scope; sent mail's thread and key. The digest and
	-- the message id pattern are server/mail/threading.ts's, here in SQL: keep them alike. Records already stored get the
	-- thread their own headers give, sent mail its original's (inReplyTo) or its own Message-ID's, in one pass over each
	-- table before the indexes are made (every record is written anew). Measured on 100,000 records, half of them replies,
	-- on two vCPUs shared with other work (load average about 13): 25 s.
	CREATE FUNCTION mailroom_digest(kind TEXT, scope TEXT, value TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE
		AS $$ SELECT encode(substring(sha256(convert_to(kind || E'\n' || coalesce(scope, '') || E'\n' || value, 'UTF8')) FROM 1 FOR 12), 'hex') $$;
	CREATE FUNCTION mailroom_first_id(value TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE
		AS $$ SELECT CASE WHEN length(substring(value FROM '<[^<>\\x01-\\x20\\x7f]+>')) <= 998
			THEN substring(value FROM '<[^<>\\x01-\\x20\\x7f]+>') END $$;
	ALTER TABLE messages ADD COLUMN thread_id ${TEXT}, ADD COLUMN thread_account ${TEXT}, ADD COLUMN message_key ${TEXT};
	ALTER TABLE outgoing_messages ADD COLUMN thread_id ${TEXT}, ADD COLUMN message_key ${TEXT};
	WITH roots AS MATERIALIZED (
		-- Most mail answers none: only headers that hold References or In-Reply-To are read as JSON (once).
		SELECT c.id, mailroom_first_id(c.message_id) AS own,
			coalesce(mailroom_first_id(h.refs), mailroom_first_id(h.irt), mailroom_first_id(c.message_id)) AS root
		FROM contents c LEFT JOIN LATERAL (
			SELECT (array_agg(e.h ->> 1 ORDER BY e.n) FILTER (WHERE e.h ->> 0 = 'references'))[1] AS refs,
				(array_agg(e.h ->> 1 ORDER BY e.n) FILTER (WHERE e.h ->> 0 = 'in-reply-to'))[1] AS irt
			FROM json_array_elements(c.headers::json) WITH ORDINALITY AS e (h, n)
		) h ON c.headers LIKE '%["references",%' OR c.headers LIKE '%["in-reply-to",%'
	), scoped AS MATERIALIZED (
		SELECT m.seq, m.id, r.own, r.root,
			coalesce((SELECT owner FROM addresses WHERE email = m.inbox), (SELECT owner FROM domains WHERE domain = m.domain)) AS account
		FROM messages m JOIN roots r ON r.id = m.content_id
	)
	UPDATE messages m SET thread_account = s.account, message_key = mailroom_digest('message', s.account, s.own),
		thread_id = mailroom_digest('thread', s.account, coalesce(s.root, s.id))
	FROM scoped s WHERE s.seq = m.seq;
	UPDATE outgoing_messages o
		SET message_key = mailroom_digest('message', o.account_id, '<' || o.id || '@' || split_part(o.from_address, '@', 2) || '>'),
			thread_id = coalesce(
				(SELECT m.thread_id FROM messages m WHERE m.id = o.in_reply_to AND m.thread_account = o.account_id),
				mailroom_digest('thread', o.account_id, '<' || o.id || '@' || split_part(o.from_address, '@', 2) || '>'));
	ALTER TABLE messages ALTER COLUMN thread_id SET NOT NULL;
	ALTER TABLE outgoing_messages ALTER COLUMN thread_id SET NOT NULL;
	-- A thread's messages oldest first; the mail a message names, by its key.
	CREATE INDEX messages_thread ON messages (thread_id, received, seq);
	CREATE INDEX messages_message_key ON messages (message_key) WHERE message_key IS NOT NULL;
	CREATE INDEX outgoing_messages_thread ON outgoing_messages (thread_id, sent, seq);
	CREATE INDEX outgoing_messages_message_key ON outgoing_messages (message_key) WHERE message_key IS NOT NULL;
	`,
	`
	-- A large message sent through the API: its raw source in 1 MB pieces (see the SQLite schema); outbox.raw is then empty.
	CREATE TABLE outbox_raw_pieces (
		message_id ${TEXT} NOT NULL REFERENCES outbox (message_id) ON DELETE CASCADE,
		seq INTEGER NOT NULL,
		data BYTEA NOT NULL,
		PRIMARY KEY (message_id, seq)
	);
	ALTER TABLE outbox_raw_pieces ALTER COLUMN data SET STORAGE EXTERNAL;
	`,
	`
	-- Reply hooks (replyHook of POST /api/outgoing-messages): the first reply to a sent message, a message stored in its
	-- thread (thread ids are per account), is posted to url once, through the webhook queue; then the hook is deleted.
	-- expires_at is epoch ms; expired hooks match nothing and are deleted by the webhook activity prune.
	CREATE TABLE reply_hooks (
		outgoing_id ${TEXT} PRIMARY KEY,
		account_id ${TEXT} NOT NULL,
		thread_id ${TEXT} NOT NULL,
		url ${TEXT} NOT NULL,
		expires_at BIGINT NOT NULL,
		created ${TEXT} NOT NULL
	);
	CREATE INDEX reply_hooks_thread ON reply_hooks (thread_id);
	CREATE INDEX reply_hooks_expires ON reply_hooks (expires_at);
	`,
	`
	-- Chaos settings per account (see the SQLite schema): enabled (0 or 1) beside the JSON, read whole by each node.
	CREATE TABLE account_chaos (
		account_id ${TEXT} PRIMARY KEY REFERENCES accounts (id),
		enabled INTEGER NOT NULL,
		settings_json ${TEXT} NOT NULL,
		updated ${TEXT} NOT NULL
	);
	`,
	`
	-- What a simplified list item needs and Mailsac's record lacks (see the SQLite schema); NULL for mail stored before.
	ALTER TABLE messages ADD COLUMN message_id_header ${TEXT}, ADD COLUMN date_header ${TEXT}, ADD COLUMN reply_to_json ${TEXT},
		ADD COLUMN attachment_files_json ${TEXT};
	`,
	`
	-- A reply hook's delivery retries a 409 until the hook's expiry (see the SQLite schema); NULL for other deliveries.
	ALTER TABLE webhook_deliveries ADD COLUMN reply_hook_expires BIGINT;
	`,
	`
	-- Outbound mail you can follow (issue 35). Each relayed recipient's copy goes out with its own envelope sender,
	-- bounces+<token>@<--return-path-domain>: a delivery report sent back to it names the message and the recipient.
	CREATE TABLE return_paths (
		token ${TEXT} PRIMARY KEY,
		outgoing_id ${TEXT} NOT NULL REFERENCES outgoing_messages (id) ON DELETE CASCADE,
		address ${TEXT} NOT NULL
	);
	CREATE INDEX return_paths_outgoing ON return_paths (outgoing_id);
	-- Each change of a recipient's status, recorded in the transaction that makes it; posted to the account's event
	-- subscriptions through webhook_deliveries (event_id set: the event is the payload).
	CREATE TABLE delivery_events (
		seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		id ${TEXT} NOT NULL UNIQUE,
		account_id ${TEXT} NOT NULL,
		outgoing_id ${TEXT} NOT NULL,
		from_address ${TEXT} NOT NULL,
		subject ${TEXT} NOT NULL,
		recipient ${TEXT} NOT NULL,
		type ${TEXT} NOT NULL CHECK (type IN ('delivered', 'deferred', 'bounced', 'complained', 'failed')),
		status_code ${TEXT},
		diagnostic ${TEXT},
		reporting_mta ${TEXT},
		bounce_message_id ${TEXT},
		time ${TEXT} NOT NULL
	);
	CREATE INDEX delivery_events_outgoing ON delivery_events (outgoing_id);
	CREATE INDEX delivery_events_time ON delivery_events (time);
	CREATE TABLE event_subscriptions (
		id ${TEXT} PRIMARY KEY,
		account_id ${TEXT} NOT NULL,
		url ${TEXT} NOT NULL,
		events_json ${TEXT} NOT NULL,
		created ${TEXT} NOT NULL
	);
	CREATE INDEX event_subscriptions_account ON event_subscriptions (account_id, created);
	ALTER TABLE webhook_deliveries ADD COLUMN event_id ${TEXT};
	-- The addresses an account no longer sends to (lower-case): a bounce or a complaint puts them here.
	CREATE TABLE suppressions (
		account_id ${TEXT} NOT NULL,
		address ${TEXT} NOT NULL,
		reason ${TEXT} NOT NULL CHECK (reason IN ('bounced', 'complained')),
		outgoing_id ${TEXT} NOT NULL,
		status_code ${TEXT},
		diagnostic ${TEXT},
		bounce_message_id ${TEXT},
		created ${TEXT} NOT NULL,
		PRIMARY KEY (account_id, address)
	);
	`,
];

/**
 * Checks that the database holds UTF-8 text, and brings the schema up to date under an advisory lock, so that nodes
 * starting together migrate one after the other (the later ones find nothing left to do). Each version commits with its
 * record in schema_version. A database a newer Mailroom has written is refused: this version would not know what its
 * tables mean.
 */
export async function migrate(pool: PoolDb): Promise<void> {
	const where = describeTarget(pool.target);
	const encoding = (await pool.row<{ server_encoding: string }>('SHOW server_encoding'))!.server_encoding;
	if (encoding !== 'UTF8') {
		throw new StoreOpenError(`the database ${where} is in ${encoding}: Mailroom needs UTF8 (CREATE DATABASE ... ENCODING 'UTF8')`);
	}
	await pool.session(async (session) => {
		await session.run('SELECT pg_advisory_lock($1, 0)', [LockKind.migrations]);
		try {
			await session.run(`CREATE TABLE IF NOT EXISTS schema_version (
				singleton BOOLEAN PRIMARY KEY DEFAULT true CHECK (singleton),
				version INTEGER NOT NULL
			)`);
			const current = (await session.row<{ version: number }>('SELECT version FROM schema_version'))?.version ?? 0;
			if (current > MIGRATIONS.length) {
				throw new StoreOpenError(
					`the database ${where} was written by a newer Mailroom: schema ${current}, this version knows ${MIGRATIONS.length} (upgrade Mailroom)`,
				);
			}
			for (let version = current; version < MIGRATIONS.length; version++) {
				await session.transaction(async (tx) => {
					const migration = MIGRATIONS[version];
					await (typeof migration === 'string' ? tx.run(migration) : migration(tx));
					await tx.run(
						'INSERT INTO schema_version (version) VALUES ($1) ON CONFLICT (singleton) DO UPDATE SET version = excluded.version',
						[version + 1],
					);
				});
			}
		} finally {
			await session.run('SELECT pg_advisory_unlock($1, 0)', [LockKind.migrations]);
		}
	});
}
