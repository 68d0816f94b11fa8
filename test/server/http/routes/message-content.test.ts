import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestMailroom, type TestMailroom } from '../../../helpers/mailroom';
import { sendMail } from '../../../helpers/messages';
import { solidPng } from '../../../helpers/png';

/** Styled as mail is: inline, with an inline (cid:) image, a remote one, and CSS that tries to reach out. */
const STYLED_HTML = `<h1 style="color:#c00; font-family: 'Helvetica Neue', Arial; background:url(https://tracker.test/bg.png)">Deals</h1>
<img src="cid:logo@mailroom.test" alt="logo" width="40"><img src="cid:huge@mailroom.test" alt="huge"><img src="https://tracker.test/pixel.png" alt="pixel">
<p style="background-image:url('cid:logo@mailroom.test'); width: expression(alert(1)); color: blue">Inline background</p>
<p style="color:red; background: u\\rl(https://tracker.test/escaped.png)">Escaped</p>
<table width="600" cellpadding="0" bgcolor="#ffffff"><tr><td align="center" style="padding: 8px">Cell</td></tr></table>`;

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

	it('GET body blocks every spelling of a remote image a browser would fetch, not only http(s) ones', async () => {
		const spellings = [
			'//tracker.test/a.png',
			'/\\tracker.test/b.png',
			'\\\\tracker.test\\c.png',
			' HTTPS://tracker.test/d.png',
			'relative.png',
		];
		const html = `<p>hi</p>${spellings.map((src) => `<img src="${src}" alt="x">`).join('')}<img src="data:image/png;base64,iVBORw0KGgo=" alt="kept">`;
		const [id] = await sendMail(server, { to: inbox, subject: 'spellings', html });
		const response = await server.api(`/api/body/${inbox}/${id}`);
		expect(response.text).not.toMatch(/tracker|relative/);
		expect(response.text).toContain('<img src="data:image/png;base64,iVBORw0KGgo=" alt="kept" />');
		expect(response.headers.get('mailroom-remote-images-blocked')).toBe(String(spellings.length));
	});

	it('GET body with images=1 keeps remote images, still without handlers', async () => {
		const response = await server.api(`/api/body/${inbox}/${htmlId}?images=1`);
		expect(response.text).toContain('<img src="https://tracker.test/pixel.png" alt="pixel" />');
		expect(response.text).not.toMatch(/\son\w+=|<script/i);
		expect(response.headers.get('content-security-policy')).toMatch(/img-src data: http: https:/);
		expect((await server.api(`/api/body/${inbox}/${htmlId}?images=yes`)).status).toBe(400);
	});

	it('GET body keeps inline styles with their CSS checked, shows cid: images as data: URLs and counts the remote images left out', async () => {
		const logo = solidPng(40, 40, [204, 0, 0]);
		const [id] = await sendMail(server, {
			to: inbox,
			subject: 'Styled',
			html: STYLED_HTML,
			attachments: [
				{ filename: 'logo.png', content: logo, contentType: 'image/png', cid: 'logo@mailroom.test' },
				// Above the 2 MB an inline image may have: left out (the attachment list still has it).
				{ filename: 'huge.png', content: Buffer.alloc(2 * 1024 * 1024 + 1), contentType: 'image/png', cid: 'huge@mailroom.test' },
			],
		});
		const response = await server.api(`/api/body/${inbox}/${id}`);
		expect(response.status).toBe(200);
		const logoUrl = `data:image/png;base64,${logo.toString('base64')}`;
		expect(response.text).toContain(`<h1 style="color:#c00;font-family:'Helvetica Neue', Arial">Deals</h1>`);
		expect(response.text).toContain(`<img src="${logoUrl}" alt="logo" width="40" />`);
		expect(response.text).toContain(`<p style="background-image:url(&quot;${logoUrl}&quot;);color:blue">Inline background</p>`);
		expect(response.text).toContain('<p style="color:red">Escaped</p>');
		expect(response.text).toContain('<table width="600" cellpadding="0" bgcolor="#ffffff"><tr><td align="center" style="padding:8px">');
		expect(response.text).not.toMatch(/tracker\.test|expression|huge|cid:/);
		// The pixel and the h1's background.
		expect(response.headers.get('mailroom-remote-images-blocked')).toBe('2');
		expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'; img-src data:; style-src 'unsafe-inline'/);

		const withImages = await server.api(`/api/body/${inbox}/${id}?images=1`);
		expect(withImages.text).toContain('background:url(&quot;https://tracker.test/bg.png&quot;)');
		expect(withImages.text).toContain('<img src="https://tracker.test/pixel.png" alt="pixel" />');
		expect(withImages.headers.get('mailroom-remote-images-blocked')).toBe('0');
	});

	it('GET headers with decoded=1: values unfolded, RFC 2047 encoded words decoded', async () => {
		const [id] = await sendMail(server, {
			to: inbox,
			from: '"Jörg Straße" <jorg@sender.test>',
			subject: 'Your weekly deals 🎉 and a subject long enough to be folded by the sender onto a second line of its header',
			text: 'deals',
		});
		const path = `/api/addresses/${inbox}/messages/${id}/headers`;
		const raw = await server.api<Record<string, string[]>>(path);
		expect(raw.body.subject[0]).toMatch(/=\?UTF-8\?/i);
		const decoded = await server.api<Record<string, string[]>>(`${path}?decoded=1`);
		expect(decoded.body.subject).toEqual([
			'Your weekly deals 🎉 and a subject long enough to be folded by the sender onto a second line of its header',
		]);
		expect(decoded.body.from).toEqual(['Jörg Straße <jorg@sender.test>']);
		const ordered = await server.api<{ name: string; value: string }[]>(`${path}?decoded=1&messageHeadersFormat=json-ordered`);
		expect(ordered.body.find((header) => header.name === 'subject')!.value).toMatch(/^Your weekly deals 🎉/);
		expect((await server.api(`${path}?decoded=2`)).status).toBe(400);
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
