import type { FastifyRequest } from 'fastify';
import { errorCodes } from 'fastify';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { collectGarbage, countLargeMessageBytes } from '../bytes/garbage';

/**
 * A body of this size or more is read as a large one: into one buffer of its declared length, then decoded, then parsed,
 * with the garbage of each stage collected before the next. Read as usual (its chunks, their join, the text, the value,
 * all alive until V8 collected), a 24 MB send held four times its size before the route saw it.
 */
export const LARGE_BODY = 1024 * 1024;

/**
 * Reads a JSON request body within its route's limit (413 past it, as Fastify says it) and parses it with `parse`: the
 * bytes go as they arrive, the text once its value is made.
 */
export async function readJsonBody(
	request: FastifyRequest,
	payload: NodeJS.ReadableStream,
	parse: (text: string) => unknown,
): Promise<unknown> {
	const limit = request.routeOptions.bodyLimit ?? Infinity;
	const declared = request.headers['content-length'] === undefined ? undefined : Number(request.headers['content-length']);
	if (declared !== undefined && declared > limit) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
	const large = declared !== undefined && declared >= LARGE_BODY;
	// Each stage's input let go of (held nowhere else) and collected before the next: at most two of bytes, text and value
	// at once.
	const stages: { read?: { bytes: Buffer; received: number }; text?: string } = {
		read: await readBytes(payload, limit, large ? declared : undefined),
	};
	if (declared !== undefined && !Number.isNaN(declared) && stages.read!.received !== declared) {
		throw new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH();
	}
	stages.text = stages.read!.bytes.toString('utf8');
	stages.read = undefined;
	if (!large) return parse(stages.text);
	await nextTurn(); // the reading's closures are gone by then
	collectGarbage();
	const value = parse(stages.text);
	stages.text = undefined;
	collectGarbage();
	return value;
}

/**
 * The body's bytes, and how many arrived. With `size` declared (a large body), copied as they arrive into one buffer of
 * that size (its pages take memory only once written), the chunks left to the collection every few MB
 * (countLargeMessageBytes); else kept as chunks and joined.
 */
function readBytes(payload: NodeJS.ReadableStream, limit: number, size: number | undefined): Promise<{ bytes: Buffer; received: number }> {
	return new Promise((resolve, reject) => {
		const whole = size === undefined ? undefined : Buffer.allocUnsafe(size);
		const chunks: Buffer[] = [];
		let received = 0;
		const stop = (err?: Error) => {
			payload.removeListener('data', onData);
			payload.removeListener('end', onEnd);
			payload.removeListener('error', onError);
			if (err) reject(err);
		};
		const onData = (chunk: Buffer | string) => {
			const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			if (received + bytes.length > limit) return stop(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
			// More than declared: not kept; the length check after the end refuses the body.
			if (whole) {
				if (received + bytes.length <= whole.length) bytes.copy(whole, received);
				countLargeMessageBytes(bytes.length);
			} else chunks.push(bytes);
			received += bytes.length;
		};
		const onEnd = () => {
			stop();
			resolve({ bytes: whole ?? (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received)), received });
		};
		const onError = (err: Error & { statusCode?: number }) => {
			if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
			stop(err);
		};
		payload.on('data', onData);
		payload.on('end', onEnd);
		payload.on('error', onError);
		payload.resume();
	});
}
