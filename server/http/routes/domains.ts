import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { HttpApp, HttpDeps } from '../http-deps';
import { requireAccount } from '../auth';
import { badRequest, forbidden, notFound } from '../errors';
import { domainParam } from '../params';
import { DomainParams, NoContent, errorResponses } from '../schemas';
import { DomainSchema, type DomainRecord } from '../../schemas/domain';
import { ForwardingSchema } from '../../schemas/address';
import { MessageSchema } from '../../schemas/message';
import { DateTime, Nullable, expects, refTo } from '../../schemas/shared';
import { DomainError, type DomainStore } from '../../store/store';
import { parseEmailAddress } from '../../mail/email-address';

/** A request naming one domain (:domain). */
type DomainRequest = FastifyRequest & { params: { domain: string } };

const domainResponse = { 200: refTo(DomainSchema), ...errorResponses(400, 401, 403, 404, 429) };

/** The caller's own domain :domain, or 404 (nobody's) / 403 (another account's). */
async function ownDomain(request: DomainRequest, domains: DomainStore): Promise<DomainRecord> {
	const account = requireAccount(request);
	const domain = domainParam(request.params.domain);
	const record = await domains.get(domain);
	if (!record) throw notFound(`${domain} is not a custom domain; claim it with POST /api/domains/${domain}`);
	if (record.owner !== account.id) throw forbidden(`${domain} is owned by another account`);
	return record;
}

export function domainRoutes(app: HttpApp, { config, addresses, domains, messages, deletion }: HttpDeps): void {
	app.get(
		'/api/domains',
		{
			schema: {
				summary: "The account's custom domains",
				response: { 200: Type.Array(refTo(DomainSchema)), ...errorResponses(401, 429) },
			},
		},
		async (request) => domains.list(requireAccount(request).id),
	);

	app.get(
		'/api/domains/:domain',
		{
			schema: {
				summary: 'One of your custom domains, with its message count and catch-all address',
				params: DomainParams,
				response: {
					200: Type.Object({
						domain: refTo(DomainSchema),
						totalMessages: Type.Integer({ description: 'messages stored for every address of the domain' }),
						catchAllAddress: Nullable(refTo(ForwardingSchema)),
					}),
					...errorResponses(400, 401, 403, 404, 429),
				},
			},
		},
		async (request) => {
			const domain = await ownDomain(request, domains);
			return {
				domain,
				totalMessages: await messages.countDomain(domain._id),
				catchAllAddress: (await addresses.catchAllOf(domain._id)) ?? null,
			};
		},
	);

	app.post(
		'/api/domains/:domain',
		{
			schema: {
				summary: 'Claim a domain for your account: all its mail becomes private to you (200 and unchanged if it already is yours)',
				description:
					'403 when another account owns the domain, holds a reserved address in it, or the domain is one of the public domains of this server. ' +
					"Point the domain's MX record at this server so mail for it arrives.",
				params: DomainParams,
				response: domainResponse,
			},
		},
		async (request) => {
			const account = requireAccount(request);
			const domain = domainParam(request.params.domain);
			if (config.domains.includes(domain)) throw forbidden(`${domain} is a public domain of this server and cannot be owned`);
			try {
				return await domains.claim(domain, account.id);
			} catch (err) {
				if (err instanceof DomainError) throw forbidden(err.message);
				throw err;
			}
		},
	);

	app.put(
		'/api/domains/:domain',
		{
			schema: {
				summary: 'Set (or with "" / null clear) the catch-all address of your domain',
				description:
					'The catch-all address must be an address of the domain; it is reserved for you if it is not yet. Its webhook, webhookSlack and ' +
					'forward apply to every address of the domain without that setting of its own, its enablews to every address without a record. ' +
					'A domain has at most one catch-all address: setting a new one replaces the old.',
				params: DomainParams,
				body: Type.Object(
					{
						catchAll: Type.Union([Type.Null(), Type.String({ maxLength: 0 }), Type.String({ maxLength: 254, format: 'email' })], {
							...expects('an address of the domain, or null or "" to remove the catch-all address'),
						}),
					},
					{ additionalProperties: false, examples: [{ catchAll: 'inbox@mail.example.com' }] },
				),
				response: domainResponse,
			},
		},
		async (request) => {
			const domain = await ownDomain(request, domains);
			let catchAll: string | null = null;
			if (request.body.catchAll) {
				const email = parseEmailAddress(request.body.catchAll);
				if (!email) throw badRequest(`catchAll "${request.body.catchAll}" is not an email address`, 'catchAll');
				if (email.domain !== domain._id)
					throw badRequest(`catchAll must be an address of ${domain._id}; ${email.address} is not`, 'catchAll');
				catchAll = email.address;
			}
			await addresses.setCatchAll(domain._id, catchAll, domain.owner);
			return (await domains.get(domain._id))!;
		},
	);

	app.delete(
		'/api/domains/:domain',
		{
			schema: {
				summary: 'Give up a custom domain: its mail becomes public again (its reserved addresses stay yours)',
				params: DomainParams,
				response: domainResponse,
			},
		},
		async (request) => {
			return (await domains.remove((await ownDomain(request, domains))._id))!;
		},
	);

	app.get(
		'/api/domains/:domain/messages',
		{
			schema: {
				summary: 'List the messages of every address of your domain, newest first',
				params: DomainParams,
				querystring: Type.Object({
					limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
					until: Type.Optional(
						DateTime({
							description:
								'only messages received at or before this time: pass the `received` of the last message of the previous page and skip the `_id`s you already have ' +
								'(messages of several addresses can share a millisecond)',
						}),
					),
				}),
				response: { 200: Type.Array(refTo(MessageSchema)), ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			const domain = await ownDomain(request, domains);
			const until = request.query.until === undefined ? undefined : Date.parse(request.query.until);
			return messages.listDomain(domain._id, request.query.limit, until);
		},
	);

	app.post(
		'/api/domains/:domain/delete-all-domain-mail',
		{
			schema: {
				summary: 'Delete every message of your domain, starred ones included',
				params: DomainParams,
				response: { 204: NoContent('deleted'), ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request, reply) => {
			await deletion.deleteDomain((await ownDomain(request, domains))._id);
			return reply.code(204).send();
		},
	);
}
