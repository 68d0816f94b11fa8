import type { FastifyRequest } from 'fastify';
import type { AddressStore } from '../store/addresses';
import type { EmailAddress } from '../mail/email-address';
import { authorizeInbox } from './auth';
import { notFound, type HttpError } from './errors';
import { emailParam } from './params';

/** The :email of a message route, validated, after checking the caller may use that inbox. */
export function accessibleInbox(request: FastifyRequest, addresses: AddressStore, email: string): EmailAddress {
	const inbox = emailParam(email);
	authorizeInbox(request, addresses, inbox.address, inbox.domain);
	return inbox;
}

export const messageNotFound = (inbox: string, messageId: string): HttpError => notFound(`No message ${messageId} in ${inbox}`);
