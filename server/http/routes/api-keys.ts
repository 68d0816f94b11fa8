/** API keys as the account routes and the admin routes show and revoke them. */
import type { FastifyRequest } from 'fastify';
import type { HttpDeps } from '../http-deps';
import { serviceKeyOf } from '../auth';
import { HttpError, notFound } from '../errors';
import type { ApiKeyView } from '../../schemas/account';
import { AccountError, type ApiKeyInfo } from '../../store/store';

type Accounts = HttpDeps['accounts'];

/** A key as the API shows it, marked when it is the request's own. */
const keyView = (info: ApiKeyInfo, currentId: string | undefined): ApiKeyView => ({
	id: info.id,
	label: info.label,
	created: info.created,
	revoked: info.revoked,
	current: info.id === currentId,
});

/** The id of the key the request is made with. */
async function currentKeyId(accounts: Accounts, request: FastifyRequest): Promise<string | undefined> {
	const key = serviceKeyOf(request);
	return key === undefined ? undefined : (await accounts.keyInfo(key))?.id;
}

/** The account's keys, the request's own marked. */
export async function keyViews(accounts: Accounts, request: FastifyRequest, accountId: string): Promise<ApiKeyView[]> {
	const current = await currentKeyId(accounts, request);
	return (await accounts.listKeys(accountId)).map((info) => keyView(info, current));
}

/**
 * Revokes a key of the account: 404 (`missing`) when the account has no such key, 409 (`ownKey`) for the key the request is
 * made with, so an account is never left without one. Revoking a revoked key again changes nothing, also when another request
 * revoked it meanwhile.
 */
export async function revokeKey(
	accounts: Accounts,
	request: FastifyRequest,
	accountId: string,
	keyId: string,
	messages: { missing: string; ownKey: string },
): Promise<ApiKeyView> {
	const current = await currentKeyId(accounts, request);
	const info = (await accounts.listKeys(accountId)).find((key) => key.id === keyId);
	if (!info) throw notFound(messages.missing);
	if (info.id === current) throw new HttpError(409, messages.ownKey);
	if (info.revoked) return keyView(info, current);
	try {
		return keyView(await accounts.revokeKey(info.id), current);
	} catch (err) {
		const now = (await accounts.listKeys(accountId)).find((key) => key.id === info.id);
		if (err instanceof AccountError && now?.revoked) return keyView(now, current);
		throw err;
	}
}
