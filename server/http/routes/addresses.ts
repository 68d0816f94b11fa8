import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HttpDeps } from '../http-deps';
import { requireAccount } from '../auth';
import { forbidden, notFound } from '../errors';
import { emailParam } from '../params';
import { emailParams, errorResponses } from '../schemas';
import type { AddressStore, ForwardingRecord } from '../../store/addresses';

const recordResponse = { 200: { $ref: 'Forwarding#' }, ...errorResponses(400, 401, 403, 404, 429) };

/** The caller's own forwarding record for :email, or 404. */
function ownAddress(request: FastifyRequest<{ Params: { email: string } }>, addresses: AddressStore): ForwardingRecord {
	const account = requireAccount(request);
	const email = emailParam(request.params.email).address;
	const record = addresses.get(email);
	if (!record) throw notFound(`${email} is not reserved; reserve it with POST /api/addresses/${email}`);
	if (record.owner !== account.id) throw forbidden(`${email} is reserved by another account`);
	return record;
}

export async function addressRoutes(app: FastifyInstance, { addresses }: HttpDeps): Promise<void> {
	app.get<{ Params: { email: string } }>(
		'/api/addresses/:email',
		{ schema: { summary: "One of the account's private addresses", params: emailParams, response: recordResponse } },
		async (request) => ownAddress(request, addresses),
	);

	app.post<{ Params: { email: string } }>(
		'/api/addresses/:email',
		{
			schema: {
				summary: 'Reserve an address as private to your account (200 and unchanged if it already is)',
				params: emailParams,
				response: recordResponse,
			},
		},
		async (request) => {
			const account = requireAccount(request);
			const { address: email, domain } = emailParam(request.params.email);
			// An address in another account's domain is that account's mail, even before anyone reserves it.
			const owner = addresses.ownerOfInbox(email, domain);
			if (owner !== null && owner !== account.id) throw forbidden(`${email} belongs to another account`);
			return addresses.reserve(email, account.id);
		},
	);

	app.delete<{ Params: { email: string } }>(
		'/api/addresses/:email',
		{ schema: { summary: 'Release a private address; its mail becomes public', params: emailParams, response: recordResponse } },
		async (request) => {
			const record = ownAddress(request, addresses);
			addresses.release(record._id);
			return record;
		},
	);

	app.put<{ Params: { email: string }; Body: { webhook: string | null } }>(
		'/api/private-address-forwarding/:email',
		{
			schema: {
				summary: 'Set (or with "" / null clear) the webhook that receives mail of a private address',
				params: emailParams,
				body: {
					type: 'object',
					properties: {
						webhook: {
							anyOf: [{ type: 'null' }, { type: 'string', maxLength: 0 }, { type: 'string', maxLength: 2048, format: 'uri', pattern: '^https?://' }],
							description: 'http(s) URL to POST each message to',
						},
					},
					required: ['webhook'],
				},
				response: recordResponse,
			},
		},
		async (request) => {
			const record = ownAddress(request, addresses);
			return addresses.update(record._id, { webhook: request.body.webhook || null });
		},
	);
}
