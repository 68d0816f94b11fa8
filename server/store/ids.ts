import { randomBytes } from 'node:crypto';

const RANDOM_BYTES = 6;
// Random bytes are drawn for 1024 ids at a time: one call into the CSPRNG per id costs more than the rest of making it.
let pool = Buffer.alloc(0);
let offset = 0;

/** URL-safe characters in ascending byte order, so ids sort as text the way they sort as numbers. */
const SORTED_ALPHABET = Buffer.from('-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz', 'latin1');
/** Added to the time so an id never starts with "-" (a command line would take it for an option). */
const TIME_OFFSET = 2 ** 47;
const id = Buffer.alloc(12);
const text = Buffer.alloc(16);

/**
 * A URL-safe identifier, 16 characters: the creation time in ms (48 bits) then 48 random bits.
 * Ids made later sort later, so each new row lands at the end of an id index: the pages a batch
 * of inserts writes are shared instead of one random page per row.
 */
export function newId(): string {
	if (offset + RANDOM_BYTES > pool.length) {
		pool = randomBytes(RANDOM_BYTES * 1024);
		offset = 0;
	}
	id.writeUIntBE(Date.now() + TIME_OFFSET, 0, 6);
	pool.copy(id, 6, offset, offset + RANDOM_BYTES);
	offset += RANDOM_BYTES;
	// Base64's bit layout with SORTED_ALPHABET: 3 bytes become 4 characters, most significant first.
	for (let i = 0, j = 0; i < 12; i += 3, j += 4) {
		const bits = (id[i] << 16) | (id[i + 1] << 8) | id[i + 2];
		text[j] = SORTED_ALPHABET[bits >> 18];
		text[j + 1] = SORTED_ALPHABET[(bits >> 12) & 63];
		text[j + 2] = SORTED_ALPHABET[(bits >> 6) & 63];
		text[j + 3] = SORTED_ALPHABET[bits & 63];
	}
	return text.toString('latin1');
}

export const ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

export function nowIso(): string {
	return new Date().toISOString();
}
