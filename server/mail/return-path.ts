import { randomBytes } from 'node:crypto';

/** The local part of every return path: bounces+<token>. */
const PREFIX = 'bounces+';
/** Lower-case letters and digits only: a return path survives servers that change the case of addresses. */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const TOKEN_LENGTH = 20;
const TOKEN = new RegExp(`^${PREFIX.replace('+', '\\+')}([${ALPHABET}]{${TOKEN_LENGTH}})@(.+)$`, 'i');

/** A fresh token: 100 random bits, so a bounce cannot be forged for a message by guessing its return path. */
function newToken(): string {
	const bytes = randomBytes(TOKEN_LENGTH);
	let token = '';
	for (const byte of bytes) token += ALPHABET[byte & 31];
	return token;
}

/**
 * The envelope sender of one recipient's copy of a sent message (VERP): bounces+<token>@<domain>, the token naming the
 * message and the recipient, so a delivery report sent back to it is matched without reading the report's guesses.
 */
export const newReturnPath = (domain: string) => `${PREFIX}${newToken()}@${domain}`;

/** The token of a return path of `domain`, or undefined when `address` is none. */
export function returnPathToken(address: string, domain?: string): string | undefined {
	const match = TOKEN.exec(address);
	if (!match || (domain !== undefined && match[2].toLowerCase() !== domain.toLowerCase())) return undefined;
	return match[1].toLowerCase();
}

/** The recipient a return path was made for, and the message it was sent in. */
export interface ReturnPathOwner {
	outgoingId: string;
	accountId: string;
	/** The recipient. */
	address: string;
	/** The sent message's sender: where its reports are kept, as mail. */
	from: string;
}
