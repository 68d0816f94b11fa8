import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HttpDeps } from '../http-deps';
import { requireAccount, serviceKeyOf } from '../auth';
import { HttpError, notFound } from '../errors';
import { optionalBody } from '../params';
import { errorResponses } from '../schemas';
import { ID_PATTERN } from '../../store/ids';
import type { ApiKeyInfo } from '../../store/accounts';

const keySchema = {
	type: 'object',
	properties: {
		id: { type: 'string' },
		label: { type: 'string' },
		created: { type: 'string', format: 'date-time' },
		revoked: { type: ['string', 'null'], format: 'date-time', description: 'when it was revoked; null while it works' },
		current: { type: 'boolean', description: 'this is the key of the request' },
	},
	required: ['id', 'label', 'created', 'revoked', 'current'],
} as const;

export async function accountRoutes(app: FastifyInstance, { accounts, stats }: HttpDeps): Promise<void> {
	/** A key as the API shows it, marked when it is the request's own. */
	const keyView = (info: ApiKeyInfo, currentId: string | undefined) => ({
		id: info.id,
		label: info.label,
		created: info.created,
		revoked: info.revoked,
		current: info.id === currentId,
	});
	const currentKeyId = (request: FastifyRequest) => {
		const key = serviceKeyOf(request);
		return key === undefined ? undefined : accounts.keyInfo(key)?.id;
	};

	app.get(
		'/api/me',
		{
			schema: {
				summary: 'The account of the API key',
				response: {
					200: {
						type: 'object',
						properties: {
							_id: { type: 'string' },
							name: { type: 'string' },
							sendsRemaining: { type: 'integer', description: 'outgoing-message credits left (one per recipient)' },
							admin: { type: 'boolean' },
							created: { type: 'string', format: 'date-time' },
						},
						required: ['_id', 'name', 'sendsRemaining', 'admin', 'created'],
					},
					...errorResponses(401, 429),
				},
			},
		},
		async (request) => {
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
					200: {
						type: 'object',
						properties: {
							addresses: { type: 'array', items: { type: 'string' }, description: 'reserved addresses' },
							domains: { type: 'array', items: { type: 'string' }, description: 'custom domains' },
							storedMessages: { type: 'integer', description: 'messages of the reserved addresses and of every address of the domains' },
							starredMessages: { type: 'integer', description: 'messages starred by the account, in any inbox' },
							inboxBytes: { type: 'integer', description: 'total size in bytes of the stored messages (raw source)' },
							sendsRemaining: { type: 'integer', description: 'outgoing-message credits left' },
						},
						required: ['addresses', 'domains', 'storedMessages', 'starredMessages', 'inboxBytes', 'sendsRemaining'],
					},
					...errorResponses(401, 429),
				},
			},
		},
		async (request) => {
			const account = requireAccount(request);
			return { ...stats.read(account.id), sendsRemaining: account.credits };
		},
	);

	app.get(
		'/api/me/keys',
		{
			schema: {
				summary: "The account's API keys, revoked ones included (never the keys themselves)",
				response: { 200: { type: 'array', items: keySchema }, ...errorResponses(401, 429) },
			},
		},
		async (request) => {
			const account = requireAccount(request);
			const current = currentKeyId(request);
			return accounts.listKeys(account.id).map((info) => keyView(info, current));
		},
	);

	app.post<{ Body: { label: string } }>(
		'/api/me/keys',
		{
			schema: {
				summary: 'Create an API key; the answer is the only time the key itself is shown',
				body: { type: 'object', properties: { label: { type: 'string', maxLength: 200, default: '', description: 'what the key is for' } } },
				response: {
					200: {
						type: 'object',
						properties: { id: { type: 'string' }, key: { type: 'string' }, label: { type: 'string' }, created: { type: 'string', format: 'date-time' } },
						required: ['id', 'key', 'label', 'created'],
					},
					...errorResponses(400, 401, 429),
				},
			},
			preValidation: optionalBody,
		},
		async (request) => {
			const account = requireAccount(request);
			const { key, info } = accounts.createKey(account.id, request.body.label);
			return { id: info.id, key, label: info.label, created: info.created };
		},
	);

	app.delete<{ Params: { keyId: string } }>(
		'/api/me/keys/:keyId',
		{
			schema: {
				summary: 'Revoke an API key of the account: it stops working at once',
				description: 'The key used for this request cannot revoke itself (409): revoke it with another key, so an account is never left without one.',
				params: { type: 'object', properties: { keyId: { type: 'string', pattern: ID_PATTERN } }, required: ['keyId'] },
				response: { 200: keySchema, ...errorResponses(400, 401, 404, 409, 429) },
			},
		},
		async (request) => {
			const account = requireAccount(request);
			const current = currentKeyId(request);
			const info = accounts.listKeys(account.id).find((key) => key.id === request.params.keyId);
			if (!info) throw notFound(`No API key ${request.params.keyId} in this account`);
			if (info.id === current) throw new HttpError(409, 'This request is made with that key: revoke it with another key of the account');
			// Revoking a revoked key again changes nothing.
			return keyView(info.revoked ? info : accounts.revokeKey(info.id), current);
		},
	);
}
