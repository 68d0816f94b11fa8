import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ICredentialDataDecryptedObject, IDataObject, IHttpRequestOptions, INode, INodeExecutionData } from 'n8n-workflow';
import { MailroomApi } from '../../dist/credentials/MailroomApi.credentials';
import { Mailroom } from '../../dist/nodes/Mailroom/Mailroom.node';

// n8n-core keeps its settings (an encryption key) in the user folder: a throw-away one, before it loads.
process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'mailroom-n8n-'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ExecuteContext } = require('n8n-core') as typeof import('n8n-core');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Workflow } = require('n8n-workflow') as typeof import('n8n-workflow');

/** Stops n8n-core's process-wide SSH connection sweeper (a 60 s interval), so Jest can exit. Call in afterAll. */
export function stopN8nCore(): void {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { Container } = require('@n8n/di') as { Container: { get<T>(type: new (...args: never[]) => T): T } };
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { SSHClientsManager } = require('n8n-core/dist/execution-engine/ssh-clients-manager');
	Container.get<{ onShutdown(): void }>(SSHClientsManager).onShutdown();
}

/**
 * Applies the credential's own `authenticate` definition (headers from `={{$credentials.x}}`), as n8n's
 * CredentialsHelper does; that helper lives in the n8n application, not in n8n-core.
 */
function authenticate(credentials: ICredentialDataDecryptedObject, request: IHttpRequestOptions): IHttpRequestOptions {
	const headers = { ...(request.headers ?? {}) };
	const definition = new MailroomApi().authenticate.properties.headers ?? {};
	for (const [name, value] of Object.entries(definition)) {
		const field = /^=\{\{\$credentials\.(\w+)\}\}$/.exec(String(value))?.[1];
		headers[name] = field ? String(credentials[field]) : value;
	}
	return { ...request, headers };
}

/**
 * Runs the Mailroom action node once, in a real n8n-core ExecuteContext, against a real server.
 * Returns the JSON of the output items, or throws the node's error.
 */
export async function runMailroomNode(parameters: Record<string, unknown>, credentials: { baseUrl: string; apiKey: string }): Promise<IDataObject[]> {
	const nodeType = new Mailroom();
	const nodeTypes = { getByName: () => nodeType, getByNameAndVersion: () => nodeType, getKnownTypes: () => ({}) };
	const node: INode = {
		id: 'mailroom-node',
		name: 'Mailroom',
		type: 'n8n-nodes-mailroom.mailroom',
		typeVersion: 1,
		position: [0, 0],
		parameters: parameters as INode['parameters'],
		credentials: { mailroomApi: { id: 'test', name: 'Mailroom test server' } },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: nodeTypes as never });
	const additionalData = {
		credentialsHelper: {
			getParentTypes: () => [],
			getDecrypted: async () => credentials,
			authenticate: async (decrypted: ICredentialDataDecryptedObject, _type: string, request: IHttpRequestOptions) => authenticate(decrypted, request),
			preAuthentication: async () => undefined,
		},
		restApiUrl: '',
		webhookBaseUrl: '',
		webhookWaitingBaseUrl: '',
		webhookTestBaseUrl: '',
		formWaitingBaseUrl: '',
		userId: 'test-user',
	};
	const runExecutionData = {
		resultData: { runData: {} },
		executionData: { contextData: {}, nodeExecutionStack: [], waitingExecution: {}, waitingExecutionSource: {}, metadata: {} },
	};
	const inputData = { main: [[{ json: {} }]] };
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData as never,
		'manual',
		runExecutionData as never,
		0,
		inputData.main[0],
		inputData,
		{ node, data: inputData, source: null },
		[],
	);
	const [output] = (await nodeType.execute.call(context as never)) as INodeExecutionData[][];
	return output.map((item) => item.json);
}
