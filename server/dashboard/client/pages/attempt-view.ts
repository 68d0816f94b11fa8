import type { WebhookAttemptDetail } from '../api.js';
import { formatBytes, formatTime, h, table, type Child } from '../dom.js';

type Logged = { headers: { name: string; value: string }[]; body: string; bodyBytes: number; bodyTruncated: boolean };

/** A logged body, with a note when only its start was kept. */
function loggedBody(part: Logged): Child[] {
	return [
		part.bodyTruncated &&
			h(
				'p',
				{ class: 'notice' },
				`The body was ${formatBytes(part.bodyBytes)}; only its first ${formatBytes(new TextEncoder().encode(part.body).length)} were kept and are shown.`,
			),
		part.bodyBytes === 0 ? h('p', { class: 'hint' }, 'Empty body.') : h('pre', { class: 'raw exchange-body' }, part.body),
	];
}

/** One webhook attempt: the request it sent (headers, body) and the response it got, as GET /api/webhook-attempts/:id has them. */
export function attemptView(detail: WebhookAttemptDetail): Node {
	const { request, response } = detail;
	return h(
		'div',
		{},
		h(
			'p',
			{},
			`Attempt ${detail.attempt} at ${formatTime(detail.time)}: ${detail.status}${detail.error ? ` (${detail.error})` : ''}, ${detail.durationMs} ms.`,
		),
		h('h3', {}, 'Request'),
		request
			? [
					h('p', {}, h('code', {}, `${request.method} ${request.url}`)),
					table(
						'Request headers',
						['Name', 'Value'],
						request.headers.map(({ name, value }) => [name, value]),
					),
					...loggedBody(request),
				]
			: h('p', {}, 'Nothing was sent (the target was refused, or the message was gone), or the attempt is older than request logging.'),
		h('h3', {}, 'Response'),
		response
			? [
					h('p', {}, h('code', {}, `HTTP ${response.statusCode}`)),
					table(
						'Response headers',
						['Name', 'Value'],
						response.headers.map(({ name, value }) => [name, value]),
					),
					...loggedBody(response),
				]
			: h('p', {}, 'No response came.'),
	);
}
