import { existsSync } from 'node:fs';
import path from 'node:path';

import { PackageDirectoryLoader } from 'n8n-core';
import type { ICredentialType, INodeProperties, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

// The package root, whose package.json points n8n at the compiled nodes in dist/.
const root = path.resolve(__dirname, '../..');
const DOCS = 'https://www.npmjs.com/package/n8n-nodes-mailroom#use-with-n8n';

let loader: PackageDirectoryLoader;

beforeAll(async () => {
	loader = new PackageDirectoryLoader(root);
	await loader.loadAll();
});

const node = (name: string) => loader.getNode(name).type as INodeType;
const description = (name: string) => node(name).description as INodeTypeDescription;
const credential = () => loader.getCredential('mailroomApi').type as ICredentialType;
const property = (properties: INodeProperties[], name: string) => properties.find((p) => p.name === name);

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

/** The options of the `operation` parameter shown for one resource. */
const operations = (resource: string) =>
	description('mailroom')
		.properties.filter((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource))
		.flatMap((p) => (p.options ?? []).map((o) => (o as { value: string }).value))
		.sort();

/** The parameters n8n shows for given parameter values, as the editor computes them. */
function shownParameters(nodeDescription: INodeTypeDescription, values: Record<string, unknown>) {
	const parameters = NodeHelpers.getNodeParameters(nodeDescription.properties, values as never, true, false, null, nodeDescription)!;
	return nodeDescription.properties.filter((p) => NodeHelpers.displayParameter(parameters, p, null, nodeDescription)).map((p) => p.name);
}

describe('the built package as n8n loads it', () => {
	it('finds both nodes and the credential under the package name', () => {
		expect(loader.packageName).toBe('n8n-nodes-mailroom');
		expect(loader.loadedNodes).toEqual([
			{ name: 'mailroom', version: 1 },
			{ name: 'mailroomTrigger', version: 1 },
		]);
		expect(Object.keys(loader.credentialTypes)).toEqual(['mailroomApi']);
		expect(loader.types.nodes.map((n) => n.displayName)).toEqual(['Mailroom', 'Mailroom Trigger']);
		expect(loader.types.credentials.map((c) => c.displayName)).toEqual(['Mailroom API']);
	});

	it('links the credential to both nodes', () => {
		expect(loader.known.credentials.mailroomApi.supportedNodes).toEqual(['mailroom', 'mailroomTrigger']);
		for (const name of ['mailroom', 'mailroomTrigger']) {
			expect(description(name).credentials).toEqual([{ name: 'mailroomApi', required: true }]);
		}
	});

	it.each(['mailroom', 'mailroomTrigger'])('gives %s light and dark icons that exist in dist', (name) => {
		const { iconUrl, icon } = description(name);
		expect(icon).toBeUndefined(); // rewritten by the loader into iconUrl
		const folder = name === 'mailroom' ? 'Mailroom' : 'MailroomTrigger';
		expect(iconUrl).toEqual({
			light: `icons/n8n-nodes-mailroom/dist/nodes/${folder}/mailroom.svg`,
			dark: `icons/n8n-nodes-mailroom/dist/nodes/${folder}/mailroom.dark.svg`,
		});
		for (const url of Object.values(iconUrl as Record<string, string>)) {
			expect(existsSync(path.join(root, url.replace('icons/n8n-nodes-mailroom/', '')))).toBe(true);
		}
	});

	it.each(['mailroom', 'mailroomTrigger'])('reads the codex of %s: categories and README documentation', (name) => {
		expect(description(name).codex).toEqual({
			categories: ['Communication', 'Development'],
			resources: {
				primaryDocumentation: [{ url: DOCS }],
				credentialDocumentation: [{ url: DOCS }],
			},
		});
	});

	it('stamps the package version on the nodes, as for any community package', () => {
		const { version } = require(path.join(root, 'package.json')) as { version: string };
		expect(description('mailroom').communityNodePackageVersion).toBe(version);
	});
});

describe('Mailroom action node', () => {
	it('is a regular node usable as an AI tool, with the operation in its subtitle', () => {
		const d = description('mailroom');
		expect(d).toMatchObject({
			displayName: 'Mailroom',
			version: 1,
			usableAsTool: true,
			inputs: ['main'],
			outputs: ['main'],
			subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		});
		expect(typeof node('mailroom').execute).toBe('function');
	});

	it('offers the resources and operations of the issue', () => {
		const resources = property(description('mailroom').properties, 'resource')!;
		expect(resources.options!.map((o) => (o as { value: string }).value)).toEqual(['address', 'domain', 'email', 'message']);
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
	});

	it('describes every parameter, collection option and operation', () => {
		const undescribed = [...allParameters(description('mailroom').properties)]
			.filter(([name, p]) => !name.startsWith('resource=') && !p.description?.trim())
			.map(([name]) => name);
		expect(undescribed).toEqual([]);
	});

	it('shows each operation its own parameters, as n8n computes them from the defaults', () => {
		const d = description('mailroom');
		expect(shownParameters(d, {})).toEqual(['resource', 'operation', 'email', 'returnAll', 'limit']);
		expect(shownParameters(d, { operation: 'getAll', returnAll: true })).toEqual(['resource', 'operation', 'email', 'returnAll']);
		expect(shownParameters(d, { operation: 'getText' })).toEqual(['resource', 'operation', 'email', 'messageId']);
		expect(shownParameters(d, { operation: 'waitFor' })).toEqual(['resource', 'operation', 'email', 'timeout', 'filters', 'pollInterval']);
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
		expect(shownParameters(d, { resource: 'address', operation: 'setWebhook' })).toEqual(['resource', 'operation', 'email', 'webhookUrl']);
		expect(shownParameters(d, { resource: 'address', operation: 'release' })).toEqual(['resource', 'operation', 'email', 'deleteMessages']);
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

	it('limits Get Many to the largest page of the API and waits 60 s by default', () => {
		const { properties } = description('mailroom');
		expect(property(properties, 'limit')!.typeOptions).toEqual({ minValue: 1, maxValue: 1000 });
		expect(property(properties, 'timeout')!.default).toBe(60);
		const filters = property(properties, 'filters')!.options!.map((o) => (o as INodeProperties).name);
		expect(filters).toEqual(['receivedAfterStart', 'senderContains', 'subjectContains']);
	});
});

describe('Mailroom Trigger node', () => {
	it('is a webhook trigger with the three webhook methods', () => {
		const d = description('mailroomTrigger');
		expect(d).toMatchObject({ displayName: 'Mailroom Trigger', group: ['trigger'], inputs: [], outputs: ['main'] });
		expect(d.webhooks).toEqual([{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }]);
		const methods = node('mailroomTrigger').webhookMethods!.default;
		expect(Object.keys(methods ?? {}).sort()).toEqual(['checkExists', 'create', 'delete']);
		expect(typeof node('mailroomTrigger').webhook).toBe('function');
	});

	it('asks for the address, reserves it by default and can simplify', () => {
		const d = description('mailroomTrigger');
		expect(d.properties.map((p) => [p.name, p.type, p.default])).toEqual([
			['email', 'string', ''],
			['reserveAddress', 'boolean', true],
			['simplify', 'boolean', false],
		]);
		expect(d.properties.filter((p) => !p.description?.trim())).toEqual([]);
	});
});

describe('Mailroom API credential', () => {
	it('has an API key kept as a password and a base URL defaulting to a local server', () => {
		const { properties } = credential();
		expect(properties.map((p) => [p.name, p.type, p.default, p.typeOptions?.password ?? false])).toEqual([
			['apiKey', 'string', '', true],
			['baseUrl', 'string', 'http://localhost:3000', false],
		]);
	});

	it('sends the key in the Service-Key header and tests it against /api/me', () => {
		const c = credential();
		expect(c.authenticate).toEqual({
			type: 'generic',
			properties: { headers: { 'Service-Key': '={{$credentials.apiKey}}' } },
		});
		const { request, rules } = c.test!;
		expect(request).toMatchObject({ url: '/api/me', method: 'GET' });
		// A 401 comes back as an answer, recognised by its body; any other error status fails the test.
		const { except } = request.ignoreHttpStatusErrors as { except: number[] };
		expect(except).not.toContain(401);
		expect(except).toEqual(expect.arrayContaining([400, 403, 404, 429, 500, 502, 503]));
		expect(rules).toEqual([
			{
				type: 'responseSuccessBody',
				properties: { key: 'error', value: 'Unauthorized', message: expect.stringMatching(/rejected this API key/) },
			},
			{
				type: 'responseSuccessBody',
				properties: { key: '_id', value: undefined, message: expect.stringMatching(/No Mailroom server/) },
			},
		]);
		expect(c.documentationUrl).toBe(DOCS);
	});

	it('has icons in dist', () => {
		expect(credential().iconUrl).toEqual({
			light: 'icons/n8n-nodes-mailroom/dist/credentials/mailroom.svg',
			dark: 'icons/n8n-nodes-mailroom/dist/credentials/mailroom.dark.svg',
		});
		expect(existsSync(path.join(root, 'dist/credentials/mailroom.dark.svg'))).toBe(true);
	});
});
