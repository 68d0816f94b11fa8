import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ErrorBody } from 'mailroom-server/dist/schemas/error';
import type { ForwardingRecord } from 'mailroom-server/dist/schemas/address';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { enc, sendMail } from '../../helpers/messages';

/** What the API does with request bodies: JSON only, and an empty body is no body whatever its Content-Type. */
describe('request bodies', () => {
	const inbox = 'bodies@request-bodies.test';
	let server: TestMailroom;
	let account: { id: string; key: string };
	let messageId: string;

	/** A request with exactly these headers and body (fetch adds no Content-Type to bytes). */
	const send = async (method: string, path: string, body: Buffer | string, headers: Record<string, string> = {}) => {
		const response = await fetch(`${server.httpUrl}${path}`, { method, body, headers: { 'Service-Key': account.key, ...headers } });
		return { status: response.status, body: await response.json() };
	};
	const messagePath = (suffix: string) => `/api/addresses/${enc(inbox)}/messages/${messageId}${suffix}`;

	beforeAll(async () => {
		server = await startTestMailroom();
		account = await server.createAccount('bodies');
		[messageId] = await sendMail(server, { to: inbox });
	});
	afterAll(() => server.stop());

	it.each(['application/x-www-form-urlencoded', 'application/json', 'text/plain', 'application/octet-stream'])(
		'takes a bodiless PUT sent with Content-Type %s (as Mailsac clients send them)',
		async (contentType) => {
			const headers = { 'Content-Type': contentType };
			expect(await send('PUT', messagePath('/labels/seen'), '', headers)).toEqual({
				status: 200,
				body: { _id: messageId, labels: ['seen'] },
			});
			expect(await send('PUT', messagePath('/read/true'), '', headers)).toEqual({ status: 200, body: { _id: messageId, read: true } });
			expect(await send('PUT', messagePath('/star/true'), '', headers)).toMatchObject({ status: 200, body: { savedBy: account.id } });
		},
	);

	it('takes an empty JSON body where the body is optional, and says the body is required where it is not', async () => {
		const headers = { 'Content-Type': 'application/json' };
		const reserved = await send('POST', `/api/addresses/${enc('empty@request-bodies.test')}`, '', headers);
		expect(reserved).toMatchObject({ status: 200, body: { _id: 'empty@request-bodies.test' } satisfies Partial<ForwardingRecord> });
		expect(await send('PUT', `/api/addresses/${enc('empty@request-bodies.test')}`, '', headers)).toEqual({
			status: 400,
			body: { error: 'Bad Request', message: 'A body is required: send a JSON object, with Content-Type: application/json' },
		});
	});

	it.each([
		['text/plain', 'The request body is text/plain: send JSON, with Content-Type: application/json'],
		['text/plain; charset=utf-8', 'The request body is text/plain: send JSON, with Content-Type: application/json'],
		[
			'application/x-www-form-urlencoded',
			'The request body is application/x-www-form-urlencoded: send JSON, with Content-Type: application/json',
		],
		[undefined, 'The request body has no Content-Type: send JSON, with Content-Type: application/json'],
	])('refuses a body sent as %s with 415, saying to send application/json', async (contentType, message) => {
		const headers: Record<string, string> = contentType ? { 'Content-Type': contentType } : {};
		const body = Buffer.from(JSON.stringify({ webhook: null }));
		const answer = await send('PUT', `/api/addresses/${enc('empty@request-bodies.test')}`, body, headers);
		expect(answer).toEqual({ status: 415, body: { error: 'Unsupported Media Type', message } satisfies ErrorBody });
	});

	it('reads JSON with a charset, and refuses JSON that does not parse with 400', async () => {
		const path = `/api/addresses/${enc('empty@request-bodies.test')}`;
		const headers = { 'Content-Type': 'application/json; charset=utf-8' };
		expect(await send('PUT', path, JSON.stringify({ info: 'noted' }), headers)).toMatchObject({ status: 200, body: { info: 'noted' } });
		expect(await send('PUT', path, '{"info":', headers)).toMatchObject({ status: 400, body: { error: 'Bad Request' } });
	});

	it('reads a body of a megabyte or more (its bytes, then its text, then its value) as it reads a small one', async () => {
		const headers = { 'Content-Type': 'application/json' };
		const large = (fields: Record<string, unknown>) => JSON.stringify({ from: inbox, to: inbox, text: 'ü'.repeat(600_000), ...fields });
		// Read, parsed and validated whole: an unknown field is named, as in a small body.
		expect(await send('POST', '/api/outgoing-messages', large({ txet: 'typo' }), headers)).toMatchObject({
			status: 400,
			body: { message: expect.stringMatching(/txet/) },
		});
		expect(await send('POST', '/api/outgoing-messages', `${large({})}}`, headers)).toMatchObject({
			status: 400,
			body: { message: expect.stringMatching(/JSON/) },
		});
		// Over a route's limit without a declared length (chunked): refused once that many bytes have come.
		const chunked = new ReadableStream({
			start(controller) {
				for (let i = 0; i < 3; i++) controller.enqueue(new TextEncoder().encode(' '.repeat(512 * 1024)));
				controller.close();
			},
		});
		const response = await fetch(`${server.httpUrl}/api/addresses/${enc(inbox)}`, {
			...{ method: 'PUT', body: chunked, duplex: 'half' },
			headers: { 'Service-Key': account.key, ...headers },
		});
		expect({ status: response.status, body: await response.json() }).toEqual({
			status: 413,
			body: { error: 'Payload Too Large', message: `The request body is larger than ${1024 * 1024} bytes, the most this endpoint reads` },
		});
	});
});
