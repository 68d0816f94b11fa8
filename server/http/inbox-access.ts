import type { FastifyRequest } from 'fastify';
import type { AddressStore } from '../store/store';
import type { EmailAddress } from '../mail/email-address';
import type { ForwardingRecord } from '../schemas/address';
import { authorizeInbox, requireAccount } from './auth';
import { forbidden, notFound, type HttpError } from './errors';
import { emailParam } from './params';

/** A request naming one address (:email). */
export type AddressRequest = FastifyRequest & { params: { email: string } };

/** The caller's own forwarding record for :email: 404 when it is not reserved, 403 when another account holds it. */
export async function ownAddress(request: AddressRequest, addresses: AddressStore): Promise<ForwardingRecord> {
	const account = requireAccount(request);
	const email = emailParam(request.params.email).address;
	const record = await addresses.get(email);
	if (!record) throw notFound(`${email} is not reserved; reserve it with POST /api/addresses/${email}`);
	if (record.owner !== account.id) throw forbidden(`${email} is reserved by another account`);
	return record;
}

/** The :email of a message route, validated, after checking the caller may use that inbox. */
export async function accessibleInbox(request: FastifyRequest, addresses: AddressStore, email: string): Promise<EmailAddress> {
	const inbox = emailParam(email);
	await authorizeInbox(request, addresses, inbox.address, inbox.domain);
	return inbox;
}

export const messageNotFound = (inbox: string, messageId: string): HttpError => notFound(`No message ${messageId} in ${inbox}`);
