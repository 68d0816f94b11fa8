import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INodeParameters } from 'n8n-workflow';
import { enc } from '../../../helpers/messages';
import { startTestRelay, type TestRelay } from '../../../helpers/smtp-relay';
import { nodeJson, runNode, startNodeFixture, type NodeFixture } from '../../../helpers/n8n';

/** Email → Send in n8n-core's real ExecuteContext against a real server. */
describe('Mailroom node: Email Send', () => {
	let fixture: NodeFixture;
	beforeAll(async () => {
		fixture = await startNodeFixture({ credits: 10, trailingSlash: true });
	});
	afterAll(() => fixture.stop());

	const send = (parameters: INodeParameters) => nodeJson(fixture.n8n, { resource: 'email', operation: 'send', ...parameters });

	it('sends text and HTML to several recipients; the response of the send endpoint is the output', async () => {
		const { server, n8n, account } = fixture;
		await server.api('/api/addresses/outbox%40example.test', { key: account.key, method: 'POST' });
		const [sent] = await send({
			from: 'outbox@example.test',
			to: 'first@example.test, Second <second@example.test>',
			subject: 'Report',
			emailFormat: 'both',
			text: 'Plain body',
			html: '<p>HTML <b>body</b></p>',
		});
		expect(sent).toMatchObject({
			_id: expect.any(String),
			from: 'outbox@example.test',
			to: ['first@example.test', 'second@example.test'],
			subject: 'Report',
			status: 'delivered',
			recipients: [
				{ address: 'first@example.test', route: 'local', status: 'delivered', error: null },
				{ address: 'second@example.test', route: 'local', status: 'delivered', error: null },
			],
			creditsRemaining: 8,
			// The test's server accepts every domain and has no relay: it says the copies stayed here.
			warnings: [
				expect.stringMatching(/^first@example\.test was kept in its inbox on this server, not sent out/),
				expect.stringMatching(/^second@example\.test was kept in its inbox on this server, not sent out/),
			],
		});
		for (const inbox of ['first@example.test', 'second@example.test']) {
			const [copy] = await nodeJson(n8n, { resource: 'message', operation: 'getAll', email: inbox, limit: 1 });
			expect(copy).toMatchObject({ subject: 'Report', from: [{ address: 'outbox@example.test' }] });
			const html = await server.api(`/api/dirty/${enc(inbox)}/${copy._id as string}`, { key: account.key });
			expect(html.text).toContain('<p>HTML <b>body</b></p>');
		}
	});

	it('without a subject the mail is sent with the server warning', async () => {
		const [sent] = await send({ from: 'outbox@example.test', to: ' solo@example.test ', text: 'hi' });
		expect(sent).toMatchObject({
			to: ['solo@example.test'],
			status: 'delivered',
			creditsRemaining: 7,
			warnings: [expect.stringMatching(/subject/i), expect.stringMatching(/^solo@example\.test was kept/)],
		});
	});

	it("a refused field is named as the node names it, not as the API's body does", async () => {
		const { server, account } = fixture;
		await server.api('/api/addresses/named%40example.test', { key: account.key, method: 'POST' });
		const refused = (parameters: INodeParameters) =>
			send({ from: 'named@example.test', to: 'someone@example.test', subject: 's', text: 't', ...parameters });
		await expect(refused({ to: 'not-an-email' })).rejects.toMatchObject({
			httpCode: '400',
			message: 'To: "not-an-email" is not an email address',
		});
		await expect(refused({ options: { ccEmail: 'copy@example.test, nope' } })).rejects.toMatchObject({
			message: 'CC: "nope" is not an email address',
		});
		await expect(refused({ options: { headers: { header: [{ name: 'Subject', value: 'forged' }] } } })).rejects.toMatchObject({
			message: expect.stringMatching(/^Headers may not set Subject: Mailroom sets it itself/),
		});
	});

	it('too few credits: a NodeApiError with the 402 and its message', async () => {
		const { server, n8n } = fixture;
		const bob = await server.createAccount('bob', 0);
		await server.api('/api/addresses/bob%40example.test', { key: bob.key, method: 'POST' });
		await expect(
			runNode(
				n8n,
				{ resource: 'email', operation: 'send', from: 'bob@example.test', to: 'x@example.test', subject: 's', text: 't' },
				{ credentials: { mailroomApi: { apiKey: bob.key, baseUrl: server.httpUrl } } },
			),
		).rejects.toMatchObject({
			name: 'NodeApiError',
			httpCode: '402',
			message:
				'You must purchase more outgoing message credits before you can send: this message needs 1 (one per recipient) and account "bob" has 0. ' +
				'An administrator adds credits with: mailroom credits add "bob" <n>',
		});
	});
});

/** Email → Send against a real server with a real relay. */
describe('Mailroom node: Email Send with local and relayed recipients', () => {
	let relay: TestRelay;
	let fixture: NodeFixture;
	beforeAll(async () => {
		relay = await startTestRelay({ refuse: (rcpt) => (rcpt.startsWith('gone@') ? { code: 550, message: 'No such mailbox' } : undefined) });
		fixture = await startNodeFixture({
			account: 'cara',
			credits: 10,
			config: { domains: ['example.test'], relayUrl: relay.url, relayRetryDelays: [] },
			trailingSlash: true,
		});
		await fixture.server.api('/api/addresses/cara%40example.test', { key: fixture.account.key, method: 'POST' });
	});
	afterAll(async () => {
		await fixture.stop();
		await relay.close();
	});

	const send = (parameters: INodeParameters) =>
		nodeJson(fixture.n8n, { resource: 'email', operation: 'send', from: 'cara@example.test', ...parameters });

	it('keeps a quoted name with a comma whole, relays HTML-only mail, and outputs the status per recipient', async () => {
		const [sent] = await send({
			to: '"Doe, Jane" <jane@example.test>, far@remote.test',
			subject: 'HTML only',
			emailFormat: 'html',
			html: '<p>Hello <b>there</b></p>',
		});
		expect(sent).toMatchObject({
			to: ['jane@example.test', 'far@remote.test'],
			status: 'delivered',
			recipients: [
				{ address: 'jane@example.test', route: 'local', status: 'delivered' },
				{ address: 'far@remote.test', route: 'relay', status: 'delivered' },
			],
			creditsRemaining: 8,
		});
		const [mail] = await relay.waitFor(1);
		expect(mail.parsed.to).toMatchObject({ value: [{ address: 'jane@example.test', name: 'Doe, Jane' }, { address: 'far@remote.test' }] });
		expect(mail.parsed.html).toContain('<p>Hello <b>there</b></p>');
	});

	it("outputs failed with the relay's reply when the relay refuses a recipient for good", async () => {
		const [sent] = await send({ to: 'gone@remote.test', subject: 'Bounce', text: 'hi' });
		expect(sent).toMatchObject({
			status: 'failed',
			lastError: expect.stringMatching(/^550 .*No such mailbox/),
			recipients: [{ status: 'failed' }],
		});
	});
});
