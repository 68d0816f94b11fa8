import type { AddressObject } from '../schemas/message';

/** How filters on mail match text (webhook subscriptions, waiting for mail): a substring, case-insensitive in any script. */
export const containsIgnoringCase = (text: string, part: string): boolean => text.toLowerCase().includes(part.toLowerCase());

/** A filter's `from`: some sender's address or display name contains `part`. */
export const sentBy = (senders: AddressObject[], part: string): boolean =>
	senders.some((sender) => containsIgnoringCase(sender.address, part) || containsIgnoringCase(sender.name, part));
