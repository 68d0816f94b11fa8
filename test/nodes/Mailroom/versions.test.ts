import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INodeParameters, INodeProperties } from 'n8n-workflow';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import { enc, nextMillisecond, sendMail } from '../../helpers/messages';
import { nodeDescription, nodeJson, shownParameter, shownParameters, startNodeFixture, type NodeFixture } from '../../helpers/n8n';

/**
 * A Mailroom node of version 1, as saved in a workflow before version 1.1, keeps its parameters and what they do:
 * Send's Text and HTML option, Get's whole record, Wait For's "Received After Node Started" filter (off unless added).
 */
describe('Mailroom node: version 1 keeps its parameters', () => {
	let fixture: NodeFixture;
	beforeAll(async () => {
		fixture = await startNodeFixture({ account: 'veteran', credits: 10 });
		await fixture.server.addresses.reserve('old@example.test', fixture.account.id);
	});
	afterAll(() => fixture.stop());

	const description = () => nodeDescription(fixture.n8n.loader, 'mailroom');
	const v1 = (parameters: INodeParameters) => nodeJson(fixture.n8n, parameters, { version: 1 });
	const optionNames = (parameter: INodeProperties) => (parameter.options as INodeProperties[]).map((option) => option.name);

	it('shows version 1 its own Send, Get and Wait For parameters', () => {
		const d = description();
		expect(shownParameters(d, { resource: 'email' }, 1)).toEqual(['resource', 'operation', 'from', 'to', 'subject', 'text', 'options']);
		expect(optionNames(shownParameter(d, { resource: 'email' }, 'options', 1))).toContain('html');
		expect(optionNames(shownParameter(d, { resource: 'email' }, 'options'))).not.toContain('html');
		expect(shownParameter(d, { operation: 'get' }, 'simplify', 1).default).toBe(false);
		expect(shownParameter(d, { operation: 'get' }, 'simplify').default).toBe(true);
		expect(shownParameters(d, { operation: 'waitFor' }, 1)).toEqual(['resource', 'operation', 'email', 'timeout', 'filters', 'simplify']);
		expect(optionNames(shownParameter(d, { operation: 'waitFor' }, 'filters', 1))).toEqual([
			'receivedAfterStart',
			'senderContains',
			'subjectContains',
			'textContains',
		]);
		expect(optionNames(shownParameter(d, { operation: 'waitFor' }, 'filters'))).toEqual([
			'senderContains',
			'subjectContains',
			'textContains',
		]);
	});

	it('a saved node of either version keeps its resource: Account → Get still runs, whatever the order of the list', async () => {
		for (const version of [1, 1.1]) {
			const [me] = await nodeJson(fixture.n8n, { resource: 'account', operation: 'get' }, { version });
			expect(me).toMatchObject({ _id: fixture.account.id, name: 'veteran' });
		}
	});

	it('Send: Text, and HTML from the options', async () => {
		const [sent] = await v1({
			resource: 'email',
			operation: 'send',
			from: 'old@example.test',
			to: 'reader@example.test',
			subject: 'Both parts',
			text: 'Plain body',
			options: { html: '<p>HTML body</p>' },
		});
		expect(sent).toMatchObject({ to: ['reader@example.test'], status: 'delivered' });
		const { key } = fixture.account;
		const [message] = (await fixture.server.api<MessageRecord[]>('/api/addresses/reader%40example.test/messages', { key })).body;
		expect((await fixture.server.api(`/api/dirty/reader%40example.test/${message._id}`, { key })).text).toBe('<p>HTML body</p>');
		expect((await fixture.server.api(`/api/raw/reader%40example.test/${message._id}`, { key })).text).toContain('Plain body');
	});

	it('Get: the whole record, as before, with the bodies added as the newest version gives them', async () => {
		const [id] = await sendMail(fixture.server, { to: 'old@example.test', subject: 'Record', text: 'body at https://example.test/a' });
		const stored = (
			await fixture.server.api<MessageRecord>(`/api/addresses/${enc('old@example.test')}/messages/${id}`, { key: fixture.account.key })
		).body;
		const [item] = await v1({ resource: 'message', operation: 'get', email: 'old@example.test', messageId: id });
		// The text as received (its link not numbered), and no HTML for mail without an HTML part.
		expect(item).toMatchObject({ ...stored, text: 'body at https://example.test/a\n', html: null, attachmentNames: [] });
	});

	it('Wait For: stored mail matches unless Received After Node Started is added to the filters', async () => {
		const [older] = await sendMail(fixture.server, { to: 'old@example.test', subject: 'earlier verify link' });
		await nextMillisecond();
		const waitFor = (filters: INodeParameters) =>
			v1({
				resource: 'message',
				operation: 'waitFor',
				email: 'old@example.test',
				timeout: 1,
				filters: { subjectContains: 'earlier verify', ...filters },
			});
		expect(await waitFor({})).toEqual([expect.objectContaining({ _id: older })]);
		await expect(waitFor({ receivedAfterStart: true })).rejects.toMatchObject({ httpCode: '408' });
	});
});
