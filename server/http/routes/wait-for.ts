import type { HttpApp, HttpDeps } from '../http-deps';
import { callerOf } from '../auth';
import { HttpError, badRequest } from '../errors';
import { accessibleInbox } from '../inbox-access';
import { EmailParams, errorResponses } from '../schemas';
import { MessageSchema } from '../../schemas/message';
import { refTo } from '../../schemas/shared';
import { MAX_WAIT_MS, WaitForQuerySchema, type WaitForQuery } from '../../schemas/wait-for';
import { MAX_WAITERS, MAX_WAITERS_PER_CALLER } from '../../waiting/mail-waiters';

const duration = (ms: number) => (ms < 1000 ? `${ms} ms` : `${ms / 1000} s`);

/** The 408 message: what was waited for, where, and for how long. */
function nothingArrived(inbox: string, { from, subject, text, since, timeout }: WaitForQuery): string {
	const filters = Object.entries({ from, subject, text })
		.filter(([, value]) => value !== undefined)
		.map(([name, value]) => `${name} ${JSON.stringify(value)}`);
	const looked = since === undefined ? '' : ` (looking at mail received since ${since})`;
	return `No message${filters.length ? ` ${filters.join(', ')}` : ''} arrived at ${inbox} within ${duration(timeout)}${looked}`;
}

/** GET /api/addresses/:email/wait-for-message: a long poll answered by the next (or an already stored) matching message. */
export function waitForRoutes(app: HttpApp, { addresses, waiters }: HttpDeps): void {
	app.get(
		'/api/addresses/:email/wait-for-message',
		{
			schema: {
				summary: 'Wait for a message: the oldest one received since `since` that matches the filters, as soon as it is stored',
				description:
					'A long poll: answers 200 with the message record (as GET /api/addresses/{email}/messages/{messageId} does) as soon as a ' +
					'matching message is stored, or at once when one received at or after `since` is stored already (the oldest such). ' +
					`Filters are case-insensitive substrings; every one given must match. After \`timeout\` ms (default 30000, at most ${MAX_WAIT_MS}) ` +
					'it answers 408 naming the filters. Open to the same callers as the inbox listing: anyone for a public address, only ' +
					"its owner's key for a private one. Unknown query parameters are refused (400), so a misspelt filter is noticed. " +
					`At most ${MAX_WAITERS_PER_CALLER} requests of one caller (API key, else IP) wait at once (429 beyond), ${MAX_WAITERS} ` +
					'in all (503 beyond); each counts once against the rate limit. A shutdown ends waits with 503.',
				params: EmailParams,
				querystring: WaitForQuerySchema,
				response: { 200: refTo(MessageSchema), ...errorResponses(400, 401, 403, 408, 429, 503) },
			},
		},
		async (request, reply) => {
			const arrived = Date.now();
			const { address } = await accessibleInbox(request, addresses, request.params.email);
			const { from, subject, text, since, timeout } = request.query;
			// The format allows what Date cannot represent (a leap second, 23:59:60).
			const sinceMs = since === undefined ? arrived : Date.parse(since);
			if (Number.isNaN(sinceMs)) throw badRequest(`since "${since}" is not a time Mailroom can compare with`, 'since');
			const outcome = await waiters.wait(
				{ inbox: address, since: sinceMs, filter: { from, subject, text }, timeout, caller: callerOf(request) },
				// Aborted when the client closes the connection: its waiter goes at once.
				request.signal,
			);
			switch (outcome.kind) {
				case 'found':
					return outcome.message;
				case 'timeout':
					throw new HttpError(408, nothingArrived(address, request.query));
				case 'gone':
					// Nobody is left to answer.
					return reply.hijack();
				case 'closing':
					throw new HttpError(503, 'The server is shutting down: ask again once it is back');
				case 'full':
					throw outcome.of === 'caller'
						? new HttpError(
								429,
								`You have ${outcome.limit} requests waiting for mail already, the most one caller may: wait for one to end`,
							)
						: new HttpError(
								503,
								`${outcome.limit} requests are waiting for mail on this server already, the most it takes: try again shortly`,
							);
				case 'failed':
					throw outcome.error;
			}
		},
	);
}
