/**
 * Screenshots of the Mailroom node panels in the real n8n 2.11.2 editor (install-n8n.sh), for docs/images. Not a test: it
 * is not named *.e2e.ts, so `npm run test:e2e` leaves it out; docs/development.md says how to run it (by hand, after
 * `npm run build`, with no other n8n running). The work tree is linked into n8n as a community package; the PNGs land in
 * test-artifacts/n8n-screens (SCREENS_OUT), to be looked at and copied to docs/images/n8n-*.png.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestMailroom, type TestMailroom } from '../helpers/mailroom';
import { waitFor } from '../helpers/webhook-receiver';
import { launchChromium } from '../helpers/browser';

const ROOT = path.resolve(__dirname, '../..');
const CACHE = process.env.MAILROOM_E2E_CACHE ?? path.join(homedir(), '.cache/mailroom-e2e');
const N8N_BIN = path.join(CACHE, 'n8n/node_modules/n8n/bin/n8n');
const OUT = process.env.SCREENS_OUT ?? path.join(ROOT, 'test-artifacts/n8n-screens');

const freePort = () =>
	new Promise<number>((resolve) => {
		const probe = createServer().listen(0, '127.0.0.1', () => {
			const { port } = probe.address() as { port: number };
			probe.close(() => resolve(port));
		});
	});

describe('n8n editor screenshots (docs/images)', () => {
	const work = mkdtempSync(path.join(tmpdir(), 'mailroom-screens-'));
	const userFolder = path.join(work, 'n8n-user');
	let mailroom: TestMailroom;
	let n8n: ChildProcess;
	let n8nUrl = '';
	let cookie = '';
	let browser: Browser;
	let page: Page;
	let workflowId = '';

	async function rest<T = unknown>(method: string, route: string, body?: unknown): Promise<T> {
		const response = await fetch(`${n8nUrl}/rest${route}`, {
			method,
			headers: { 'content-type': 'application/json', 'browser-id': 'mailroom-e2e', cookie },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		cookie = response.headers.get('set-cookie')?.split(';')[0] ?? cookie;
		const text = await response.text();
		if (response.status >= 400) throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 500)}`);
		const json = JSON.parse(text) as { data?: T };
		return json.data ?? (json as T);
	}

	beforeAll(async () => {
		const nodesDir = path.join(userFolder, '.n8n/nodes/node_modules');
		mkdirSync(nodesDir, { recursive: true });
		symlinkSync(ROOT, path.join(nodesDir, 'n8n-nodes-mailroom'));
		mailroom = await startTestMailroom();
		const account = await mailroom.createAccount('screens', 10);
		for (const email of ['orders@example.com', 'deploy-bot@example.com', 'support@example.com'])
			await mailroom.api(`/api/addresses/${email}`, { method: 'POST', key: account.key });
		await mailroom.domains.claim('mail.example.com', account.id);
		await mailroom.api('/api/domains/mail.example.com', { method: 'PUT', key: account.key, body: { catchAll: 'inbox@mail.example.com' } });

		const port = await freePort();
		n8nUrl = `http://127.0.0.1:${port}`;
		n8n = spawn(process.execPath, [N8N_BIN, 'start'], {
			env: {
				PATH: process.env.PATH,
				HOME: process.env.HOME,
				N8N_USER_FOLDER: userFolder,
				N8N_PORT: String(port),
				N8N_LISTEN_ADDRESS: '127.0.0.1',
				N8N_HOST: '127.0.0.1',
				N8N_PROTOCOL: 'http',
				WEBHOOK_URL: `${n8nUrl}/`,
				N8N_ENCRYPTION_KEY: 'mailroom-e2e-encryption-key',
				N8N_RUNNERS_BROKER_PORT: String(await freePort()),
				N8N_DIAGNOSTICS_ENABLED: 'false',
				N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
				N8N_TEMPLATES_ENABLED: 'false',
				N8N_PERSONALIZATION_ENABLED: 'false',
				N8N_SECURE_COOKIE: 'false',
				N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
			},
			stdio: ['ignore', openSync(path.join(work, 'n8n.log'), 'a'), openSync(path.join(work, 'n8n.err'), 'a')],
		});
		await waitFor(
			async () => {
				if (n8n.exitCode !== null) throw new Error(readFileSync(path.join(work, 'n8n.err'), 'utf8').slice(-3000));
				const response = await fetch(`${n8nUrl}/rest/settings`).catch(() => undefined);
				return response?.status === 200 && ((await response.json().catch(() => ({}))) as { data?: unknown }).data !== undefined;
			},
			'n8n to start',
			150_000,
		);
		await rest('POST', '/owner/setup', { email: 'e2e@example.com', firstName: 'E2E', lastName: 'Test', password: 'E2e-password-123' });
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
