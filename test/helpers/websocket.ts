import type { Socket } from 'node:net';
import WebSocket from 'ws';
import type { AttachmentLink } from 'mailroom-server/dist/schemas/payload';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { DeliveryEvent } from 'mailroom-server/dist/schemas/delivery-event';
import type { TestMailroom } from './mailroom';
import { waitFor } from './webhook-receiver';

/** The message of a frame: its record with text, HTML, headers and raw source, and its attachments with their links. */
export type FrameEmail = Omit<MessageRecord, 'attachments'> & {
	text: string;
	html: string | null;
	headers: Record<string, string>;
	raw: string;
	attachments: AttachmentLink[];
};

export interface Frame {
	status: number;
	msg?: string;
	addresses?: string[];
	domains?: string[];
	email?: FrameEmail;
	/** A delivery event of the account's sent mail (scope=account). */
	event?: DeliveryEvent;
}

export interface Listener {
	frames: Frame[];
	/** Whether each frame came as a binary frame (JSON belongs in text frames: a browser gets a Blob otherwise). */
	binary: boolean[];
	closed: Promise<number>;
	socket: WebSocket;
}

/** Opens /incoming-messages (with `headers` on the upgrade request, if given) and collects every frame. */
export async function listen(server: Pick<TestMailroom, 'httpUrl'>, query: string, headers?: Record<string, string>): Promise<Listener> {
	const socket = new WebSocket(`${server.httpUrl.replace('http', 'ws')}/incoming-messages?${query}`, { headers });
	const frames: Frame[] = [];
	const binary: boolean[] = [];
	// ws hands a whole message, fragmented or not, over as one Buffer (binaryType nodebuffer).
	socket.on('message', (data, isBinary) => {
		frames.push(JSON.parse((data as Buffer).toString()) as Frame);
		binary.push(isBinary);
	});
	const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
	await waitFor(() => frames.length > 0, 'the first frame');
	return { frames, binary, closed, socket };
}

const tcpOf = (listener: Listener) => (listener.socket as unknown as { _socket: Socket })._socket;

/**
 * The client stops reading: what the server sends stays in the kernel's buffers, then in the server. Through ws's own
 * pause: pausing the TCP socket alone does not hold, as ws resumes it once its receiver drains (a race that let a
 * "stalled" client read everything on a loaded machine). The TCP socket is returned for tests that read a few bytes by hand.
 */
export function pausedReading(listener: Listener): Socket {
	listener.socket.pause();
	return tcpOf(listener);
}

export function resumeReading(listener: Listener): void {
	listener.socket.resume();
}
