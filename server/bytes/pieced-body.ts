/** A body up to this size keeps its pieces after they are measured; a larger one makes them again for each pass. */
const KEEP_BYTES = 1024 * 1024;
/** Measuring a large body lets the event loop run after each this many bytes (a 50 MB payload takes some 300 ms to make). */
const YIELD_BYTES = 1024 * 1024;

/** A body (of a request or a response) made of pieces, with its length: a large one is made afresh for each pass, so it is never whole in memory. */
export interface PiecedBody {
	length: number;
	pieces: () => Iterable<Buffer> | AsyncIterable<Buffer>;
}

/** Measures the pieces `make` gives, in one pass, showing each to `see` (to sign them, say) on the way. */
export async function piecedBody(make: () => Iterable<Buffer> | AsyncIterable<Buffer>, see?: (piece: Buffer) => void): Promise<PiecedBody> {
	let length = 0;
	let kept: Buffer[] | null = [];
	let sinceYield = 0;
	for await (const piece of make()) {
		see?.(piece);
		length += piece.length;
		if (kept && length <= KEEP_BYTES) kept.push(piece);
		else kept = null;
		if ((sinceYield += piece.length) < YIELD_BYTES) continue;
		sinceYield = 0;
		await new Promise(setImmediate);
	}
	const whole = kept;
	return { length, pieces: whole ? () => whole : make };
}
