import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LinkChecker } from 'mailroom-server/dist/http/link-checker';
import { TargetPolicy, type Resolver } from 'mailroom-server/dist/webhooks/target-policy';
import type { LinkResult } from 'mailroom-server/dist/schemas/link-check';
import { WebhookReceiver } from '../../helpers/webhook-receiver';

/** A site on 127.0.0.1 whose paths answer as real sites do, redirects and HEAD refusals included. */
const site = new WebhookReceiver();
site.reply = ({ method, url }) => {
	if (url === '/ok') return { status: 200, body: 'fine' };
	if (url === '/no-head') return { status: method === 'HEAD' ? 405 : 200 };
	if (url === '/missing') return { status: 404 };
	if (url === '/to-ok') return { status: 301, headers: { location: '/ok' } };
	if (url === '/to-metadata') return { status: 302, headers: { location: 'http://169.254.169.254/latest' } };
	if (url === '/loop') return { status: 302, headers: { location: '/loop' } };
	if (url === '/slow') return { status: 200, delayMs: 2000 };
	return { status: 500 };
};

/** A name that resolves to loopback, as a rebinding attacker's would. */
const resolver: Resolver = (hostname) => Promise.resolve(hostname === 'rebind.test' ? [{ address: '127.0.0.1', family: 4 }] : []);

const byUrl = (links: LinkResult[]) => new Map(links.map((link) => [link.url, link]));

describe('LinkChecker: whether the links of a message answer, under the webhooks SSRF policy', () => {
	// 127.0.0.1 allowed as --webhook-allow-hosts allows it; nothing else private.
	let open: LinkChecker;
	// No private targets at all.
	let strict: LinkChecker;

	beforeAll(async () => {
		await site.listen();
		open = new LinkChecker({ policy: new TargetPolicy({ allowPrivate: false, allowHosts: ['127.0.0.1'] }), resolver, timeoutMs: 500 });
		strict = new LinkChecker({ policy: new TargetPolicy({ allowPrivate: false, allowHosts: [] }), resolver, timeoutMs: 500 });
	});
	afterAll(async () => {
		open.close();
		strict.close();
		await site.close();
	});

	it('reports ok, broken, redirected, refused, timed-out and unchecked links', async () => {
		const links = ['ok', 'no-head', 'missing', 'to-ok', 'to-metadata', 'loop', 'slow'].map((path) => `${site.url}/${path}`);
		const { links: results } = await open.check('message-1', [...links, 'mailto:someone@example.test', `${site.url}/ok`], {
			isAdmin: false,
		});
		const found = byUrl(results);
		expect(results).toHaveLength(links.length + 1); // the repeated link once
		expect(found.get(`${site.url}/ok`)).toEqual({ url: `${site.url}/ok`, status: 'ok', statusCode: 200, error: null, redirects: [] });
		// A server that refuses HEAD is asked with GET.
		expect(found.get(`${site.url}/no-head`)).toMatchObject({ status: 'ok', statusCode: 200 });
		expect(found.get(`${site.url}/missing`)).toMatchObject({ status: 'broken', statusCode: 404, error: 'HTTP 404' });
		expect(found.get(`${site.url}/to-ok`)).toMatchObject({ status: 'ok', statusCode: 200, redirects: [`${site.url}/ok`] });
		// A redirect is held to the policy like the link itself.
		expect(found.get(`${site.url}/to-metadata`)).toMatchObject({ status: 'refused', redirects: ['http://169.254.169.254/latest'] });
		expect(found.get(`${site.url}/to-metadata`)!.error).toMatch(/169\.254\.169\.254/);
		expect(found.get(`${site.url}/loop`)).toMatchObject({ status: 'error', error: 'more than 5 redirects' });
		expect(found.get(`${site.url}/slow`)).toMatchObject({ status: 'error', error: 'timed out after 500 ms' });
		expect(found.get('mailto:someone@example.test')).toMatchObject({ status: 'unchecked', error: 'only http and https links are checked' });
	});

	it('refuses private targets the policy does not allow: by IP literal, and by the address a name resolves to', async () => {
		const port = site.port;
		const { links } = await strict.check('message-2', [`http://127.0.0.1:${port}/ok`, `http://rebind.test:${port}/ok`], { isAdmin: true });
		expect(links.map((link) => link.status)).toEqual(['refused', 'refused']);
		expect(site.requests.filter((request) => request.url === '/ok' && request.headers.host?.startsWith('rebind'))).toEqual([]);
	});

	it('keeps the answers of a message for a while, so checking again makes no requests', async () => {
		const first = await open.check('message-3', [`${site.url}/ok`], { isAdmin: false });
		const requests = site.requests.length;
		const again = await open.check('message-3', [`${site.url}/ok`], { isAdmin: false });
		expect(again).toEqual(first);
		expect(site.requests.length).toBe(requests);
	});
});
