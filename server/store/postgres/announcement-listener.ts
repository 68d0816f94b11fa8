import { Client } from 'pg';
import type { Logger } from '../../log';
import type { StoredAnnouncement } from '../store';
import { CHANNEL, announcementIn } from './announcements';

const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 10_000;

/**
 * Hears what other nodes announce, on a connection of its own (LISTEN keeps it). When the connection is lost it connects
 * again, waiting longer after each failure; what was announced meanwhile is not heard, so once it hears again it tells
 * whoever waits for mail to look again.
 */
export class AnnouncementListener {
	private readonly listeners: ((announcement: StoredAnnouncement) => void)[] = [];
	private readonly missedListeners: (() => void)[] = [];
	private client: Client | undefined;
	private retryMs = FIRST_RETRY_MS;
	private retry: NodeJS.Timeout | undefined;
	private closed = false;
	/** Settles once the first connection has been tried: from then on announcements are heard (unless it failed). */
	readonly ready: Promise<void>;

	constructor(
		private readonly url: string,
		/** Announcements from this node are its own mail: not passed on. */
		private readonly node: string,
		private readonly logger?: Logger,
	) {
		this.ready = this.connect();
	}

	add(listener: (announcement: StoredAnnouncement) => void): void {
		this.listeners.push(listener);
	}

	/** `listener` is called each time the listener hears again after a lost connection. */
	onMissed(listener: () => void): void {
		this.missedListeners.push(listener);
	}

	async close(): Promise<void> {
		this.closed = true;
		clearTimeout(this.retry);
		const { client } = this;
		this.client = undefined;
		await client?.end().catch(() => undefined);
	}

	private async connect(): Promise<void> {
		const client = new Client({ connectionString: this.url, application_name: 'mailroom announcements', keepAlive: true });
		this.client = client;
		client.on('notification', ({ payload }) => this.heard(payload));
		client.on('error', (err) => this.lost(client, err));
		client.on('end', () => this.lost(client));
		try {
			await client.connect();
			await client.query(`LISTEN ${CHANNEL}`);
			const wasLost = this.retryMs > FIRST_RETRY_MS;
			this.retryMs = FIRST_RETRY_MS;
			if (!wasLost) return;
			this.logger?.info('hearing the other nodes again');
			for (const listener of this.missedListeners) listener();
		} catch (err) {
			this.lost(client, err);
		}
	}

	private heard(payload: string | undefined): void {
		const announcement = payload === undefined ? undefined : announcementIn(payload);
		if (!announcement || announcement.node === this.node) return;
		for (const listener of this.listeners) listener(announcement);
	}

	/** The connection failed or ended: unless closing, connect again after a while (once per connection lost). */
	private lost(client: Client, err?: unknown): void {
		if (this.closed || client !== this.client) return;
		this.client = undefined;
		void client.end().catch(() => undefined);
		this.logger?.warn({ err }, `lost the connection that hears the other nodes; connecting again in ${this.retryMs} ms`);
		this.retry = setTimeout(() => void this.connect(), this.retryMs);
		this.retryMs = Math.min(this.retryMs * 2, LAST_RETRY_MS);
	}
}
