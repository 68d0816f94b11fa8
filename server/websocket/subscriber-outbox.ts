import type { WebSocket } from 'ws';
import type { Logger } from '../log';
import { DeletedWhileReadError } from '../bytes/stored-bytes';
import type { MessageFrame } from './message-frame';

/** A client with this much unsent data in whole frames is too slow: it is dropped rather than buffered for without bound. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** Nor are frames kept waiting without bound behind a large one that a client reads slowly (the pings drop one that stalls). */
const MAX_WAITING_FRAMES = 1000;
/** A large frame's next fragments are made once less than this is unsent, so a slow reader slows the making. */
const HIGH_WATER_BYTES = 1024 * 1024;
/** Fragments the socket takes at once give the event loop no turn: it gets one after this many (1 MB). */
const FRAGMENTS_BETWEEN_YIELDS = 16;
/** Frames are JSON text: sent as text frames, so a browser's `event.data` is a string (a Buffer would go as binary). */
const TEXT = { binary: false };
/** Close code 1011: part of a frame went out, and the rest cannot be made (its message was deleted meanwhile, say). */
const CLOSE_FRAME_LOST = 1011;

/**
 * The frames on their way to one subscriber, sent in the order they were pushed. A large frame is sent a fragment at a
 * time as the client reads it, and frames pushed meanwhile wait their turn.
 */
export class SubscriberOutbox {
	private readonly waiting: MessageFrame[] = [];
	/** Bytes of the whole frames in `waiting`. */
	private waitingBytes = 0;
	private sending = false;

	constructor(
		private readonly socket: WebSocket,
		private readonly log: Logger,
	) {}

	push(frame: MessageFrame): void {
		const { socket } = this;
		if (socket.readyState !== socket.OPEN) return;
		if (socket.bufferedAmount + this.waitingBytes > MAX_BUFFERED_BYTES || this.waiting.length >= MAX_WAITING_FRAMES) {
			// terminate, not close: a close frame would queue behind the data the client is not reading.
			socket.terminate();
			return;
		}
		if (!this.sending && 'whole' in frame) {
			socket.send(frame.whole, TEXT);
			return;
		}
		this.waiting.push(frame);
		if ('whole' in frame) this.waitingBytes += frame.whole.length;
		if (!this.sending) void this.sendWaiting();
	}

	private async sendWaiting(): Promise<void> {
		this.sending = true;
		for (let frame = this.waiting.shift(); frame && this.socket.readyState === this.socket.OPEN; frame = this.waiting.shift()) {
			if (!('whole' in frame)) await this.sendInFragments(frame.fragments());
			else {
				this.waitingBytes -= frame.whole.length;
				this.socket.send(frame.whole, TEXT);
			}
		}
		this.waiting.length = 0;
		this.waitingBytes = 0;
		this.sending = false;
	}

	/** One websocket message, its fragments made while less than HIGH_WATER_BYTES is unsent: nothing else comes between them. */
	private async sendInFragments(fragments: AsyncGenerator<Buffer>): Promise<void> {
		const { socket } = this;
		let sent = 0;
		try {
			for (let next = await fragments.next(); !next.done; sent++) {
				const fragment = next.value;
				next = await fragments.next();
				const options = { ...TEXT, fin: next.done === true };
				if (socket.bufferedAmount < HIGH_WATER_BYTES) socket.send(fragment, options);
				else await new Promise<void>((resolve, reject) => socket.send(fragment, options, (err) => (err ? reject(err) : resolve())));
				if (sent % FRAGMENTS_BETWEEN_YIELDS === FRAGMENTS_BETWEEN_YIELDS - 1) await new Promise(setImmediate);
			}
		} catch (err) {
			if (socket.readyState !== socket.OPEN) return; // the client went: the send failed, nothing to tell
			if (!(err instanceof DeletedWhileReadError)) this.log.error({ err }, 'a websocket frame could not be made');
			// Once part of it went out, only closing tells the client that the rest will not come.
			if (sent > 0) socket.close(CLOSE_FRAME_LOST, 'the rest of the message could not be read');
		}
	}
}
