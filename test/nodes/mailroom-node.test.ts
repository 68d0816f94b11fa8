import nodemailer from 'nodemailer';
import { startTestMailroom, type TestMailroom } from '../helpers/mailroom';
import { enc, sendMail } from '../helpers/messages';
import { createN8nHarness, type N8nHarness } from '../helpers/n8n';

/**
 * The Mailroom action node in n8n-core's real ExecuteContext against a real server: real SMTP mail
 * in, the credential applied through its own `authenticate` definition.
 */
describe('Mailroom node against a real server', () => {
	let server: TestMailroom;
	let n8n: N8nHarness;
	let ann: { id: string; key: string };
	beforeAll(async () => {
		server = await startTestMailroom();
		ann = server.createAccount('ann', 10);
		n8n = await createN8nHarness({ credentials: { mailroomApi: { apiKey: ann.key, baseUrl: `${server.httpUrl}/` } } });
	});
	afterAll(async () => {
		await n8n.close();
		await server.stop();
	});

	const run = async (
		parameters: Record<string, unknown>,
		options: Parameters<N8nHarness['execute']>[3] & { items?: Parameters<N8nHarness['execute']>[2] } = {},
	) => {
		const [output] = await n8n.execute('mailroom', parameters as never, options.items, options);
		return output;
	};
	const json = async (parameters: Record<string, unknown>) => (await run(parameters)).map((item) => item.json);
	const message = (operation: string, parameters: Record<string, unknown>) => json({ resource: 'message', operation, ...parameters });

	describe('Message', () => {
		it('Get Many: the newest messages up to Limit, or all of them', async () => {
			for (const subject of ['one', 'two', 'three']) await sendMail(server, { to: 'list@example.test', subject });
			expect((await message('getAll', { email: 'list@example.test', limit: 2 })).map((m) => m.subject)).toEqual(['three', 'two']);
			const all = await message('getAll', { email: 'List@Example.test', returnAll: true });
			expect(all.map((m) => m.subject)).toEqual(['three', 'two', 'one']);
			expect(all[0]).toMatchObject({ _id: expect.any(String), inbox: 'list@example.test', from: [{ address: 'sender@sender.test' }] });
		});

		it('Get Many with Return All pages past the 1000 a listing returns at once', async () => {
			const transport = nodemailer.createTransport({
				host: '127.0.0.1',
				port: server.smtpPort,
				secure: false,
				ignoreTLS: true,
				pool: true,
				maxConnections: 8,
				maxMessages: Infinity,
			});
			try {
				await Promise.all(
					Array.from({ length: 1005 }, (_, i) =>
						transport.sendMail({ from: 'bulk@sender.test', to: 'bulk@example.test', subject: `bulk ${i}`, text: 'x' }),
					),
				);
			} finally {
				transport.close();
			}
			const all = await message('getAll', { email: 'bulk@example.test', returnAll: true });
			expect(all).toHaveLength(1005);
			expect(new Set(all.map((m) => m._id)).size).toBe(1005);
			expect(new Set(all.map((m) => m.subject))).toEqual(new Set(Array.from({ length: 1005 }, (_, i) => `bulk ${i}`)));
			const received = all.map((m) => String(m.received));
			expect(received).toEqual([...received].sort().reverse());
			expect(await message('getAll', { email: 'bulk@example.test', limit: 1000 })).toHaveLength(1000);
		});

		it('Get Text: the plain text of a message', async () => {
			const [id] = await sendMail(server, { to: 'text@example.test', text: 'Your code is 424242.\nSee https://example.org/verify' });
			const [result] = await message('getText', { email: 'text@example.test', messageId: id });
			expect(result).toMatchObject({ email: 'text@example.test', messageId: id });
			expect(result.text).toContain('Your code is 424242.');
			expect(result.text).toContain('https://example.org/verify');
		});

		it("fails with a NodeApiError carrying the server's message and status", async () => {
			const error = await message('getText', { email: 'text@example.test', messageId: 'NoSuchMessage1' }).catch((e: unknown) => e);
			expect(error).toMatchObject({ name: 'NodeApiError', httpCode: '404', description: expect.stringMatching(/^HTTP 404/) });
			const answer = await server.api(`/api/text/text%40example.test/NoSuchMessage1`, { key: ann.key });
			expect((error as Error).message).toBe(answer.body.message);
		});

		describe('Wait For', () => {
			const waitFor = (parameters: Record<string, unknown>) =>
				message('waitFor', { email: 'wait@example.test', pollInterval: 0.1, ...parameters });

			it('outputs the first message that arrives and matches the filters', async () => {
				const waiting = waitFor({ timeout: 20, filters: { senderContains: 'NoReply', subjectContains: 'CODE', receivedAfterStart: true } });
				await new Promise((resolve) => setTimeout(resolve, 300));
				await sendMail(server, { to: 'wait@example.test', from: 'noreply@shop.test', subject: 'Newsletter' });
				await sendMail(server, { to: 'wait@example.test', from: 'friend@shop.test', subject: 'Your code' });
				const [id] = await sendMail(server, { to: 'wait@example.test', from: 'Shop <noreply@shop.test>', subject: 'Your code: 1234' });
				expect(await waiting).toEqual([expect.objectContaining({ _id: id, subject: 'Your code: 1234', inbox: 'wait@example.test' })]);
			});

			it('the sender filter also matches the display name', async () => {
				const [id] = await sendMail(server, { to: 'wait@example.test', from: 'Acme Billing <billing@acme.test>', subject: 'Invoice' });
				expect(await waitFor({ timeout: 5, filters: { senderContains: 'acme billing' } })).toEqual([expect.objectContaining({ _id: id })]);
			});

			it('takes a message received before the node started only when Received After Node Started is off', async () => {
				const [id] = await sendMail(server, { to: 'wait@example.test', subject: 'earlier verify link' });
				expect(await waitFor({ timeout: 5, filters: { subjectContains: 'earlier verify', receivedAfterStart: false } })).toEqual([
					expect.objectContaining({ _id: id }),
				]);
				await expect(
					waitFor({ timeout: 1, filters: { subjectContains: 'earlier verify', receivedAfterStart: true } }),
				).rejects.toMatchObject({
					name: 'NodeOperationError',
					message: expect.stringMatching(
						/^No message \(subject "earlier verify", received after .+\) arrived at wait@example\.test within 1 s$/,
					),
				});
			});

			it('times out with a clear error', async () => {
				const error = await waitFor({ email: 'silent@example.test', timeout: 1 }).catch((e: unknown) => e);
				expect(error).toMatchObject({ name: 'NodeOperationError', message: 'No message arrived at silent@example.test within 1 s' });
				expect((error as { description: string }).description).toMatch(/Timeout/);
			});

			it('stops waiting when the execution is cancelled', async () => {
				const abort = new AbortController();
				const waiting = run(
					{ resource: 'message', operation: 'waitFor', email: 'silent@example.test', timeout: 60, pollInterval: 30 },
					{ abortSignal: abort.signal },
				);
				setTimeout(() => abort.abort(), 300);
				await expect(waiting).rejects.toThrow();
			});
		});
	});

	describe('Email Send', () => {
		it('sends text and HTML to several recipients; the response of the send endpoint is the output', async () => {
			await server.api('/api/addresses/outbox%40example.test', { key: ann.key, method: 'POST' });
			const [sent] = await json({
				resource: 'email',
				operation: 'send',
				from: 'outbox@example.test',
				to: 'first@example.test, Second <second@example.test>',
				subject: 'Report',
				text: 'Plain body',
				options: { html: '<p>HTML <b>body</b></p>' },
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
				warnings: [],
			});
			for (const inbox of ['first@example.test', 'second@example.test']) {
				const [copy] = await message('getAll', { email: inbox, limit: 1 });
				expect(copy).toMatchObject({ subject: 'Report', from: [{ address: 'outbox@example.test' }] });
				const html = await server.api(`/api/dirty/${enc(inbox)}/${copy._id}`, { key: ann.key });
				expect(html.text).toContain('<p>HTML <b>body</b></p>');
			}
		});

		it('without a subject the mail is sent with the server warning', async () => {
			const [sent] = await json({
				resource: 'email',
				operation: 'send',
				from: 'outbox@example.test',
				to: ' solo@example.test ',
				text: 'hi',
			});
			expect(sent).toMatchObject({
				to: ['solo@example.test'],
				status: 'delivered',
				creditsRemaining: 7,
				warnings: [expect.stringMatching(/subject/i)],
			});
		});

		it('too few credits: a NodeApiError with the 402 and its message', async () => {
			const bob = server.createAccount('bob', 0);
			await server.api('/api/addresses/bob%40example.test', { key: bob.key, method: 'POST' });
			await expect(
				run(
					{ resource: 'email', operation: 'send', from: 'bob@example.test', to: 'x@example.test', subject: 's', text: 't' },
					{ credentials: { mailroomApi: { apiKey: bob.key, baseUrl: server.httpUrl } } },
				),
			).rejects.toMatchObject({
				name: 'NodeApiError',
				httpCode: '402',
				message: 'You must purchase more outgoing message credits before you can send',
			});
		});
	});

	describe('Address', () => {
		const address = (operation: string, parameters: Record<string, unknown>) => json({ resource: 'address', operation, ...parameters });

		it('Reserve, Set Webhook Forwarding (set and clear), Release', async () => {
			const [reserved] = await address('reserve', { email: 'Hooks@Example.test' });
			expect(reserved).toMatchObject({ _id: 'hooks@example.test', owner: ann.id, webhook: null });

			const [set] = await address('setWebhook', { email: 'hooks@example.test', webhookUrl: ' https://hooks.example.org/mail ' });
			expect(set).toMatchObject({ _id: 'hooks@example.test', webhook: 'https://hooks.example.org/mail' });
			expect((await server.api('/api/addresses/hooks%40example.test', { key: ann.key })).body.webhook).toBe(
				'https://hooks.example.org/mail',
			);

			const [cleared] = await address('setWebhook', { email: 'hooks@example.test', webhookUrl: '' });
			expect(cleared).toMatchObject({ _id: 'hooks@example.test', webhook: null });

			const [released] = await address('release', { email: 'hooks@example.test' });
			expect(released._id).toBe('hooks@example.test');
			expect((await server.api('/api/addresses/hooks%40example.test', { key: ann.key })).status).toBe(404);
		});

		it("another account's address: the server's 403 and message", async () => {
			const carol = server.createAccount('carol');
			await server.api('/api/addresses/taken%40example.test', { key: carol.key, method: 'POST' });
			const answer = await server.api('/api/addresses/taken%40example.test', { key: ann.key, method: 'POST' });
			await expect(address('reserve', { email: 'taken@example.test' })).rejects.toMatchObject({
				name: 'NodeApiError',
				httpCode: '403',
				message: answer.body.message,
			});
			await expect(address('setWebhook', { email: 'taken@example.test', webhookUrl: 'https://x.example.org/' })).rejects.toMatchObject({
				httpCode: '403',
			});
		});
	});

	it('processes every item on its own; with continueOnFail a failed item outputs its error and the rest go on', async () => {
		const [id] = await sendMail(server, { to: 'items@example.test', text: 'first item' });
		const items = [{ json: { id } }, { json: { id: 'NoSuchMessage1' } }, { json: { id } }];
		const parameters = { resource: 'message', operation: 'getText', email: 'items@example.test', messageId: '={{ $json.id }}' };
		const output = await run(parameters, { items, continueOnFail: true });
		expect(output).toEqual([
			{ json: expect.objectContaining({ messageId: id, text: expect.stringContaining('first item') }), pairedItem: { item: 0 } },
			{ json: { error: expect.stringMatching(/NoSuchMessage1|not found/i), httpCode: '404' }, pairedItem: { item: 1 } },
			{ json: expect.objectContaining({ messageId: id }), pairedItem: { item: 2 } },
		]);
		await expect(run(parameters, { items })).rejects.toMatchObject({ name: 'NodeApiError', httpCode: '404', context: { itemIndex: 1 } });
	});

	it('a wrong API key fails with the 401', async () => {
		await expect(
			run(
				{ resource: 'message', operation: 'getAll', email: 'list@example.test', limit: 1 },
				{ credentials: { mailroomApi: { apiKey: 'mr_wrong', baseUrl: server.httpUrl } } },
			),
		).rejects.toMatchObject({ name: 'NodeApiError', httpCode: '401' });
	});
});
