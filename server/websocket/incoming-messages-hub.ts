import type { WebSocket } from 'ws';
import Type, { type Static } from 'typebox';
import type { Logger } from '../log';
import type { Ingest } from '../ingest/ingest';
import type { AccountStore, AddressStore, DomainStore, InboxSettingsStore, MessageStore, RecordedEvent } from '../store/store';
import type { RecordedEffects } from '../ingest/message-writer';
import type { MessageRecord } from '../schemas/message';
import { isDomain, parseEmailAddress } from '../mail/email-address';
import { messageFrame, type MessageFrame } from './message-frame';
import { SubscriberOutbox } from './subscriber-outbox';
import { DeletedWhileReadError } from '../bytes/stored-bytes';

/** Idle connections are pinged this often; one that has not answered the previous ping is dropped. */
const PING_EVERY_MS = 30_000;
/** Close code 1008, policy violation: the key is not valid, or its account or client address has too many websockets open. */
const CLOSE_POLICY = 1008;
/**
 * The most websockets open at once per account, and per client IP (counted from the upgrade, before the key is checked):
 * each holds a file descriptor and a buffer of frames, and a thousand held by one key once left none for spool files.
 */
export const MAX_WEBSOCKETS_PER_ACCOUNT = 100;
export const MAX_WEBSOCKETS_PER_IP = 200;

export interface IncomingMessagesHubDeps {
	ingest: Ingest;
	accounts: AccountStore;
	addresses: AddressStore;
	domains: DomainStore;
	settings: InboxSettingsStore;
	messages: MessageStore;
	/** Where clients reach this server's API, for the attachment links in frames (known once the server listens). */
	publicUrl: () => string;
	log: Logger;
}

/** What a client asks for when it connects (its query string): its API key, and what to listen to. */
export const IncomingMessagesQuerySchema = Type.Object({
	key: Type.Optional(Type.String({ description: 'API key' })),
	addresses: Type.Optional(Type.String({ maxLength: 64 * 1024, description: 'comma-separated addresses and domains to listen to' })),
	scope: Type.Optional(
		Type.Enum(['listed', 'account'], {
			description:
				"listed (default): the listed addresses and domains of the key's account that have enablews; account: every message of " +
				"the key's account (its reserved addresses and domains, catch-all mail included), enablews or not, plus the listed public addresses",
		}),
	),
	frame: Type.Optional(
		Type.Enum(['full', 'record'], {
			description: 'full (default): the record with text, HTML, headers, raw source and attachments; record: the message record only',
		}),
	),
});
export type IncomingMessagesQuery = Static<typeof IncomingMessagesQuerySchema>;

interface Subscriber {
	socket: WebSocket;
	accountId: string;
	alive: boolean;
	outbox: SubscriberOutbox;
	/** What its frames carry: the whole message, or its record only. */
	frame: 'full' | 'record';
}

/** Subscribers by key (an address, a domain or an account id). */
class Listeners {
	private readonly byKey = new Map<string, Set<Subscriber>>();

	get size(): number {
		return this.byKey.size;
	}

	has(key: string): boolean {
		return this.byKey.has(key);
	}

	of(key: string): Iterable<Subscriber> {
		return this.byKey.get(key) ?? [];
	}

	add(keys: string[], subscriber: Subscriber): void {
		for (const key of keys) {
			let set = this.byKey.get(key);
			if (!set) this.byKey.set(key, (set = new Set()));
			set.add(subscriber);
		}
	}

	remove(keys: string[], subscriber: Subscriber): void {
		for (const key of keys) {
			const set = this.byKey.get(key);
			set?.delete(subscriber);
			if (set?.size === 0) this.byKey.delete(key);
		}
	}
}

/**
 * Pushes each new message over the websockets listening to it. Two kinds of listener:
 *
 * - listed (Mailsac's): the listed addresses and domains the key's account holds, when `enablews` is on for the message's
 *   inbox (the address's own, else its domain's catch-all's: see InboxSettings) and held by the listener's account;
 * - account-wide (`scope=account`, the dashboard's): every message of the account, whatever `enablews` says, and of the
 *   public addresses it lists.
 */
