// The store's contract: what the rest of the server asks of stored data, whichever engine keeps it (SQLite in the data
// folder, or PostgreSQL shared by several nodes). Every read and write is asynchronous, as a networked database needs;
// the SQLite engine answers at once. Types that both engines share live here too; the engines live in sqlite/ and
// postgres/, and open-store.ts picks one.
import type { AttachmentMeta, Folder, MessageRecord } from '../schemas/message';
import type { AccountStats } from '../schemas/account';
import type { DomainRecord } from '../schemas/domain';
import type { ForwardingRecord } from '../schemas/address';
import type { OutgoingRecord, RecipientField, Route } from '../schemas/outgoing';
import type { AttemptStatus, DeliveryStatus, SubscriptionFilter, WebhookAttempt, WebhookSubscription } from '../schemas/webhook';
import type { MessageFilter } from '../schemas/wait-for';
import type { DeliveryEvent, EventSubscription, EventType, Suppression } from '../schemas/delivery-event';
import type { DeliveryReport } from '../mail/delivery-report';
import type { ReturnPathOwner } from '../mail/return-path';
import type { SearchQuery } from '../mail/search-query';
import type { ParsedIncomingMail, Recipient } from '../mail/incoming-mail';
import type { MessageContent } from '../mail/message-content';
import type { StoredBytes } from '../bytes/stored-bytes';
import type { SpooledBytes } from '../bytes/spooled-bytes';
import type { ChaosSettings } from '../schemas/chaos-settings';
import type { InboxSettings } from './inbox-settings';
import type { SearchBudget } from './search-budget';

/** The database cannot be reached (PostgreSQL down, say): the API answers 503 and SMTP 451 until it is back. */
export class StoreUnavailableError extends Error {}

/** The store cannot be opened as configured (a data folder that is not writable, a database that refuses us, a newer schema). */
export class StoreOpenError extends Error {}

/** Work a node holds until `until` (epoch ms): no other node takes it before then, and once it has passed any node may. */
export interface Lease {
	node: string;
	until: number;
}

/**
 * A lease of `node` from now for `duration` ms (--work-lease). Holders renew their leases every third of it, so only a
 * node that stopped or died loses them: its work is taken up by another at most `duration` later.
 */
export const leaseOf = (node: string, duration: number): Lease => ({ node, until: Date.now() + duration });

// Accounts and keys.

export interface Account {
	id: string;
	name: string;
	credits: number;
	isAdmin: boolean;
	created: string;
}

export interface ApiKeyInfo {
	id: string;
	accountId: string;
	label: string;
	created: string;
	revoked: string | null;
}

/** Why an account or key operation was refused; the API answers `status`, the CLI prints the message. */
export class AccountError extends Error {
	constructor(
		message: string,
		/** 400: a bad value; 404: no such account or key; 409: it conflicts with what is there (a name taken, a key revoked). */
		readonly status: 400 | 404 | 409 = 400,
	) {
		super(message);
	}
}

export interface AccountStore {
	isEmpty(): Promise<boolean>;
	create(name: string, options?: { admin?: boolean; credits?: number }): Promise<Account>;
	list(): Promise<Account[]>;
	/** By id or by name. */
	find(idOrName: string): Promise<Account | undefined>;
	/** By id or by name; AccountError when there is none. */
	require(idOrName: string): Promise<Account>;
	/** Returns the new key in clear text: the only time it is ever visible. `key`: the one to store (given in the settings); unset: random. */
	createKey(accountId: string, label?: string, key?: string): Promise<{ key: string; info: ApiKeyInfo }>;
	listKeys(accountId: string): Promise<ApiKeyInfo[]>;
	revokeKey(keyId: string): Promise<ApiKeyInfo>;
	/** The record of a clear-text key (revoked or not), or undefined for an unknown one. */
	keyInfo(key: string): Promise<ApiKeyInfo | undefined>;
	/** The account a live key belongs to, or undefined for an unknown or revoked key. */
	forKey(key: string): Promise<Account | undefined>;
	addCredits(accountId: string, credits: number): Promise<Account>;
}

