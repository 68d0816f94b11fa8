export interface EmailAddress {
	/** Lower-cased local@domain. */
	address: string;
	local: string;
	domain: string;
}

// Dot-atom local parts (RFC 5321) and a plus tag; quoted local parts are not accepted as inboxes.
const LOCAL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** Validates and lower-cases an inbox address; null when it is not one we can hold mail for. */
export function parseEmailAddress(input: string): EmailAddress | null {
	if (input.length > 254) return null;
	const address = input.trim().toLowerCase();
	const at = address.lastIndexOf('@');
	if (at < 1) return null;
	const local = address.slice(0, at);
	const domain = address.slice(at + 1);
	if (local.length > 64 || !LOCAL.test(local)) return null;
	if (!isDomain(domain)) return null;
	return { address, local, domain };
}

export function isDomain(domain: string): boolean {
	const labels = domain.split('.');
	return domain.length <= 253 && labels.length >= 1 && labels.every((label) => LABEL.test(label));
}