export class IncomingMessagesHub {
	/** Listed listeners, by address or domain. */
	private readonly listed = new Listeners();
	/** Account-wide listeners, by account id. */
	private readonly accountWide = new Listeners();
	/** Account-wide listeners of public addresses, by address. */
	private readonly publicAddresses = new Listeners();
	private readonly subscribers = new Set<Subscriber>();
	private readonly perIp = new OpenSockets(MAX_WEBSOCKETS_PER_IP);
	private readonly perAccount = new OpenSockets(MAX_WEBSOCKETS_PER_ACCOUNT);
	private readonly pinger: NodeJS.Timeout;
	/** Messages are published one after another, so frames reach each subscriber's outbox in the order they were stored. */
	private publishing: Promise<void> = Promise.resolve();
	private readonly onStored = (records: MessageRecord[], effects: RecordedEffects) => {
		if (effects.events.length) this.publishEvents(effects.events);
		this.publishing = this.publishing.then(async () => {
			for (const record of records) {
				try {
					await this.publish(record);
				} catch (err) {
					this.deps.log.error({ err }, 'a websocket frame could not be made');
				}
			}
		});
	};

	constructor(private readonly deps: IncomingMessagesHubDeps) {
		deps.ingest.on('stored', this.onStored);
		this.pinger = setInterval(() => this.ping(), PING_EVERY_MS).unref();
	}

	/** Connected subscribers (a gauge of the metrics). */
	get size(): number {
		return this.subscribers.size;
	}

	async connect(socket: WebSocket, query: IncomingMessagesQuery, ip: string): Promise<void> {
		if (!this.perIp.take(ip, socket)) {
			return refuse(socket, 429, `Too many websockets from ${ip}: at most ${MAX_WEBSOCKETS_PER_IP} at once`, 'too many websockets');
		}
		const account = query.key ? await this.deps.accounts.forKey(query.key) : undefined;
		if (!account) return refuse(socket, 401, 'Unknown or revoked API key: pass a valid one as ?key=', 'unauthorized');
		if (!this.perAccount.take(account.id, socket)) {
			return refuse(
				socket,
				429,
				`Too many websockets for this account: at most ${MAX_WEBSOCKETS_PER_ACCOUNT} at once (close one first)`,
				'too many websockets',
			);
		}
		const accountWide = query.scope === 'account';
		const entries = accountWide
			? { addresses: await this.publicEntries(query.addresses ?? ''), domains: [] }
			: await this.ownedEntries(account.id, query.addresses ?? '');
		// The client may have gone while the store answered.
		if (socket.readyState !== socket.OPEN) return;
		const subscriber: Subscriber = {
			socket,
			accountId: account.id,
			alive: true,
			outbox: new SubscriberOutbox(socket, this.deps.log),
			frame: query.frame ?? 'full',
		};
		const registrations: [Listeners, string[]][] = accountWide
			? [
					[this.accountWide, [account.id]],
					[this.publicAddresses, entries.addresses],
				]
			: [[this.listed, [...entries.addresses, ...entries.domains]]];
		for (const [listeners, keys] of registrations) listeners.add(keys, subscriber);
		this.subscribers.add(subscriber);
		socket.on('pong', () => (subscriber.alive = true));
		socket.on('close', () => {
			this.subscribers.delete(subscriber);
			for (const [listeners, keys] of registrations) listeners.remove(keys, subscriber);
		});
		socket.send(JSON.stringify({ status: 200, msg: 'Listening', ...(accountWide ? { scope: 'account' } : {}), ...entries }));
	}

	/**
	 * Sends delivery events of an account's sent mail to its account-wide listeners (scope=account), as frames
	 * {status: 200, event}, in the order of the messages' frames.
	 */
	publishEvents(events: RecordedEvent[]): void {
		this.publishing = this.publishing.then(() => {
			for (const { accountId, event } of events) {
				const frame = { whole: Buffer.from(JSON.stringify({ status: 200, event })) };
				for (const subscriber of this.accountWide.of(accountId)) subscriber.outbox.push(frame);
			}
		});
	}

	close(): void {
		clearInterval(this.pinger);
		this.deps.ingest.off('stored', this.onStored);
	}

	/** The listed addresses and domains that belong to the account; others are left out. */
	private async ownedEntries(accountId: string, list: string): Promise<{ addresses: string[]; domains: string[] }> {
		const addresses = new Set<string>();
		const domains = new Set<string>();
		for (const entry of listEntries(list)) {
			const email = entry.includes('@') ? parseEmailAddress(entry) : null;
			if (email && (await this.deps.addresses.ownerOfInbox(email.address, email.domain)) === accountId) addresses.add(email.address);
			else if (!email && isDomain(entry) && (await this.deps.domains.get(entry))?.owner === accountId) domains.add(entry);
		}
		return { addresses: [...addresses], domains: [...domains] };
	}

