import { session, type MessageRecord } from './api.js';

/**
 * What to listen to: listed addresses (only those with web socket forwarding on), or all of the account's mail plus the
 * public addresses listed (comma-separated).
 */
export type SocketScope = { addresses: string } | { account: true; addresses?: string };

/** A dropped socket is reopened after this long. */
const RECONNECT_MS = 15_000;

/**
 * Opens the server's websocket of new mail and calls `onMessage` with each message it pushes; a dropped socket is
 * reopened. The key goes in the URL because browsers cannot set headers on a websocket. Returns a function that closes it.
 */
export function listenForMail(
	scope: SocketScope,
	onMessage: (message: MessageRecord) => void,
	onListening?: (addresses: string[]) => void,
): () => void {
	const url = new URL('/incoming-messages', location.href);
	url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
	url.searchParams.set('key', session.key() ?? '');
	if ('account' in scope) url.searchParams.set('scope', 'account');
	if (scope.addresses) url.searchParams.set('addresses', scope.addresses);
	let socket: WebSocket | undefined;
	let retry: number | undefined;
	const connect = () => {
		socket = new WebSocket(url);
		socket.onmessage = (event) => {
			const frame = JSON.parse(String(event.data)) as { email?: MessageRecord; msg?: string; addresses?: string[] };
			if (frame.email) onMessage(frame.email);
			// The first frame: the server listens now, to the listed addresses it accepted.
			else if (frame.msg === 'Listening') onListening?.(frame.addresses ?? []);
		};
		socket.onclose = () => (retry = window.setTimeout(connect, RECONNECT_MS));
	};
	connect();
	return () => {
		clearTimeout(retry);
		if (socket) {
			socket.onclose = null;
			socket.close();
		}
	};
}
