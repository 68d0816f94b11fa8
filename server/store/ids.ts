import { randomBytes } from 'node:crypto';

/** A random URL-safe identifier: 16 characters, 96 bits. */
export function newId(): string {
	return randomBytes(12).toString('base64url');
}

export const ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

export function nowIso(): string {
	return new Date().toISOString();
}
