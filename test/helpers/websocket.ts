import type { Socket } from 'node:net';
import WebSocket from 'ws';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { TestMailroom } from './mailroom';
import { waitFor } from './webhook-receiver';

/** The message of a frame: its record with text, headers and raw source. */
export type FrameEmail = MessageRecord & { text: string; headers: Record<string, string>; raw: string };

export interface Frame {
	status: number;
	msg?: string;
	addresses?: string[];
	domains?: string[];
	email?: FrameEmail;
}

export interface Listener {
	frames: Frame[];
	closed: Promise<number>;
	socket: WebSocket;
}

/** Opens /incoming-messages and collects every frame. */
export async function listen(server: TestMailroom, query: string): Promise<Listener> {
	const socket = new WebSocket(`${server.httpUrl.replace('http', 'ws')}/incoming-messages?${query}`);
	const frames: Frame[] = [];
	// ws hands a whole message, fragmented or not, over as one Buffer (binaryType nodebuffer).
	socket.on('message', (data) => frames.push(JSON.parse((data as Buffer).toString()) as Frame));
	const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
	await waitFor(() => frames.length > 0, 'the first frame');
	return { frames, closed, socket };
}

const tcpOf = (listener: Listener) => (listener.socket as unknown as { _socket: Socket })._socket;

/** The client stops reading: what the server sends stays in the kernel's buffers, then in the server. */
export function pausedReading(listener: Listener): Socket {
	const tcp = tcpOf(listener);
	tcp.pause();
	return tcp;
}

export function resumeReading(listener: Listener): void {
	tcpOf(listener).resume();
}
