import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Me } from 'mailroom-server/dist/schemas/account';
import type { ErrorBody } from 'mailroom-server/dist/schemas/error';
import type { WebhookAttempt, WebhookSecretSchema, WebhookSubscription } from 'mailroom-server/dist/schemas/webhook';
import type { EventSubscription, Suppression } from 'mailroom-server/dist/schemas/delivery-event';
import type { OutgoingRecord } from 'mailroom-server/dist/schemas/outgoing';
import type { Static } from 'typebox';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { launchChromium, screenshot, screenshotOf } from '../../helpers/browser';
import { postOutgoing } from '../../helpers/outgoing';
import { traversalFaults } from '../../helpers/raw-http';
import { query } from '../../helpers/database';
import { WebhookReceiver, waitFor } from '../../helpers/webhook-receiver';

/** Paths that must not serve files from outside the dashboard's folder. */
const TRAVERSAL_PATHS = [
	'/..%2f..%2fpackage.json',
	'/%2e%2e/%2e%2e/package.json',
	'/js/..%2f..%2f..%2fpackage.json',
	'/js/%2e%2e/%2e%2e/%2e%2e/package.json',
	'/index.html%00.js',
	'/..%5c..%5cpackage.json',
	'/js/pages/..%2f..%2f..%2f..%2fdata%2fmailroom.sqlite',
];

/** What GET /api/webhook-secret answers. */
type WebhookSecret = Static<typeof WebhookSecretSchema>;

