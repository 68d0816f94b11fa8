import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sanitizeMailHtml } from 'mailroom-server/dist/http/render/html-body';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { sendMail } from '../../../helpers/messages';

describe('HtmlSanitizer: GET /api/body sanitises on a thread of its own', () => {
	let server: TestMailroom;
	const inbox = 'content@example.test';

	beforeAll(async () => {
		server = await startTestMailroom();
	});
	afterAll(() => server.stop());

	it('GET body sanitises off the event loop: a request made while a large body is sanitised is answered first', async () => {
		const html = `<html><body>${`<p onclick="steal()">Line <b>bold</b> <a href="https://example.test/">a link</a><script>x()</script></p>\n`.repeat(120_000)}</body></html>`;
		const [bigId] = await sendMail(server, { to: inbox, subject: 'Large HTML', html });
		const answered: string[] = [];
		// fetch resolves once the response's headers arrive: for the body, once it is sanitised.
		const body = fetch(`${server.httpUrl}/api/body/${inbox}/${bigId}`).then((response) => (answered.push('body'), response));
		// Sanitising 12 MB takes seconds; this request comes in while it runs, even on a loaded machine.
		await new Promise((resolve) => setTimeout(resolve, 300));
		const count = await fetch(`${server.httpUrl}/api/addresses/${inbox}/message-count`).then(
			(response) => (answered.push('count'), response),
		);
		const sanitised = await body;
		expect(count.status).toBe(200);
		expect(answered).toEqual(['count', 'body']);
		expect(sanitised.status).toBe(200);
		const text = await sanitised.text();
		expect(text).toBe(sanitizeMailHtml(html, { remoteImages: false }).html);
		expect(text).not.toContain('<script');
		// 12 MB through SMTP, the parser and the sanitiser twice (the server's and this comparison): seconds each when shared.
	}, 90_000);
});
