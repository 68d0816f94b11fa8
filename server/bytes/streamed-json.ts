import { randomBytes } from 'node:crypto';
import { holdingBack, isHighSurrogate, type AnyIterable } from './text-pieces';

/** A string value too large to hold whole: its pieces, produced afresh each time they are asked for. */
export class StreamedString {
	constructor(readonly pieces: () => AnyIterable<string>) {}
}

/** The inside of a JSON string given in pieces; a surrogate pair cut between pieces is encoded as the pair it is. */
async function* jsonStringContent(pieces: AnyIterable<string>): AsyncGenerator<string> {
	for await (const piece of holdingBack(pieces, isHighSurrogate)) yield JSON.stringify(piece).slice(1, -1);
}

/**
 * The JSON text of `value` a piece at a time: exactly what JSON.stringify gives, but each StreamedString in it is
 * encoded one of its pieces at a time, so it is never whole in memory.
 */
export async function* jsonPieces(value: unknown): AsyncGenerator<string> {
	const streamed: StreamedString[] = [];
	// Stands in for a streamed value: no other string can hold it, for it has a NUL and a nonce made for this call.
	const nonce = randomBytes(12).toString('hex');
	const json = JSON.stringify(value, (_key, item: unknown) =>
		item instanceof StreamedString ? `\u0000${nonce}:${streamed.push(item) - 1}` : item,
	);
	let from = 0;
	for (const match of json.matchAll(new RegExp(`\\\\u0000${nonce}:(\\d+)`, 'g'))) {
		yield json.slice(from, match.index);
		yield* jsonStringContent(streamed[Number(match[1])].pieces());
		from = match.index + match[0].length;
	}
	yield json.slice(from);
}

/** jsonPieces as UTF-8 bytes, for a body sent a piece at a time. */
export async function* jsonBytes(value: unknown): AsyncGenerator<Buffer> {
	for await (const piece of jsonPieces(value)) yield Buffer.from(piece);
}
