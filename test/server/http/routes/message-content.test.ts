import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { sendMail } from '../../../helpers/messages';

const HOSTILE_HTML = `<html><head><script>steal()</script><style>body{background:url(https://tracker.test/css.png)}</style></head>
<body onload="steal()"><h1 onclick="steal()">Hello</h1>
<img src="https://tracker.test/pixel.png" onerror="steal()" alt="pixel">
<img src="data:image/png;base64,iVBORw0KGgo=" alt="inline">
<a href="javascript:steal()">bad link</a> <a href="https://example.test/ok">good link</a>
<iframe src="https://evil.test"></iframe><form action="https://evil.test"><input name="x"></form>
<svg><script>steal()</script></svg></body></html>`;

describe('message content: raw, headers, sanitised and dirty HTML', () => {
	let server: TestMailroom;
	let htmlId: string;
	let textId: string;
	const inbox = 'content@example.test';

	beforeAll(async () => {
		server = await startTestMailroom();
		[htmlId] = await sendMail(server, {
			to: inbox,
			subject: 'HTML mail',
			html: HOSTILE_HTML,
			text: 'plain',
			headers: { 'X-Repeated': ['one', 'two'] },
		});
		[textId] = await sendMail(server, { to: inbox, subject: 'Text only', text: 'a <b> & "c"' });
	});
	afterAll(() => server.stop());

	it('GET raw returns the message as received, as message/rfc822', async () => {
		const response = await server.api(`/api/raw/${inbox}/${htmlId}`);
		expect(response.status).toBe(200);
		expect(response.headers.get('content-type')).toBe('message/rfc822');
		expect(response.text).toMatch(/^Subject: HTML mail\r?$/m);
		expect(response.text).toContain('steal()');
		expect(response.headers.get('content-disposition')).toBeNull();
		const download = await server.api(`/api/raw/${inbox}/${htmlId}?download=1`);
		expect(download.headers.get('content-disposition')).toBe(`attachment; filename="${htmlId}.eml"`);
		expect(download.text).toBe(response.text);
		expect((await server.api(`/api/raw/${inbox}/${htmlId}?download=2`)).status).toBe(400);
	});

	it('GET headers: grouped JSON by default, ordered JSON, plain text', async () => {
		const grouped = await server.api<Record<string, string[]>>(`/api/addresses/${inbox}/messages/${htmlId}/headers`);
		expect(grouped.status).toBe(200);
		expect(grouped.body['x-repeated']).toEqual(['one', 'two']);
		expect(grouped.body.subject).toEqual(['HTML mail']);
		const ordered = await server.api<{ name: string; value: string }[]>(
			`/api/addresses/${inbox}/messages/${htmlId}/headers?messageHeadersFormat=json-ordered`,
		);
		expect(ordered.body.filter((h) => h.name === 'x-repeated')).toEqual([
			{ name: 'x-repeated', value: 'one' },
			{ name: 'x-repeated', value: 'two' },
		]);
		const plain = await server.api(`/api/addresses/${inbox}/messages/${htmlId}/headers?format=plain`);
		expect(plain.headers.get('content-type')).toMatch(/^text\/plain/);
		expect(plain.text).toMatch(/^subject: HTML mail\r$/m);
		const download = await server.api(`/api/addresses/${inbox}/messages/${htmlId}/headers?download=1`);
		expect(download.headers.get('content-type')).toMatch(/^text\/plain/);
		expect(download.headers.get('content-disposition')).toMatch(/^attachment/);
		expect(download.text).toBe(plain.text);
		expect((await server.api(`/api/addresses/${inbox}/messages/${htmlId}/headers?format=xml`)).status).toBe(400);
	});

	it('GET body strips scripts, event handlers, frames, forms and remote images', async () => {
		const response = await server.api(`/api/body/${inbox}/${htmlId}`);
		expect(response.status).toBe(200);
		expect(response.headers.get('content-type')).toMatch(/^text\/html/);
		expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'; img-src data:;/);
		const body = response.text;
		expect(body).toContain('<h1>Hello</h1>');
		expect(body).not.toMatch(/<script|<style|<iframe|<form|<input|<svg/i);
		expect(body).not.toMatch(/\son\w+=/i);
		expect(body).not.toMatch(/javascript:|steal/);
		expect(body).not.toContain('tracker.test');
		expect(body).toContain('src="data:image/png;base64,iVBORw0KGgo="');
		expect(body).toContain('href="https://example.test/ok"');
		expect(body).toContain('rel="noopener noreferrer nofollow"');
	});

	it('GET body with images=1 keeps remote images, still without handlers', async () => {
		const response = await server.api(`/api/body/${inbox}/${htmlId}?images=1`);
		expect(response.text).toContain('<img src="https://tracker.test/pixel.png" alt="pixel" />');
		expect(response.text).not.toMatch(/\son\w+=|<script/i);
		expect(response.headers.get('content-security-policy')).toMatch(/img-src data: http: https:/);
		expect((await server.api(`/api/body/${inbox}/${htmlId}?images=yes`)).status).toBe(400);
	});

	it('GET dirty returns the HTML as received, sandboxed', async () => {
		const response = await server.api(`/api/dirty/${inbox}/${htmlId}`);
		expect(response.text).toContain('<script>steal()</script>');
		expect(response.text).toContain('onload="steal()"');
		expect(response.headers.get('content-security-policy')).toBe('sandbox');
	});

	it('text-only mail gets a generated page with the text escaped', async () => {
		for (const route of ['body', 'dirty']) {
			const response = await server.api(`/api/${route}/${inbox}/${textId}`);
			expect(response.status).toBe(200);
			expect(response.text).toContain('a &lt;b&gt; &amp; &quot;c&quot;');
		}
	});
});
