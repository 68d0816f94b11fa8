/** The REST API as the dashboard calls it: same origin, the signed-in key in the Service-Key header. */

const KEY_STORAGE = 'mailroom.apiKey';

/** The key lives in sessionStorage only: it is gone when the tab closes or the user signs out. */
export const session = {
	key: (): string | null => sessionStorage.getItem(KEY_STORAGE),
	signIn: (key: string): void => sessionStorage.setItem(KEY_STORAGE, key),
	signOut: (): void => sessionStorage.removeItem(KEY_STORAGE),
};

/** Fired when the server refuses the stored key (revoked, or the database was reset). */
export const UNAUTHORIZED_EVENT = 'mailroom:unauthorized';

export class ApiError extends Error {
	constructor(
		readonly status: number,
		message: string,
	) {
		super(message);
	}
}

/** The server's `{ error, message }` body as one sentence. */
async function errorMessage(response: Response): Promise<string> {
	try {
		const body = (await response.json()) as { error?: string; message?: string };
		return body.message || body.error || `${response.status} ${response.statusText}`;
	} catch {
		return `${response.status} ${response.statusText}`;
	}
}

export async function request(path: string, options: { method?: string; body?: unknown; key?: string } = {}): Promise<Response> {
	const headers: Record<string, string> = {};
	const key = options.key ?? session.key();
	if (key) headers['Service-Key'] = key;
	if (options.body !== undefined) headers['Content-Type'] = 'application/json';
	const response = await fetch(path, {
		method: options.method ?? 'GET',
		headers,
		body: options.body === undefined ? undefined : JSON.stringify(options.body),
		cache: 'no-store',
	});
	if (response.ok) return response;
	if (response.status === 401 && options.key === undefined) window.dispatchEvent(new Event(UNAUTHORIZED_EVENT));
	throw new ApiError(response.status, await errorMessage(response));
}

export const getJson = async <T>(path: string): Promise<T> => (await request(path)).json() as Promise<T>;
export const getText = async (path: string): Promise<string> => (await request(path)).text();
export const sendJson = async <T>(method: string, path: string, body?: unknown): Promise<T> => (await request(path, { method, body })).json() as Promise<T>;

/** An address as a path segment. */
export const enc = encodeURIComponent;

export interface AddressObject {
	address: string;
	name: string;
}

/** Inbox message record (spec 2.1). */
export interface Message {
	_id: string;
	from: AddressObject[];
	to: AddressObject[];
	cc: AddressObject[] | null;
	bcc: AddressObject[] | null;
	subject: string;
	inbox: string;
	originalInbox: string;
	received: string;
	size: number;
	attachments: string[] | null;
	links: string[];
	spam: number;
}

/** Address forwarding record (spec 2.2). */
export interface Forwarding {
	_id: string;
	owner: string;
	forward: string | null;
	enablews: boolean;
	webhook: string | null;
	info: string;
	created: string;
	updated: string;
}

export interface Me {
	_id: string;
	name: string;
	sendsRemaining: number;
	admin: boolean;
	created: string;
}

export interface ApiKey {
	id: string;
	label: string;
	created: string;
	/** When it was revoked; null while it works. */
	revoked: string | null;
	/** The key this dashboard is signed in with. */
	current: boolean;
}

export interface AttachmentMeta {
	checksum: string;
	contentType: string;
	fileName: string;
	length: number;
}

export type DeliveryStatus = 'delivered' | 'retrying' | 'failed' | 'refused';

export interface Delivery {
	_id: string;
	deliveryId: string;
	messageId: string;
	address: string;
	url: string;
	attempt: number;
	status: DeliveryStatus;
	statusCode: number | null;
	error: string | null;
	durationMs: number;
	time: string;
	nextRetry: string | null;
}

export const formatAddresses = (list: AddressObject[] | null): string =>
	(list ?? []).map((entry) => (entry.name ? `${entry.name} <${entry.address}>` : entry.address)).join(', ');
