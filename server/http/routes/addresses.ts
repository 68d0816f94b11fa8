import Type from 'typebox';
import type { HttpApp, HttpDeps } from '../http-deps';
import { requireAccount } from '../auth';
import { badRequest, forbidden } from '../errors';
import { ownAddress, type AddressRequest } from '../inbox-access';
import { emailParam, optionalBody } from '../params';
import { assertDeliverable } from '../webhook-targets';
import { EmailParams, errorResponses } from '../schemas';
import { parseEmailAddress } from '../../mail/email-address';
import type { Account, AddressStore, ForwardingUpdate } from '../../store/store';
import { ForwardingSchema, ForwardingUpdateSchema, type ForwardingUpdateBody } from '../../schemas/address';
import { refTo } from '../../schemas/shared';

/** Most addresses one bulk reservation may hold (as Mailsac). */
export const MAX_BULK_ADDRESSES = 100;

const recordResponse = { 200: refTo(ForwardingSchema), ...errorResponses(400, 401, 403, 404, 429) };
const recordList = Type.Array(refTo(ForwardingSchema));
const forwardingBody = refTo(ForwardingUpdateSchema);

/** Refuses an address that is another account's mail: reserved by it, or in its domain even before anyone reserves it. */
async function assertNotOthers(addresses: AddressStore, accountId: string, email: string, domain: string): Promise<void> {
	const owner = await addresses.ownerOfInbox(email, domain);
	if (owner !== null && owner !== accountId) throw forbidden(`${email} belongs to another account`);
}

/** A ForwardingUpdate body as store changes: "" and null clear a setting; `forward` must be another valid address. */
function forwardingChanges(email: string, body: ForwardingUpdateBody = {}): ForwardingUpdate {
	const changes: ForwardingUpdate = { enablews: body.enablews, info: body.info, webhookSlackToFrom: body.webhookSlackToFrom };
	if (body.webhook !== undefined) changes.webhook = body.webhook || null;
	if (body.webhookSlack !== undefined) changes.webhookSlack = body.webhookSlack || null;
	if (body.forward !== undefined) {
		const target = body.forward ? parseEmailAddress(body.forward) : null;
		if (body.forward && !target) throw badRequest(`forward "${body.forward}" is not an email address`, 'forward');
		if (target?.address === email) throw badRequest(`forward cannot be ${email}: an address does not forward to itself`, 'forward');
		changes.forward = target?.address ?? null;
	}
	return changes;
}

