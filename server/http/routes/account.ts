import Type from 'typebox';
import type { HttpApp, HttpDeps } from '../http-deps';
import { requireAccount } from '../auth';
import { optionalBody } from '../params';
import { IdParam, errorResponses } from '../schemas';
import { AccountStatsSchema, ApiKeySchema, MeSchema, NewApiKeySchema } from '../../schemas/account';
import { keyViews, revokeKey } from './api-keys';

export function accountRoutes(app: HttpApp, { accounts, stats }: HttpDeps): void {
	app.get(
		'/api/me',
		{
			schema: {
				summary: 'The account of the API key',
				response: {
					200: MeSchema,
					...errorResponses(401, 429),
				},
			},
		},
		(request) => {
			const account = requireAccount(request);
			return { _id: account.id, name: account.name, sendsRemaining: account.credits, admin: account.isAdmin, created: account.created };
		},
	);

	app.get(
		'/api/me/stats',
		{
			schema: {
				summary: 'What the account holds: addresses, domains, messages, storage and credits',
				response: {
					200: AccountStatsSchema,
					...errorResponses(401, 429),
				},
			},
		},
		async (request) => {
			const account = requireAccount(request);
			return { ...(await stats.read(account.id)), sendsRemaining: account.credits };
		},
	);

	app.get(
		'/api/me/keys',
		{
			schema: {
				summary: "The account's API keys, revoked ones included (never the keys themselves)",
				response: { 200: Type.Array(ApiKeySchema), ...errorResponses(401, 429) },
			},
		},
		async (request) => {
			const account = requireAccount(request);
			return keyViews(accounts, request, account.id);
		},
	);

	app.post(
		'/api/me/keys',
		{
			schema: {
				summary: 'Create an API key; the answer is the only time the key itself is shown',
				body: Type.Object(
					{ label: Type.String({ maxLength: 200, default: '', description: 'what the key is for' }) },
					{ additionalProperties: false, examples: [{ label: 'CI pipeline' }] },
				),
				response: {
					200: NewApiKeySchema,
					...errorResponses(400, 401, 429),
				},
			},
			preValidation: optionalBody,
		},
		async (request) => {
			const account = requireAccount(request);
			const { key, info } = await accounts.createKey(account.id, request.body.label);
			return { id: info.id, key, label: info.label, created: info.created };
		},
	);

	app.delete(
		'/api/me/keys/:keyId',
		{
			schema: {
				summary: 'Revoke an API key of the account: it stops working at once',
				description:
					'The key used for this request cannot revoke itself (409): revoke it with another key, so an account is never left without one.',
				params: Type.Object({ keyId: IdParam('key') }),
				response: { 200: ApiKeySchema, ...errorResponses(400, 401, 404, 409, 429) },
			},
		},
		async (request) => {
			const account = requireAccount(request);
			return revokeKey(accounts, request, account.id, request.params.keyId, {
				missing: `No API key ${request.params.keyId} in this account`,
				ownKey: 'This request is made with that key: revoke it with another key of the account',
			});
		},
	);
}
