import { randomBytes } from 'node:crypto';

const ID_BYTES = 12;
// Random bytes are drawn for 1024 ids at a time: one call into the CSPRNG per id costs more than the rest of making it.
let pool = Buffer.alloc(0);
let offset = 0;

/** A random URL-safe identifier: 16 characters, 96 bits. */
export function newId(): string {
	if (offset + ID_BYTES > pool.length) {
		pool = randomBytes(ID_BYTES * 1024);
		offset = 0;
	}
	offset += ID_BYTES;
	return pool.toString('base64url', offset - ID_BYTES, offset);
}

export const ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

export function nowIso(): string {
	return new Date().toISOString();
}
