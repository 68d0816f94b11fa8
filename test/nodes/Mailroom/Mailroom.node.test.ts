import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { sendMail } from '../../helpers/messages';
import { loadedNode, nodeDescription, property, runNode, startNodeFixture, type NodeFixture } from '../../helpers/n8n';

/** Every parameter, option of a collection and choice of an options list, with the path to it. */
function* allParameters(properties: INodeProperties[], at = ''): Generator<[string, { description?: string }]> {
	for (const p of properties) {
		yield [`${at}${p.name}`, p];
		for (const option of p.options ?? []) {
			if ('displayName' in option) yield* allParameters([option as INodeProperties], `${at}${p.name}.`);
			else yield [`${at}${p.name}=${String((option as { value: unknown }).value)}`, option];
		}
	}
}

/** The parameters n8n shows for given parameter values, as the editor computes them. */
function shownParameters(nodeDescription: INodeTypeDescription, values: Record<string, unknown>) {
	const parameters = NodeHelpers.getNodeParameters(nodeDescription.properties, values as never, true, false, null, nodeDescription)!;
	return nodeDescription.properties.filter((p) => NodeHelpers.displayParameter(parameters, p, null, nodeDescription)).map((p) => p.name);
}

describe('Mailroom action node', () => {
	let fixture: NodeFixture;
	beforeAll(async () => {
		fixture = await startNodeFixture({ credits: 10, trailingSlash: true });
	});
	afterAll(() => fixture.stop());

	const description = () => nodeDescription(fixture.n8n.loader, 'mailroom');
	/** The options of the `operation` parameter shown for one resource. */
	const operations = (resource: string) =>
		description()
			.properties.filter((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource))
			.flatMap((p) => (p.options ?? []).map((o) => (o as { value: string }).value))
			.sort();

	describe('as n8n loads it', () => {
		it('is a regular node usable as an AI tool, with the operation in its subtitle', () => {
			const d = description();
			expect(d).toMatchObject({
				displayName: 'Mailroom',
				version: 1,
				usableAsTool: true,
				inputs: ['main'],
				outputs: ['main'],
				subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
			});
			expect(typeof loadedNode(fixture.n8n.loader, 'mailroom').execute).toBe('function');
		});

		it('offers the resources and operations of the issue', () => {
			const resources = property(description().properties, 'resource')!;
			expect(resources.options!.map((o) => (o as { value: string }).value)).toEqual([
				'address',
				'domain',
				'email',
				'message',
				'webhookSubscription',
			]);
			expect(operations('message')).toEqual([
				'addLabel',
				'delete',
				'deleteAll',
				'get',
				'getAll',
				'getAttachment',
				'getHeaders',
				'getHtml',
				'getRaw',
				'getText',
				'markRead',
				'markUnread',
				'moveToFolder',
				'removeLabel',
				'star',
				'waitFor',
			]);
			expect(operations('email')).toEqual(['send']);
			expect(operations('address')).toEqual(['get', 'getAll', 'release', 'reserve', 'setWebhook', 'update']);
			expect(operations('domain')).toEqual(['get', 'getAll', 'getMessages']);
			expect(operations('webhookSubscription')).toEqual(['create', 'delete', 'getAll']);
		});

		it('describes every parameter, collection option and operation', () => {
			const undescribed = [...allParameters(description().properties)]
				.filter(([name, p]) => !name.startsWith('resource=') && !p.description?.trim())
				.map(([name]) => name);
			expect(undescribed).toEqual([]);
		});

		it('shows each operation its own parameters, as n8n computes them from the defaults', () => {
			const d = description();
			expect(shownParameters(d, {})).toEqual(['resource', 'operation', 'email', 'returnAll', 'limit']);
			expect(shownParameters(d, { operation: 'getAll', returnAll: true })).toEqual(['resource', 'operation', 'email', 'returnAll']);
			expect(shownParameters(d, { operation: 'getText' })).toEqual(['resource', 'operation', 'email', 'messageId']);
			expect(shownParameters(d, { operation: 'waitFor' })).toEqual([
				'resource',
				'operation',
				'email',
				'timeout',
				'filters',
				'pollInterval',
			]);
			for (const operation of ['get', 'getRaw', 'getHeaders', 'delete', 'markRead', 'markUnread', 'star']) {
				expect(shownParameters(d, { operation })).toEqual(['resource', 'operation', 'email', 'messageId']);
			}
			expect(shownParameters(d, { operation: 'deleteAll' })).toEqual(['resource', 'operation', 'email']);
			expect(shownParameters(d, { operation: 'addLabel' })).toEqual(['resource', 'operation', 'email', 'messageId', 'label']);
			expect(shownParameters(d, { operation: 'removeLabel' })).toEqual(['resource', 'operation', 'email', 'messageId', 'label']);
			expect(shownParameters(d, { operation: 'moveToFolder' })).toEqual(['resource', 'operation', 'email', 'messageId', 'folder']);
			expect(shownParameters(d, { operation: 'getHtml' })).toEqual([
				'resource',
				'operation',
				'email',
				'messageId',
				'sanitized',
				'remoteImages',
			]);
			expect(shownParameters(d, { operation: 'getHtml', sanitized: false })).toEqual([
				'resource',
				'operation',
				'email',
				'messageId',
				'sanitized',
			]);
			expect(shownParameters(d, { operation: 'getAttachment' })).toEqual([
				'resource',
				'operation',
				'email',
				'messageId',
				'attachment',
				'binaryPropertyName',
			]);
			expect(shownParameters(d, { resource: 'email' })).toEqual(['resource', 'operation', 'from', 'to', 'subject', 'text', 'options']);
			expect(shownParameters(d, { resource: 'address', operation: 'setWebhook' })).toEqual([
				'resource',
				'operation',
				'email',
				'webhookUrl',
			]);
			expect(shownParameters(d, { resource: 'address', operation: 'release' })).toEqual([
				'resource',
				'operation',
				'email',
				'deleteMessages',
			]);
			expect(shownParameters(d, { resource: 'address', operation: 'get' })).toEqual(['resource', 'operation', 'email']);
			expect(shownParameters(d, { resource: 'address', operation: 'getAll' })).toEqual(['resource', 'operation', 'returnAll', 'limit']);
			expect(shownParameters(d, { resource: 'address', operation: 'reserve' })).toEqual(['resource', 'operation', 'email', 'settings']);
			expect(shownParameters(d, { resource: 'address', operation: 'update' })).toEqual(['resource', 'operation', 'email', 'updateFields']);
			expect(shownParameters(d, { resource: 'domain' })).toEqual(['resource', 'operation', 'returnAll', 'limit']);
			expect(shownParameters(d, { resource: 'domain', operation: 'get' })).toEqual(['resource', 'operation', 'domain']);
			expect(shownParameters(d, { resource: 'domain', operation: 'getMessages', returnAll: true })).toEqual([
				'resource',
				'operation',
				'domain',
				'returnAll',
			]);
		});
	});

	describe('execute() against a real server', () => {
		it('processes every item on its own; with continueOnFail a failed item outputs its error and the rest go on', async () => {
			const { server, n8n } = fixture;
			const [id] = await sendMail(server, { to: 'items@example.test', text: 'first item' });
			const items = [{ json: { id } }, { json: { id: 'NoSuchMessage1' } }, { json: { id } }];
			const parameters = { resource: 'message', operation: 'getText', email: 'items@example.test', messageId: '={{ $json.id }}' };
			const output = await runNode(n8n, parameters, { items, continueOnFail: true });
			expect(output).toEqual([
				{ json: expect.objectContaining({ messageId: id, text: expect.stringContaining('first item') }), pairedItem: { item: 0 } },
				{ json: { error: expect.stringMatching(/NoSuchMessage1|not found/i), httpCode: '404' }, pairedItem: { item: 1 } },
				{ json: expect.objectContaining({ messageId: id }), pairedItem: { item: 2 } },
			]);
			await expect(runNode(n8n, parameters, { items })).rejects.toMatchObject({
				name: 'NodeApiError',
				httpCode: '404',
				context: { itemIndex: 1 },
			});
		});
	});
});
