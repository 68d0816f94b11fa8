import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { sendMail } from '../../helpers/messages';
import {
	loadedNode,
	nodeDescription,
	property,
	runNode,
	shownParameter,
	shownParameters,
	startNodeFixture,
	type NodeFixture,
} from '../../helpers/n8n';

/** Every parameter, option of a collection, field of a fixed collection and choice of an options list, with the path to it. */
function* allParameters(properties: INodeProperties[], at = ''): Generator<[string, { description?: string }]> {
	for (const p of properties) {
		yield [`${at}${p.name}`, p];
		for (const option of p.options ?? []) {
			// A fixed collection's group has no description of its own: its fields do.
			if ('values' in option) yield* allParameters(option.values, `${at}${p.name}.${option.name}.`);
			else if ('displayName' in option) yield* allParameters([option], `${at}${p.name}.`);
			else yield [`${at}${p.name}=${String(option.value)}`, option];
		}
	}
}

describe('Mailroom action node', () => {
	let fixture: NodeFixture;
	beforeAll(async () => {
		fixture = await startNodeFixture({ credits: 10, trailingSlash: true });
	});
	afterAll(() => fixture.stop());

	const description = () => nodeDescription(fixture.n8n.loader, 'mailroom');
	/** The options of the `operation` parameter a node of `version` shows for one resource. */
	const operationOptions = (resource: string, version = 1.1) =>
		(shownParameter(description(), { resource }, 'operation', version).options ?? []) as INodePropertyOptions[];
	const operations = (resource: string, version = 1.1) =>
		operationOptions(resource, version)
			.map((o) => o.value as string)
			.sort();

	describe('as n8n loads it', () => {
		it('is a regular node usable as an AI tool, with the operation in its subtitle; new nodes get version 1.2', () => {
			const d = description();
			expect(d).toMatchObject({
				displayName: 'Mailroom',
				version: [1, 1.1, 1.2],
				defaultVersion: 1.2,
				usableAsTool: true,
				inputs: ['main'],
				outputs: ['main'],
				subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
			});
			expect(typeof loadedNode(fixture.n8n.loader, 'mailroom').execute).toBe('function');
		});

		it('offers the resources and operations of the issue, with the names n8n users know', () => {
			const resources = property(description().properties, 'resource')!;
			// Message first (mail is what most workflows are about); the values are those saved workflows hold.
			expect(resources.options!.map((o) => (o as { value: string }).value)).toEqual([
				'message',
				'email',
				'sentEmail',
				'address',
				'webhookSubscription',
				'domain',
				'account',
			]);
			expect(resources.default).toBe('message');
			const messageOperations = [
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
				'getThread',
				'markRead',
				'markUnread',
				'moveToFolder',
				'removeLabel',
				'reply',
				'search',
				'star',
				'unstar',
				'waitFor',
			];
			expect(operations('message')).toEqual(messageOperations);
			// Both versions list the same operations: n8n's node creator offers every one whatever its @version rules.
			expect(operations('message', 1)).toEqual(messageOperations);
			const names = Object.fromEntries(operationOptions('message').map((o) => [String(o.value), o.name]));
			expect(names).toMatchObject({ markRead: 'Mark as Read', markUnread: 'Mark as Unread', star: 'Star', unstar: 'Unstar' });
			expect(operations('email')).toEqual(['send', 'sendAndWait']);
			expect(operations('sentEmail')).toEqual(['getAll']);
			expect(operations('account')).toEqual(['get']);
			expect(operations('address')).toEqual(['get', 'getAll', 'release', 'reserve', 'setWebhook', 'update']);
			expect(operations('domain')).toEqual(['get', 'getAll', 'getMessages']);
			expect(operations('webhookSubscription')).toEqual(['create', 'delete', 'getAll']);
		});

		it('says of every operation that deletes that it deletes for good (an AI agent reads these descriptions)', () => {
			const described = (resource: string, value: string) => operationOptions(resource).find((o) => o.value === value)!.description;
			expect(described('message', 'delete')).toMatch(/for good/);
			expect(described('message', 'deleteAll')).toMatch(/for good/);
			expect(described('address', 'release')).toMatch(/deleted for good/);
			expect(described('webhookSubscription', 'delete')).toMatch(/for good/);
		});

		it('describes every parameter, collection option and operation', () => {
			const undescribed = [...allParameters(description().properties)]
				.filter(([name, p]) => !name.startsWith('resource=') && !p.description?.trim())
				.map(([name]) => name);
			expect(undescribed).toEqual([]);
		});

		it('shows each operation its own parameters, as n8n computes them from the defaults', () => {
			const d = description();
			const oneMessage = ['resource', 'operation', 'email', 'messageId'];
			const listed = ['simplify', 'filters', 'options'];
			expect(shownParameters(d, {})).toEqual(['resource', 'operation', 'email', 'returnAll', 'limit', ...listed]);
			expect(shownParameters(d, { operation: 'getAll', returnAll: true })).toEqual([
				'resource',
				'operation',
				'email',
				'returnAll',
				...listed,
			]);
			expect(shownParameters(d, { operation: 'search' })).toEqual([
				'resource',
				'operation',
				'query',
				'returnAll',
				'limit',
				'simplify',
				'options',
			]);
			expect(shownParameters(d, { operation: 'get' })).toEqual([...oneMessage, 'simplify', 'options']);
			expect(shownParameters(d, { operation: 'getThread' })).toEqual([
				'resource',
				'operation',
				'threadOf',
				'email',
				'messageId',
				'returnAll',
				'limit',
			]);
			expect(shownParameters(d, { operation: 'getThread', threadOf: 'threadId' })).toEqual([
				'resource',
				'operation',
				'threadOf',
				'threadId',
				'returnAll',
				'limit',
			]);
			expect(shownParameters(d, { operation: 'reply' })).toEqual([...oneMessage, 'replyAll', 'emailFormat', 'text', 'options']);
			expect(shownParameters(d, { operation: 'reply', emailFormat: 'both' })).toEqual([
				...oneMessage,
				'replyAll',
				'emailFormat',
				'text',
				'html',
				'options',
			]);
			expect(shownParameters(d, { operation: 'waitFor' })).toEqual([
				'resource',
				'operation',
				'email',
				'receivedAfterStart',
				'timeout',
				'filters',
				'simplify',
			]);
			for (const operation of ['getRaw', 'delete', 'markRead', 'markUnread', 'star', 'unstar']) {
				expect(shownParameters(d, { operation })).toEqual(oneMessage);
			}
			expect(shownParameters(d, { operation: 'deleteAll' })).toEqual(['resource', 'operation', 'email']);
			expect(shownParameters(d, { operation: 'addLabel' })).toEqual([...oneMessage, 'label']);
			expect(shownParameters(d, { operation: 'removeLabel' })).toEqual([...oneMessage, 'label']);
			expect(shownParameters(d, { operation: 'moveToFolder' })).toEqual([...oneMessage, 'folder']);
			expect(shownParameters(d, { operation: 'getHtml' })).toEqual([...oneMessage, 'sanitized', 'remoteImages']);
			expect(shownParameters(d, { operation: 'getHtml', sanitized: false })).toEqual([...oneMessage, 'sanitized']);
			expect(shownParameters(d, { operation: 'getAttachment' })).toEqual([...oneMessage, 'attachment', 'binaryPropertyName']);
			expect(shownParameters(d, { resource: 'email' })).toEqual([
				'resource',
				'operation',
				'from',
				'to',
				'subject',
				'emailFormat',
				'text',
				'options',
			]);
			expect(shownParameters(d, { resource: 'email', emailFormat: 'html' })).toEqual([
				'resource',
				'operation',
				'from',
				'to',
				'subject',
				'emailFormat',
				'html',
				'options',
			]);
			expect(shownParameters(d, { resource: 'sentEmail' })).toEqual(['resource', 'operation', 'returnAll', 'limit']);
			expect(shownParameters(d, { resource: 'account' })).toEqual(['resource', 'operation']);
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
				'simplify',
			]);
		});
	});

	describe('execute() against a real server', () => {
		it('processes every item on its own; with continueOnFail a failed item outputs its error and the rest go on', async () => {
			const { server, n8n } = fixture;
			const [id] = await sendMail(server, { to: 'items@example.test', text: 'first item' });
			const items = [{ json: { id } }, { json: { id: 'NoSuchMessage1' } }, { json: { id } }];
			const parameters = { resource: 'message', operation: 'get', email: 'items@example.test', messageId: '={{ $json.id }}' };
			const output = await runNode(n8n, parameters, { items, continueOnFail: true });
			expect(output).toEqual([
				{ json: expect.objectContaining({ _id: id, text: expect.stringContaining('first item') }), pairedItem: { item: 0 } },
				{ json: { error: expect.stringMatching(/NoSuchMessage1|not found/i), httpCode: '404' }, pairedItem: { item: 1 } },
				{ json: expect.objectContaining({ _id: id }), pairedItem: { item: 2 } },
			]);
			await expect(runNode(n8n, parameters, { items })).rejects.toMatchObject({
				name: 'NodeApiError',
				httpCode: '404',
				context: { itemIndex: 1 },
			});
		});
	});
});
