import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { WebhookAttempt, WebhookSubscription } from 'mailroom-server/dist/schemas/webhook';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { launchChromium, screenshot } from '../../helpers/browser';
import { WebhookReceiver, waitFor } from '../../helpers/webhook-receiver';

/** The address page shows each address's webhook subscriptions: URL, filter in words, created, recent deliveries. */
describe('Dashboard: webhook subscriptions of an address', () => {
	let mailroom: TestMailroom;
	let browser: Browser;
	let page: Page;
	const receiver = new WebhookReceiver();
	let key: string;
	const subscribed = 'workflows@example.test';
	const bare = 'quiet@example.test';

	beforeAll(async () => {
		[mailroom, browser] = await Promise.all([startTestMailroom({ webhookAllowPrivate: true }), launchChromium(), receiver.listen()]);
		({ key } = await mailroom.createAccount('subscriber'));
		for (const email of [subscribed, bare])
			expect((await mailroom.api(`/api/addresses/${email}`, { method: 'POST', key })).status).toBe(200);
		page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
		page.setDefaultTimeout(10_000);
	}, 60_000);

	afterAll(async () => {
		await browser?.close();
		await receiver.close();
		await mailroom?.stop();
	});

	it('lists the URLs, their filters in words and their last deliveries, and links to Recent Activity', async () => {
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

		await page.goto(`${mailroom.httpUrl}/#/addresses`);
		await page.getByLabel('API key').fill(key);
		await page.getByRole('button', { name: 'Sign in' }).click();
		const row = (email: string) => page.getByRole('row').filter({ hasText: email });
		await row(subscribed).getByRole('cell', { name: '2 subscriptions' }).waitFor();
		await row(bare).getByRole('cell', { name: 'No subscriptions' }).waitFor();

		await row(subscribed).getByRole('button', { name: 'Settings' }).click();
		const panel = page.getByRole('region', { name: `Webhook subscriptions of ${subscribed}` });
		const billing = panel.getByRole('row').filter({ hasText: `${receiver.url}/billing` });
		await billing.getByRole('cell', { name: 'from contains billing; has attachments' }).waitFor();
		await billing.getByText(/HTTP 200 · /).waitFor();
		expect(await billing.locator('.badge').textContent()).toBe('delivered');
		const verified = panel.getByRole('row').filter({ hasText: `${receiver.url}/verified` });
		await verified.getByRole('cell', { name: 'authenticated senders only' }).waitFor();
		await verified.getByRole('cell', { name: 'None yet' }).waitFor();
		await panel.scrollIntoViewIfNeeded();
		await page.screenshot({ path: '/tmp/dash-subs.png', fullPage: true });
		await screenshot(page, 'address-subscriptions');

		await panel.getByRole('link', { name: `All deliveries of ${subscribed} in Recent Activity` }).click();
		await page.getByRole('heading', { name: 'Recent Activity', level: 1 }).waitFor();
		expect(await page.getByLabel('Address').inputValue()).toBe(subscribed);
		await page
			.getByRole('row')
			.filter({ hasText: `${receiver.url}/billing` })
			.waitFor();

		await page.goBack();
		await row(bare).getByRole('button', { name: 'Settings' }).click();
		await page
			.getByRole('region', { name: `Webhook subscriptions of ${bare}` })
			.getByText('No subscriptions.')
			.waitFor();
	}, 30_000);
});
