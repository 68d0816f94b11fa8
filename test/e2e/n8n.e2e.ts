/**
 * End to end with a real n8n (2.11.2, installed by install-n8n.sh outside the repository) on the same Node as this test
 * and our package loaded as a community package, against a real Mailroom started by the test:
 * the example workflows of examples/n8n are imported, activated and run with real SMTP mail.
 *
 * `npm run test:e2e` builds, installs n8n on first run, then runs this. MAILROOM_E2E_LINK=1 links
 * the work tree into n8n (the development setup) instead of installing the `npm pack` tarball.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { IDataObject, INode, IRunData } from 'n8n-workflow';
import { Webhook } from 'standardwebhooks';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { WebhookSubscription } from 'mailroom-server/dist/schemas/webhook';
import { startTestMailroom, type TestMailroom } from '../helpers/mailroom';
import { sendMail } from '../helpers/messages';
import { waitFor, WebhookReceiver } from '../helpers/webhook-receiver';
import { activity } from '../helpers/webhooks';
import { forwardingOf } from '../helpers/addresses';
import { CACHE, communityPackages, linkPackage, N8nRest, n8nSettings, ROOT, startN8n as startN8nProcess } from './n8n-process';

// n8n stores execution data with `flatted`; its copy reads it back.
const flatted = createRequire(path.join(CACHE, 'n8n/node_modules/n8n/package.json'))('flatted') as { parse(text: string): unknown };

/** A workflow as exported from n8n (examples/n8n). */
interface WorkflowJson {
	nodes: INode[];
	settings?: IDataObject;
	[key: string]: unknown;
}

/** What n8n's REST API tells of an execution (GET /executions/:id): its run data is stored with flatted. */
interface ExecutionJson {
	id: string;
	status: string;
	data: string;
}

/** A node type or credential type of GET /types/nodes.json and /types/credentials.json. */
interface TypeJson {
	name: string;
	displayName: string;
	iconUrl?: { light: string; dark: string };
}

/** A POST of `body` signed with `secret` as Mailroom signs a delivery (Standard Webhooks), `id` its webhook-id. */
function signedPost(secret: string, id: string, body: string): RequestInit {
	const now = new Date();
	return {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'webhook-id': id,
			'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
			'webhook-signature': new Webhook(secret).sign(id, now, body),
		},
		body,
	};
}

const example = (file: string) => JSON.parse(readFileSync(path.join(ROOT, 'examples/n8n', file), 'utf8')) as WorkflowJson;

