import type { HttpApp, HttpDeps } from '../http-deps';
import { requireAccount } from '../auth';
import { accessibleInbox, messageNotFound } from '../inbox-access';
import { MessageParams, errorResponses } from '../schemas';
import { LinkChecker, MAX_CHECKED_LINKS } from '../link-checker';
import { LinkCheckSchema } from '../../schemas/link-check';
import { refTo } from '../../schemas/shared';

/** GET …/link-check: whether each link of a message answers, checked by the server when asked. */
export function linkCheckRoutes(app: HttpApp, { addresses, messages, webhooks }: HttpDeps): void {
	const checker = new LinkChecker({ policy: webhooks.targets });
	app.addHook('onClose', (_app, done) => {
		checker.close();
		done();
	});

	app.get(
		'/api/addresses/:email/messages/:messageId/link-check',
		{
			schema: {
				summary: "Check whether each of a message's links answers (HEAD, else GET; redirects followed), under the webhooks' SSRF policy",
				description:
					`Needs a key: the server makes the requests, reaching only what a webhook of your account could (private and loopback ` +
					`addresses only as the SSRF policy allows, on every redirect too). The first ${MAX_CHECKED_LINKS} distinct links are ` +
					'checked, 8 requests at a time server-wide, each link within 5 s; bodies are never read. The answer is kept for a minute.',
				params: MessageParams,
				response: { 200: refTo(LinkCheckSchema), ...errorResponses(400, 401, 403, 404, 429) },
			},
		},
		async (request) => {
			const account = requireAccount(request);
			const { address } = await accessibleInbox(request, addresses, request.params.email);
			const record = await messages.get(address, request.params.messageId);
			if (!record) throw messageNotFound(address, request.params.messageId);
			const report = await checker.check(record._id, record.links, { isAdmin: account.isAdmin });
			return { _id: record._id, ...report };
		},
	);
}