/** A real webhook receiver on 127.0.0.1 answering every POST with `status`. */
async function receiver(status: number): Promise<{ url: string; bodies: unknown[]; server: Server }> {
	const bodies: unknown[] = [];
	const server = createServer((request: IncomingMessage, response) => {
		let data = '';
		request.on('data', (chunk) => (data += chunk));
		request.on('end', () => {
			bodies.push(JSON.parse(data));
			response.writeHead(status).end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies, server };
}

describe('Dashboard in a real browser', () => {
	let mailroom: TestMailroom;
	let browser: Browser;
	let context: BrowserContext;
	let page: Page;
	let good: Awaited<ReturnType<typeof receiver>>;
	let failing: Awaited<ReturnType<typeof receiver>>;
	const address = 'dash@example.test';
	const failingAddress = 'broken@example.test';
	// Link-local targets are always refused by the SSRF policy: when they are set, and before any connection is made.
	const refusedAddress = 'refused@example.test';

	beforeAll(async () => {
		// Two attempts, close together: a failing endpoint shows "retrying" with a next retry, then "failed".
		// The test domain's bounce@, complaint@ and defer@ answer as remote servers would: they fill the suppression list.
		mailroom = await startTestMailroom({ webhookAllowPrivate: true, webhookRetrySchedule: [0, 300], testDomain: 'tests.example' });
		[good, failing, browser] = await Promise.all([receiver(200), receiver(500), launchChromium()]);
		context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
		page = await context.newPage();
		page.setDefaultTimeout(10_000);
		page.on('dialog', (dialog) => void dialog.accept());
	}, 60_000);

	afterAll(async () => {
		await browser?.close();
		good?.server.close();
		failing?.server.close();
		await mailroom?.stop();
	});

	const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text });
	const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true });

	async function signIn(key: string): Promise<void> {
		await page.goto(mailroom.httpUrl);
		await page.getByLabel('API key').fill(key);
		await page.getByRole('button', { name: 'Sign in' }).click();
	}

	async function saveWebhook(email: string, url: string): Promise<void> {
		await nav('Manage Email Addresses').click();
		await page.getByRole('row').filter({ hasText: email }).getByRole('button', { name: 'Settings' }).click();
		await page.getByLabel('Forward to Custom Webhook').fill(url);
		await page.getByRole('button', { name: 'Save Settings' }).click();
		await status(`Settings saved for ${email}.`).waitFor();
	}

	it('serves the page with a Content-Security-Policy and no inline script', async () => {
		const response = await mailroom.api('/');
		expect(response.status).toBe(200);
		expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
		expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
		expect(response.text).toContain('<script type="module" src="js/main.js"></script>');
		expect(response.text.match(/<script\b[^>]*>/g)).toEqual(['<script type="module" src="js/main.js">']);
		const script = await mailroom.api('/js/main.js');
		expect(script.headers.get('content-type')).toMatch(/javascript/);
		// Unknown paths still get the API's JSON error, not the page.
		expect((await mailroom.api('/no-such-page')).body).toEqual({ error: 'Not Found', message: 'No route for GET /no-such-page' });
	});

	it('serves no file from outside its folder', async () => {
		expect(await traversalFaults(mailroom.httpPort, TRAVERSAL_PATHS)).toEqual([]);
	});

	it('refuses a wrong key, then signs in with the key kept in sessionStorage only', async () => {
		const violations: string[] = [];
		page.on('console', (message) => {
			if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
		});
		await signIn('mr_not-a-real-key');
		await status(/Sign-in failed: .*unknown or revoked/).waitFor();
		await screenshot(page, '01-sign-in-error');

		await page.getByLabel('API key').fill(mailroom.adminKey);
		await page.getByRole('button', { name: 'Sign in' }).click();
		await page.getByRole('heading', { name: 'Mail', level: 1 }).waitFor();
		expect(await page.evaluate('sessionStorage.getItem("mailroom.apiKey")')).toBe(mailroom.adminKey);
		expect(await page.evaluate('localStorage.length')).toBe(0);
		expect(await page.evaluate('document.cookie')).toBe('');
		expect(violations).toEqual([]);
	});

	it('Manage Email Addresses: reserve an address, open Settings, enter Forward to Custom Webhook, Save Settings', async () => {
		await nav('Manage Email Addresses').click();
		await page.getByRole('heading', { name: 'Manage Email Addresses', level: 1 }).waitFor();
		for (const email of [address, failingAddress, refusedAddress]) {
			await page.getByLabel('Address to reserve').fill(email);
			await page.getByRole('button', { name: 'Reserve' }).click();
			await status(`Reserved ${email}`).waitFor();
			await page.getByRole('row').filter({ hasText: email }).waitFor();
		}

		await page.getByRole('row').filter({ hasText: address }).getByRole('button', { name: 'Settings' }).click();
		const webhook = page.getByLabel('Forward to Custom Webhook');
		expect(
			await webhook.evaluate((input: { ownerDocument: { activeElement: unknown } }) => input.ownerDocument.activeElement === input),
		).toBe(true);
		// The server's own message is shown under the field it names (its 400's `field`), which is marked invalid.
		const problem = page.locator('#settings-webhook-problem');
		const generalLine = page.locator('#settings-panel p[role=status]');
		/** The field marked with `message`: aria-invalid, the message under it and in its description, nothing in the general line. */
		const expectWebhookMarked = async (message: string) => {
			await problem.filter({ hasText: message }).waitFor();
			expect(await problem.textContent()).toBe(message);
			expect(await webhook.getAttribute('aria-invalid')).toBe('true');
			expect((await webhook.getAttribute('aria-describedby'))!.split(' ')).toContain('settings-webhook-problem');
			expect(await webhook.evaluate((input: { nextElementSibling: { id: string } | null }) => input.nextElementSibling?.id)).toBe(
				'settings-webhook-problem',
			);
			expect(await generalLine.textContent()).toBe('');
		};
		await webhook.fill('ftp://example.test/hook');
		await page.getByRole('button', { name: 'Save Settings' }).click();
		const direct = await mailroom.api<ErrorBody>(`/api/addresses/${encodeURIComponent(address)}`, {
			method: 'PUT',
			key: mailroom.adminKey,
			body: { webhook: 'ftp://example.test/hook' },
		});
		expect(direct.body).toMatchObject({ field: 'webhook', message: 'webhook must be an http(s) URL, or null or "" to clear it' });
		await expectWebhookMarked(direct.body.message);
		await screenshot(page, '02-manage-email-addresses-field-error');

		await webhook.fill(good.url);
		await page.getByLabel('Web socket forwarding').check();
		await page.getByLabel('Info').fill('dashboard test');
		await page.getByRole('button', { name: 'Save Settings' }).click();
		await status(`Settings saved for ${address}.`).waitFor();
		// Saved: the field is no longer marked.
		expect(await problem.count()).toBe(0);
		expect(await webhook.getAttribute('aria-invalid')).toBeNull();
		expect(await webhook.getAttribute('aria-describedby')).toBe('settings-webhook-hint');
		await page.getByRole('row').filter({ hasText: address }).filter({ hasText: good.url }).waitFor();
		await screenshot(page, '02-manage-email-addresses-settings');
		const record = await mailroom.api(`/api/addresses/${encodeURIComponent(address)}`, { key: mailroom.adminKey });
		expect(record.body).toMatchObject({ _id: address, webhook: good.url, info: 'dashboard test', enablews: true, forward: null });

		await saveWebhook(failingAddress, failing.url);
		// A target the SSRF policy refuses is refused when it is set, the server's reason shown at the field...
		await page.getByRole('row').filter({ hasText: refusedAddress }).getByRole('button', { name: 'Settings' }).click();
		await page.getByLabel('Forward to Custom Webhook').fill('http://169.254.169.254/hook');
		await page.getByRole('button', { name: 'Save Settings' }).click();
		await expectWebhookMarked('webhook would never be delivered: 169.254.169.254 is a link-local address, which webhooks may not reach');
		// ...and at delivery, should it be in the record anyway (set before the policy was tightened): Recent Activity shows that.
		await query(mailroom, 'UPDATE addresses SET webhook = ? WHERE email = ?', ['http://169.254.169.254/hook', refusedAddress]);
	});

	it('Inbox: mail sent over SMTP appears by itself, and opens with text, HTML, attachments, links, headers and raw source', async () => {
		// The address has web socket forwarding on, so the page also gets the message over its websocket.
		const frames: string[] = [];
		page.on('websocket', (socket) => socket.on('framereceived', (frame) => frames.push(String(frame.payload))));
		const pageErrors: string[] = [];
		page.on('pageerror', (error) => pageErrors.push(error.message));
		await nav('Inbox').click();
		await page.getByLabel('Email address').fill(address);
		await page.getByRole('button', { name: 'Show messages' }).click();
		await page.getByText('No messages yet.').waitFor();
		// A socket of the test's own in the page, reading frames as a browser script does: JSON.parse(event.data).
		await page.evaluate(listenInPage(mailroom.adminKey, address));

		await mailroom.send({
			from: 'Sender <sender@example.org>',
			to: address,
			subject: 'Dashboard hello',
			text: 'Hello from the test, see https://example.org/page',
			html: '<p>Hello <b>bold</b> <a href="https://example.org/page">page</a></p><script>parent.postMessage("ran", "*")</script>',
			attachments: [{ filename: 'notes.txt', content: 'attachment body', contentType: 'text/plain' }],
		});
		const link = page.getByRole('link', { name: 'Dashboard hello' });
		await link.waitFor({ timeout: 15_000 });
		await status('1 new message').waitFor();
		await screenshot(page, '03-inbox');
		await until(() => frames.some((frame) => frame.includes('"subject":"Dashboard hello"')));
		await page.waitForFunction('window.framesRead.length >= 2');
		const read = await page.evaluate('window.framesRead');
		expect(read).toEqual([
			{ type: 'string', frame: expect.objectContaining({ status: 200, msg: 'Listening' }) },
			{ type: 'string', frame: { status: 200, email: expect.objectContaining({ subject: 'Dashboard hello', html: expect.any(String) }) } },
		]);

		await link.click();
		await page.getByRole('heading', { name: 'Dashboard hello', level: 1 }).waitFor();
		const frame = page.locator('iframe.html-body');
		expect(await frame.getAttribute('sandbox')).toBe('');
		await page.frameLocator('iframe.html-body').getByText('bold').waitFor();
		// Until remote images are shown, the frame has a policy of its own that lets it load data: images only.
		expect(await frame.getAttribute('srcdoc')).toMatch(/^<meta http-equiv="Content-Security-Policy" content="img-src data:">/);
		expect(await page.getByRole('term').filter({ hasText: 'Spam score' }).count()).toBe(1);
		await page.getByRole('tab', { name: 'Text' }).click();
		await page.getByText('Hello from the test').first().waitFor();
		await page.getByRole('tab', { name: 'Links (1)' }).click();
		await page.getByRole('link', { name: 'https://example.org/page' }).waitFor();
		await page.getByRole('tab', { name: 'Attachments (1)' }).click();

		const [download] = await Promise.all([
			page.waitForEvent('download'),
			page.getByRole('button', { name: /Download notes\.txt/ }).click(),
		]);
		expect(download.suggestedFilename()).toBe('notes.txt');
		expect(readFileSync(await download.path()).toString()).toBe('attachment body');

		await page.getByRole('tab', { name: 'Headers' }).click();
		await page.getByRole('cell', { name: /^subject$/i }).waitFor();
		await page.getByRole('tab', { name: 'Source' }).click();
		await page.locator('pre.raw').filter({ hasText: 'Subject: Dashboard hello' }).waitFor();
		await screenshot(page, '04-message');
		await page.getByRole('tab', { name: 'HTML' }).click();
		await screenshot(page, '04-message-html-part', false);

		// The page's own live update read its frame without an error.
		expect(pageErrors).toEqual([]);

		await page.getByRole('button', { name: 'Delete message' }).click();
		await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
		await page.getByText('No messages yet.').waitFor();
		expect((await mailroom.api(`/api/addresses/${encodeURIComponent(address)}/messages`, { key: mailroom.adminKey })).body).toEqual([]);
	});

	it('Recent Activity: the delivery to the webhook, and the failing endpoint with its error, which can be redelivered', async () => {
		await mailroom.send({ from: 'sender@example.org', to: [failingAddress, refusedAddress], subject: 'Will fail', text: 'nobody home' });
		await nav('Recent Activity').click();
		await page.getByRole('heading', { name: 'Recent Activity', level: 1 }).waitFor();

		const delivered = page.getByRole('row').filter({ hasText: address }).filter({ hasText: 'delivered' });
		await delivered.waitFor({ timeout: 15_000 });
		expect(await delivered.textContent()).toContain('HTTP 200');
		expect(good.bodies).toHaveLength(1);
		expect(good.bodies[0]).toMatchObject({ subject: 'Dashboard hello', inbox: address });

		const failed = page.getByRole('row').filter({ hasText: failingAddress }).filter({ hasText: 'failed' });
		await failed.waitFor({ timeout: 15_000 });
		expect(await failed.textContent()).toContain('HTTP 500');
		const retrying = page.getByRole('row').filter({ hasText: failingAddress }).filter({ hasText: 'retrying' });
		expect(await retrying.count()).toBe(1);
		// No status code there: the error says why.
		const refused = page.getByRole('row').filter({ hasText: refusedAddress }).filter({ hasText: 'refused' });
		await refused.waitFor();
		expect(await refused.textContent()).toMatch(/refused: 169\.254\.169\.254 .*link-?local/i);
		await screenshot(page, '05-recent-activity');

		const attempts = failing.bodies.length;
		await failed.getByRole('button', { name: 'Redeliver' }).click();
		await status('Redelivery of the message').waitFor();
		await until(() => failing.bodies.length > attempts);
		await page.getByRole('row').filter({ hasText: failingAddress }).filter({ hasText: 'failed' }).nth(1).waitFor({ timeout: 15_000 });
	});

	it('Manage Email Addresses: release an address', async () => {
		await nav('Manage Email Addresses').click();
		await page.getByRole('row').filter({ hasText: failingAddress }).getByRole('button', { name: 'Release' }).click();
		await status(`Released ${failingAddress}`).waitFor();
		await page.getByRole('row').filter({ hasText: failingAddress }).waitFor({ state: 'detached' });
		expect((await mailroom.api(`/api/addresses/${encodeURIComponent(failingAddress)}`, { key: mailroom.adminKey })).status).toBe(404);
	});

	it('Account: outgoing credits, API keys created (shown once) and revoked, the webhook signing secret shown and rotated', async () => {
		await nav('Account').click();
		await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
		const me = await mailroom.api<Me>('/api/me', { key: mailroom.adminKey });
		expect(await page.locator('#credits').textContent()).toBe(String(me.body.sendsRemaining));

		await page.getByLabel('Label for a new key').fill('n8n workflow');
		await page.getByRole('button', { name: 'Create key' }).click();
		await status('Created the key n8n workflow.').waitFor();
		const newKey = (await page.locator('#new-key').textContent())!;
		expect((await mailroom.api('/api/me', { key: newKey })).status).toBe(200);
		const row = page.getByRole('row').filter({ hasText: 'n8n workflow' });
		await row.waitFor();
		expect(await row.textContent()).not.toContain(newKey);

		await page.getByRole('button', { name: 'Show secret' }).click();
		const secret = (await page.locator('#signing-secret').textContent())!;
		expect(secret).toBe((await mailroom.api<WebhookSecret>('/api/webhook-secret', { key: mailroom.adminKey })).body.secret);
		await page.getByRole('button', { name: 'Rotate secret' }).click();
		await status('The signing secret was rotated').waitFor();
		const rotated = (await page.locator('#signing-secret').textContent())!;
		expect(rotated).not.toBe(secret);
		expect(rotated).toBe((await mailroom.api<WebhookSecret>('/api/webhook-secret', { key: mailroom.adminKey })).body.secret);
		await screenshot(page, '06-account');

		await row.getByRole('button', { name: 'Revoke' }).click();
		await status('Revoked the key n8n workflow.').waitFor();
		await row.filter({ hasText: 'Revoked' }).waitFor();
		expect(await row.getByRole('button', { name: 'Revoke' }).count()).toBe(0);
		// The dashboard's own key is marked and cannot be revoked from it.
		const own = page.getByRole('row').filter({ hasText: 'Active (this session)' });
		expect(await own.count()).toBe(1);
		expect(await own.getByRole('button').count()).toBe(0);
		expect((await mailroom.api('/api/me', { key: newKey })).status).toBe(401);
	});

	it('Account: chaos settings, off by default; saved ones act over SMTP at once, and a bad value is shown under its field', async () => {
		const chaosAddress = 'chaos@example.test';
		expect((await mailroom.api(`/api/addresses/${chaosAddress}`, { method: 'POST', key: mailroom.adminKey })).status).toBe(200);
		await nav('Account').click();
		await page.getByText('Never set: off.').waitFor();
		const enabled = page.getByLabel('Chaos on');
		expect(await enabled.isChecked()).toBe(false);
		const save = page.getByRole('button', { name: 'Save chaos settings' });
		const code = page.locator('#chaos-rcptTo-code');
		await enabled.check();
		await code.fill('250');
		await save.click();
		await page.locator('#chaos-rcptTo-code-problem').filter({ hasText: 'rcptTo.code must be at least 400' }).waitFor();
		expect(await code.getAttribute('aria-invalid')).toBe('true');
		await code.fill('550');
		await save.click();
		await status('Chaos settings saved: in force now.').waitFor();
		expect((await mailroom.api('/api/me/chaos', { key: mailroom.adminKey })).body).toMatchObject({
			...{ enabled: true, auth: null, mailFrom: null, data: null },
			rcptTo: { code: 550, probability: 1, delayMs: 0 },
		});
		await expect(mailroom.send({ from: 'app@sender.test', to: chaosAddress, subject: 'refused', text: 'x' })).rejects.toMatchObject({
			responseCode: 550,
		});
		await enabled.uncheck();
		await save.click();
		await status('Chaos settings saved: off.').waitFor();
		expect((await mailroom.send({ from: 'app@sender.test', to: chaosAddress, subject: 'accepted', text: 'x' })).response).toMatch(/^250 /);
	});

	it('works by keyboard with a visible focus ring', async () => {
		// On a fresh load, the first Tab reaches the skip link, the next the navigation.
		await page.goto(`${mailroom.httpUrl}/#/addresses`);
		await page.reload();
		await page.getByRole('heading', { name: 'Manage Email Addresses', level: 1 }).waitFor();
		await page.keyboard.press('Tab');
		expect(await focusedText()).toBe('Skip to content');
		await page.keyboard.press('Tab');
		expect(await focusedText()).toBe('Mail');
		expect(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
		// From the reserve field, Tab reaches the first Settings button; Enter opens the form with focus in its first field.
		await page.getByLabel('Address to reserve').focus();
		for (let i = 0; i < 10 && !(await focusedText()).startsWith('Settings'); i++) await page.keyboard.press('Tab');
		await page.keyboard.press('Enter');
		expect(await page.evaluate('document.activeElement.id')).toBe('settings-webhook');
		// Close hands focus back to the Settings button, which says the form is closed.
		await page.getByRole('button', { name: 'Close' }).click();
		expect(await focusedText()).toMatch(/^Settings for /);
		expect(await page.evaluate('document.activeElement.getAttribute("aria-expanded")')).toBe('false');
		// Every form control has a label.
		const unlabelled = await page.evaluate(
			'[...document.querySelectorAll("input, select, textarea")].filter((el) => el.labels.length === 0 && !el.getAttribute("aria-label")).map((el) => el.outerHTML)',
		);
		expect(unlabelled).toEqual([]);
	});

	it('fits a phone-sized screen', async () => {
		const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
		const small = await phone.newPage();
		small.setDefaultTimeout(10_000);
		await mailroom.send({ from: 'sender@example.org', to: address, subject: 'Seen on a phone', text: 'small screen' });
		try {
			await small.goto(mailroom.httpUrl);
			await small.getByLabel('API key').fill(mailroom.adminKey);
			await small.getByRole('button', { name: 'Sign in' }).click();
			for (const [route, heading, name] of [
				['addresses', 'Manage Email Addresses', '07-phone-manage-email-addresses'],
				['activity', 'Recent Activity', '08-phone-recent-activity'],
				[`inbox/${encodeURIComponent(address)}`, 'Inbox', '09-phone-inbox'],
				['account/delivery-event-subscriptions', 'Account', '11-phone-account'],
			]) {
				await small.goto(`${mailroom.httpUrl}/#/${route}`);
				await small.getByRole('heading', { name: heading, level: 1 }).waitFor();
				await small.getByRole('row').first().waitFor();
				expect(await small.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
				await screenshot(small, name);
			}
			await small.goto(`${mailroom.httpUrl}/#/addresses`);
			await small.getByRole('button', { name: 'Settings' }).first().click();
			await small.getByLabel('Forward to Custom Webhook').waitFor();
			expect(await small.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
			await screenshot(small, '10-phone-settings');
		} finally {
			await phone.close();
		}
	});

	it("Manage Email Addresses: an address's webhook subscriptions, their filters in words and last deliveries, linked to Recent Activity", async () => {
		const receiver = new WebhookReceiver();
		await receiver.listen();
		const account = await mailroom.createAccount('subscriber');
		const { key } = account;
		const subscribed = 'workflows@example.test';
		const bare = 'quiet@example.test';
		for (const email of [subscribed, bare])
			expect((await mailroom.api(`/api/addresses/${email}`, { method: 'POST', key })).status).toBe(200);
		// Its own tab and account: the shared page stays signed in as the admin.
		const tab = await context.newPage();
		tab.setDefaultTimeout(10_000);

		const subscribe = async (path: string, filter: WebhookSubscription['filter']) => {
			const response = await mailroom.api<WebhookSubscription>(`/api/addresses/${subscribed}/webhooks`, {
				method: 'POST',
				key,
				body: { url: `${receiver.url}${path}`, filter },
			});
			expect(response.status).toBe(201);
		};
		await subscribe('/billing', { from: 'billing', hasAttachments: true });
		// Mail over SMTP from 127.0.0.1 is not authenticated: this one gets no delivery.
		await subscribe('/verified', { authenticated: true });

		await mailroom.send({
			from: 'billing@example.org',
			to: subscribed,
			subject: 'Invoice 7',
			text: 'attached',
			attachments: [{ filename: 'invoice.txt', content: 'total 12' }],
		});
		await waitFor(async () => {
			const activity = await mailroom.api<WebhookAttempt[]>(`/api/webhook-activity?address=${subscribed}`, { key });
			return activity.body.some((attempt) => attempt.status === 'delivered');
		}, 'the delivery in Recent Activity');
		expect(receiver.requests.map((request) => request.url)).toEqual(['/billing']);

		await tab.goto(`${mailroom.httpUrl}/#/addresses`);
		await tab.getByLabel('API key').fill(key);
		await tab.getByRole('button', { name: 'Sign in' }).click();
		const row = (email: string) => tab.getByRole('row').filter({ hasText: email });
		await row(subscribed).getByRole('cell', { name: '2 subscriptions' }).waitFor();
		await row(bare).getByRole('cell', { name: 'No subscriptions' }).waitFor();

		await row(subscribed).getByRole('button', { name: 'Settings' }).click();
		const panel = tab.getByRole('region', { name: `Webhook subscriptions of ${subscribed}` });
		const billing = panel.getByRole('row').filter({ hasText: `${receiver.url}/billing` });
		await billing.getByRole('cell', { name: 'from contains billing; has attachments' }).waitFor();
		await billing.getByText(/HTTP 200 · /).waitFor();
		expect(await billing.locator('.badge').textContent()).toBe('delivered');
		const verified = panel.getByRole('row').filter({ hasText: `${receiver.url}/verified` });
		await verified.getByRole('cell', { name: 'authenticated senders only' }).waitFor();
		await verified.getByRole('cell', { name: 'None yet' }).waitFor();
		await panel.scrollIntoViewIfNeeded();
		await tab.screenshot({ path: '/tmp/dash-subs.png', fullPage: true });
		await screenshot(tab, 'address-subscriptions');

		await panel.getByRole('link', { name: `All deliveries of ${subscribed} in Recent Activity` }).click();
		await tab.getByRole('heading', { name: 'Recent Activity', level: 1 }).waitFor();
		expect(await tab.getByLabel('Address').inputValue()).toBe(subscribed);
		await tab
			.getByRole('row')
			.filter({ hasText: `${receiver.url}/billing` })
			.waitFor();

		await tab.goBack();
		await row(bare).getByRole('button', { name: 'Settings' }).click();
		await tab
			.getByRole('region', { name: `Webhook subscriptions of ${bare}` })
			.getByText('No subscriptions.')
			.waitFor();

		// A domain's catch-all: its subscriptions receive the mail of the domain's addresses that have none of their own.
		const domain = 'team-subs.test';
		const [catchAll, sales, own] = ['all', 'sales', 'own'].map((name) => `${name}@${domain}`);
		await mailroom.domains.claim(domain, account.id);
		for (const email of [catchAll, sales, own])
			expect((await mailroom.api(`/api/addresses/${email}`, { method: 'POST', key })).status).toBe(200);
		expect((await mailroom.api(`/api/domains/${domain}`, { method: 'PUT', key, body: { catchAll } })).status).toBe(200);
		for (const [email, path] of [
			[catchAll, '/team'],
			[own, '/own'],
		])
			expect(
				(await mailroom.api(`/api/addresses/${email}/webhooks`, { method: 'POST', key, body: { url: `${receiver.url}${path}` } })).status,
			).toBe(201);
		await mailroom.send({ from: 'lead@example.org', to: sales, subject: 'Lead', text: 'hello' });
		await waitFor(() => receiver.requests.some((request) => request.url === '/team'), 'the catch-all delivery');
		await tab.reload();
		await row(sales).getByRole('cell', { name: '1 subscription of the catch-all' }).waitFor();
		await row(catchAll).getByRole('cell', { name: '1 subscription', exact: true }).waitFor();
		await row(sales).getByRole('button', { name: 'Settings' }).click();
		const salesPanel = tab.getByRole('region', { name: `Webhook subscriptions of ${sales}` });
		await salesPanel
			.getByText(`This address has no subscriptions of its own: those of its domain’s catch-all ${catchAll} receive its mail.`)
			.waitFor();
		const team = salesPanel.getByRole('row').filter({ hasText: `${receiver.url}/team` });
		await team.getByRole('cell', { name: `catch-all ${catchAll}` }).waitFor();
		await team.getByText(/HTTP 200 · /).waitFor();
		await salesPanel.scrollIntoViewIfNeeded();
		await screenshot(tab, 'address-subscriptions-catch-all');
		await row(own).getByRole('button', { name: 'Settings' }).click();
		const ownPanel = tab.getByRole('region', { name: `Webhook subscriptions of ${own}` });
		await ownPanel
			.getByRole('row')
			.filter({ hasText: `${receiver.url}/own` })
			.getByRole('cell', { name: 'this address' })
			.waitFor();
		await ownPanel
			.getByText(`The catch-all ${catchAll} has 1 subscription that does not receive this address’s mail`, { exact: false })
			.waitFor();
		expect(
			await ownPanel
				.getByRole('row')
				.filter({ hasText: `${receiver.url}/team` })
				.count(),
		).toBe(0);
		await tab.close();
		await receiver.close();
	}, 30_000);

	it("Account: delivery event subscriptions added (a refusal under its field) and deleted, the suppression list the test addresses fill, and a sent message's recipients with their reports", async () => {
		const receiver = new WebhookReceiver();
		await receiver.listen();
		const { key } = await mailroom.createAccount('outbound', 20);
		const sender = 'outbound@example.test';
		expect((await mailroom.api(`/api/addresses/${sender}`, { method: 'POST', key })).status).toBe(200);
		const tab = await context.newPage();
		tab.setDefaultTimeout(10_000);
		tab.on('dialog', (dialog) => void dialog.accept());
		const tabStatus = (text: string | RegExp) => tab.getByRole('status').filter({ hasText: text });

		// A deep link opens the Account page at the section, which says what the list is while it is empty.
		await tab.goto(`${mailroom.httpUrl}/#/account/suppression-list`);
		await tab.getByLabel('API key').fill(key);
		await tab.getByRole('button', { name: 'Sign in' }).click();
		const suppressions = tab.getByRole('region', { name: 'Suppression list' });
		await suppressions.getByText(/^No suppressed addresses\. When a delivery report says a recipient/).waitFor();
		await tab.waitForFunction('document.activeElement?.id === "section-suppression-list"');
		const events = tab.getByRole('region', { name: 'Delivery event subscriptions' });
		await events.getByText(/^No event subscriptions/).waitFor();

		// The server's refusals show under the field they are about: the URL, then the event types (none chosen).
		const url = events.getByLabel('Webhook URL');
		const add = events.getByRole('button', { name: 'Add subscription' });
		await url.fill('ftp://example.org/hook');
		await events.getByLabel(/^bounced/).check();
		await add.click();
		await tab.locator('#event-url-problem').filter({ hasText: /url/ }).waitFor();
		expect(await url.getAttribute('aria-invalid')).toBe('true');
		await url.fill(`${receiver.url}/events`);
		await events.getByLabel(/^bounced/).uncheck();
		await add.click();
		await tab
			.locator('#event-types-problem')
			.filter({ hasText: /events/ })
			.waitFor();
		expect(await url.getAttribute('aria-invalid')).toBeNull();
		expect(await tab.locator('#event-types').getAttribute('aria-invalid')).toBe('true');
		await events.getByLabel(/^bounced/).check();
		await events.getByLabel(/^complained/).check();
		await add.click();
		await tabStatus(`Subscribed ${receiver.url}/events to bounced, complained.`).waitFor();
		expect(await tab.locator('#event-types-problem').count()).toBe(0);
		const subscriptionRow = events.getByRole('row').filter({ hasText: `${receiver.url}/events` });
		await subscriptionRow.getByRole('cell', { name: 'bounced, complained' }).waitFor();
		await subscriptionRow.getByRole('cell', { name: 'None yet' }).waitFor();
		const [subscription] = (await mailroom.api<EventSubscription[]>('/api/event-webhooks', { key })).body;
		expect(subscription).toMatchObject({ url: `${receiver.url}/events`, events: ['bounced', 'complained'] });

		// The test addresses answer as remote servers: a bounce and a complaint (suppressed), a delay (not).
		const sent = await postOutgoing(mailroom, key, {
			from: sender,
			to: 'bounce@tests.example',
			cc: ['complaint@tests.example', 'defer@tests.example'],
			subject: 'Your order has shipped',
			text: 'On its way.',
		});
		expect(sent.status).toBe(200);
		await waitFor(async () => (await mailroom.api<Suppression[]>('/api/suppressions', { key })).body.length === 2, 'two suppressed');
		await waitFor(() => receiver.requests.length === 2, 'the bounced and complained events posted');
		await waitFor(
			async () =>
				(await mailroom.api<WebhookAttempt[]>(`/api/webhook-activity?subscriptionId=${subscription._id}`, { key })).body.length === 2,
			'both deliveries in Recent Activity',
		);
		await tab.reload();
		const bounced = suppressions.getByRole('row').filter({ hasText: 'bounce@tests.example' });
		await bounced.getByRole('cell', { name: 'bounced 5.1.1' }).waitFor();
		expect(await bounced.getByRole('cell').nth(2).textContent()).toMatch(/550/);
		await suppressions
			.getByRole('row')
			.filter({ hasText: 'complaint@tests.example' })
			.getByRole('cell', { name: 'complained', exact: true })
			.waitFor();
		expect(await suppressions.getByRole('row').filter({ hasText: 'defer@tests.example' }).count()).toBe(0);
		await suppressions.scrollIntoViewIfNeeded();
		await screenshotOf(suppressions, 'dashboard-suppressions');
		await subscriptionRow
			.getByText(/HTTP 200 · /)
			.first()
			.waitFor();
		expect(await subscriptionRow.locator('.badge.delivered').count()).toBe(2);
		await screenshotOf(events, 'dashboard-event-subscriptions');

		// From the list to the sent message: each recipient's status, code, diagnostic and report, and whether it is suppressed.
		await bounced.getByRole('link', { name: 'The sent message to bounce@tests.example' }).click();
		await tab.getByRole('heading', { name: 'Sent message', level: 1 }).waitFor();
		const recipient = (address: string) => tab.getByRole('row').filter({ hasText: address });
		await recipient('bounce@tests.example').getByRole('cell', { name: '5.1.1', exact: true }).waitFor();
		expect(await recipient('bounce@tests.example').locator('.badge').textContent()).toBe('bounced');
		expect(await recipient('complaint@tests.example').locator('.badge').textContent()).toBe('complained');
		expect(await recipient('defer@tests.example').locator('.badge').textContent()).toBe('deferred');
		await recipient('defer@tests.example').getByRole('cell', { name: '4.2.0', exact: true }).waitFor();
		expect(await recipient('bounce@tests.example').getByRole('link', { name: 'suppressed' }).count()).toBe(1);
		expect(await recipient('defer@tests.example').getByRole('link', { name: 'suppressed' }).count()).toBe(0);
		await screenshot(tab, 'sent-message');
		await recipient('bounce@tests.example').getByRole('link', { name: 'Open the report' }).click();
		// The report is mail in the sender's inbox.
		await tab.getByRole('heading', { name: 'Undelivered Mail Returned to Sender', level: 1 }).waitFor();
		const { body: record } = await mailroom.api<OutgoingRecord>(`/api/outgoing-messages/${sent.body._id}`, { key });
		const report = record.recipients.find((entry) => entry.address === 'bounce@tests.example')!.bounceMessageId!;
		expect(await tab.evaluate('location.hash')).toBe(`#/mail/${encodeURIComponent(sender)}/${report}`);

		// Remove takes the address off the list, as DELETE /api/suppressions/:address does.
		await tab.goto(`${mailroom.httpUrl}/#/account/suppression-list`);
		await bounced.getByRole('button', { name: 'Remove bounce@tests.example from the suppression list' }).click();
		await tabStatus('bounce@tests.example is off the suppression list: mail to it is sent again.').waitFor();
		await bounced.waitFor({ state: 'detached' });
		expect((await mailroom.api<Suppression[]>('/api/suppressions', { key })).body.map((entry) => entry.address)).toEqual([
			'complaint@tests.example',
		]);

		await subscriptionRow.getByRole('button', { name: `Delete the subscription of ${receiver.url}/events` }).click();
		await tabStatus(`Deleted the subscription of ${receiver.url}/events.`).waitFor();
		await events.getByText(/^No event subscriptions/).waitFor();
		expect((await mailroom.api('/api/event-webhooks', { key })).body).toEqual([]);
		await tab.close();
		await receiver.close();
	}, 30_000);

	it('signs out: the key is removed from the browser', async () => {
		await page.getByRole('button', { name: 'Sign out' }).click();
		await status('You are signed out.').waitFor();
		expect(await page.evaluate('sessionStorage.length')).toBe(0);
		expect(await page.getByRole('navigation').isHidden()).toBe(true);
		await page.goto(`${mailroom.httpUrl}/#/account`);
		await page.getByLabel('API key').waitFor();
	});

	const focusedText = async () => String(await page.evaluate('document.activeElement.textContent.trim()'));
});

/** Waits for a condition of the test's own state (a receiver's requests). */
/**
 * Browser code (a string: the tests are not typed for the DOM) that opens /incoming-messages for `inbox` and keeps what
 * each frame's event.data is, and JSON.parse of it (or the error), in window.framesRead; it resolves on the first frame.
 */
function listenInPage(key: string, inbox: string): string {
	return `new Promise((resolve, reject) => {
		const url = new URL('/incoming-messages', location.href);
		url.protocol = 'ws:';
		url.searchParams.set('key', ${JSON.stringify(key)});
		url.searchParams.set('addresses', ${JSON.stringify(inbox)});
		const socket = new WebSocket(url);
		window.framesRead = [];
		socket.onmessage = (event) => {
			try {
				window.framesRead.push({ type: typeof event.data, frame: JSON.parse(event.data) });
			} catch (error) {
				window.framesRead.push({ type: typeof event.data, error: String(error) });
			}
			resolve();
		};
		socket.onerror = () => reject(new Error('the websocket failed'));
	})`;
}

async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error('condition not met in time');
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}
