import Type from 'typebox';
import type { ThreadCursor, ThreadEntry } from '../../store/store';
import type { HttpApp, HttpDeps } from '../http-deps';
import { notFound } from '../errors';
import { IdParam, errorResponses } from '../schemas';
import { MAX_THREAD_PAGE, ThreadQuerySchema, ThreadSchema, type Thread } from '../../schemas/thread';
import { refTo } from '../../schemas/shared';

/** An entry's place in the thread's order, as `next` writes it: `<epoch ms>.<r|s><seq>`. */
const cursorOf = ({ place }: ThreadEntry): string => `${place.time}.${place.type === 'received' ? 'r' : 's'}${place.seq}`;

const parseCursor = (after: string): ThreadCursor => {
	const [time, place] = after.split('.');
	return { time: Number(time), type: place[0] === 'r' ? 'received' : 'sent', seq: Number(place.slice(1)) };
};

/** Whether the caller may read a message of the thread: received mail as its inbox allows now, sent mail its account only. */
const readableBy = (account: string | null) => (entry: ThreadEntry) =>
	entry.type === 'received' ? entry.owner === null || entry.owner === account : entry.account === account;

export function threadRoutes(app: HttpApp, { threads }: HttpDeps): void {
	app.get(
		'/api/threads/:threadId',
		{
			schema: {
				summary: `A conversation: its received and sent messages, oldest first (${MAX_THREAD_PAGE} a page at most)`,
				description:
					"The thread of a message is its record's threadId (received and sent mail alike). A thread of your account's mail " +
					"needs your key; another account's answers 404, as an unknown thread does. A thread of public inboxes is open to all. " +
					'Only the messages the key may read are listed, so a page may hold fewer than `limit`; `next` is null on the last page.',
				params: Type.Object({ threadId: IdParam('thread') }),
				querystring: ThreadQuerySchema,
				response: { 200: refTo(ThreadSchema), ...errorResponses(400, 401, 404, 429) },
			},
		},
		async (request): Promise<Thread> => {
			const { threadId } = request.params;
			const account = request.account?.id ?? null;
			const scope = await threads.scopeOf(threadId);
			if (!scope || (scope.account !== null && scope.account !== account)) {
				throw notFound(`No thread ${threadId} (a thread of private mail is found with its owner's key only)`);
			}
			const { limit, after } = request.query;
			// One more than the page, to tell whether another follows.
			const entries = await threads.page(threadId, limit + 1, after === undefined ? undefined : parseCursor(after));
			const page = entries.slice(0, limit);
			return {
				threadId,
				messages: page.filter(readableBy(account)).map((entry) => ({ type: entry.type, ...entry.record }) as Thread['messages'][number]),
				next: entries.length > limit ? cursorOf(page[page.length - 1]) : null,
			};
		},
	);
}