/** An account's chaos settings (see server/schemas/chaos.ts): failures and delays on purpose at the SMTP stages of its mail. */
export interface ChaosStore {
	/** The account's settings and when they were set; undefined when it never set any (everything off). */
	get(accountId: string): Promise<{ settings: ChaosSettings; updated: string } | undefined>;
	/** Replaces the account's settings; returns when they were set. */
	set(accountId: string, settings: ChaosSettings): Promise<string>;
	/** The settings of every account whose chaos is on (few, if any: read whole by each node's SMTP listener). */
	enabled(): Promise<Map<string, ChaosSettings>>;
}

/** What an account holds (GET /api/me/stats, which adds its credits). */
export type HeldByAccount = Omit<AccountStats, 'sendsRemaining'>;

export interface AccountStatsReader {
	read(account: string): Promise<HeldByAccount>;
}

// Private addresses and domains.

export type ForwardingUpdate = Partial<
	Pick<ForwardingRecord, 'forward' | 'enablews' | 'webhook' | 'webhookSlack' | 'webhookSlackToFrom' | 'info'>
>;

export interface AddressStore {
	get(email: string): Promise<ForwardingRecord | undefined>;
	listByOwner(owner: string): Promise<ForwardingRecord[]>;
	/** The account that holds the inbox: by its reserved address, else by its owned domain; null when public. */
	ownerOfInbox(email: string, domain: string): Promise<string | null>;
	/**
	 * Reserves a free address for `owner` with the given settings; returns the existing record, unchanged,
	 * when someone (the caller included) already holds it.
	 */
	reserve(email: string, owner: string, settings?: ForwardingUpdate): Promise<ForwardingRecord>;
	/** Reserves every address for `owner` in one transaction; callers check first that none is someone else's. */
	reserveAll(emails: string[], owner: string): Promise<ForwardingRecord[]>;
	/** The address that catches the forwarding of `domain`, if one is set. */
	catchAllOf(domain: string): Promise<ForwardingRecord | undefined>;
	/**
	 * Makes `email` (reserved for `owner` if it is not yet) the one catch-all address of `domain`, or with null
	 * leaves the domain without one.
	 */
	setCatchAll(domain: string, email: string | null, owner: string): Promise<ForwardingRecord | undefined>;
	release(email: string): Promise<void>;
	update(email: string, changes: ForwardingUpdate): Promise<ForwardingRecord>;
}

/** Why a domain cannot be claimed; the API answers 403, the CLI prints the message. */
export class DomainError extends Error {}

export interface DomainStore {
	/** Whether an account owns the domain. */
	isOwned(domain: string): Promise<boolean>;
	get(domain: string): Promise<DomainRecord | undefined>;
	/** Every owned domain, or only those of one account. */
	list(owner?: string): Promise<DomainRecord[]>;
	/**
	 * Gives `domain` to `owner`; the existing record, unchanged, when the owner already has it.
	 * Refused (DomainError) when another account owns it or holds reserved addresses in it (their mail would change hands).
	 */
	claim(domain: string, owner: string): Promise<DomainRecord>;
	/** Gives a domain up: its mail becomes public again (reserved addresses stay reserved) and it has no catch-all. */
	remove(domain: string): Promise<DomainRecord | undefined>;
}

/** encryptedInbox: an opaque, stable alias per inbox (`inbox-<hex>`, an HMAC of the address with a server secret). */
export interface EncryptedInboxStore {
	/** The token of an inbox: the local part of its encrypted address. */
	tokenFor(inbox: string): Promise<string>;
	/** Records the token of an inbox before it is handed out, so mail to it can be routed; whether it is new. */
	remember(inbox: string): Promise<boolean>;
	/** The recipient for mail sent to an encrypted address, or undefined when `address` is not one. */
	resolve(address: string, domain: string): Promise<Recipient | undefined>;
}

/** Reads the settings that act on inboxes' mail (see InboxSettings). */
export interface InboxSettingsStore {
	of(inbox: string, domain: string): Promise<InboxSettings>;
}

// Messages.

