import { parseEmailAddress, type EmailAddress } from '../mail/email-address';
import { badRequest } from './errors';

/** The :email path parameter (already URL-decoded by the router), validated and lower-cased. */
export function emailParam(value: string): EmailAddress {
	const email = parseEmailAddress(value);
	if (!email) throw badRequest(`params/email "${value}" is not a valid email address`);
	return email;
}
