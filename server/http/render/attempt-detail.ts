import type { StoredAttempt, BodyHead } from '../../store/store';
import type { WebhookAttemptDetail } from '../../schemas/webhook';

const headerLines = (headers: [string, string][]) => headers.map(([name, value]) => ({ name, value }));

/** A logged body as the API shows it: its start as text, its whole size, and whether it was cut. */
const loggedBody = ({ head, bytes }: BodyHead) => ({
	body: head.toString('utf8'),
	bodyBytes: bytes,
	bodyTruncated: bytes > head.length,
});

/** An attempt with what it sent and got back, as GET /api/webhook-attempts/:attemptId answers it. */
export function attemptDetail({ attempt, exchange }: StoredAttempt): WebhookAttemptDetail {
	return {
		...attempt,
		request: exchange && {
			method: 'POST',
			url: attempt.url,
			headers: headerLines(exchange.request.headers),
			...loggedBody(exchange.request.body),
		},
		// A response is logged only when one came whole, and then the attempt has its status.
		response:
			exchange?.response && attempt.statusCode !== null
				? { statusCode: attempt.statusCode, headers: headerLines(exchange.response.headers), ...loggedBody(exchange.response.body) }
				: null,
	};
}
