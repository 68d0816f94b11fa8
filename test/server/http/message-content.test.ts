import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { sendMail } from '../../helpers/messages';
import { SpoolingPair } from '../../helpers/spooling-pair';
import { readWhileDeleted } from '../../helpers/deleted-while-read';
import { sanitizeMailHtml } from 'mailroom-server/dist/http/render/html-body';

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
		const grouped = await server.api(`/api/addresses/${inbox}/messages/${htmlId}/headers`);
		expect(grouped.status).toBe(200);
		expect(grouped.body['x-repeated']).toEqual(['one', 'two']);
		expect(grouped.body.subject).toEqual(['HTML mail']);
		const ordered = await server.api(`/api/addresses/${inbox}/messages/${htmlId}/headers?messageHeadersFormat=json-ordered`);
		expect(ordered.body.filter((h: { name: string }) => h.name === 'x-repeated')).toEqual([
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

	it('GET body sanitises off the event loop: a request made while a large body is sanitised is answered first', async () => {
		const html = `<html><body>${`<p onclick="steal()">Line <b>bold</b> <a href="https://example.test/">a link</a><script>x()</script></p>\n`.repeat(40_000)}</body></html>`;
		const [bigId] = await sendMail(server, { to: inbox, subject: 'Large HTML', html });
		const answered: string[] = [];
		// fetch resolves once the response's headers arrive: for the body, once it is sanitised.
		const body = fetch(`${server.httpUrl}/api/body/${inbox}/${bigId}`).then((response) => (answered.push('body'), response));
		// Sanitising 4 MB takes hundreds of milliseconds; this request comes in while it runs.
		await new Promise((resolve) => setTimeout(resolve, 100));
		const count = await fetch(`${server.httpUrl}/api/addresses/${inbox}/message-count`).then(
			(response) => (answered.push('count'), response),
		);
		const sanitised = await body;
		expect(count.status).toBe(200);
		expect(answered).toEqual(['count', 'body']);
		expect(sanitised.status).toBe(200);
		const text = await sanitised.text();
		expect(text).toBe(sanitizeMailHtml(html, { remoteImages: false }));
		expect(text).not.toContain('<script');
	});
});

describe('GET /api/dirty of a large message (its bodies stored in pieces)', () => {
	let pair: SpoolingPair;
	beforeAll(async () => {
		pair = await SpoolingPair.start();
	});
	afterAll(() => pair.stop());

	// Multi-byte characters on every line, so the 1 MB pieces cut through them; about 2 MB in all.
	const lines = (line: (i: number) => string) => Array.from({ length: 50_000 }, (_, i) => line(i)).join('');

	it('streams the HTML as stored, the same bytes and headers as the same message kept in memory', async () => {
		const html = `<html><body>${lines((i) => `<p>Zürich 😀 “line” ${i} &amp; <b onclick="x()">bold</b></p>\n`)}</body></html>`;
		const ids = await pair.send({ to: 'large@example.test', subject: 'large HTML', html, text: 'small text' });
		expect(pair.bodyPieces(ids[0], 'html')).toBeGreaterThan(1);
		const response = await pair.sameResponse(ids, (id) => `/api/dirty/large@example.test/${id}`);
		expect(response.status).toBe(200);
		expect(response.contentType).toBe('text/html; charset=utf-8');
		expect(response.bytes.toString()).toBe(html);
	});

	it('streams the page made for a large text without an HTML part, escaped as for a small one', async () => {
		const text = lines((i) => `Zürich 😀 “line” ${i} & <b> "quoted"\n`);
		const ids = await pair.send({ to: 'large@example.test', subject: 'large text', text });
		expect(pair.bodyPieces(ids[0], 'text')).toBeGreaterThan(1);
		const response = await pair.sameResponse(ids, (id) => `/api/dirty/large@example.test/${id}`);
		expect(response.status).toBe(200);
		expect(response.contentType).toBe('text/html; charset=utf-8');
		const page = response.bytes.toString();
		expect(page.startsWith('<!DOCTYPE html>')).toBe(true);
		expect(page).toContain('Zürich 😀 “line” 49999 &amp; &lt;b&gt; &quot;quoted&quot;\n');
	});
});

describe('GET /api/dirty of a large message deleted while its HTML streams', () => {
	let server: TestMailroom;
	beforeAll(async () => {
		server = await startTestMailroom();
	});
	afterAll(() => server.stop());

	it('cuts the connection short of the Content-Length, so the client sees an incomplete body, and serves on', async () => {
		// 16 MB: more than the kernel's socket buffers hold, so most pieces are still to be read when the message goes.
		const html = `<html><body>${`<p>${'x'.repeat(92)}</p>\n`.repeat(160_000)}</body></html>`;
		const [id] = await sendMail(server, { to: 'deleted@example.test', html, text: 'small text' });
		const cut = await readWhileDeleted(server, `/api/dirty/deleted@example.test/${id}`, 'deleted@example.test', id);
		expect(cut.status).toBe(200);
		expect(cut.contentLength).toBe(Buffer.byteLength(html));
		expect(cut.complete).toBe(false);
		expect(cut.received).toBeLessThan(cut.contentLength);
		expect((await server.api(`/api/dirty/deleted@example.test/${id}`)).status).toBe(404);
		expect((await server.api('/api/addresses/deleted@example.test/message-count')).body.count).toBe(0);
	});
});