export interface MessageStore {
	/** Stores a message: its content once, one record per recipient. Call inside a write transaction. */
	insert(mail: ParsedIncomingMail): Promise<MessageRecord[]>;
	/** The records with these ids that still exist, in no particular order (for mail another node stored). */
	byIds(ids: string[]): Promise<MessageRecord[]>;
	/** The records as a JSON array, newest first; `until` (epoch ms) keeps only messages received before it. */
	listInboxJson(inbox: string, limit: number, until?: number): Promise<string>;
	/**
	 * Every inbox of a domain, newest first. `until` (epoch ms) keeps messages received at or before it:
	 * the next page repeats the boundary records, which callers skip by `_id`, so none is lost.
	 */
	listDomain(domain: string, limit: number, until?: number): Promise<MessageRecord[]>;
	countDomain(domain: string): Promise<number>;
	count(inbox: string): Promise<number>;
	get(inbox: string, id: string): Promise<MessageRecord | undefined>;
	/** The inbox holding the record `id` (ids are unique across inboxes), and its domain. */
	placeOf(id: string): Promise<{ inbox: string; domain: string } | undefined>;
	/** Only the raw source, without assembling a pieced one in memory. */
	rawSource(inbox: string, id: string): Promise<StoredBytes | undefined>;
	content(inbox: string, id: string): Promise<MessageContent | undefined>;
}

/** The user-set state of a message: labels, folder, read flag and star. Each method returns undefined for an unknown message. */
export interface MessageStateStore {
	addLabel(inbox: string, id: string, label: string): Promise<string[] | undefined>;
	removeLabel(inbox: string, id: string, label: string): Promise<string[] | undefined>;
	setFolder(inbox: string, id: string, folder: Folder): Promise<boolean>;
	setRead(inbox: string, id: string, read: boolean): Promise<boolean>;
	/** Stars the message for `account`, or unstars it when it is starred (by anyone: the star is per message). */
	toggleStar(inbox: string, id: string, account: string): Promise<MessageRecord | undefined>;
	/** Stars the message for `account` (one starred already stays as it is), or unstars it: the same again changes nothing. */
	setStar(inbox: string, id: string, account: string, starred: boolean): Promise<MessageRecord | undefined>;
	starred(account: string, limit: number): Promise<MessageRecord[]>;
}

/**
 * The one way messages leave the store. A record's content is shared by all recipients of one SMTP transaction, and
 * attachment bytes by every content that carries the same file, so each goes only when the last record referring to it
 * is deleted. Every method is one transaction.
 */
export interface MessageDeletion {
	/** Deletes one message of an inbox; false when there is none with that id there. */
	deleteMessage(inbox: string, id: string): Promise<boolean>;
	/** Deletes an inbox's messages except the starred ones (as Mailsac does); returns how many went. */
	deleteInbox(inbox: string): Promise<number>;
	/** Deletes every message of a domain, starred ones too (the domain itself is going). */
	deleteDomain(domain: string): Promise<number>;
	/** Deletes messages by their internal sequence numbers (for sweeps that select rows first). */
	deleteBySeq(seqs: number[]): Promise<number>;
}

/** Attachments of a message; their bytes are stored once per checksum and read in pieces. */
export interface AttachmentStore {
	/** The message's attachments in order; undefined when the inbox has no such message. */
	list(inbox: string, messageId: string): Promise<AttachmentMeta[] | undefined>;
	find(inbox: string, messageId: string, identifier: string): Promise<AttachmentMeta | undefined>;
	/** `length` bytes of an attachment's content from `offset` (0-based); empty past the end. */
	read(checksum: string, offset: number, length: number): Promise<Buffer>;
}

/** Filters and search return at most this many messages, newest first (as Mailsac does). */
export const SEARCH_LIMIT = 100;
/**
 * A scan (a search or filter without a text the trigram index can find: short or negated terms, states, dates only)
 * looks at this many of the newest messages of each address and domain (in the range of dates asked for).
 */
export const SCAN_LIMIT = 10_000;

export interface InboxFilter {
	to?: string;
	from?: string;
	subject?: string;
	read?: boolean;
}

