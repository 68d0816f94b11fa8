import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Browser, Page } from 'playwright-core';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { launchChromium, screenshot, SCREENSHOTS } from '../../helpers/browser';
import { query } from '../../helpers/database';
import { solidPng } from '../../helpers/png';
import { WebhookReceiver, waitFor } from '../../helpers/webhook-receiver';

/** The heading's colour in the sender's inline style, as the browser reports it. */
const HEADING_COLOUR = 'rgb(200, 30, 40)';
/** An element as the test reads its style (the tests are not typed for the DOM). */
type StyledElement = { ownerDocument: { defaultView: { getComputedStyle(element: unknown): { color: string } } } };
const PHONE = { viewport: { width: 375, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

describe("Dashboard: the account's mail", () => {
	let mailroom: TestMailroom;
	let browser: Browser;
	let page: Page;
	const hooks = new WebhookReceiver();
	const reader = 'reader@example.test';
	const other = 'other@example.test';
	/** A public address (no account reserved it) for the watch list. */
	const watchedAddress = 'news@public.test';
	/** Measured times, written to test-artifacts/ for the report. */
	const timings: Record<string, number> = {};
	/** What the browser reports the page's Content-Security-Policy blocked: nothing, while remote images stay off. */
	const violations: string[] = [];

	beforeAll(async () => {
		mailroom = await startTestMailroom({ webhookAllowPrivate: true });
		[browser] = await Promise.all([launchChromium(), hooks.listen()]);
		for (const email of [reader, other]) {
			expect((await mailroom.api(`/api/addresses/${encodeURIComponent(email)}`, { method: 'POST', key: mailroom.adminKey })).status).toBe(
				200,
			);
		}
		const webhook = { webhook: `${hooks.url}/hook` };
		await mailroom.api(`/api/addresses/${encodeURIComponent(reader)}`, { method: 'PUT', key: mailroom.adminKey, body: webhook });
		await query(mailroom, 'UPDATE accounts SET credits = ? WHERE name = ?', [10, 'admin']);
		await mailroom.send({ from: 'Old Friend <old@example.org>', to: other, subject: 'Existing mail', text: 'nothing special here' });
		page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
		page.setDefaultTimeout(10_000);
		page.on('dialog', (dialog) => void dialog.accept());
		page.on('console', (message) => {
			if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
		});
	}, 60_000);

	afterAll(async () => {
		mkdirSync(SCREENSHOTS, { recursive: true });
		writeFileSync(join(SCREENSHOTS, '..', 'dashboard-timings.json'), `${JSON.stringify(timings, null, 2)}\n`);
		await browser?.close();
		await hooks.close();
		await mailroom?.stop();
	});

	const row = (text: string) => page.getByRole('row').filter({ hasText: text });
	const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true });
	const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text });

	it('signs in to Mail, which lists the mail already there', async () => {
		await page.goto(mailroom.httpUrl);
		await page.getByLabel('API key').fill(mailroom.adminKey);
		const start = Date.now();
		await page.getByRole('button', { name: 'Sign in' }).click();
		await row('Existing mail').waitFor();
		timings.signInToListMs = Date.now() - start;
		await page.getByRole('heading', { name: 'Mail', level: 1 }).waitFor();
		expect(await row('Existing mail').textContent()).toContain(other);
		// Unread: marked in the row, counted in the title.
		expect(await row('Existing mail').getAttribute('class')).toContain('unread');
		expect(await page.title()).toBe('(1) Mail · Mailroom');
	});

	it('puts a message sent over SMTP at the top within a second, without a reload, counted in the title', async () => {
		await mailroom.send({
			from: 'Styled Sender <styled@example.org>',
			to: reader,
			subject: 'Grüße styled',
			text: 'The word zebracorn is here.',
			html:
				`<h1 style="color: ${HEADING_COLOUR}; background: url(https://tracker.example/p.gif)">Styled heading</h1>` +
				'<p>The word zebracorn is here.</p><img src="cid:logo@test" alt="logo" width="40" height="40">' +
				`<p><a href="${hooks.url}/page">a page</a> <a href="http://169.254.169.254/latest">metadata</a></p>`,
			attachments: [{ filename: 'logo.png', content: solidPng(4, 4, [0, 128, 0]), cid: 'logo@test' }],
		});
		const sent = Date.now();
		await row('Grüße styled').waitFor({ timeout: 5000 });
		timings.smtpToRowMs = Date.now() - sent;
		expect(timings.smtpToRowMs).toBeLessThan(1000);
		expect(await page.getByRole('row').nth(1).textContent()).toContain('Grüße styled');
		expect(await row('Grüße styled').getByTitle('Has attachments').count()).toBe(1);
		expect(await page.title()).toBe('(2) Mail · Mailroom');
		await screenshot(page, '11-mail-list-live');
	});

	it('opens the message: inline styles and cid: image in the HTML tab, decoded headers, checked links; it is then read', async () => {
		await row('Grüße styled').getByRole('link').click();
		await page.getByRole('heading', { name: 'Grüße styled', level: 1 }).waitFor();
		const html = page.frameLocator('iframe.html-body');
		const heading = html.getByRole('heading', { name: 'Styled heading' });
		await heading.waitFor();
		expect(await heading.evaluate((element: StyledElement) => element.ownerDocument.defaultView.getComputedStyle(element).color)).toBe(
			HEADING_COLOUR,
		);
		// The tracker in the same style is left out; the colour stays.
		expect(await heading.getAttribute('style')).not.toContain('tracker');
		const image = html.getByRole('img', { name: 'logo' });
		expect(await image.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
		await waitFor(() => image.evaluate((element) => (element as unknown as { naturalWidth: number }).naturalWidth === 4), 'the cid: image');
		expect(await page.locator('iframe.html-body').getAttribute('sandbox')).toBe('');
		await page.getByText('1 remote image is blocked.').waitFor();
		await screenshot(page, '12-message-html', false);

		await page.getByRole('tab', { name: 'Headers' }).click();
		await page.getByRole('cell', { name: 'Grüße styled', exact: true }).waitFor();
		expect(await page.getByRole('tabpanel').textContent()).not.toContain('=?UTF-8?');
		await screenshot(page, '13-message-headers');

		await page.getByRole('tab', { name: 'Links (2)' }).click();
		await page.getByRole('button', { name: 'Check links' }).click();
		await row(`${hooks.url}/page`).filter({ hasText: 'HTTP 200' }).waitFor();
		expect(await row('169.254.169.254').textContent()).toMatch(/refused/);
		await screenshot(page, '14-message-links');

		await page.getByRole('tab', { name: 'Attachments (1)' }).click();
		await page.getByRole('button', { name: /Download logo\.png/ }).waitFor();
		expect(await page.getByRole('tabpanel').textContent()).toMatch(/image\/png, \d+ B/);

		const id = (await readerMessages()).find((message) => message.subject === 'Grüße styled')!;
		await waitFor(async () => (await readerMessages()).find((message) => message._id === id._id)?.read === true, 'the message read');
	});

	it('Reply and Forward open Compose filled from the message, a forward with its attachments', async () => {
		await page.getByRole('link', { name: 'Reply' }).click();
		await page.getByRole('heading', { name: 'Reply', level: 1 }).waitFor();
		await waitFor(async () => (await page.getByLabel('Subject').inputValue()) === 'Re: Grüße styled', 'the subject filled');
		expect(await page.getByLabel('To', { exact: true }).inputValue()).toBe('styled@example.org');
		expect(await page.getByLabel('From').inputValue()).toBe(reader);
		expect(await page.getByLabel('Text').inputValue()).toContain('> The word zebracorn is here.');

		await page.goBack();
		await page.getByRole('link', { name: 'Forward' }).click();
		await page.getByText('Forwarded: logo.png').waitFor();
		expect(await page.getByLabel('Subject').inputValue()).toBe('Fwd: Grüße styled');
		expect(await page.getByLabel('To', { exact: true }).inputValue()).toBe('');
		expect(await page.getByLabel('Text').inputValue()).toContain('From: Styled Sender <styled@example.org>');
	});

	it('searches by a word of the body: the message is found, the others hidden', async () => {
		await nav('Mail').click();
		await row('Existing mail').waitFor();
		await page.getByLabel('Search mail').fill('zebracorn');
		await page.getByRole('button', { name: 'Search' }).click();
		await waitFor(async () => (await row('Existing mail').count()) === 0, 'the other message hidden');
		expect(await row('Grüße styled').count()).toBe(1);
		await screenshot(page, '15-mail-search');
		await page.getByLabel('Search mail').fill('');
		await page.getByRole('button', { name: 'Search' }).click();
		await row('Existing mail').waitFor();
	});

	it('shows one address when asked, and deletes all of its mail', async () => {
		await mailroom.send({ from: 'old@example.org', to: other, subject: 'Another for other', text: 'more' });
		await row('Another for other').waitFor();
		await page.getByLabel('Address', { exact: true }).selectOption(other);
		await waitFor(async () => (await row('Grüße styled').count()) === 0, 'the other address hidden');
		expect(await row('Existing mail').count()).toBe(1);
		// Deleting one by its checkbox, then the rest of the address at once.
		await row('Another for other').getByRole('checkbox').check();
		await page.getByRole('button', { name: 'Delete selected' }).click();
		await status('Deleted 1 message.').waitFor();
		expect(await row('Another for other').count()).toBe(0);
		await page.getByRole('button', { name: `Delete all of ${other}` }).click();
		await page.getByText('No messages yet.').waitFor();
		expect(
			(await mailroom.api<MessageRecord[]>(`/api/addresses/${encodeURIComponent(other)}/messages`, { key: mailroom.adminKey })).body,
		).toEqual([]);
		await page.getByLabel('Address', { exact: true }).selectOption('');
		await row('Grüße styled').waitFor();
		await mailroom.send({ from: 'Old Friend <old@example.org>', to: other, subject: 'Existing mail', text: 'sent again' });
		await row('Existing mail').waitFor();
	});

	it('Compose sends a message with an attachment, which then appears in Mail; Sent shows its recipient delivered', async () => {
		await nav('Compose').click();
		await page.getByText('Credits left: 10').waitFor();
		await page.getByLabel('From').selectOption(reader);
		await page.getByLabel('To', { exact: true }).fill(reader);
		await page.getByLabel('Subject').fill('Composed with a file');
		await page.getByLabel('Text').fill('See the attached report.');
		await page.getByLabel('Attachments').setInputFiles({ name: 'report.txt', mimeType: 'text/plain', buffer: Buffer.from('the report') });
		await screenshot(page, '16-compose');
		await page.getByRole('button', { name: 'Send' }).click();
		await status('Sent to 1 recipient').waitFor();
		await page.getByText('Credits left: 9').waitFor();

		await nav('Mail').click();
		await row('Composed with a file').waitFor();
		expect(await row('Composed with a file').getByTitle('Has attachments').count()).toBe(1);
		await nav('Sent').click();
		await row('Composed with a file').filter({ hasText: 'delivered' }).waitFor();
		expect(await row('Composed with a file').textContent()).toContain(`${reader} (to)`);
		await screenshot(page, '17-sent');
	});

	it('Recent Activity: a delivery opens to the request it sent, its body included, and the response', async () => {
		await nav('Recent Activity').click();
		const delivered = row(reader).filter({ hasText: 'delivered' }).first();
		await delivered.waitFor({ timeout: 15_000 });
		await delivered.getByRole('button', { name: /^Open/ }).click();
		const detail = page.locator('#attempt-detail');
		await detail.getByText(`POST ${hooks.url}/hook`).waitFor();
		expect(await detail.locator('pre').first().textContent()).toContain('"subject":');
		await detail.getByText('HTTP 200').waitFor();
		await screenshot(page, '18-recent-activity-request');
	});

	it('works from the keyboard: / searches, j and k move, Enter opens, Delete deletes', async () => {
		await nav('Mail').click();
		await row('Existing mail').waitFor();
		await page.keyboard.press('/');
		expect(await page.evaluate('document.activeElement.id')).toBe('mail-search');
		await page.getByRole('heading', { name: 'Mail', level: 1 }).focus();
		await page.keyboard.press('j');
		await page.keyboard.press('j');
		await page.keyboard.press('k');
		expect(await page.evaluate('document.activeElement.textContent')).toBe('Composed with a file');
		// Newest first: what Compose sent, the mail of the other address, then the styled message.
		await page.keyboard.press('j');
		await page.keyboard.press('j');
		await page.keyboard.press('Enter');
		await page.getByRole('heading', { name: 'Grüße styled', level: 1 }).waitFor();
		await page.goBack();
		await row('Existing mail').waitFor();
		await page.getByRole('heading', { name: 'Mail', level: 1 }).focus();
		for (let i = 0; i < 2; i++) await page.keyboard.press('j');
		expect(await page.evaluate('document.activeElement.textContent')).toBe('Existing mail');
		await page.keyboard.press('Delete');
		await waitFor(async () => (await row('Existing mail').count()) === 0, 'the message deleted');
		expect(
			(await mailroom.api<MessageRecord[]>(`/api/addresses/${encodeURIComponent(other)}/messages`, { key: mailroom.adminKey })).body,
		).toEqual([]);
	});

	it("watches a public address: its mail is listed with the account's, new mail comes live, removing it hides it", async () => {
		await mailroom.send({ from: 'Newsletter <letters@example.org>', to: watchedAddress, subject: 'Public issue 1', text: 'public mail' });
		await row('Composed with a file').waitFor();
		expect(await row('Public issue 1').count()).toBe(0);
		// A bad address and one of the account's own are refused inline.
		const watchBox = page.getByLabel('Watch a public address');
		const watchButton = page.getByRole('button', { name: 'Watch', exact: true });
		await watchBox.fill('not an address');
		await watchButton.click();
		await page.getByRole('alert').filter({ hasText: 'not an address is not an email address' }).waitFor();
		expect(await watchBox.getAttribute('aria-invalid')).toBe('true');
		await watchBox.fill(reader);
		await watchButton.click();
		await page
			.getByRole('alert')
			.filter({ hasText: `${reader} is one of your addresses` })
			.waitFor();

		await watchBox.fill(watchedAddress.toUpperCase());
		await watchButton.click();
		await page.getByRole('listitem').filter({ hasText: watchedAddress }).waitFor();
		expect(await page.locator('#mail-watch-problem').textContent()).toBe('');
		// Its existing mail, newest first with the account's.
		await row('Public issue 1').waitFor();
		expect(await page.getByRole('row').nth(1).textContent()).toContain('Public issue 1');
		expect(await page.getByRole('row').nth(2).textContent()).toContain('Composed with a file');
		expect(await row('Public issue 1').textContent()).toContain(watchedAddress);
		expect(await page.evaluate('Object.entries(localStorage)')).toEqual([
			[expect.stringMatching(/^mailroom\.watchList\./), `["${watchedAddress}"]`],
		]);

		// Live: the socket, reopened with the address listed, brings its new mail to the top.
		await page.locator(`section[data-listening="${watchedAddress}"]`).waitFor({ state: 'attached' });
		const title = await page.title();
		await mailroom.send({ from: 'Newsletter <letters@example.org>', to: watchedAddress, subject: 'Public issue 2', text: 'more' });
		const sent = Date.now();
		await row('Public issue 2').waitFor({ timeout: 5000 });
		timings.smtpToWatchedRowMs = Date.now() - sent;
		expect(await page.getByRole('row').nth(1).textContent()).toContain('Public issue 2');
		expect(await row('Public issue 2').getByRole('link').textContent()).toBe('Public issue 2');
		expect(await page.title()).toBe(title); // the count is of the account's unread mail only
		await screenshot(page, '21-mail-watch-list');

		// In the address filter: its inbox alone. The list outlives a reload (localStorage), which shows All addresses again.
		await page.getByLabel('Address', { exact: true }).selectOption(watchedAddress);
		await waitFor(async () => (await row('Composed with a file').count()) === 0, 'the account mail hidden');
		expect(await page.getByRole('row').count()).toBe(3);
		await page.reload();
		await row('Public issue 2').waitFor();
		await row('Composed with a file').waitFor();
		expect(await page.getByRole('listitem').filter({ hasText: watchedAddress }).count()).toBe(1);

		await page.getByRole('button', { name: `Remove ${watchedAddress} from the watch list` }).click();
		await waitFor(async () => (await row('Public issue').count()) === 0, 'the watched mail hidden');
		expect(await row('Composed with a file').count()).toBe(1);
		expect(await page.getByRole('listitem').filter({ hasText: watchedAddress }).count()).toBe(0);
		expect(await page.evaluate('Object.keys(localStorage)')).toEqual([]);
	});

	it('broke no rule of the Content-Security-Policy on the way', () => {
		expect(violations).toEqual([]);
	});

	it('fits a phone, in the dark theme when the system asks for it', async () => {
		const phone = await browser.newContext({ ...PHONE, colorScheme: 'dark' });
		const small = await phone.newPage();
		small.setDefaultTimeout(10_000);
		try {
			await small.goto(mailroom.httpUrl);
			await small.getByLabel('API key').fill(mailroom.adminKey);
			await small.getByRole('button', { name: 'Sign in' }).click();
			await small.getByRole('row').filter({ hasText: 'Grüße styled' }).waitFor();
			expect(await small.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
			expect(await small.evaluate('getComputedStyle(document.documentElement).backgroundColor')).toBe('rgb(20, 24, 29)');
			await screenshot(small, '19-phone-mail-dark');
			await small.getByRole('row').filter({ hasText: 'Grüße styled' }).getByRole('link').click();
			await small.frameLocator('iframe.html-body').getByRole('heading', { name: 'Styled heading' }).waitFor();
			expect(await small.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
			await screenshot(small, '20-phone-message-dark', false);
		} finally {
			await phone.close();
		}
	});

	it('loads 250 messages: first rows shown soon after the page is opened', async () => {
		// On one SMTP connection, one after another: a connection each would wait out 250 greetings.
		const bulk = nodemailer.createTransport({ host: '127.0.0.1', port: mailroom.smtpPort, ignoreTLS: true, pool: true, maxConnections: 1 });
		try {
			for (let i = 0; i < 250; i++)
				await bulk.sendMail({ from: 'bulk@example.org', to: reader, subject: `Bulk ${i}`, text: `bulk message ${i}` });
		} finally {
			bulk.close();
		}
		const start = Date.now();
		await page.reload();
		await row('Bulk 249').waitFor();
		timings.reloadWith250MessagesToFirstRowMs = Date.now() - start;
		expect(await page.getByRole('row').count()).toBe(51); // the heading row and a page of 50
		await page.getByRole('button', { name: 'Older' }).click();
		await row('Bulk 199').waitFor();
		await page.getByText('Messages 51–100').waitFor();
	}, 120_000);

	it('pages All addresses with a watched address merged in: no message skipped or shown twice', async () => {
		await page.getByLabel('Watch a public address').fill(watchedAddress);
		await page.getByRole('button', { name: 'Watch', exact: true }).click();
		await page.getByText('Messages 1–50', { exact: true }).waitFor();
		await row('Bulk 249').waitFor();
		const subjects: string[] = [];
		for (let first = 1; ; first += 50) {
			await page.getByText(new RegExp(`^Messages ${first}–`)).waitFor();
			subjects.push(...(await page.locator('tr.mail-row a').allTextContents()));
			if (await page.getByRole('button', { name: 'Older' }).isDisabled()) break;
			await page.getByRole('button', { name: 'Older' }).click();
		}
		// 250 bulk, the two watched, what Compose sent and the styled message: each once, newest first.
		expect(subjects.slice(248)).toEqual(['Bulk 1', 'Bulk 0', 'Public issue 2', 'Public issue 1', 'Composed with a file', 'Grüße styled']);
		expect(new Set(subjects).size).toBe(subjects.length);
		expect(subjects).toHaveLength(254);
		await page.getByRole('button', { name: 'Newer' }).click();
		await page.getByText('Messages 201–250', { exact: true }).waitFor();
		await row('Bulk 0').waitFor();
		await page.getByRole('button', { name: `Remove ${watchedAddress} from the watch list` }).click();
	}, 60_000);

	const readerMessages = async () =>
		(await mailroom.api<MessageRecord[]>(`/api/addresses/${encodeURIComponent(reader)}/messages`, { key: mailroom.adminKey })).body;
});
