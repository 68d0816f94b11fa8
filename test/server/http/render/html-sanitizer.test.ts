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
		// 6 MB: about a second to sanitise on a quiet machine. Sent base64: nodemailer's quoted-printable of it would take seconds.
		const html = `<html><body>${`<p onclick="steal()">Line <b>bold</b> <a href="https://example.test/">a link</a><script>x()</script></p>\n`.repeat(60_000)}</body></html>`;
		const [bigId] = await sendMail(server, { to: inbox, subject: 'Large HTML', html, textEncoding: 'base64' });
		const answered: string[] = [];
		// fetch resolves once the response's headers arrive: for the body, once it is sanitised.
		const body = fetch(`${server.httpUrl}/api/body/${inbox}/${bigId}`).then((response) => (answered.push('body'), response));
		// Sanitising takes about a second (longer on a loaded machine); this request comes in while it runs.
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
	}, 90_000);
});
