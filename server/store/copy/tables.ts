/**
 * How each table of the SQLite store becomes a table of the PostgreSQL one (copy-store). The two schemas name tables and
 * columns alike (server/store/sqlite/migrations.ts, server/store/postgres/migrations.ts); what differs is said here, per
 * column, and checked against both databases before anything is copied, so a column added to one schema and not mapped
 * here stops the copy instead of being left behind.
 */
export interface TableCopy {
	name: string;
	/** Columns both schemas have, copied as they are (SQLite BLOB to BYTEA, INTEGER to BIGINT, REAL to DOUBLE PRECISION). */
	columns: string[];
	/** SQLite expressions for columns whose type changes on the way: read them as the PostgreSQL column stores them. */
	readAs?: Record<string, string>;
	/** Columns of both schemas that start out NULL in PostgreSQL. */
	cleared?: string[];
	/** SQLite columns that PostgreSQL does not have. */
	dropped?: string[];
	/** The GENERATED ALWAYS identity column: its values are kept, and its sequence moved past the highest. */
	identity?: string;
	/** A key the target may hold a row of already (made when it was opened): the copied row replaces it. */
	replacesOn?: string;
}

/** Leases belong to the node that took the work; none of the SQLite server's nodes will run on PostgreSQL. */
const LEASES = ['lease_node', 'lease_until'];

/** In the order of their references: a row is copied after the rows it refers to. Nothing refers to a domain. */
export const TABLES: TableCopy[] = [
	{ name: 'accounts', columns: ['id', 'name', 'credits', 'is_admin', 'created'] },
	{ name: 'api_keys', columns: ['id', 'account_id', 'hash', 'label', 'created', 'revoked'] },
	{
		name: 'addresses',
		columns: [
			'email',
			'owner',
			'forward',
			'enablews',
			'webhook',
			'webhook_slack',
			'webhook_slack_to_from',
			'catch_all',
			'info',
			'created',
			'updated',
		],
		// Never written (the API answers password: null): PostgreSQL's schema left it out.
		dropped: ['password'],
	},
	// The encryptedInbox HMAC key: aliases handed out before route only with the key that made them.
	{ name: 'server_secrets', columns: ['name', 'value'], replacesOn: 'name' },
	{ name: 'encrypted_inboxes', columns: ['token', 'inbox'] },
	{ name: 'webhook_secrets', columns: ['account_id', 'secret', 'previous_secret', 'rotated'] },
	{ name: 'webhook_subscriptions', columns: ['id', 'address', 'url', 'filter_json', 'created'] },
	{
		name: 'contents',
		columns: ['id', 'message_id', 'date', 'priority', 'headers', 'text', 'html', 'raw'],
		// PostgreSQL keeps bodies as UTF-8 bytes (its text cannot hold NUL): SQLite's own bytes of the text, never decoded.
		readAs: { text: 'CAST(text AS BLOB)', html: 'CAST(html AS BLOB)' },
		identity: 'id',
	},
	{
		name: 'messages',
		// prettier-ignore
		columns: [
			'seq', 'id', 'inbox', 'original_inbox', 'domain', 'received', 'subject', 'from_json', 'to_json', 'cc_json', 'bcc_json', 'size',
			'attachments_json', 'ip', 'via', 'rtls', 'links_json', 'spam', 'folder', 'labels_json', 'read', 'saved_by', 'content_id',
			'auth_json', 'stripped_text', 'stripped_signature', 'codes_json',
			'thread_id', 'thread_account', 'message_key',
			'message_id_header', 'date_header', 'reply_to_json', 'attachment_files_json',
		],
		identity: 'seq',
	},
	{ name: 'attachment_contents', columns: ['checksum', 'content'] },
	{
		name: 'content_attachments',
		// prettier-ignore
		columns: [
			'content_id', 'position', 'checksum', 'content_type', 'file_name', 'length', 'content_id_header', 'content_disposition',
			'transfer_encoding',
		],
	},
	{ name: 'content_raw_pieces', columns: ['content_id', 'seq', 'data'] },
	{ name: 'attachment_pieces', columns: ['checksum', 'seq', 'data'] },
	{ name: 'content_body_pieces', columns: ['content_id', 'kind', 'seq', 'data'] },
	{
		name: 'webhook_deliveries',
		// prettier-ignore
		columns: [
			'id', 'message_id', 'account_id', 'address', 'url', 'kind', 'subscription_id', 'status', 'attempts', 'schedule_start',
			'next_attempt', 'last_status_code', 'last_error', 'created', 'updated', 'reply_hook_expires', 'event_id',
		],
		cleared: LEASES,
	},
	{
		name: 'webhook_attempts',
		// prettier-ignore
		columns: [
			'seq', 'id', 'delivery_id', 'account_id', 'message_id', 'address', 'url', 'subscription_id', 'attempt', 'status', 'status_code',
			'error', 'duration_ms', 'time', 'next_retry',
		],
		identity: 'seq',
	},
	{
		name: 'webhook_exchanges',
		// prettier-ignore
		columns: [
			'attempt_id', 'request_headers', 'request_body', 'request_bytes', 'response_headers', 'response_body', 'response_bytes',
		],
	},
	{
		name: 'outgoing_messages',
		// prettier-ignore
		columns: [
			'seq', 'id', 'account_id', 'from_address', 'subject', 'sent', 'recipients_json', 'in_reply_to', 'status', 'last_error', 'attempts',
			'thread_id', 'message_key',
		],
		identity: 'seq',
	},
	{ name: 'outbox', columns: ['message_id', 'raw', 'ip', 'via', 'next_attempt'], cleared: LEASES },
	{ name: 'outbox_raw_pieces', columns: ['message_id', 'seq', 'data'] },
	{ name: 'reply_hooks', columns: ['outgoing_id', 'account_id', 'thread_id', 'url', 'expires_at', 'created'] },
	{ name: 'account_chaos', columns: ['account_id', 'enabled', 'settings_json', 'updated'] },
	{ name: 'return_paths', columns: ['token', 'outgoing_id', 'address'] },
	{
		name: 'delivery_events',
		// prettier-ignore
		columns: [
			'seq', 'id', 'account_id', 'outgoing_id', 'from_address', 'subject', 'recipient', 'type', 'status_code', 'diagnostic',
			'reporting_mta', 'bounce_message_id', 'time',
		],
		identity: 'seq',
	},
	{ name: 'event_subscriptions', columns: ['id', 'account_id', 'url', 'events_json', 'created'] },
	{
		name: 'suppressions',
		columns: ['account_id', 'address', 'reason', 'outgoing_id', 'status_code', 'diagnostic', 'bounce_message_id', 'created'],
	},
	// After the mail: the search index is filled before and after it (see copy-store.ts).
	{ name: 'domains', columns: ['domain', 'owner', 'created'] },
];

