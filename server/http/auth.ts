import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Account, AccountStore, AddressStore } from '../store/store';
import { hashKey } from '../store/account-records';
import { badRequest, forbidden, unauthorized } from './errors';

declare module 'fastify' {
	interface FastifyRequest {
		/** The caller's account when a valid API key header was sent. */
		account: Account | null;
	}
}

/** Mailroom's key header. */
export const KEY_HEADER = 'service-key';
/** The header Mailsac's own API and client (@mailsac/api) send the key in: a synonym, so that client works unchanged. */
export const MAILSAC_KEY_HEADER = 'mailsac-key';

/** A header's value, or undefined when it is absent or empty (an empty header counts as no key). */
function headerValue(request: FastifyRequest, name: string): string | undefined {
	const value = request.headers[name];
	return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The API key of the request, from Service-Key or else Mailsac-Key. */
export function serviceKeyOf(request: FastifyRequest): string | undefined {
	return headerValue(request, KEY_HEADER) ?? headerValue(request, MAILSAC_KEY_HEADER);
}

/** The name of the header the key came in, as the caller would write it (for error messages). */
function keyHeaderName(request: FastifyRequest): string {
	return headerValue(request, KEY_HEADER) === undefined ? 'Mailsac-Key' : 'Service-Key';
}

/** Who a request counts against (rate limits, requests waiting for mail): its API key when valid, else its IP. */
export function callerOf(request: FastifyRequest): string {
	const key = serviceKeyOf(request);
	return key && request.account ? `key:${hashKey(key)}` : `ip:${request.ip}`;
}

/**
 * Resolves the API key header on every request; an unknown or revoked key is refused with 401, and two different keys
 * (Service-Key and Mailsac-Key) with 400. The refusal waits for preParsing, after the rate limiter (an onRequest hook of
 * each route) has counted the request against the caller's IP, so made-up keys cannot get around the limits.
 */
export function registerAuth(app: FastifyInstance, accounts: AccountStore): void {
	app.decorateRequest('account', null);
	app.addHook('onRequest', async (request) => {
		const key = serviceKeyOf(request);
		if (key !== undefined) request.account = (await accounts.forKey(key)) ?? null;
	});
	app.addHook('preParsing', (request, _reply, payload, done) => {
		const mailsacKey = headerValue(request, MAILSAC_KEY_HEADER);
		const serviceKey = headerValue(request, KEY_HEADER);
		if (mailsacKey !== undefined && serviceKey !== undefined && mailsacKey !== serviceKey)
			done(badRequest('The Service-Key and Mailsac-Key headers hold different keys: send one key'));
		else if (serviceKeyOf(request) !== undefined && !request.account)
			done(unauthorized(`The API key in the ${keyHeaderName(request)} header is unknown or revoked`));
		else done(null, payload);
	});
}

export function requireAccount(request: FastifyRequest): Account {
	if (!request.account) throw unauthorized('This operation needs an API key in the Service-Key (or Mailsac-Key) header');
	return request.account;
}

/** Public inboxes are open to all; a private one only to its owner's key. */
export async function authorizeInbox(request: FastifyRequest, addresses: AddressStore, inbox: string, domain: string): Promise<void> {
	const owner = await addresses.ownerOfInbox(inbox, domain);
	if (owner === null) return;
	if (!request.account) throw unauthorized(`${inbox} is a private address: send its owner's API key in the Service-Key header`);
	if (request.account.id !== owner) throw forbidden(`${inbox} is a private address of another account`);
}

/** The caller's account when it is an admin: what the `mailroom` admin commands do is theirs alone over HTTP too. */
export function requireAdmin(request: FastifyRequest): Account {
	const account = requireAccount(request);
	if (!account.isAdmin) throw forbidden("Only an admin account's key can manage accounts, API keys, credits and domains");
	return account;
}
