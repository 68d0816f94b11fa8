/**
 * Screenshots of the Mailroom node panels in the real n8n 2.11.2 editor (install-n8n.sh), for docs/images. Not a test: it
 * is not named *.e2e.ts, so `npm run test:e2e` leaves it out; docs/development.md says how to run it (by hand, after
 * `npm run build`, with no other n8n running). The work tree is linked into n8n as a community package; the PNGs land in
 * test-artifacts/n8n-screens (SCREENS_OUT), to be looked at and copied to docs/images/n8n-*.png.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestMailroom, type TestMailroom } from '../helpers/mailroom';
import { launchChromium } from '../helpers/browser';
import { linkPackage, N8nRest, n8nSettings, ROOT, startN8n } from './n8n-process';

const OUT = process.env.SCREENS_OUT ?? path.join(ROOT, 'test-artifacts/n8n-screens');

describe('n8n editor screenshots (docs/images)', () => {
	const work = mkdtempSync(path.join(tmpdir(), 'mailroom-screens-'));
	const userFolder = path.join(work, 'n8n-user');
	let mailroom: TestMailroom;
	let n8n: ChildProcess;
	let n8nUrl = '';
	let browser: Browser;
	let page: Page;
	let workflowId = '';

	const n8nRest = new N8nRest(() => n8nUrl);
	const rest = <T = unknown>(method: string, route: string, body?: unknown) => n8nRest.call<T>(method, route, body);

	beforeAll(async () => {
		linkPackage(userFolder);
		mailroom = await startTestMailroom();
		const account = await mailroom.createAccount('screens', 10);
		for (const email of ['orders@example.com', 'deploy-bot@example.com', 'support@example.com'])
			await mailroom.api(`/api/addresses/${email}`, { method: 'POST', key: account.key });
		await mailroom.domains.claim('mail.example.com', account.id);
		await mailroom.api('/api/domains/mail.example.com', { method: 'PUT', key: account.key, body: { catchAll: 'inbox@mail.example.com' } });

		const settings = await n8nSettings(userFolder);
		n8nUrl = settings.url;
		n8n = await startN8n(settings.url, settings.env, work);
		await n8nRest.setUpOwner();
		const credential = await rest<{ id: string; name: string }>('POST', '/credentials', {
			name: 'Mailroom account',
			type: 'mailroomApi',
			data: { apiKey: account.key, baseUrl: mailroom.httpUrl },
		});
		const mailroomApi = { id: credential.id, name: credential.name };
		const workflow = await rest<{ id: string }>('POST', '/workflows', {
			name: 'Mailroom panels',
			active: false,
			settings: {},
			connections: {},
			nodes: [
				{
					parameters: { email: { __rl: true, mode: 'list', value: 'orders@example.com' }, reserveAddress: true },
					id: 'a0000000-0000-4000-8000-000000000001',
					name: 'Mailroom Trigger',
					type: 'n8n-nodes-mailroom.mailroomTrigger',
					typeVersion: 1.2,
					position: [0, 0],
					webhookId: 'a0000000-0000-4000-8000-0000000000a1',
					credentials: { mailroomApi },
				},
				{
					parameters: {
						resource: 'email',
						operation: 'sendAndWait',
						from: { __rl: true, mode: 'list', value: 'deploy-bot@example.com' },
						sendTo: 'boss@example.org',
						subject: 'May I deploy release 4.2 today?',
						message: 'Release 4.2 is ready. Reply to this email with "yes" to deploy it, or tell me what to change.',
						responseType: 'reply',
						options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'days' } } },
					},
					id: 'a0000000-0000-4000-8000-000000000002',
					name: 'Ask by Email',
					type: 'n8n-nodes-mailroom.mailroom',
					typeVersion: 1.2,
					position: [300, 0],
					webhookId: 'a0000000-0000-4000-8000-0000000000a2',
					credentials: { mailroomApi },
				},
				{
					parameters: {
						resource: 'message',
						operation: 'getAll',
						email: { __rl: true, mode: 'list', value: 'orders@example.com' },
						limit: 20,
						filters: { readStatus: 'unread', sender: 'billing', receivedAfter: '2026-11-01T00:00:00' },
						options: {},
					},
					id: 'a0000000-0000-4000-8000-000000000003',
					name: 'Get Unread Invoices',
					type: 'n8n-nodes-mailroom.mailroom',
					typeVersion: 1.2,
					position: [600, 0],
					credentials: { mailroomApi },
				},
			],
		});
		workflowId = workflow.id;

		browser = await launchChromium();
		page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
		page.setDefaultTimeout(30_000);
		await page.goto(`${n8nUrl}/signin`);
		await page.getByLabel('Email').fill('e2e@example.com');
		await page.getByLabel('Password').fill('E2e-password-123');
		await page.getByRole('button', { name: 'Sign in' }).click();
		await page.waitForURL((url) => !url.pathname.includes('signin'));
		mkdirSync(OUT, { recursive: true });
	}, 240_000);

	afterAll(async () => {
		await browser?.close();
		if (n8n && n8n.exitCode === null) {
			const exited = new Promise((resolve) => n8n.once('exit', resolve));
			n8n.kill('SIGTERM');
			await exited;
		}
		await mailroom?.stop();
		rmSync(work, { recursive: true, force: true });
	});

	const shot = (name: string) => page.screenshot({ path: path.join(OUT, `${name}.png`) });

	async function openNode(name: string) {
		await page.goto(`${n8nUrl}/workflow/${workflowId}`);
		await page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`).first().waitFor();
		await page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`).first().dblclick();
		await page.locator('[data-test-id="ndv"]').first().waitFor();
		await page.waitForTimeout(1500);
	}

	it('Send and Wait for Response', async () => {
		await openNode('Ask by Email');
		await shot('send-and-wait');
	});

	it('Get Many with its filters and Simplify', async () => {
		await openNode('Get Unread Invoices');
		await shot('get-many');
	});

	it('the address resource locator list', async () => {
		await openNode('Get Unread Invoices');
		await page.locator('[data-test-id="rlc-input"]').first().click();
		await page.waitForTimeout(2500);
		await shot('address-list');
	});

	it('the trigger panel', async () => {
		await openNode('Mailroom Trigger');
		await shot('trigger');
	});
});
