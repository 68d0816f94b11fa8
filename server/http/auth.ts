import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Account, AccountStore, AddressStore } from '../store/store';
import { hashKey } from '../store/account-records';
import { forbidden, unauthorized } from './errors';

declare module 'fastify' {
	interface FastifyRequest {
		/** The caller's account when a valid Service-Key header was sent. */
		account: Account | null;
	}
}

export const KEY_HEADER = 'service-key';

export function serviceKeyOf(request: FastifyRequest): string | undefined {
	const key = request.headers[KEY_HEADER];
	return typeof key === 'string' && key !== '' ? key : undefined;
}

/** Who a request counts against (rate limits, requests waiting for mail): its API key when valid, else its IP. */
export function callerOf(request: FastifyRequest): string {
	const key = serviceKeyOf(request);
	return key && request.account ? `key:${hashKey(key)}` : `ip:${request.ip}`;
}

/**
 * Resolves the Service-Key header on every request; an unknown or revoked key is refused with 401.
 * The refusal waits for preParsing, after the rate limiter (an onRequest hook of each route) has
 * counted the request against the caller's IP, so made-up keys cannot get around the limits.
 */
export function registerAuth(app: FastifyInstance, accounts: AccountStore): void {
	app.decorateRequest('account', null);
	app.addHook('onRequest', async (request) => {
		const key = serviceKeyOf(request);
		if (key !== undefined) request.account = (await accounts.forKey(key)) ?? null;
	});
	app.addHook('preParsing', (request, _reply, payload, done) => {
		const unknownKey = serviceKeyOf(request) !== undefined && !request.account;
		if (unknownKey) done(unauthorized('The API key in the Service-Key header is unknown or revoked'));
		else done(null, payload);
	});
}

export function requireAccount(request: FastifyRequest): Account {
	if (!request.account) throw unauthorized('This operation needs an API key in the Service-Key header');
	return request.account;
}

/** Public inboxes are open to all; a private one only to its owner's key. */
export async function authorizeInbox(request: FastifyRequest, addresses: AddressStore, inbox: string, domain: string): Promise<void> {
	const owner = await addresses.ownerOfInbox(inbox, domain);
	if (owner === null) return;
	if (!request.account) throw unauthorized(`${inbox} is a private address: send its owner's API key in the Service-Key header`);
	if (request.account.id !== owner) throw forbidden(`${inbox} is a private address of another account`);
}
