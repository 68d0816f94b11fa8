import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INodeParameters } from 'n8n-workflow';
import { nextMillisecond, sendMail } from '../../../helpers/messages';
import { waitFor as until } from '../../../helpers/webhook-receiver';
import { nodeDescription, nodeJson, property, runNode, startNodeFixture, type NodeFixture } from '../../../helpers/n8n';

/** Message → Wait For in n8n-core's real ExecuteContext against a real server: one request the server answers. */
describe('Mailroom node: Wait For', () => {
	let fixture: NodeFixture;
	beforeAll(async () => {
		fixture = await startNodeFixture({ trailingSlash: true });
	});
	afterAll(() => fixture.stop());

	const waitFor = (parameters: INodeParameters, options?: Parameters<typeof runNode>[2]) =>
		nodeJson(fixture.n8n, { resource: 'message', operation: 'waitFor', email: 'wait@example.test', ...parameters }, options);

	it('waits 60 s by default, at most 300, for mail received after the node started unless switched off', () => {
		const { properties } = nodeDescription(fixture.n8n.loader, 'mailroom');
		expect(property(properties, 'timeout')).toMatchObject({ default: 60, typeOptions: { minValue: 1, maxValue: 300 } });
		expect(property(properties, 'receivedAfterStart')).toMatchObject({
			displayName: 'Only Mail Received After This Node Started',
			type: 'boolean',
			default: true,
			description: expect.stringMatching(/Off: the oldest matching message already in the inbox answers at once/),
		});
		expect(property(properties, 'pollInterval')).toBeUndefined();
	});

	it('outputs the first message to arrive after it started that matches every filter', async () => {
		const { server } = fixture;
		// A matching message already stored is not the one waited for.
		await sendMail(server, { to: 'wait@example.test', from: 'noreply@shop.test', subject: 'Your code', text: 'code 1234' });
		await nextMillisecond();
		const waiting = waitFor({ timeout: 20, filters: { senderContains: 'NoReply', subjectContains: 'CODE', textContains: '1234' } });
		await sendMail(server, { to: 'wait@example.test', from: 'noreply@shop.test', subject: 'Newsletter', text: 'code 1234' });
		await sendMail(server, { to: 'wait@example.test', from: 'friend@shop.test', subject: 'Your code', text: 'code 1234' });
		await sendMail(server, { to: 'wait@example.test', from: 'noreply@shop.test', subject: 'Your code', text: 'code 9999' });
		const [id] = await sendMail(server, {
			to: 'wait@example.test',
			from: 'Shop <noreply@shop.test>',
			subject: 'Your code: 1234',
			text: 'Your code is 1234.',
		});
		expect(await waiting).toEqual([expect.objectContaining({ _id: id, subject: 'Your code: 1234', inbox: 'wait@example.test' })]);
	});

	it('with "Only Mail Received After This Node Started" off, the oldest matching stored message answers at once', async () => {
		const { server } = fixture;
		const [older] = await sendMail(server, { to: 'stored@example.test', from: 'Acme Billing <billing@acme.test>', subject: 'Invoice 1' });
		await sendMail(server, { to: 'stored@example.test', from: 'billing@acme.test', subject: 'Invoice 2' });
		await nextMillisecond();
		const parameters = { email: 'stored@example.test', timeout: 1, filters: { senderContains: 'acme billing' } };
		expect(await waitFor({ ...parameters, receivedAfterStart: false })).toEqual([expect.objectContaining({ _id: older })]);
		// On (the default), neither counts: the server answers 408 after the timeout.
		await expect(waitFor(parameters)).rejects.toMatchObject({ httpCode: '408' });
	});

	it("fails after Timeout with the server's 408 message, which names the filters", async () => {
		const error = await waitFor({
			email: 'silent@example.test',
			timeout: 1,
			filters: { senderContains: 'noreply@app.test', subjectContains: 'verify', textContains: 'token' },
		}).catch((e: unknown) => e);
		expect(error).toMatchObject({ name: 'NodeApiError', httpCode: '408', description: expect.stringMatching(/^HTTP 408/) });
		for (const filter of ['noreply@app.test', 'verify', 'token']) expect((error as Error).message).toContain(filter);
	});

	it('a Timeout above 300 s (from an expression) is refused by the server', async () => {
		await expect(waitFor({ timeout: '={{ 301 }}' })).rejects.toMatchObject({ name: 'NodeApiError', httpCode: '400' });
	});

	it("stopping the execution aborts the request, and the server drops that request's waiter at once", async () => {
		const { server } = fixture;
		const abort = new AbortController();
		const waiting = waitFor({ email: 'silent@example.test', timeout: 300 }, { abortSignal: abort.signal });
		void waiting.catch(() => undefined);
		await until(() => server.waiters.size === 1, 'the server to hold the wait');
		abort.abort();
		await expect(waiting).rejects.toMatchObject({ name: 'NodeOperationError', message: 'The execution was stopped' });
		await until(() => server.waiters.size === 0, 'the server to drop the waiter');
	});
});