/** Every message of an account (its reserved addresses and owned domains), as JSON arrays of records. */
export interface AccountInbox {
	/** Newest first, `skip` then `limit`; `since` (epoch ms) keeps only mail received after it. Plus the unread count. */
	list(account: string, limit: number, skip: number, since?: number): Promise<{ messages: string; unread: number }>;
	/**
	 * Messages matching every condition given (case-insensitive substrings of addresses and subject); `to` also matches the
	 * inbox. Within `budget` (see search-budget.ts; without one, unbounded()): SearchTimeoutError or SearchAbandonedError
	 * when it runs out.
	 */
	filter(account: string, filter: InboxFilter, budget?: SearchBudget): Promise<string>;
	/** Messages matching every condition of a query of the search language (see search-query.ts and search-plan.ts), within `budget`. */
	search(account: string, query: SearchQuery, budget?: SearchBudget): Promise<string>;
}

/** Finds the oldest message of an inbox received since a time that passes a filter (GET .../wait-for-message). */
export interface MessageMatcher {
	oldestMatching(inbox: string, since: number, filter: MessageFilter): Promise<MessageRecord | undefined>;
}

/** A message as the retention sweep judges it by age. */
export interface AgedMessage {
	seq: number;
	received: number;
	savedBy: string | null;
}

/** The messages the retention sweep may delete: too old, or beyond an inbox's limit (it deletes them with MessageDeletion). */
export interface RetentionCandidates {
	/** Up to `limit` messages in the order they arrived (seq), starting after `seq`. */
	oldest(afterSeq: number, limit: number): Promise<AgedMessage[]>;
	/** Inboxes holding more than `max` messages, starred ones counted. */
	inboxesOver(max: number): Promise<string[]>;
	/** Up to `limit` unstarred messages of an inbox beyond its newest `keep`, newest first. */
	beyond(inbox: string, keep: number, limit: number): Promise<number[]>;
}

// Sent mail.

export interface NewOutgoing {
	id: string;
	accountId: string;
	from: string;
	subject: string;
	sent: string;
	/** `note`: what the sender should know of this recipient's route (a sandbox server kept its copy here). */
	recipients: { address: string; field: RecipientField; route: Route; note: string | null; returnPath: string | null }[];
	/** The _id of the received message this one answers. */
	inReplyTo: string | null;
	/**
	 * The message as it goes out: in memory, or (a large one composed into the spool) in a file, stored in pieces. Its
	 * Message-ID, In-Reply-To and References also find its thread.
	 */
	raw: Buffer | SpooledBytes;
	/** Recorded as `ip` / `via` on local copies, also when they are delivered by a retry. */
	ip: string;
	via: string;
	/** Where to post the first reply the message gets, until when (epoch ms): recorded with it (see ReplyHookStore). */
	replyHook?: { url: string; expiresAt: number };
}

/** What one delivery attempt achieved for a recipient; `temporary` failures are retried. */
export type Outcome = { status: 'delivered' } | { status: 'temporary' | 'permanent'; error: string };

export interface OutboxEntry {
	record: OutgoingRecord;
	/** A message recorded from a spool file comes in pieces, each read when asked for. */
	raw: StoredBytes;
	ip: string;
	via: string;
}

/** A delivery event as recorded, with the account whose sent mail it is of (its websockets hear it). */
export interface RecordedEvent {
	accountId: string;
	event: DeliveryEvent;
}

/** What a change of recipients' statuses recorded: the sent message as it is now, and an event per change. */
export interface Settlement {
	record: OutgoingRecord;
	events: RecordedEvent[];
}

