import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { Me } from 'mailroom-server/dist/schemas/account';
import { startTestMailroom, type TestMailroom } from '../../helpers/mailroom';
import { launchChromium, screenshot } from '../../helpers/browser';

/** The Admin page: what `mailroom accounts|keys|credits|domains` do, in a real browser, for admin keys only. */
describe('Dashboard: Admin', () => {
	let mailroom: TestMailroom;
	let browser: Browser;
	let page: Page;
	let member: { id: string; key: string };

	beforeAll(async () => {
		mailroom = await startTestMailroom();
		[browser, member] = await Promise.all([launchChromium(), mailroom.createAccount('member')]);
		page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
		page.setDefaultTimeout(10_000);
		page.on('dialog', (dialog) => void dialog.accept());
	}, 60_000);

	afterAll(async () => {
		await browser?.close();
		await mailroom?.stop();
	});

	const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text });
	const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true });
	const row = (text: string) => page.getByRole('row').filter({ hasText: text });
	const me = async (key: string) => (await mailroom.api<Me>('/api/me', { key })).body;

	async function signIn(key: string): Promise<void> {
		await page.goto(mailroom.httpUrl);
		await page.evaluate('sessionStorage.clear()');
		await page.goto(`${mailroom.httpUrl}/#/mail`);
		await page.getByLabel('API key').fill(key);
		await page.getByRole('button', { name: 'Sign in' }).click();
		await page.getByRole('heading', { name: 'Mail', level: 1 }).waitFor();
	}

	it('is not offered to an ordinary account, and the server refuses it the page', async () => {
		await signIn(member.key);
		await nav('Account').click();
		await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
		expect(await nav('Admin').isVisible()).toBe(false);
		await page.goto(`${mailroom.httpUrl}/#/admin`);
		await status(/Only an admin account's key/).waitFor();
		expect(await page.getByRole('table').count()).toBe(0);
	});

	it('lets an admin create an account, add credits, create and revoke keys, and give and take domains', async () => {
		await signIn(mailroom.adminKey);
		await nav('Admin').click();
		await page.getByRole('heading', { name: 'Admin', level: 1 }).waitFor();
		await row('member').waitFor();

		// An account and its first key, shown once; the key works at once.
		await page.getByLabel('New account name').fill('acme qa');
		await page.getByRole('button', { name: 'Create account' }).click();
		await page
			.getByRole('alert')
			.filter({ hasText: /must be 1-64 letters/ })
			.waitFor();
		expect(await page.getByLabel('New account name').getAttribute('aria-invalid')).toBe('true');
		await page.getByLabel('New account name').fill('acme-qa');
		await page.getByLabel('Credits', { exact: true }).fill('5');
		await page.getByRole('button', { name: 'Create account' }).click();
		await status('Created the account acme-qa.').waitFor();
		expect(await me((await page.locator('#admin-new-account-key').textContent())!)).toMatchObject({ name: 'acme-qa', sendsRemaining: 5 });
		await row('acme-qa').waitFor();

		// Credits, with the rules of `mailroom credits add`: at least one.
		await page.getByLabel('Credits to add to member').fill('0');
		await row('member').getByRole('button', { name: 'Add credits' }).click();
		await page
			.getByRole('alert')
			.filter({ hasText: /credits/ })
			.waitFor();
		await page.getByLabel('Credits to add to member').fill('25');
		await row('member').getByRole('button', { name: 'Add credits' }).click();
		await status('member now has 25 outgoing credits.').waitFor();
		expect((await me(member.key)).sendsRemaining).toBe(25);

		// Keys of an account: one made here works until it is revoked; the admin's own session key is never offered.
		await row('member').getByRole('button', { name: 'Keys of member' }).click();
		await page.getByRole('table', { name: 'API keys of member' }).waitFor();
		await page.getByLabel('Label for a new key').fill('CI');
		await page.getByRole('button', { name: 'Create key' }).click();
		const ciKey = (await page.locator('#admin-new-key').textContent())!;
		expect((await me(ciKey)).name).toBe('member');
		await page.getByRole('button', { name: 'Revoke key CI of member' }).click();
		await status('Revoked the key CI of member.').waitFor();
		expect((await mailroom.api('/api/me', { key: ciKey })).status).toBe(401);
		await page.getByLabel('Account', { exact: true }).selectOption({ label: 'admin' });
		await page.getByRole('table', { name: 'API keys of admin' }).getByText('Active (this session)').waitFor();
		expect(
			await page
				.getByRole('table', { name: 'API keys of admin' })
				.getByRole('button', { name: /Revoke/ })
				.count(),
		).toBe(0);

		// Domains: a refusal under the field, then one given to an account (its mail is then private to it) and taken back.
		await page.getByLabel('Domain', { exact: true }).fill('not a domain');
		await page.getByRole('button', { name: 'Give domain' }).click();
		await page
			.getByRole('alert')
			.filter({ hasText: /is not a domain name/ })
			.waitFor();
		await page.getByLabel('Domain', { exact: true }).fill('acme.test');
		await page.getByLabel('To account').selectOption({ label: 'acme-qa' });
		await page.getByRole('button', { name: 'Give domain' }).click();
		await status('acme.test belongs to acme-qa').waitFor();
		expect(await mailroom.domains.get('acme.test')).toMatchObject({
			owner: (await me((await page.locator('#admin-new-account-key').textContent())!))._id,
		});
		await page.getByRole('table', { name: 'Custom domains and their owners' }).getByRole('row').filter({ hasText: 'acme-qa' }).waitFor();
		await screenshot(page, 'dashboard-admin');
		await page.getByRole('button', { name: 'Remove acme.test' }).click();
		await status('Removed acme.test').waitFor();
		expect(await mailroom.domains.get('acme.test')).toBeUndefined();

		// On a phone the tables become cards, and a row's credits form wraps inside its card rather than widening the page.
		await page.setViewportSize({ width: 375, height: 740 });
		expect(await page.evaluate('document.documentElement.scrollWidth')).toBe(375);
	});
});
