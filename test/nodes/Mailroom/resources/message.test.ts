import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INodeParameters, INodeProperties } from 'n8n-workflow';
import { sendMail } from '../../../helpers/messages';
import { nodeDescription, nodeJson, property, runNode, startNodeFixture, type NodeFixture } from '../../../helpers/n8n';

/** The Message resource's own operations (Get Text, Wait For), in n8n-core's real ExecuteContext against a real server. */
describe('Mailroom node: Message', () => {
	let fixture: NodeFixture;
	beforeAll(async () => {
		fixture = await startNodeFixture({ credits: 10, trailingSlash: true });
	});
	afterAll(() => fixture.stop());

	const message = (operation: string, parameters: INodeParameters) =>
		nodeJson(fixture.n8n, { resource: 'message', operation, ...parameters });

	it('limits Get Many to the largest page of the API and waits 60 s by default', () => {
		const { properties } = nodeDescription(fixture.n8n.loader, 'mailroom');
		expect(property(properties, 'limit')!.typeOptions).toEqual({ minValue: 1, maxValue: 1000 });
		expect(property(properties, 'timeout')!.default).toBe(60);
		const filters = property(properties, 'filters')!.options!.map((o) => (o as INodeProperties).name);
		expect(filters).toEqual(['receivedAfterStart', 'senderContains', 'subjectContains']);
	});

	it('Get Text: the plain text of a message', async () => {
		const [id] = await sendMail(fixture.server, { to: 'text@example.test', text: 'Your code is 424242.\nSee https://example.org/verify' });
		const [result] = await message('getText', { email: 'text@example.test', messageId: id });
		expect(result).toMatchObject({ email: 'text@example.test', messageId: id });
		expect(result.text).toContain('Your code is 424242.');
		expect(result.text).toContain('https://example.org/verify');
	});

	describe('Wait For', () => {
		const waitFor = (parameters: INodeParameters) => message('waitFor', { email: 'wait@example.test', pollInterval: 0.1, ...parameters });

		it('outputs the first message that arrives and matches the filters', async () => {
			const { server } = fixture;
			const waiting = waitFor({ timeout: 20, filters: { senderContains: 'NoReply', subjectContains: 'CODE', receivedAfterStart: true } });
			await new Promise((resolve) => setTimeout(resolve, 300));
			await sendMail(server, { to: 'wait@example.test', from: 'noreply@shop.test', subject: 'Newsletter' });
			await sendMail(server, { to: 'wait@example.test', from: 'friend@shop.test', subject: 'Your code' });
			const [id] = await sendMail(server, { to: 'wait@example.test', from: 'Shop <noreply@shop.test>', subject: 'Your code: 1234' });
			expect(await waiting).toEqual([expect.objectContaining({ _id: id, subject: 'Your code: 1234', inbox: 'wait@example.test' })]);
		});

		it('the sender filter also matches the display name', async () => {
			const [id] = await sendMail(fixture.server, {
				to: 'wait@example.test',
				from: 'Acme Billing <billing@acme.test>',
				subject: 'Invoice',
			});
			expect(await waitFor({ timeout: 5, filters: { senderContains: 'acme billing' } })).toEqual([expect.objectContaining({ _id: id })]);
		});

		it('takes a message received before the node started only when Received After Node Started is off', async () => {
			const [id] = await sendMail(fixture.server, { to: 'wait@example.test', subject: 'earlier verify link' });
			expect(await waitFor({ timeout: 5, filters: { subjectContains: 'earlier verify', receivedAfterStart: false } })).toEqual([
				expect.objectContaining({ _id: id }),
			]);
			await expect(waitFor({ timeout: 1, filters: { subjectContains: 'earlier verify', receivedAfterStart: true } })).rejects.toMatchObject(
				{
					name: 'NodeOperationError',
					message: expect.stringMatching(
						/^No message \(subject "earlier verify", received after .+\) arrived at wait@example\.test within 1 s$/,
					),
				},
			);
		});

		it('times out with a clear error', async () => {
			const error = await waitFor({ email: 'silent@example.test', timeout: 1 }).catch((e: unknown) => e);
			expect(error).toMatchObject({ name: 'NodeOperationError', message: 'No message arrived at silent@example.test within 1 s' });
			expect((error as { description: string }).description).toMatch(/Timeout/);
		});

		it('stops waiting when the execution is cancelled', async () => {
			const abort = new AbortController();
			const waiting = runNode(
				fixture.n8n,
				{ resource: 'message', operation: 'waitFor', email: 'silent@example.test', timeout: 60, pollInterval: 30 },
				{ abortSignal: abort.signal },
			);
			setTimeout(() => abort.abort(), 300);
			await expect(waiting).rejects.toThrow();
		});
	});
});