/** Sent mail and the outbox of deliveries still to make. */
export interface OutgoingStore {
	/**
	 * Takes one credit per recipient and records the message with its outbox entry, all in one transaction; concurrent
	 * sends can never overspend. The entry is leased to the caller, who makes the first attempt at once. Returns null (and
	 * changes nothing) when the account has too few credits.
	 */
	record(message: NewOutgoing, lease: Lease): Promise<{ record: OutgoingRecord; creditsRemaining: number } | null>;
	get(id: string): Promise<OutgoingRecord | undefined>;
	/** One of the account's sent messages; undefined for another account's or none. */
	find(accountId: string, id: string): Promise<OutgoingRecord | undefined>;
	/** The account's sent mail, newest first. */
	list(accountId: string, limit: number): Promise<OutgoingRecord[]>;
	/** Deletes up to `limit` sent messages older than `before` (ISO time) whose deliveries are settled; how many went. */
	deleteSettledBefore(before: string, limit: number): Promise<number>;
	/**
	 * Leases up to `limit` entries that are due at `now` and not leased (or whose lease has run out), oldest first, so no
	 * second attempt starts while they run, on this node or another.
	 */
	claimDue(now: number, limit: number, lease: Lease): Promise<string[]>;
	/** Extends the leases `lease.node` holds to `lease.until` (while attempts run long). */
	renewLeases(lease: Lease): Promise<void>;
	/** Gives up leases of a node (all of them when stopping, or those of `ids`): those entries are due again at once for any node. */
	releaseLeases(node: string, ids?: string[]): Promise<void>;
	/** The earliest time after `now` when an entry becomes due (a lease running out included); undefined when there is none. */
	nextDue(now: number): Promise<number | undefined>;
	entry(id: string): Promise<OutboxEntry | undefined>;
	/**
	 * Applies the outcomes of an attempt and ends its lease. Recipients still pending are retried at `retryAt`, or fail
	 * when it is null (retries used up). The outbox entry goes once nothing is pending.
	 */
	settle(id: string, outcomes: Map<string, Outcome>, retryAt: number | null): Promise<Settlement>;
	/**
	 * Marks local recipients delivered, and the message once none is pending; runs inside the ingest transaction that stores
	 * their copies. Returns the events it recorded.
	 */
	markDelivered(id: string, addresses: string[]): Promise<RecordedEvent[]>;
	/** Whose a return path token is; undefined for an unknown one (or one whose sent message was deleted). */
	returnPath(token: string): Promise<ReturnPathOwner | undefined>;
	/**
	 * Applies a delivery report to a recipient (not to one still queued: the relay's answer comes first), with its event,
	 * and puts a bounced or complaining recipient on the account's suppression list. Runs inside the ingest transaction that
	 * stores the report (`bounceMessageId`). Returns the events it recorded (none when the status did not change).
	 */
	report(owner: ReturnPathOwner, report: DeliveryReport, bounceMessageId: string): Promise<RecordedEvent[]>;
}

/** The account-level subscriptions to delivery events (POST /api/event-webhooks), and the events themselves. */
export interface DeliveryEventStore {
	subscribe(accountId: string, url: string, events: EventType[]): Promise<EventSubscription>;
	/** The account's subscriptions, oldest first. */
	subscriptions(accountId: string): Promise<EventSubscription[]>;
	/** Deletes one; returns it, or undefined when the account has none with that id. */
	unsubscribe(accountId: string, id: string): Promise<EventSubscription | undefined>;
	get(id: string): Promise<DeliveryEvent | undefined>;
	/** The events of `ids` with their accounts, in that order (those pruned meanwhile left out): what another node announced. */
	recorded(ids: string[]): Promise<RecordedEvent[]>;
	/** Deletes the events older than `before` (ISO time), kept as long as the webhook activity log; how many went. */
	prune(before: string): Promise<number>;
}

/** The addresses each account no longer sends to: recorded by the reports (OutgoingStore.report), listed and removed through the API. */
export interface SuppressionStore {
	list(accountId: string): Promise<Suppression[]>;
	/** Those of `addresses` that are suppressed. */
	find(accountId: string, addresses: string[]): Promise<Suppression[]>;
	remove(accountId: string, address: string): Promise<Suppression | undefined>;
}

// Conversations.

/**
 * A thread's messages are in the order of their time (received, or sent), then sent before received (a reply's local
 * copy never comes before the reply), then the order they were stored in (`seq`, of each table).
 */
export interface ThreadCursor {
	time: number;
	type: 'received' | 'sent';
	seq: number;
}

/** A message of a thread: a received record with the account its inbox belongs to now (null: public), or sent mail. */
export type ThreadEntry = (
	{ type: 'received'; record: MessageRecord; owner: string | null } | { type: 'sent'; record: OutgoingRecord; account: string }
) & { place: ThreadCursor };