describe('Mailroom nodes in a real n8n', () => {
	const work = mkdtempSync(path.join(tmpdir(), 'mailroom-e2e-'));
	const userFolder = path.join(work, 'n8n-user');
	// Where workflows may read and write files.
	const files = path.join(work, 'files');
	let mailroom: TestMailroom;
	let account: { id: string; key: string };
	let n8n: ChildProcess;
	/** Starts n8n (again) on the same port, user folder and database. */
	let startN8n: () => Promise<void>;
	let n8nUrl = '';
	let credential: { id: string; name: string };

	/** n8n's REST API with the owner's cookie; the auth cookie is bound to a browser-id header. */
	const n8nRest = new N8nRest(() => n8nUrl);
	const rest = <T = unknown>(method: string, route: string, body?: unknown) => n8nRest.call<T>(method, route, body);

	const record = (email: string) => forwardingOf(mailroom, account.key, email);
	const subscriptionsOf = async (email: string) =>
		(await mailroom.api<WebhookSubscription[]>(`/api/addresses/${encodeURIComponent(email)}/webhooks`, { key: account.key })).body;

	/** Imports a workflow with our credential in every Mailroom node. */
	async function importWorkflow(workflow: WorkflowJson): Promise<{ id: string; versionId: string }> {
		for (const node of workflow.nodes) if (node.credentials?.mailroomApi) node.credentials.mailroomApi = credential;
		return await rest<{ id: string; versionId: string }>('POST', '/workflows', {
			...workflow,
			active: false,
			settings: { ...workflow.settings, saveDataSuccessExecution: 'all', saveDataErrorExecution: 'all' },
		});
	}

	/** The run data of the workflow's first finished execution (`minimum` of them; finished as `isDone` says), once there is one. */
	async function finishedExecution(
		workflowId: string,
		minimum = 1,
		isDone = (status: string) => !['new', 'running', 'waiting'].includes(status),
	): Promise<{ status: string; runData: IRunData }[]> {
		const finished = await waitFor(
			async () => {
				const { results = [] } = await rest<{ results?: ExecutionJson[] }>(
					'GET',
					`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}`,
				);
				const done = results.filter((execution) => isDone(execution.status));
				return done.length >= minimum ? done : undefined;
			},
			`${minimum} finished execution(s) of workflow ${workflowId}`,
			60_000,
		);
		return await Promise.all(
			finished.map(async ({ id }) => {
				const execution = await rest<ExecutionJson>('GET', `/executions/${id}`);
				const data = flatted.parse(execution.data) as { resultData: { runData: IRunData } };
				return { status: execution.status, runData: data.resultData.runData };
			}),
		);
	}
	/** The JSON of the items a node output in a run. */
	const output = (runData: IRunData, node: string) => runData[node][0].data!.main[0]!.map((item) => item.json);

	beforeAll(async () => {
		// The package, as n8n installs a community package: in <user folder>/.n8n/nodes/node_modules.
		if (process.env.MAILROOM_E2E_LINK) {
			linkPackage(userFolder);
		} else {
			const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' })
				.trim()
				.split('\n')
				.pop()!;
			execFileSync('tar', ['xzf', path.join(work, tarball), '-C', work]);
			renameSync(path.join(work, 'package'), path.join(communityPackages(userFolder), 'n8n-nodes-mailroom'));
		}

		// Mail sent to bounce@tests.example comes back as a bounce, as a remote server would send it (issue 35's test addresses).
		// Webhooks retried every 5 s: a reply that came while n8n was down reaches it within seconds of its return, however long
		// its start takes (the default schedule waits 30 s, then 2 min).
		mailroom = await startTestMailroom({ testDomain: 'tests.example', webhookRetrySchedule: [0, ...Array<number>(60).fill(5000)] });
		account = await mailroom.createAccount('e2e', 10);

		const settings = await n8nSettings(userFolder, { N8N_RESTRICT_FILE_ACCESS_TO: files });
		n8nUrl = settings.url;
		startN8n = async () => {
			n8n = await startN8nProcess(settings.url, settings.env, work);
		};
		await startN8n();
		await n8nRest.setUpOwner();
	});

	/** Stops n8n as its service manager would (SIGTERM), and waits until it has exited. */
	async function stopN8n(): Promise<void> {
		if (n8n.exitCode !== null) return;
		const exited = new Promise((resolve) => n8n.once('exit', resolve));
		n8n.kill('SIGTERM');
		await exited;
	}

	afterAll(async () => {
		if (n8n) await stopN8n();
		await mailroom?.stop();
		if (!process.env.MAILROOM_E2E_KEEP) rmSync(work, { recursive: true, force: true });
	});

	it('loads the package: both nodes (and the AI tool and human-in-the-loop tool variants), their icons and the credential', async () => {
		const get = async (route: string) => fetch(`${n8nUrl}${route}`, { headers: { cookie: n8nRest.cookie, 'browser-id': 'mailroom-e2e' } });
		const nodes = (await (await get('/types/nodes.json')).json()) as TypeJson[];
		const ours = nodes.filter((type) => type.name.startsWith('n8n-nodes-mailroom.'));
		expect(ours.map((type) => type.name).sort()).toEqual([
			'n8n-nodes-mailroom.mailroom',
			'n8n-nodes-mailroom.mailroomHitlTool',
			'n8n-nodes-mailroom.mailroomTool',
			'n8n-nodes-mailroom.mailroomTrigger',
		]);
		// n8n makes the human-in-the-loop tool of a node with a Send and Wait operation: Email → Send and Wait, Approval.
		const hitl = ours.find((type) => type.name === 'n8n-nodes-mailroom.mailroomHitlTool') as unknown as {
			properties: { name: string; type: string; default: unknown }[];
		};
		const hidden = (name: string) => hitl.properties.filter((p) => p.name === name && p.type === 'hidden').map((p) => p.default);
		expect([hidden('resource'), [...new Set(hidden('operation'))], hidden('responseType')]).toEqual([
			['email'],
			['sendAndWait'],
			['approval'],
		]);
		const icon = await get(`/${ours.find((type) => type.name === 'n8n-nodes-mailroom.mailroom')!.iconUrl!.light}`);
		expect([icon.status, icon.headers.get('content-type')]).toEqual([200, expect.stringContaining('svg')]);
		const credentials = (await (await get('/types/credentials.json')).json()) as TypeJson[];
		expect(credentials.find((type) => type.name === 'mailroomApi')).toMatchObject({ displayName: 'Mailroom API' });
	});

	it('creates the credential; its test passes with the key and fails clearly with a wrong one', async () => {
		credential = await rest<{ id: string; name: string }>('POST', '/credentials', {
			name: 'Mailroom e2e',
			type: 'mailroomApi',
			data: { apiKey: account.key, baseUrl: mailroom.httpUrl },
		});
		const test = (apiKey: string) =>
			rest('POST', '/credentials/test', {
				credentials: { ...credential, type: 'mailroomApi', data: { apiKey, baseUrl: mailroom.httpUrl } },
			});
		expect(await test(account.key)).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(await test('mr_wrong')).toEqual({
			status: 'Error',
			message: 'The Mailroom server rejected this API key (401 Unauthorized). Check the API key.',
		});
	});

	it("Mailroom Trigger (examples/n8n/mailroom-trigger.json): activation adds the workflow's subscription beside the address's webhook, mail starts an execution, a redelivery does not, a forged call gets 401, a rotated secret is fetched again, a test event leaves production as it was, deactivation removes only the subscription", async () => {
		const workflow = example('mailroom-trigger.json');
		// Picked From List (version 1.2): the parameter holds the address as the locator's value.
		const email = (workflow.nodes[0].parameters.email as { value: string }).value;
		const webhookId = workflow.nodes[0].webhookId as string;
		const { id, versionId } = await importWorkflow(workflow);
		// Another integration already gets the address's mail through its webhook.
		const crm = new WebhookReceiver();
		await crm.listen();
		await mailroom.api(`/api/addresses/${encodeURIComponent(email)}`, {
			key: account.key,
			method: 'POST',
			body: { webhook: `${crm.url}/crm` },
		});

		expect(await rest('POST', `/workflows/${id}/activate`, { versionId })).toMatchObject({ active: true });
		const webhookUrl = `${n8nUrl}/webhook/${webhookId}/webhook`;
		expect(await record(email)).toMatchObject({ _id: email, owner: account.id, webhook: `${crm.url}/crm` });
		expect((await subscriptionsOf(email)).map((subscription) => subscription.url)).toEqual([webhookUrl]);

		const [messageId] = await sendMail(mailroom, {
			to: email,
			from: 'Alice <alice@sender.test>',
			subject: 'Order 42',
			text: 'Two boxes, please.',
		});
		const [execution] = await finishedExecution(id);
		expect(execution.status).toBe('success');
		expect(output(execution.runData, 'Mailroom Trigger')).toEqual([
			{
				_id: messageId,
				threadId: expect.any(String),
				inbox: email,
				from: [{ address: 'alice@sender.test', name: 'Alice' }],
				fromAddress: 'alice@sender.test',
				fromName: 'Alice',
				to: [{ address: email, name: '' }],
				cc: null,
				replyTo: null,
				subject: 'Order 42',
				date: expect.any(String),
				messageId: expect.stringMatching(/^<.+>$/),
				text: 'Two boxes, please.\n',
				strippedText: 'Two boxes, please.',
				html: null,
				attachments: [],
				codes: [],
				// The e2e server does not verify senders (its mail comes from loopback with no DNS to ask).
				auth: null,
				received: expect.any(String),
			},
		]);
		expect(output(execution.runData, 'Pick Fields')).toEqual([
			{ sender: 'alice@sender.test', subject: 'Order 42', text: 'Two boxes, please.\n' },
		]);
		const crmPost = await waitFor(() => crm.requests[0], "the address's own webhook delivery");
		expect(JSON.parse(crmPost.body)).toMatchObject({ _id: messageId });

		// The same delivery again (Mailroom delivers at least once): answered, and no second execution.
		const secret = (await mailroom.api<{ secret: string }>('/api/webhook-secret', { key: account.key })).body.secret;
		const [delivery] = (await activity(mailroom, account.key, `?address=${encodeURIComponent(email)}`)).filter(
			(attempt) => attempt.subscriptionId !== null,
		);
		const again = signedPost(secret, delivery.deliveryId, JSON.stringify({ _id: messageId, subject: 'Order 42' }));
		const redelivered = await fetch(webhookUrl, again);
		expect([redelivered.status, await redelivered.json()]).toEqual([200, { received: true, duplicate: true }]);

		// n8n hands the raw request to the trigger, which refuses anything the account did not sign.
		const forged = await fetch(webhookUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ _id: 'Forged0000000001', subject: 'forged' }),
		});
		expect([forged.status, await forged.json()]).toEqual([401, { error: 'Unauthorized', message: 'The request has no webhook signature' }]);
		const wrongSecret = `whsec_${Buffer.from('some other secret of 32 bytes...').toString('base64')}`;
		const signedWrong = await fetch(webhookUrl, signedPost(wrongSecret, 'msg_forged', JSON.stringify({ _id: 'Forged0000000002' })));
		expect([signedWrong.status, await signedWrong.json()]).toEqual([
			401,
			{ error: 'Unauthorized', message: 'The webhook signature does not match' },
		]);
		expect(await finishedExecution(id)).toHaveLength(1);

		// Two rotations: deliveries are no longer signed with the secret the trigger got on activation; it fetches the new one.
		await mailroom.api('/api/webhook-secret/rotate', { key: account.key, method: 'POST' });
		await mailroom.api('/api/webhook-secret/rotate', { key: account.key, method: 'POST' });
		await sendMail(mailroom, { to: email, from: 'bob@sender.test', subject: 'After rotation', text: 'still here' });
		const executions = await finishedExecution(id, 2);
		expect(executions.map((execution) => execution.status)).toEqual(['success', 'success']);
		expect(executions.map((execution) => output(execution.runData, 'Pick Fields')[0].subject).sort()).toEqual([
			'After rotation',
			'Order 42',
		]);

		// "Listen for test event" on the active workflow: a second subscription, for the test URL, until one test event came.
		expect(await rest('POST', `/workflows/${id}/run`, { triggerToStartFrom: { name: 'Mailroom Trigger' } })).toEqual({
			waitingForWebhook: true,
		});
		const testUrl = `${n8nUrl}/webhook-test/${webhookId}/webhook`;
		expect((await subscriptionsOf(email)).map((subscription) => subscription.url)).toEqual([webhookUrl, testUrl]);
		await sendMail(mailroom, { to: email, subject: 'Test event' });
		await waitFor(async () => (await subscriptionsOf(email)).length === 1, 'the test subscription removed');
		expect((await subscriptionsOf(email)).map((subscription) => subscription.url)).toEqual([webhookUrl]);
		await sendMail(mailroom, { to: email, subject: 'In production again' });
		await waitFor(
			async () =>
				(await finishedExecution(id, 3)).some((execution) => output(execution.runData, 'Pick Fields')[0].subject === 'In production again'),
			'the production execution',
		);

		await rest('POST', `/workflows/${id}/deactivate`, {});
		expect(await subscriptionsOf(email)).toEqual([]);
		expect((await record(email)).webhook).toBe(`${crm.url}/crm`);
		await crm.close();
	});

	it('Download Attachments (examples/n8n/mailroom-save-invoice-attachments.json): each attachment is binary data in the execution and saved as a file', async () => {
		const workflow = example('mailroom-save-invoice-attachments.json');
		const trigger = workflow.nodes.find((node) => node.type === 'n8n-nodes-mailroom.mailroomTrigger')!;
		const email = trigger.parameters.email as string;
		const save = workflow.nodes.find((node) => node.name === 'Save Attachment')!;
		// The folder n8n may write to in this test (N8N_RESTRICT_FILE_ACCESS_TO) instead of the example's.
		save.parameters.fileName = (save.parameters.fileName as string).replace('/home/node/.n8n-files', files);
		mkdirSync(path.join(files, 'invoices'), { recursive: true });
		const { id, versionId } = await importWorkflow(workflow);
		await rest('POST', `/workflows/${id}/activate`, { versionId });
		expect((await subscriptionsOf(email))[0].filter).toEqual({ hasAttachments: true });

		// Without attachments: no execution (the subscription's filter); with two: one execution, two files.
		await sendMail(mailroom, { to: email, subject: 'Just saying hello' });
		const pdf = Buffer.from(Array.from({ length: 200_000 }, (_, index) => (index * 13) % 256));
		await sendMail(mailroom, {
			to: email,
			from: 'billing@supplier.test',
			subject: 'Invoice 2026-11',
			attachments: [
				{ filename: 'invoice-2026-11.pdf', content: pdf, contentType: 'application/pdf' },
				{ filename: 'terms.txt', content: 'Payable within 30 days.', contentType: 'text/plain' },
			],
		});
		const [execution] = await finishedExecution(id);
		expect(execution.status).toBe('success');
		const [item] = execution.runData['Mailroom Trigger'][0].data!.main[0]!;
		expect(item.json).toMatchObject({
			subject: 'Invoice 2026-11',
			attachments: [{ filename: 'invoice-2026-11.pdf' }, { filename: 'terms.txt' }],
		});
		expect(item.binary).toEqual({
			attachment_0: expect.objectContaining({ fileName: 'invoice-2026-11.pdf', mimeType: 'application/pdf' }),
			attachment_1: expect.objectContaining({ fileName: 'terms.txt', mimeType: 'text/plain' }),
		});
		const md5 = (bytes: Buffer | string) => createHash('md5').update(bytes).digest('hex').slice(0, 8);
		expect(readFileSync(path.join(files, 'invoices', `${md5(pdf)}-invoice-2026-11.pdf`)).equals(pdf)).toBe(true);
		expect(readFileSync(path.join(files, 'invoices', `${md5('Payable within 30 days.')}-terms.txt`), 'utf8')).toBe(
			'Payable within 30 days.',
		);
		expect(await finishedExecution(id)).toHaveLength(1);
		await rest('POST', `/workflows/${id}/deactivate`, {});
	});

	it('Mailroom action node (examples/n8n/mailroom-wait-for-email.json): Reserve, Wait For and Get in one run', async () => {
		const workflow = example('mailroom-wait-for-email.json');
		// Started by a Webhook that answers with the last node's items, instead of the editor's manual trigger.
		const start = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger')!;
		Object.assign(start, {
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			webhookId: randomUUID(),
			parameters: { httpMethod: 'POST', path: 'mailroom-e2e-signup', responseMode: 'lastNode', responseData: 'allEntries', options: {} },
		});
		const email = workflow.nodes.find((node) => node.parameters.operation === 'reserve')!.parameters.email as string;
		const { id, versionId } = await importWorkflow(workflow);
		await rest('POST', `/workflows/${id}/activate`, { versionId });

		const answer = fetch(`${n8nUrl}/webhook/mailroom-e2e-signup`, { method: 'POST' }).then(async (response) => ({
			status: response.status,
			body: (await response.json()) as { _id: string; inbox: string; text: string }[],
		}));
		let done = false;
		void answer.finally(() => (done = true));
		// Wait For takes only mail received after it started: send until the run is over.
		await waitFor(
			async () => (await mailroom.api(`/api/addresses/${encodeURIComponent(email)}`, { key: account.key })).status === 200,
			'the reservation',
		);
		const sent: string[] = [];
		while (!done && sent.length < 10) {
			sent.push(
				...(await sendMail(mailroom, {
					to: email,
					from: 'noreply@app.test',
					subject: 'Please verify your address',
					text: `Open https://app.test/verify?token=${sent.length}`,
				})),
			);
			await new Promise((resolve) => setTimeout(resolve, 2000));
		}
		const { status, body } = await answer;
		expect(status).toBe(200);
		expect(body).toEqual([
			expect.objectContaining({
				_id: expect.any(String),
				inbox: email,
				subject: 'Please verify your address',
				text: expect.stringMatching(/https:\/\/app\.test\/verify\?token=\d/),
			}),
		]);
		expect(sent).toContain(body[0]._id);
		await rest('POST', `/workflows/${id}/deactivate`, {});
	});

	it('Trigger and Message Reply (examples/n8n/mailroom-auto-reply.json): a reply in the thread reaches the sender', async () => {
		const workflow = example('mailroom-auto-reply.json');
		const email = workflow.nodes[0].parameters.email as string;
		const { id, versionId } = await importWorkflow(workflow);
		await rest('POST', `/workflows/${id}/activate`, { versionId });

		const [question] = await sendMail(mailroom, {
			to: email,
			from: 'Bob <bob@customer.test>',
			subject: 'Where is my order?',
			text: 'It has been a week.',
			messageId: '<order-question@customer.test>',
		});
		const [execution] = await finishedExecution(id);
		expect(execution.status).toBe('success');
		expect(output(execution.runData, 'Send Reply')).toEqual([
			expect.objectContaining({
				from: email,
				to: ['bob@customer.test'],
				subject: 'Re: Where is my order?',
				inReplyTo: question,
				status: 'delivered',
				creditsRemaining: 9,
			}),
		]);
		const [reply] = (await mailroom.api<MessageRecord[]>('/api/addresses/bob%40customer.test/messages', { key: account.key })).body;
		expect(reply).toMatchObject({ subject: 'Re: Where is my order?', from: [{ address: email }] });
		const headers = await mailroom.api<Record<string, string[]>>(`/api/addresses/bob%40customer.test/messages/${reply._id}/headers`, {
			key: account.key,
		});
		expect(headers.body['in-reply-to']).toEqual(['<order-question@customer.test>']);

		await rest('POST', `/workflows/${id}/deactivate`, {});
		expect(await subscriptionsOf(email)).toEqual([]);
	});

	it('Email Send attaches binary data of its input item (here from a Convert to File node), and a Mailroom Trigger workflow receives it as binary data', async () => {
		const credentials = { mailroomApi: { id: '', name: 'Mailroom account' } };
		const receiver: WorkflowJson = {
			name: 'Mailroom e2e: receive attachments',
			nodes: [
				{
					id: randomUUID(),
					name: 'Mailroom Trigger',
					type: 'n8n-nodes-mailroom.mailroomTrigger',
					typeVersion: 1.1,
					position: [0, 0],
					webhookId: randomUUID(),
					parameters: { email: 'reports@example.test', options: { downloadAttachments: true } },
					credentials,
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
		};
		const bytes = Buffer.from(Array.from({ length: 50_000 }, (_, index) => (index * 31 + 7) % 256));
		const sender: WorkflowJson = {
			name: 'Mailroom e2e: send an attachment',
			nodes: [
				{
					id: randomUUID(),
					name: 'Webhook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					webhookId: randomUUID(),
					parameters: { httpMethod: 'POST', path: 'mailroom-e2e-send', responseMode: 'lastNode', options: {} },
				},
				{
					id: randomUUID(),
					name: 'Make File',
					type: 'n8n-nodes-base.convertToFile',
					typeVersion: 1.1,
					position: [220, 0],
					parameters: {
						operation: 'toBinary',
						sourceProperty: 'body.content',
						options: { fileName: 'report.bin', mimeType: 'application/octet-stream' },
					},
				},
				{
					id: randomUUID(),
					name: 'Send Report',
					type: 'n8n-nodes-mailroom.mailroom',
					typeVersion: 1.1,
					position: [440, 0],
					parameters: {
						resource: 'email',
						operation: 'send',
						from: 'e2e-sender@example.test',
						to: 'reports@example.test',
						subject: 'Weekly report',
						text: 'The report is attached.',
						options: { attachments: 'data' },
					},
					credentials,
				},
			],
			connections: {
				Webhook: { main: [[{ node: 'Make File', type: 'main', index: 0 }]] },
				'Make File': { main: [[{ node: 'Send Report', type: 'main', index: 0 }]] },
			},
			settings: { executionOrder: 'v1' },
		};
		await mailroom.api('/api/addresses/e2e-sender%40example.test', { key: account.key, method: 'POST' });
		const receiving = await importWorkflow(receiver);
		await rest('POST', `/workflows/${receiving.id}/activate`, { versionId: receiving.versionId });
		const sending = await importWorkflow(sender);
		await rest('POST', `/workflows/${sending.id}/activate`, { versionId: sending.versionId });

		const answer = await fetch(`${n8nUrl}/webhook/mailroom-e2e-send`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ content: bytes.toString('base64') }),
		});
		expect(answer.status).toBe(200);
		expect(await answer.json()).toMatchObject({ to: ['reports@example.test'], subject: 'Weekly report', status: 'delivered' });

		const [execution] = await finishedExecution(receiving.id);
		expect(execution.status).toBe('success');
		const [item] = execution.runData['Mailroom Trigger'][0].data!.main[0]!;
		expect(item.json).toMatchObject({ subject: 'Weekly report', attachments: [{ filename: 'report.bin', size: bytes.length }] });
		expect(item.binary).toEqual({
			attachment_0: expect.objectContaining({ fileName: 'report.bin', mimeType: 'application/octet-stream' }),
		});
		// Byte for byte in the inbox the trigger read it from.
		const { checksum, url } = (item.json.attachments as { checksum: string; url: string }[])[0];
		expect(checksum).toBe(createHash('md5').update(bytes).digest('hex'));
		const stored = await fetch(url, { headers: { 'Service-Key': account.key } });
		expect(Buffer.from(await stored.arrayBuffer()).equals(bytes)).toBe(true);
		for (const { id } of [receiving, sending]) await rest('POST', `/workflows/${id}/deactivate`, {});
	});
	it('Send and Wait for Response (examples/n8n/mailroom-approve-by-reply.json): the execution waits until the email is answered, and goes on with the reply Mailroom posts to its resume URL', async () => {
		const workflow = example('mailroom-approve-by-reply.json');
		// Started by a Webhook that answers at once, instead of the editor's manual trigger.
		const start = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger')!;
		Object.assign(start, {
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			webhookId: randomUUID(),
			parameters: { httpMethod: 'POST', path: 'mailroom-e2e-approve', responseMode: 'onReceived', options: {} },
		});
		const ask = workflow.nodes.find((node) => node.parameters.operation === 'sendAndWait')!;
		const from = ask.parameters.from as string;
		const boss = ask.parameters.sendTo as string;
		expect((await mailroom.api(`/api/addresses/${encodeURIComponent(from)}`, { method: 'POST', key: account.key })).status).toBe(200);
		const { id, versionId } = await importWorkflow(workflow);
		await rest('POST', `/workflows/${id}/activate`, { versionId });

		expect((await fetch(`${n8nUrl}/webhook/mailroom-e2e-approve`, { method: 'POST' })).status).toBe(200);
		await waitingExecution(id);
		const [sent] = (
			await mailroom.api<{ _id: string; threadId: string; to: string[] }[]>('/api/outgoing-messages?limit=1', { key: account.key })
		).body;
		expect(sent.to).toEqual([boss]);

		const [replyId] = await sendMail(mailroom, {
			from: `The Boss <${boss}>`,
			to: from,
			subject: 'Re: May I deploy release 4.2 today?',
			text: 'Yes, deploy it.\n\nOn Monday deploy-bot wrote:\n> Release 4.2 is ready.\n',
			inReplyTo: `<${sent._id}@${from.split('@')[1]}>`,
		});
		const [execution] = await finishedExecution(id);
		expect(execution.status).toBe('success');
		expect(output(execution.runData, 'Approved?')).toEqual([
			expect.objectContaining({
				_id: replyId,
				strippedText: 'Yes, deploy it.',
				threadId: sent.threadId,
				from: [{ address: boss, name: 'The Boss' }],
			}),
		]);
		const delivered = (await activity(mailroom, account.key)).filter((entry) => entry.messageId === replyId);
		expect(delivered.map((entry) => [entry.url.startsWith(`${n8nUrl}/webhook-waiting/`), entry.status])).toEqual([[true, 'delivered']]);
		await rest('POST', `/workflows/${id}/deactivate`, {});
	});
	/** Resolves once the workflow has an execution n8n stored as waiting. */
	const waitingExecution = (workflowId: string) =>
		waitFor(
			async () => {
				const { results = [] } = await rest<{ results?: ExecutionJson[] }>(
					'GET',
					`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}`,
				);
				return results.some((execution) => execution.status === 'waiting');
			},
			'the execution to wait',
			30_000,
		);

	/**
	 * Starts a workflow whose Mailroom node asks `subject` by email (Send and Wait for Response with `parameters`), from an
	 * address of the account to approver@example.org; its id and the links of the email's buttons, by label.
	 */
	async function askByEmail(path: string, subject: string, parameters: IDataObject) {
		const from = `${path}@example.com`;
		const boss = 'approver@example.org';
		expect((await mailroom.api(`/api/addresses/${encodeURIComponent(from)}`, { method: 'POST', key: account.key })).status).toBe(200);
		const { id, versionId } = await importWorkflow({
			name: `Mailroom e2e: ${path}`,
			nodes: [
				{
					id: randomUUID(),
					name: 'Start',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					webhookId: randomUUID(),
					parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
				},
				{
					id: randomUUID(),
					name: 'Ask',
					type: 'n8n-nodes-mailroom.mailroom',
					typeVersion: 1.1,
					position: [220, 0],
					webhookId: randomUUID(),
					credentials: { mailroomApi: { id: '', name: 'Mailroom account' } },
					parameters: {
						resource: 'email',
						operation: 'sendAndWait',
						from,
						sendTo: boss,
						subject,
						message: `${subject} Say so.`,
						...parameters,
					},
				},
			],
			connections: { Start: { main: [[{ node: 'Ask', type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1' },
		});
		await rest('POST', `/workflows/${id}/activate`, { versionId });
		expect((await fetch(`${n8nUrl}/webhook/${path}`, { method: 'POST' })).status).toBe(200);
		// Until n8n has stored the execution as waiting, its resume URL answers 409 (running).
		await waitingExecution(id);
		const mail = await waitFor(
			async () =>
				(await mailroom.api<MessageRecord[]>(`/api/addresses/${encodeURIComponent(boss)}/messages`, { key: account.key })).body.find(
					(message) => message.subject === subject,
				),
			'the email',
		);
		const html = (await mailroom.api(`/api/dirty/${encodeURIComponent(boss)}/${mail._id}`, { key: account.key })).text;
		const links = Object.fromEntries(
			[...html.matchAll(/<a href="([^"]+)"[^>]*>([^<]+)<\/a>/g)].map(([, href, label]) => [label, href.replace(/&amp;/g, '&')]),
		);
		return { id, links };
	}

	it('Send and Wait for Response, Approval: the email carries the links n8n signed; Decline resumes with { data: { approved: false } }, a link changed by hand is refused', async () => {
		const { id, links } = await askByEmail('mailroom-e2e-approval', 'Refund order 77?', {
			approvalOptions: { values: { approvalType: 'double' } },
			options: {},
		});
		expect(Object.keys(links)).toEqual(['Decline', 'Approve']);
		expect(links.Decline).toMatch(new RegExp(`^${n8nUrl}/webhook-waiting/\\d+/[\\w-]+\\?approved=false&signature=\\w+$`));

		expect((await fetch(links.Decline.replace('approved=false', 'approved=true'))).status).toBe(401);
		expect((await fetch(links.Decline)).status).toBe(200);
		const [execution] = await finishedExecution(id);
		expect(execution.status).toBe('success');
		expect(output(execution.runData, 'Ask')).toEqual([{ data: { approved: false } }]);
		await rest('POST', `/workflows/${id}/deactivate`, {});
	});

	it('Send and Wait for Response, Free Text: the button opens the form the node serves; what it posts resumes with { data: { text } }', async () => {
		const { id, links } = await askByEmail('mailroom-e2e-form', 'Why the delay?', {
			responseType: 'freeText',
			options: { messageButtonLabel: 'Answer', responseFormTitle: 'Delay' },
		});
		expect(Object.keys(links)).toEqual(['Answer']);
		const form = await fetch(links.Answer);
		expect([form.status, await form.text()]).toEqual([200, expect.stringContaining('<h1>Delay</h1>')]);
		// As a browser submits the form: to the page's own URL, its signature included.
		const posted = await fetch(links.Answer, { method: 'POST', body: new URLSearchParams({ text: 'The truck broke down.' }) });
		expect([posted.status, await posted.text()]).toEqual([200, expect.stringContaining('Your response has been recorded')]);
		const [execution] = await finishedExecution(id);
		expect(execution.status).toBe('success');
		expect(output(execution.runData, 'Ask')).toEqual([{ data: { text: 'The truck broke down.' } }]);
		await rest('POST', `/workflows/${id}/deactivate`, {});
	});
	it('Send and Wait for Response, Reply, across a restart of n8n: the waiting execution survives it, and a reply that came while n8n was down is delivered once it is back', async () => {
		const { id } = await askByEmail('mailroom-e2e-restart', 'Ship on Sunday?', { responseType: 'reply', options: {} });
		const [sent] = (await mailroom.api<{ _id: string }[]>('/api/outgoing-messages?limit=1', { key: account.key })).body;
		await stopN8n();

		const [replyId] = await sendMail(mailroom, {
			from: 'approver@example.org',
			to: 'mailroom-e2e-restart@example.com',
			subject: 'Re: Ship on Sunday?',
			text: 'Yes, Sunday is fine.\n',
			inReplyTo: `<${sent._id}@example.com>`,
		});
		const attempts = async () => (await activity(mailroom, account.key)).filter((entry) => entry.messageId === replyId);
		await waitFor(async () => (await attempts()).length > 0, 'an attempt while n8n is down');
		expect((await attempts()).map((entry) => entry.status)).toEqual(['retrying']);

		await startN8n();
		// n8n's recovery at start lists the waiting execution as crashed (it logged no end for it) until the reply resumes it.
		const [execution] = await finishedExecution(id, 1, (status) => status === 'success');
		expect(output(execution.runData, 'Ask')).toEqual([expect.objectContaining({ _id: replyId, strippedText: 'Yes, Sunday is fine.' })]);
		const statuses = (await attempts()).map((entry) => entry.status);
		expect([statuses[0], statuses.filter((status) => status === 'delivered')]).toEqual(['delivered', ['delivered']]);
	});

	it('Mailroom Trigger, Sent Email Bounced: a message sent to an address that bounces starts an execution with the delivery event; deactivation removes its event subscription', async () => {
		const sender = 'e2e-sender@example.com';
		expect((await mailroom.api(`/api/addresses/${sender}`, { method: 'POST', key: account.key })).status).toBe(200);
		const { id, versionId } = await importWorkflow({
			name: 'Mailroom: a bounce starts a workflow',
			nodes: [
				{
					parameters: { event: 'sentEmailBounced' },
					id: 'b0000000-0000-4000-8000-000000000001',
					name: 'Bounced',
					type: 'n8n-nodes-mailroom.mailroomTrigger',
					typeVersion: 1.2,
					position: [0, 0],
					webhookId: 'b0000000-0000-4000-8000-0000000000b1',
					credentials: { mailroomApi: { id: '', name: 'Mailroom account' } },
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
		});
		await rest('POST', `/workflows/${id}/activate`, { versionId });
		const events = async () => (await mailroom.api<{ url: string }[]>('/api/event-webhooks', { key: account.key })).body;
		expect((await events()).map((subscription) => subscription.url)).toEqual([
			`${n8nUrl}/webhook/b0000000-0000-4000-8000-0000000000b1/webhook`,
		]);

		const sent = await mailroom.api<{ _id: string }>('/api/outgoing-messages', {
			method: 'POST',
			key: account.key,
			body: { from: sender, to: 'bounce@tests.example', subject: 'Your invoice', text: 'Attached.' },
		});
		expect(sent.status).toBe(200);
		const [execution] = await finishedExecution(id);
		expect(execution.status).toBe('success');
		expect(output(execution.runData, 'Bounced')).toEqual([
			expect.objectContaining({ sentMessageId: sent.body._id, recipient: 'bounce@tests.example', type: 'bounced', statusCode: '5.1.1' }),
		]);

		await rest('POST', `/workflows/${id}/deactivate`, {});
		expect(await events()).toEqual([]);
	});
});
