/** The REST API as the dashboard calls it: same origin, the signed-in key in the Service-Key header. */
import type { AddressObject } from '../../schemas/message';

// The shapes of the API's answers, declared once with the server's route schemas.
export type { AddressObject, AttachmentMeta, MessageRecord } from '../../schemas/message';
export type { ForwardingRecord } from '../../schemas/address';
export type { DomainRecord as Domain } from '../../schemas/domain';
export type { ApiKeyView, Me } from '../../schemas/account';
export type { AdminAccount, NewAccount } from '../../schemas/admin';
export type { ChaosView } from '../../schemas/chaos';
export type { EventSubscription, EventType, Suppression } from '../../schemas/delivery-event';
export type { SubscriptionFilter, WebhookAttempt, WebhookAttemptDetail, WebhookSubscription } from '../../schemas/webhook';
export type { LinkCheck } from '../../schemas/link-check';
export type { OutgoingRecipient, OutgoingRecord, Sent } from '../../schemas/outgoing';

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
		/** The request field the server's 400 is about (`webhook`, `attachments[0].content`), when it names one. */
		readonly field?: string,
	) {
		super(message);
	}
}

/** The server's `{ error, message, field? }` body as an ApiError: its message one sentence. */
async function errorOf(response: Response): Promise<ApiError> {
	const fallback = `${response.status} ${response.statusText}`;
	try {
		const body = (await response.json()) as { error?: string; message?: string; field?: string };
		return new ApiError(response.status, body.message || body.error || fallback, body.field);
	} catch {
		return new ApiError(response.status, fallback);
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
	throw await errorOf(response);
}

export const getJson = async <T>(path: string): Promise<T> => (await request(path)).json() as Promise<T>;
export const getText = async (path: string): Promise<string> => (await request(path)).text();
export const sendJson = async <T>(method: string, path: string, body?: unknown): Promise<T> =>
	(await request(path, { method, body })).json() as Promise<T>;

/** An address as a path segment. */
export const enc = encodeURIComponent;

export const formatAddresses = (list: AddressObject[] | null): string =>
	(list ?? []).map((entry) => (entry.name ? `${entry.name} <${entry.address}>` : entry.address)).join(', ');