/** The received and sent messages of threads (see server/mail/threading.ts). */
export interface ThreadStore {
	/** The account a thread is of (null: public inboxes'); undefined when no stored or sent message has it. */
	scopeOf(threadId: string): Promise<{ account: string | null } | undefined>;
	/** Up to `limit` of its received and sent messages after `after`, in their order (see ThreadCursor). */
	page(threadId: string, limit: number, after?: ThreadCursor): Promise<ThreadEntry[]>;
}

// Webhooks.

/** What is posted: the webhook payload, or a Slack summary (with the From and To lines or without). */
export type DeliveryKind = 'webhook' | 'slack' | 'slack-to-from';

export interface DeliveryRow {
	id: string;
	message_id: string;
	account_id: string;
	address: string;
	url: string;
	kind: DeliveryKind;
	/** The subscription the delivery is made for; null for the address's own webhook (or Slack webhook). */
	subscription_id: string | null;
	/** For a reply hook's delivery, when the hook expires (epoch ms; PostgreSQL answers a string): 409s retry until then. */
	reply_hook_expires: number | string | null;
	/** Set for a delivery event's delivery (message_id is then the sent message's, address the recipient's). */
	event_id: string | null;
	status: DeliveryStatus;
	attempts: number;
	schedule_start: number;
	/** The node attempting it now, and until when (see Lease); null when none is. */
	lease_node: string | null;
	lease_until: number | null;
	next_attempt: number | null;
	last_status_code: number | null;
	last_error: string | null;
	created: number;
	updated: number;
}

/** A delivery to make: of a message, by an account (its secret signs it, its Recent Activity shows it), to a URL. */
export interface NewDelivery {
	messageId: string;
	accountId: string;
	address: string;
	url: string;
	kind: DeliveryKind;
	/** Set when the delivery is made for one of the address's subscriptions (or the account's event subscriptions). */
	subscriptionId?: string;
	/** Set for a reply hook's delivery: the hook's expiry, until which a 409 (n8n's execution not yet waiting) is retried. */
	replyHookExpires?: number;
	/** Set for a delivery event's delivery: the event is what is posted. */
	eventId?: string;
}

/** What one attempt came to, as the worker records it. */
export interface AttemptRecord {
	status: AttemptStatus;
	statusCode: number | null;
	error: string | null;
	durationMs: number;
	time: number;
	/** When the next attempt is due (status retrying only). */
	nextRetry: number | null;
	/** What was sent and what came back; absent when nothing was sent (refused by the SSRF policy, the message gone). */
	exchange?: AttemptExchange;
}

/** The start of a body, and the size of the whole. */
export interface BodyHead {
	head: Buffer;
	bytes: number;
}

/** The request an attempt sent and the response it got (null when none came), bodies cut as server/webhooks says. */
export interface AttemptExchange {
	request: { headers: [string, string][]; body: BodyHead };
	response: { headers: [string, string][]; body: BodyHead } | null;
}

/** One logged attempt, with what it sent and got back when that was recorded. */
export interface StoredAttempt {
	accountId: string;
	attempt: WebhookAttempt;
	exchange: AttemptExchange | null;
}

/** Webhook deliveries (one per message record that has a webhook) and the log of their attempts. */
/** Which of an account's webhook attempts Recent Activity lists: each part given must match. */
export interface ActivityFilter {
	address?: string;
	status?: AttemptStatus;
	/** The address or event subscription the attempts were made for. */
	subscriptionId?: string;
	limit: number;
}

