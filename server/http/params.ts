import type { FastifyReply, FastifyRequest } from 'fastify';
import { isDomain, parseEmailAddress, type EmailAddress } from '../mail/email-address';
import { badRequest } from './errors';

/** The :email path parameter (already URL-decoded by the router), validated and lower-cased. */
export function emailParam(value: string): EmailAddress {
	const email = parseEmailAddress(value);
	if (!email) throw badRequest(`"${value}" is not an email address`);
	return email;
}

/** The :domain path parameter, validated and lower-cased. */
export function domainParam(value: string): string {
	const domain = value.trim().toLowerCase();
	if (!isDomain(domain)) throw badRequest(`"${value}" is not a domain name`);
	return domain;
}

/** preValidation hook of routes whose JSON body may be left out: no body is validated as `{}` (so defaults apply). */
export function optionalBody(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
	request.body ??= {};
	done();
}