export function addressRoutes(app: HttpApp, { addresses, deletion, webhooks }: HttpDeps): void {
	/** Refuses webhook URLs the SSRF policy would never deliver to for this account. */
	const assertTargets = (owner: Account, { webhook, webhookSlack }: ForwardingUpdate) =>
		assertDeliverable(webhooks.targets, owner, { webhook, webhookSlack });

	app.get(
		'/api/addresses',
		{ schema: { summary: "The account's private (reserved) addresses", response: { 200: recordList, ...errorResponses(401, 429) } } },
		async (request) => addresses.listByOwner(requireAccount(request).id),
	);

	app.get(
		'/api/addresses/:email',
		{
			schema: {
				summary: "One of the account's private addresses (404 if it is not reserved)",
				params: EmailParams,
				response: recordResponse,
			},
		},
		async (request) => ownAddress(request, addresses),
	);

	app.post(
		'/api/addresses/:email',
		{
			schema: {
				summary: 'Reserve an address as private to your account, optionally with forwarding settings',
				description:
					'Its mail, past and future, becomes readable only with your key. 403 if the address is reserved by another account or is in ' +
					"another account's domain. Reserving an address you already hold answers 200 with the record unchanged (the body is ignored; " +
					'change settings with PUT).',
				params: EmailParams,
				body: forwardingBody,
				response: recordResponse,
			},
			preValidation: optionalBody,
		},
		async (request) => {
			const account = requireAccount(request);
			const { address: email, domain } = emailParam(request.params.email);
			const settings = forwardingChanges(email, request.body);
			await assertNotOthers(addresses, account.id, email, domain);
			await assertTargets(account, settings);
			const record = await addresses.reserve(email, account.id, settings);
			// The admin CLI, another process, may have given it away between the check and the insert.
			if (record.owner !== account.id) throw forbidden(`${email} belongs to another account`);
			return record;
		},
	);

	const updateForwarding = async (request: AddressRequest & { body: ForwardingUpdateBody }) => {
		const record = await ownAddress(request, addresses);
		const changes = forwardingChanges(record._id, request.body);
		await assertTargets(requireAccount(request), changes);
		return addresses.update(record._id, changes);
	};

	app.put(
		'/api/addresses/:email',
		{
			schema: {
				summary: 'Change the forwarding settings of your private address (fields left out keep their value)',
				params: EmailParams,
				body: forwardingBody,
				response: recordResponse,
			},
		},
		updateForwarding,
	);

	app.delete(
		'/api/addresses/:email',
		{
			schema: {
				summary: 'Release a private address; its mail becomes public, or with deleteAddressMessages=true is deleted (starred mail is kept)',
				params: EmailParams,
				querystring: Type.Object({
					deleteAddressMessages: Type.Boolean({ default: false, description: "also delete the address's messages, except starred ones" }),
				}),
				response: recordResponse,
			},
		},
		async (request) => {
			const record = await ownAddress(request, addresses);
			await addresses.release(record._id);
			if (request.query.deleteAddressMessages) await deletion.deleteInbox(record._id);
			return record;
		},
	);

	app.get(
		'/api/addresses/:email/availability',
		{
			schema: {
				summary: 'Whether an address can be reserved (by you, when you send your key)',
				params: EmailParams,
				response: {
					200: Type.Object({
						email: Type.String(),
						available: Type.Boolean({ description: 'the caller can reserve it now (without a key: nobody owns it)' }),
						owned: Type.Boolean({ description: 'some account owns it, by reservation or by owning its domain (not saying whom)' }),
					}),
					...errorResponses(400, 401, 429),
				},
			},
		},
		async (request) => {
			const { address: email, domain } = emailParam(request.params.email);
			const owner = await addresses.ownerOfInbox(email, domain);
			// In the caller's own domain an address is theirs to reserve until they do.
			const available = owner === null || (owner === request.account?.id && (await addresses.get(email)) === undefined);
			return { email, available, owned: owner !== null };
		},
	);

	app.post(
		'/api/private-addresses-bulk',
		{
			schema: {
				summary: `Reserve up to ${MAX_BULK_ADDRESSES} addresses at once: all of them or, on any error, none`,
				description: 'Addresses you already hold are returned unchanged. 403 if any belongs to another account.',
				body: Type.Object(
					{ addresses: Type.Array(Type.String({ maxLength: 254 }), { minItems: 1, maxItems: MAX_BULK_ADDRESSES }) },
					{ additionalProperties: false, examples: [{ addresses: ['signup-test-1@example.com', 'signup-test-2@example.com'] }] },
				),
				response: { 200: recordList, ...errorResponses(400, 401, 403, 429) },
			},
		},
		async (request) => {
			const account = requireAccount(request);
			const emails = request.body.addresses.map((input, i) => {
				const email = parseEmailAddress(input);
				if (!email) throw badRequest(`addresses[${i}] "${input}" is not an email address`, `addresses[${i}]`);
				return email;
			});
			for (const { address, domain } of emails) await assertNotOthers(addresses, account.id, address, domain);
			return addresses.reserveAll([...new Set(emails.map((email) => email.address))], account.id);
		},
	);

	app.put(
		'/api/private-address-forwarding/:email',
		{
			schema: {
				summary: 'Set the forwarding of your private or catch-all address (the same body as PUT /api/addresses/{email})',
				params: EmailParams,
				body: forwardingBody,
				response: recordResponse,
			},
		},
		updateForwarding,
	);
}