export interface WebhookDeliveryStore {
	/** Records a delivery to make, due at `now`. Call inside the message's transaction. */
	create(delivery: NewDelivery, now: number): Promise<string>;
	get(id: string): Promise<DeliveryRow | undefined>;
	/** The address's own webhook delivery of a message (not a subscription's, not Slack's), the latest when redelivered. */
	forMessage(messageId: string, address: string): Promise<DeliveryRow | undefined>;
	/**
	 * Leases up to `limit` pending deliveries due by `now` and not leased (or whose lease has run out), oldest first:
	 * each is attempted by one node at a time.
	 */
	claim(now: number, limit: number, lease: Lease): Promise<DeliveryRow[]>;
	/** Extends the leases `lease.node` holds to `lease.until` (deliveries waiting behind a slow host). */
	renewLeases(lease: Lease): Promise<void>;
	/** Gives up leases of a node (all of them, or those of `ids`): those deliveries are due again for any node. */
	releaseLeases(node: string, ids?: string[]): Promise<void>;
	/** The earliest time after `now` when a pending delivery becomes due (a lease running out included). */
	nextDue(now: number): Promise<number | undefined>;
	/** Logs an attempt, moves the delivery on and ends its lease, in one transaction. */
	recordAttempt(delivery: DeliveryRow, attempt: AttemptRecord): Promise<void>;
	/** Puts a failed or refused delivery back in the queue, due now, with a fresh retry schedule. */
	redeliver(id: string, now: number): Promise<boolean>;
	activity(accountId: string, filter: ActivityFilter): Promise<WebhookAttempt[]>;
	/** One logged attempt by its id, with its exchange. */
	attempt(id: string): Promise<StoredAttempt | undefined>;
	/** Deletes activity (attempts with their exchanges), and finished deliveries, older than `before` (epoch ms). */
	prune(before: number): Promise<void>;
}

/** After a rotation the previous secret keeps signing beside the new one this long, so receivers can switch over. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export interface SigningSecrets {
	secret: string;
	/** The secret before the last rotation, while the overlap lasts. */
	previous: string | null;
}

/** Per-account webhook signing secrets, created on first use. */
export interface WebhookSecretStore {
	get(accountId: string): Promise<string>;
	/** The secrets to sign with at `now`. Reads first: signing runs per attempt and should not write. */
	signing(accountId: string, now: number): Promise<SigningSecrets>;
	rotate(accountId: string): Promise<string>;
}

/** A sent message's reply hook: the first message stored in its thread (a reply to it) is posted to `url`, once. */
export interface ReplyHook {
	outgoingId: string;
	accountId: string;
	threadId: string;
	url: string;
	/** Epoch ms: after it, the hook matches nothing. */
	expiresAt: number;
}

/** Reply hooks, recorded with their sent message (OutgoingStore.record) and spent by the message that answers it. */
export interface ReplyHookStore {
	/**
	 * Spends the live hooks of a thread (deletes and returns them), but that of `exceptOutgoingId`: a sent message's own
	 * local copy is no reply to it. Call inside the message's transaction, so the delivery it makes is recorded with it.
	 */
	take(threadId: string, now: number, exceptOutgoingId?: string): Promise<ReplyHook[]>;
	/** Deletes the hooks that expired before `now`; how many went. */
	deleteExpired(now: number): Promise<number>;
}

/** The webhook subscriptions of addresses; releasing the address deletes them. */
export interface WebhookSubscriptionStore {
	create(address: string, url: string, filter?: SubscriptionFilter): Promise<WebhookSubscription>;
	/** The subscriptions of an address, oldest first. */
	list(address: string): Promise<WebhookSubscription[]>;
	count(address: string): Promise<number>;
	/** Deletes one subscription of an address; returns it, or undefined when the address has none with that id. */
	remove(address: string, id: string): Promise<WebhookSubscription | undefined>;
}

// Figures for /metrics.

/** The rows of a work queue (webhook deliveries, the outbox) by state at a moment (see Lease). */
export interface QueueDepth {
	/** Due and held by no node: the next poll of any node takes them. */
	due: number;
	/** Waiting for a later attempt (a retry), held by no node. */
	scheduled: number;
	/** Held by a node under a lease that has not run out: being attempted, or waiting in its host's queue. */
	held: number;
}

/** What the store holds and takes, read when /metrics is scraped: each one query, never on the paths of mail or requests. */
export interface StoreFigures {
	/** Pending webhook deliveries at `now` (epoch ms). */
	webhookQueue(now: number): Promise<QueueDepth>;
	/** Outbox entries (outgoing mail with recipients still to deliver) at `now`. */
	outboxQueue(now: number): Promise<QueueDepth>;
	/** Bytes on disk: SQLite's database file and its WAL; PostgreSQL's whole database (pg_database_size). */
	sizeBytes(): Promise<number>;
	/** Message records (one per recipient inbox): exact on SQLite; on PostgreSQL its running estimate of live rows. */
	messageCount(): Promise<number>;
}

