import type { FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import type { WebSocket } from 'ws';
import type { HttpDeps } from '../http/http-deps';
import type { MessageRecord } from '../store/messages';
import { isDomain, parseEmailAddress } from '../mail/email-address';
import { bodyProps } from '../mail/body-props';
import { jsonPieces } from '../mail/streamed-json';
import { DeletedWhileReadError } from '../store/content-pieces';
import { HttpError } from '../http/errors';
import { errorResponses } from '../http/schemas';

/** Idle connections are pinged this often; one that has not answered the previous ping is dropped. */
const PING_EVERY_MS = 30_000;
/** A client that has this much unsent data is too slow: it is dropped rather than buffered for without bound. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** A frame goes out in fragments of about this size: a large message's is made as bytes, never as one string. */
const FRAGMENT_BYTES = 64 * 1024;
/** Making a large frame lets the event loop run after this many fragments (1 MB; a 50 MB frame takes some 300 ms to make). */
const FRAGMENTS_BETWEEN_YIELDS = 16;
/** Close code 1008, policy violation: the key is not valid. */
const CLOSE_UNAUTHORIZED = 1008;

interface Subscriber {
	socket: WebSocket;
	accountId: string;
	alive: boolean;
}

/**
 * Pushes each new message over the websockets listening to its inbox or domain, when the
 * address (or, without a record of its own, its domain's catch-all) has `enablews`.
 */
class IncomingMessagesHub {
	/** Listeners by address or domain. */
	private readonly listeners = new Map<string, Set<Subscriber>>();
	private readonly subscribers = new Set<Subscriber>();
	private readonly pinger: NodeJS.Timeout;
	/** Frames go out in the order their messages were stored: each batch waits for the frames of the one before it. */
	private publishing = Promise.resolve();
	private readonly onDelivered = (records: MessageRecord[]) => {
		this.publishing = this.publishing
			.then(() => this.publish(records))
			.catch((err: Error) => this.deps.log.error({ err }, 'websocket frames could not be sent'));
	};

	constructor(private readonly deps: HttpDeps) {
		deps.ingest.on('delivered', this.onDelivered);
		this.pinger = setInterval(() => this.ping(), PING_EVERY_MS).unref();
	}

	connect(socket: WebSocket, query: { key?: string; addresses?: string }): void {
		const account = query.key ? this.deps.accounts.forKey(query.key) : undefined;
		if (!account) {
			socket.send(JSON.stringify({ status: 401, msg: 'Unknown or revoked API key: pass a valid one as ?key=' }));
			socket.close(CLOSE_UNAUTHORIZED, 'unauthorized');
			return;
		}
		const { addresses, domains } = this.ownedEntries(account.id, query.addresses ?? '');
		const subscriber: Subscriber = { socket, accountId: account.id, alive: true };
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
		this.deps.ingest.off('delivered', this.onDelivered);
	}

	/** The listed addresses and domains that belong to the account; others are left out. */
	private ownedEntries(accountId: string, list: string): { addresses: string[]; domains: string[] } {
		const addresses = new Set<string>();
		const domains = new Set<string>();
		for (const entry of list.split(',').map((item) => item.trim().toLowerCase()).filter(Boolean)) {
			const email = entry.includes('@') ? parseEmailAddress(entry) : null;
			if (email && this.deps.addresses.ownerOfInbox(email.address, email.domain) === accountId) addresses.add(email.address);
			else if (!email && isDomain(entry) && this.deps.domains.get(entry)?.owner === accountId) domains.add(entry);
		}
		return { addresses: [...addresses], domains: [...domains] };
	}

	private async publish(records: MessageRecord[]): Promise<void> {
		for (const record of records) {
			const subscribers = new Set([...(this.listeners.get(record.inbox) ?? []), ...(this.listeners.get(record.domain) ?? [])]);
			const listening = [...subscribers].filter((subscriber) => this.enabledFor(subscriber.accountId, record));
			if (listening.length === 0) continue;
			const frame = await this.frame(record);
			if (frame) for (const subscriber of listening) this.send(subscriber, frame);
		}
	}

	/** Checked per message, so changing enablews or giving an address up takes effect at once. */
	private enabledFor(accountId: string, record: MessageRecord): boolean {
		const { addresses, domains } = this.deps;
		const own = addresses.get(record.inbox);
		if (own) return own.owner === accountId && own.enablews;
		const domain = domains.get(record.domain);
		if (!domain || domain.owner !== accountId || !domain.catchAll) return false;
		const catchAll = addresses.get(domain.catchAll);
		return catchAll !== undefined && catchAll.owner === accountId && catchAll.enablews;
	}

	/** The message record plus text, headers and raw as JSON, in fragments shared by every subscriber; null when the message is gone. */
	private async frame(record: MessageRecord): Promise<Buffer[] | null> {
		const content = this.deps.messages.content(record.inbox, record._id);
		if (!content) return null;
		const fragments: Buffer[] = [];
		let gathered: Buffer[] = [];
		let size = 0;
		try {
			for (const piece of jsonPieces({ status: 200, email: { ...record, ...bodyProps(content) } })) {
				gathered.push(Buffer.from(piece));
				size += gathered[gathered.length - 1].length;
				if (size < FRAGMENT_BYTES) continue;
				fragments.push(Buffer.concat(gathered, size));
				gathered = [];
				size = 0;
				if (fragments.length % FRAGMENTS_BETWEEN_YIELDS === 0) await new Promise(setImmediate);
			}
		} catch (err) {
			if (err instanceof DeletedWhileReadError) return null;
			throw err;
		}
		if (size || fragments.length === 0) fragments.push(Buffer.concat(gathered, size));
		return fragments;
	}

	private send(subscriber: Subscriber, fragments: Buffer[]): void {
		const { socket } = subscriber;
		if (socket.readyState !== socket.OPEN) return;
		if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
			// terminate, not close: a close frame would queue behind the data the client is not reading.
			socket.terminate();
			return;
		}
		// All in this turn of the event loop: nothing else can come between the fragments of one message.
		fragments.forEach((fragment, i) => socket.send(fragment, { binary: false, fin: i === fragments.length - 1 }));
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

/** GET /incoming-messages?key=&addresses=: a websocket of new messages (spec 6). */
export async function incomingMessagesRoutes(app: FastifyInstance, deps: HttpDeps): Promise<void> {
	await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
	const hub = new IncomingMessagesHub(deps);
	app.addHook('onClose', async () => hub.close());
	app.route<{ Querystring: { key?: string; addresses?: string } }>({
		method: 'GET',
		url: '/incoming-messages',
		schema: {
			// OpenAPI 3.0 cannot describe a websocket (its answer is 101 and frames); the README documents it.
			hide: true,
			summary: 'Websocket of new messages to your addresses and domains that have enablews (a plain HTTP request gets 426)',
			querystring: {
				type: 'object',
				properties: {
					key: { type: 'string', description: 'API key' },
					addresses: { type: 'string', maxLength: 64 * 1024, description: 'comma-separated addresses and domains to listen to' },
				},
			},
			response: errorResponses(426, 429),
		},
		handler: async () => {
			throw new HttpError(426, 'This endpoint is a websocket: connect with a websocket client (ws:// or wss://)');
		},
		wsHandler: (socket, request) => hub.connect(socket, request.query),
	});
}
