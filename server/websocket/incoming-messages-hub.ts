import type { WebSocket } from 'ws';
import Type, { type Static } from 'typebox';
import type { Logger } from '../log';
import type { Ingest } from '../ingest/ingest';
import type { AccountStore, AddressStore, DomainStore, InboxSettingsStore, MessageStore } from '../store/store';
import type { MessageRecord } from '../schemas/message';
import { isDomain, parseEmailAddress } from '../mail/email-address';
import { messageFrame, type MessageFrame } from './message-frame';
import { SubscriberOutbox } from './subscriber-outbox';
import { DeletedWhileReadError } from '../bytes/stored-bytes';

/** Idle connections are pinged this often; one that has not answered the previous ping is dropped. */
const PING_EVERY_MS = 30_000;
/** Close code 1008, policy violation: the key is not valid. */
const CLOSE_UNAUTHORIZED = 1008;

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
});
export type IncomingMessagesQuery = Static<typeof IncomingMessagesQuerySchema>;

interface Subscriber {
	socket: WebSocket;
	accountId: string;
	alive: boolean;
	outbox: SubscriberOutbox;
}

/**
 * Pushes each new message over the websockets listening to its inbox or domain, when `enablews` is on for its inbox
 * (the address's own, else its domain's catch-all's: see InboxSettings) and held by the listener's account.
 */
export class IncomingMessagesHub {
	/** Listeners by address or domain. */
	private readonly listeners = new Map<string, Set<Subscriber>>();
	private readonly subscribers = new Set<Subscriber>();
	private readonly pinger: NodeJS.Timeout;
	/** Messages are published one after another, so frames reach each subscriber's outbox in the order they were stored. */
	private publishing: Promise<void> = Promise.resolve();
	private readonly onStored = (records: MessageRecord[]) => {
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

	async connect(socket: WebSocket, query: IncomingMessagesQuery): Promise<void> {
		const account = query.key ? await this.deps.accounts.forKey(query.key) : undefined;
		if (!account) {
			socket.send(JSON.stringify({ status: 401, msg: 'Unknown or revoked API key: pass a valid one as ?key=' }));
			socket.close(CLOSE_UNAUTHORIZED, 'unauthorized');
			return;
		}
		const { addresses, domains } = await this.ownedEntries(account.id, query.addresses ?? '');
		// The client may have gone while the store answered.
		if (socket.readyState !== socket.OPEN) return;
		const subscriber: Subscriber = { socket, accountId: account.id, alive: true, outbox: new SubscriberOutbox(socket, this.deps.log) };
		const topics = [...addresses, ...domains];
		for (const topic of topics) {
			let set = this.listeners.get(topic);
			if (!set) this.listeners.set(topic, (set = new Set()));
			set.add(subscriber);
		}
		this.subscribers.add(subscriber);
		socket.on('pong', () => (subscriber.alive = true));
		socket.on('close', () => {
			this.subscribers.delete(subscriber);
			for (const topic of topics) {
				const set = this.listeners.get(topic);
				set?.delete(subscriber);
				if (set?.size === 0) this.listeners.delete(topic);
			}
		});
		socket.send(JSON.stringify({ status: 200, msg: 'Listening', addresses, domains }));
	}

	close(): void {
		clearInterval(this.pinger);
		this.deps.ingest.off('stored', this.onStored);
	}

	/** The listed addresses and domains that belong to the account; others are left out. */
	private async ownedEntries(accountId: string, list: string): Promise<{ addresses: string[]; domains: string[] }> {
		const addresses = new Set<string>();
		const domains = new Set<string>();
		for (const entry of list
			.split(',')
			.map((item) => item.trim().toLowerCase())
			.filter(Boolean)) {
			const email = entry.includes('@') ? parseEmailAddress(entry) : null;
			if (email && (await this.deps.addresses.ownerOfInbox(email.address, email.domain)) === accountId) addresses.add(email.address);
			else if (!email && isDomain(entry) && (await this.deps.domains.get(entry))?.owner === accountId) domains.add(entry);
		}
		return { addresses: [...addresses], domains: [...domains] };
	}

	private async publish(record: MessageRecord): Promise<void> {
		const subscribers = new Set([...(this.listeners.get(record.inbox) ?? []), ...(this.listeners.get(record.domain) ?? [])]);
		if (subscribers.size === 0) return;
		// Read per message, so changing enablews or giving an address up takes effect at once.
		const enabledFor = (await this.deps.settings.of(record.inbox, record.domain)).get('enablews')?.from.owner;
		const listening = [...subscribers].filter((subscriber) => subscriber.accountId === enabledFor);
		if (listening.length === 0) return;
		const frame = await this.frame(record);
		if (frame) for (const subscriber of listening) subscriber.outbox.push(frame);
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
