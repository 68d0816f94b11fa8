import { startTestMailroom, type TestMailroom } from '../helpers/mailroom';
import { startTestRelay, type TestRelay } from '../helpers/smtp-relay';
import { createN8nHarness, type N8nHarness } from '../helpers/n8n';

/** Email → Send in n8n-core's real ExecuteContext, against a real server with a real relay. */
describe('Mailroom node: Email Send with local and relayed recipients', () => {
	let relay: TestRelay;
	let server: TestMailroom;
	let n8n: N8nHarness;
	beforeAll(async () => {
		relay = await startTestRelay({ refuse: (rcpt) => (rcpt.startsWith('gone@') ? { code: 550, message: 'No such mailbox' } : undefined) });
		server = await startTestMailroom({ domains: ['example.test'], relayUrl: relay.url, relayRetryDelays: [] });
		const cara = server.createAccount('cara', 10);
		await server.api('/api/addresses/cara%40example.test', { key: cara.key, method: 'POST' });
		n8n = await createN8nHarness({ credentials: { mailroomApi: { apiKey: cara.key, baseUrl: `${server.httpUrl}/` } } });
	});
	afterAll(async () => {
		await n8n.close();
		await server.stop();
		await relay.close();
	});

	const send = async (parameters: Record<string, unknown>) => {
		const [output] = await n8n.execute('mailroom', {
			resource: 'email',
			operation: 'send',
			from: 'cara@example.test',
			...parameters,
		} as never);
		return output.map((item) => item.json);
	};

	it('keeps a quoted name with a comma whole, relays HTML-only mail, and outputs the status per recipient', async () => {
		const [sent] = await send({
			to: '"Doe, Jane" <jane@example.test>, far@remote.test',
			subject: 'HTML only',
			options: { html: '<p>Hello <b>there</b></p>' },
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