/**
 * Tables that are not copied: each engine's account-wide search index (SQLite's FTS5 table and its shadow tables; the
 * PostgreSQL one is filled by the engine's own indexing), and PostgreSQL's record of its schema version.
 */
export const isDerivedTable = (name: string) =>
	name === 'messages_search' || name.startsWith('messages_search_') || name === 'schema_version';

/** What a database's tables are, by name: their columns. */
export type Schema = Map<string, string[]>;

/**
 * Where `schema` (of the engine `engine`) and TABLES disagree: a table or column neither copied nor accounted for, or one
 * TABLES names that is not there. Empty when the copy covers every column of the database.
 */
export function schemaMismatches(schema: Schema, engine: 'sqlite' | 'postgres'): string[] {
	const problems: string[] = [];
	const mapped = new Map(TABLES.map((table) => [table.name, table]));
	for (const name of schema.keys()) {
		if (!mapped.has(name) && !isDerivedTable(name)) problems.push(`table ${name} is not mapped`);
	}
	for (const table of TABLES) {
		const actual = schema.get(table.name);
		if (!actual) {
			problems.push(`table ${table.name} is missing`);
			continue;
		}
		const expected = [...table.columns, ...(table.cleared ?? []), ...(engine === 'sqlite' ? (table.dropped ?? []) : [])];
		for (const column of actual.filter((name) => !expected.includes(name))) problems.push(`column ${table.name}.${column} is not mapped`);
		for (const column of expected.filter((name) => !actual.includes(name))) problems.push(`column ${table.name}.${column} is missing`);
	}
	return problems.map((problem) => `${engine}: ${problem}`);
}
