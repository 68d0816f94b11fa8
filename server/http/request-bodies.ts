import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './errors';
import { readJsonBody } from './json-body';

/** Whether the request says it carries no body at all (Content-Length 0, or neither a length nor chunks). */
function declaresNoBody(request: FastifyRequest): boolean {
	const { 'content-length': length, 'transfer-encoding': chunked } = request.headers;
	return length === '0' || (length === undefined && chunked === undefined);
}

const unsupportedMediaType = (contentType: string | undefined) =>
	new HttpError(
		415,
		contentType
			? `The request body is ${contentType.split(';')[0]}: send JSON, with Content-Type: application/json`
			: 'The request body has no Content-Type: send JSON, with Content-Type: application/json',
	);

/**
 * The API reads JSON bodies only, and an empty body as no body whatever its Content-Type says: Mailsac's own client sends
 * its bodiless PUTs and POSTs (labels, folder, read, star) with `Content-Type: application/x-www-form-urlencoded` or
 * `application/json` and nothing after it. A non-empty body of another type is refused with 415, saying what to send.
 * Routes whose body is required still say so (schema validation of the missing body).
 */
export function registerBodyParsers(app: FastifyInstance): void {
	const parseJson = app.getDefaultJsonParser('error', 'error');
	app.removeAllContentTypeParsers(); // JSON and Fastify's text/plain; only JSON comes back
	// Fastify's checks of the JSON (prototype poisoning refused), as a function of the text.
	const parse = (request: FastifyRequest) => (text: string) => {
		if (text === '') return undefined;
		let parsed: { err: Error | null; value: unknown } | undefined;
		void parseJson(request, text, (err, value) => (parsed = { err, value })); // it calls back at once
		if (parsed!.err) throw parsed!.err;
		return parsed!.value;
	};
	// Read as readJsonBody does: a large body (a send's) never whole in memory as bytes, text and value at once.
	app.addContentTypeParser('application/json', (request: FastifyRequest, payload: NodeJS.ReadableStream) =>
		readJsonBody(request, payload, parse(request)),
	);
	// Any other type, or none: read nothing, so a large body of the wrong type costs nothing to refuse.
	app.addContentTypeParser('*', (request, _payload, done) => {
		if (declaresNoBody(request)) done(null, undefined);
		else done(unsupportedMediaType(request.headers['content-type']), undefined);
	});
}