	/** The listed addresses that are public (an account-wide listener has its own already; another account's are left out). */
	private async publicEntries(list: string): Promise<string[]> {
		const addresses = new Set<string>();
		for (const entry of listEntries(list)) {
			const email = parseEmailAddress(entry);
			if (email && (await this.deps.addresses.ownerOfInbox(email.address, email.domain)) === null) addresses.add(email.address);
		}
		return [...addresses];
	}

	private async publish(record: MessageRecord): Promise<void> {
		const listening = [...(await this.listedFor(record)), ...(await this.accountWideFor(record))];
		if (listening.length === 0) return;
		const frames = new Frames(record, () => this.frame(record));
		for (const subscriber of listening) {
			const frame = await frames.of(subscriber.frame);
			if (frame) subscriber.outbox.push(frame);
		}
	}

	/** Listed listeners of the message's inbox or domain whose account has enablews on for it. */
	private async listedFor(record: MessageRecord): Promise<Subscriber[]> {
		const subscribers = new Set([...this.listed.of(record.inbox), ...this.listed.of(record.domain)]);
		if (subscribers.size === 0) return [];
		// Read per message, so changing enablews or giving an address up takes effect at once.
		const enabledFor = (await this.deps.settings.of(record.inbox, record.domain)).get('enablews')?.from.owner;
		return [...subscribers].filter((subscriber) => subscriber.accountId === enabledFor);
	}

	/** Account-wide listeners of the account that holds the inbox, or of the public inbox. */
	private async accountWideFor(record: MessageRecord): Promise<Subscriber[]> {
		if (this.accountWide.size === 0 && !this.publicAddresses.has(record.inbox)) return [];
		// Read per message, so reserving or releasing an address takes effect at once.
		const owner = await this.deps.addresses.ownerOfInbox(record.inbox, record.domain);
		return [...(owner === null ? this.publicAddresses.of(record.inbox) : this.accountWide.of(owner))];
	}

	/** Null when the message is gone already. */
	private async frame(record: MessageRecord): Promise<MessageFrame | null> {
		const content = await this.deps.messages.content(record.inbox, record._id);
		if (!content) return null;
		try {
			return await messageFrame(record, content, this.deps.publicUrl());
		} catch (err) {
			if (err instanceof DeletedWhileReadError) return null;
			throw err;
		}
	}

	private ping(): void {
		for (const subscriber of this.subscribers) {
			if (!subscriber.alive) subscriber.socket.terminate();
			else {
				subscriber.alive = false;
				subscriber.socket.ping();
			}
		}
	}
}

/** Answers a websocket that is not served with a status frame (as Mailsac does), then closes it with 1008 and `reason`. */
function refuse(socket: WebSocket, status: number, msg: string, reason: string): void {
	if (socket.readyState !== socket.OPEN) return;
	socket.send(JSON.stringify({ status, msg }));
	socket.close(CLOSE_POLICY, reason);
}

/** Open websockets counted by a key (a client IP, an account id), at most `most` each; each counted until it closes. */
class OpenSockets {
	private readonly open = new Map<string, number>();

	constructor(private readonly most: number) {}

	/** Counts `socket` under `key` unless `key` has `most` already: then false. */
	take(key: string, socket: WebSocket): boolean {
		// Gone already (while the store answered): nothing to count, and connect() leaves it there.
		if (socket.readyState !== socket.OPEN) return true;
		const count = this.open.get(key) ?? 0;
		if (count >= this.most) return false;
		this.open.set(key, count + 1);
		socket.once('close', () => {
			const left = this.open.get(key)! - 1;
			if (left === 0) this.open.delete(key);
			else this.open.set(key, left);
		});
		return true;
	}
}

/** The entries of a comma-separated list, trimmed and lower-cased. */
const listEntries = (list: string) =>
	list
		.split(',')
		.map((item) => item.trim().toLowerCase())
		.filter(Boolean);

/** A message's frames of each kind, each made once for all its subscribers, and only if one of them wants it. */
class Frames {
	private full?: Promise<MessageFrame | null>;
	private record?: MessageFrame;

	constructor(
		private readonly message: MessageRecord,
		private readonly makeFull: () => Promise<MessageFrame | null>,
	) {}

	async of(kind: 'full' | 'record'): Promise<MessageFrame | null> {
		if (kind === 'record') return (this.record ??= { whole: Buffer.from(JSON.stringify({ status: 200, email: this.message })) });
		return (this.full ??= this.makeFull());
	}
}
