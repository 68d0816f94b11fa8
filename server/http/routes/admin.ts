import Type from 'typebox';
import type { HttpApp, HttpDeps } from '../http-deps';
import { requireAdmin } from '../auth';
import { badRequest, forbidden, notFound } from '../errors';
import { domainParam, optionalBody } from '../params';
import { DomainParams, IdParam, errorResponses } from '../schemas';
import { AdminAccountSchema, NewAccountSchema } from '../../schemas/admin';
import { ApiKeySchema, NewApiKeySchema } from '../../schemas/account';
import { DomainSchema } from '../../schemas/domain';
import { refTo } from '../../schemas/shared';
import { AccountError, type Account } from '../../store/store';
import { keyViews, revokeKey } from './api-keys';

/** An account as the admin routes show it: as GET /api/me shows one's own. */
const accountView = (account: Account) => ({
	_id: account.id,
	name: account.name,
	sendsRemaining: account.credits,
	admin: account.isAdmin,
	created: account.created,
});

/** An account named by id or by name, as the `mailroom` commands take it. */
const AccountParam = Type.String({ minLength: 1, maxLength: 64, description: 'an account id or name' });
const AccountParams = Type.Object({ account: AccountParam });

/**
 * What the `mailroom accounts|keys|credits|domains` commands do, over HTTP for the dashboard's Admin page: only an admin
 * account's key may call them (403 for any other key), with the rules the commands follow (the store's).
 */
export function adminRoutes(app: HttpApp, { config, accounts, domains }: HttpDeps): void {
	app.get(
		'/api/admin/accounts',
		{
			schema: {
				summary: 'Every account (admin only): `mailroom accounts list`',
				response: { 200: Type.Array(AdminAccountSchema), ...errorResponses(401, 403, 429) },
			},
		},
		async (request) => {
			requireAdmin(request);
			return (await accounts.list()).map(accountView);
		},
	);

	app.post(
		'/api/admin/accounts',
		{
			schema: {
				summary: 'Create an account and its first API key (admin only): `mailroom accounts create`',
				description: 'The answer is the only time the key itself is shown. 409 when an account of that name exists.',
				body: Type.Object(
					{
						name: Type.String({ minLength: 1, maxLength: 64, description: 'letters, digits, ".", "_", "@" or "-"' }),
						admin: Type.Boolean({ default: false, description: 'an admin account, which may call these routes' }),
						credits: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0, description: 'initial outgoing-message credits' }),
					},
					{ additionalProperties: false, examples: [{ name: 'acme-qa', credits: 100 }] },
				),
				response: { 200: NewAccountSchema, ...errorResponses(400, 401, 403, 409, 429) },
			},
		},
		async (request) => {
			requireAdmin(request);
			const { name, admin, credits } = request.body;
			const account = await accounts.create(name, { admin, credits }).catch((err: unknown) => {
				// The store checks the name (the schema checks the rest): its refusal is about that field.
				throw err instanceof AccountError && err.status === 400 ? badRequest(err.message, 'name') : err;
			});
			const { key, info } = await accounts.createKey(account.id, 'created with the account');
			return { account: accountView(account), key: { id: info.id, key, label: info.label, created: info.created } };
		},
	);

	app.post(
		'/api/admin/accounts/:account/credits',
		{
			schema: {
				summary: 'Add outgoing-message credits to an account (admin only): `mailroom credits add`',
				params: AccountParams,
				body: Type.Object(
					{ credits: Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: 'how many to add' }) },
					{ additionalProperties: false, examples: [{ credits: 100 }] },
				),
				response: { 200: AdminAccountSchema, ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			requireAdmin(request);
			const account = await accounts.require(request.params.account);
			return accountView(await accounts.addCredits(account.id, request.body.credits));
		},
	);

	app.get(
		'/api/admin/accounts/:account/keys',
		{
			schema: {
				summary: "An account's API keys, revoked ones included (admin only): `mailroom keys list`",
				params: AccountParams,
				response: { 200: Type.Array(ApiKeySchema), ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			requireAdmin(request);
			const account = await accounts.require(request.params.account);
			return keyViews(accounts, request, account.id);
		},
	);

	app.post(
		'/api/admin/accounts/:account/keys',
		{
			schema: {
				summary: 'Create an API key for an account (admin only): `mailroom keys create`; the answer is the only time the key is shown',
				params: AccountParams,
				body: Type.Object(
					{ label: Type.String({ maxLength: 200, default: '', description: 'what the key is for' }) },
					{ additionalProperties: false, examples: [{ label: 'CI pipeline' }] },
				),
				response: { 200: NewApiKeySchema, ...errorResponses(400, 401, 403, 404, 429) },
			},
			preValidation: optionalBody,
		},
		async (request) => {
			requireAdmin(request);
			const account = await accounts.require(request.params.account);
			const { key, info } = await accounts.createKey(account.id, request.body.label);
			return { id: info.id, key, label: info.label, created: info.created };
		},
	);

	app.delete(
		'/api/admin/accounts/:account/keys/:keyId',
		{
			schema: {
				summary: "Revoke an account's API key (admin only): `mailroom keys revoke`; it stops working at once",
				description: 'The key used for this request cannot revoke itself (409): revoke it with another admin key.',
				params: Type.Object({ account: AccountParam, keyId: IdParam('key') }),
				response: { 200: ApiKeySchema, ...errorResponses(400, 401, 403, 404, 409, 429) },
			},
		},
		async (request) => {
			requireAdmin(request);
			const account = await accounts.require(request.params.account);
			return revokeKey(accounts, request, account.id, request.params.keyId, {
				missing: `No API key ${request.params.keyId} in the account "${account.name}"`,
				ownKey: 'This request is made with that key: revoke it with another admin key',
			});
		},
	);

	app.get(
		'/api/admin/domains',
		{
			schema: {
				summary: 'Every custom domain and its owner (admin only): `mailroom domains list`',
				response: { 200: Type.Array(refTo(DomainSchema)), ...errorResponses(401, 403, 429) },
			},
		},
		async (request) => {
			requireAdmin(request);
			return domains.list();
		},
	);

	app.post(
		'/api/admin/domains/:domain',
		{
			schema: {
				summary: 'Give a domain to an account (admin only): `mailroom domains add`; SMTP then accepts its mail',
				description:
					'200 and unchanged when the account owns it already. 403 when another account owns the domain or holds a reserved address in it, ' +
					'or when it is one of the public domains of this server.',
				params: DomainParams,
				body: Type.Object({ account: AccountParam }, { additionalProperties: false, examples: [{ account: 'acme-qa' }] }),
				response: { 200: refTo(DomainSchema), ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			requireAdmin(request);
			const domain = domainParam(request.params.domain);
			if (config.domains.includes(domain)) throw forbidden(`${domain} is a public domain of this server and cannot be owned`);
			const owner = await accounts.require(request.body.account);
			return domains.claim(domain, owner.id);
		},
	);

	app.delete(
		'/api/admin/domains/:domain',
		{
			schema: {
				summary:
					'Take a domain from its account (admin only): `mailroom domains remove`; its mail becomes public (reserved addresses stay reserved)',
				params: DomainParams,
				response: { 200: refTo(DomainSchema), ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			requireAdmin(request);
			const domain = domainParam(request.params.domain);
			const removed = await domains.remove(domain);
			if (!removed) throw notFound(`No account owns the domain ${domain}`);
			return removed;
		},
	);
}