/** One group commit of `Store.transaction`: how many writes shared it and what it took (ms). */
export interface CommitFigures {
	writes: number;
	/** From its BEGIN to its COMMIT, the writes included (a batch that failed: with each write's retry alone). */
	transactionMs: number;
	/** The wait after the COMMIT until it was durable: SQLite's WAL fsync with --durability full, else next to nothing. */
	durableMs: number;
}

// The whole store.

/** Every part of the store, on one engine. */
export interface StoreParts {
	accounts: AccountStore;
	accountStats: AccountStatsReader;
	addresses: AddressStore;
	domains: DomainStore;
	encryptedInboxes: EncryptedInboxStore;
	inboxSettings: InboxSettingsStore;
	messages: MessageStore;
	messageState: MessageStateStore;
	deletion: MessageDeletion;
	attachments: AttachmentStore;
	accountInbox: AccountInbox;
	matcher: MessageMatcher;
	retentionCandidates: RetentionCandidates;
	outgoing: OutgoingStore;
	threads: ThreadStore;
	webhookDeliveries: WebhookDeliveryStore;
	webhookSecrets: WebhookSecretStore;
	webhookSubscriptions: WebhookSubscriptionStore;
	replyHooks: ReplyHookStore;
	chaos: ChaosStore;
	deliveryEvents: DeliveryEventStore;
	suppressions: SuppressionStore;
	figures: StoreFigures;
}

/** Mail one node stored, as the other nodes on the same database hear of it (their websockets and waiters wake). */
export interface StoredAnnouncement {
	node: string;
	messages: { id: string; inbox: string }[];
	/** Whether the transaction recorded webhook deliveries or forwards (the other nodes' queues may take them). */
	webhooks: boolean;
	forwards: boolean;
	/** Set when an account's chaos settings changed: the other nodes' SMTP listeners read them again. */
	chaos?: boolean;
	/** The delivery events the transaction recorded (their ids): the other nodes send them to their account-wide websockets. */
	events?: string[];
}

/** The parts of a store bound to one write transaction. */
export interface TransactionParts extends StoreParts {
	/** Tells the other nodes of the database, as this node's, once the transaction commits (SQLite has no other node: nothing). */
	announce(announcement: Omit<StoredAnnouncement, 'node'>): Promise<void>;
}

/** An open store: its parts, and writes grouped into one transaction (with the same parts, bound to it). */
export interface Store extends StoreParts {
	readonly engine: 'sqlite' | 'postgres';
	/**
	 * Runs `write` in one transaction with parts bound to it; resolves once it is committed and durable. Concurrent calls
	 * may share a commit (group commit); one that fails is rolled back alone. Only the ingest path writes this way: every
	 * other write is one method of a part, itself one transaction.
	 */
	transaction<T>(write: (parts: TransactionParts) => Promise<T>): Promise<T>;
	/** Resolves once everything committed so far is durable (SQLite's WAL fsync with --durability full; PostgreSQL's commit is). */
	durable(): Promise<void>;
	/** Calls `listener` after each group commit of `transaction`, once it is durable (for /metrics). */
	onCommit(listener: (commit: CommitFigures) => void): void;
	/**
	 * Runs `task` only if no other node runs the task of that name now (the retention sweep, say: PostgreSQL's advisory
	 * locks); resolves with its result, or undefined when another node holds it.
	 */
	exclusive<T>(name: string, task: () => Promise<T>): Promise<T | undefined>;
	/** Calls `listener` for mail other nodes store (never on SQLite). */
	onAnnouncement(listener: (announcement: StoredAnnouncement) => void): void;
	/**
	 * Calls `listener` when announcements may have been missed: the connection that hears them was lost and is back. What
	 * waits for mail should look again.
	 */
	onAnnouncementsMissed(listener: () => void): void;
	/** Resolves when the database answers; StoreUnavailableError when it does not. */
	ping(): Promise<void>;
	close(): Promise<void>;
}
