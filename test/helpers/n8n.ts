/**
 * Runs our n8n nodes in n8n-core's real contexts (ExecuteContext, HookContext, WebhookContext),
 * with the node types loaded from the built package by PackageDirectoryLoader (as n8n loads a
 * community package) and the credential applied through its own `authenticate` definition, so
 * every request is real HTTP through n8n's `httpRequestWithAuthentication`.
 *
 * What the n8n application provides and n8n-core does not is done here the way n8n does it:
 * credential storage and applying `authenticate` (its CredentialsHelper), running a credential's
 * test request (its CredentialsTester, with n8n-core's RoutingNode), and the HTTP server in front
 * of webhooks (raw body kept, JSON parsed, routed by path). Nothing else is stubbed.
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IWebhookData,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, ICredentialsHelper, NodeHelpers, Workflow } from 'n8n-workflow';
import { Webhook } from 'standardwebhooks';
import type { MailroomConfig } from 'mailroom-server/dist/config/settings';
import { startTestMailroom, type TestMailroom } from './mailroom';

// n8n-core keeps its instance settings (an encryption key) in the user folder: a throw-away one, set before it loads.
process.env.N8N_USER_FOLDER ??= mkdtempSync(path.join(tmpdir(), 'mailroom-n8n-'));
const {
	ExecuteContext,
	generateUrlSignature,
	HookContext,
	InstanceSettings,
	LoadOptionsContext,
	PackageDirectoryLoader,
	prepareUrlForSigning,
	RoutingNode,
	validateUrlSignature,
	WebhookContext,
} =
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- an import would run before N8N_USER_FOLDER is set
	require('n8n-core') as typeof import('n8n-core');

export const PACKAGE = 'n8n-nodes-mailroom';
/** The n8n-nodes-mailroom package: the repository itself, its nodes built into dist/. */
export const NODES_PACKAGE = path.resolve(__dirname, '../..');

type CredentialData = Record<string, ICredentialDataDecryptedObject>;

type PackageLoader = InstanceType<typeof PackageDirectoryLoader>;

/** A node type of the loaded package, and its description. */
export const loadedNode = (loader: PackageLoader, name: string) => loader.getNode(name).type as INodeType;
export const nodeDescription = (loader: PackageLoader, name: string): INodeTypeDescription => loadedNode(loader, name).description;
export const loadedCredential = (loader: PackageLoader, name = 'mailroomApi'): ICredentialType => loader.getCredential(name).type;

/** Loads the built package as n8n does; node type names are `n8n-nodes-mailroom.<name>`. */
export async function loadPackage(root = NODES_PACKAGE) {
	const loader = new PackageDirectoryLoader(root);
	await loader.loadAll();
	const local = (type: string) => type.replace(`${PACKAGE}.`, '');
	const nodeTypes: INodeTypes = {
		getByName: (type) => loader.getNode(local(type)).type,
		getByNameAndVersion: (type, version) => {
			const nodeType = loader.getNode(local(type)).type;
			return 'nodeVersions' in nodeType ? nodeType.getNodeType(version) : nodeType;
		},
		getKnownTypes: () => loader.known.nodes,
	};
	const credentialType = (name: string) => loadedCredential(loader, name);
	return { loader, nodeTypes, credentialType };
}

/**
 * Holds decrypted credential data by type and applies a credential type's `authenticate`
 * definition: a function is called; a generic one has each key and value resolved as an n8n
 * expression with `$credentials` and set on the request (what n8n's CredentialsHelper does).
 */
class CredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly data: CredentialData,
		private readonly types: (name: string) => ICredentialType,
	) {
		super();
	}

	getParentTypes() {
		return [];
	}

	/** As n8n: refused only when the credential type restricts itself to its supported nodes. */
	isCredentialUsableByNode(type: string, nodeType: string) {
		const { restrictToSupportedNodes, supportedNodes = [] } = this.types(type);
		return !restrictToSupportedNodes || supportedNodes.includes(nodeType);
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
		workflow: Workflow,
		node: INode,
	) {
		const { authenticate } = this.types(typeName);
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		if (authenticate?.type !== 'generic') return requestOptions;
		const resolve = (value: string) =>
			workflow.expression.getSimpleParameterValue(node, value, 'internal', { $credentials: credentials }, undefined, '');
		const options = requestOptions as unknown as Record<string, IDataObject>;
		for (const [where, entries] of Object.entries(authenticate.properties)) {
			options[where] ??= {};
			for (const [key, value] of Object.entries(entries as IDataObject)) options[where][String(resolve(key))] = resolve(value as string);
		}
		return requestOptions;
	}

	preAuthentication() {
		return Promise.resolve(undefined);
	}

	runPreAuthentication() {
		return Promise.resolve(undefined);
	}

	getDecrypted(_additionalData: unknown, _nodeCredentials: unknown, type: string) {
		const data = this.data[type];
		return data ? Promise.resolve(data) : Promise.reject(new Error(`no ${type} credential in this test`));
	}

	getCredentials(): Promise<ICredentials> {
		return Promise.reject(new Error('not used by these nodes'));
	}

	async updateCredentials() {}

	async updateCredentialsOauthTokenData() {}

	getCredentialsProperties(type: string) {
		return this.types(type).properties;
	}
}

type Route = (req: IncomingMessage & { body?: unknown; rawBody?: Buffer }, res: ServerResponse) => Promise<void>;

/** n8n's webhook server in small: reads the body (raw kept, JSON parsed) and routes by path. */
async function startWebhookServer() {
	const routes = new Map<string, Route>();
	const handle = async (req: IncomingMessage, res: ServerResponse) => {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		const rawBody = Buffer.concat(chunks);
		let body: unknown = {};
		try {
			body = rawBody.length ? (JSON.parse(rawBody.toString('utf8')) as unknown) : {};
		} catch {
			body = rawBody.toString('utf8');
		}
		// A form's POST, as n8n's body parser reads it.
		if (req.headers['content-type']?.startsWith('application/x-www-form-urlencoded'))
			body = Object.fromEntries(new URLSearchParams(rawBody.toString('utf8')));
		const url = new URL(req.url ?? '/', 'http://localhost');
		const route = routes.get(url.pathname);
		if (!route) return void res.writeHead(404).end();
		Object.assign(req, { body, rawBody, query: Object.fromEntries(url.searchParams), params: {} });
		try {
			await route(req, res);
		} catch (error) {
			if (!res.headersSent) res.writeHead(500);
			res.end(String(error));
		}
	};
	const server = createServer((req, res) => void handle(req, res));
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		routes,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

export interface HarnessOptions {
	/** Decrypted credential data by credential type, e.g. { mailroomApi: { apiKey, baseUrl } }. */
	credentials?: CredentialData;
	/** Package folder (package.json with the n8n block, and dist/); n8n-nodes-mailroom by default. */
	root?: string;
}

export interface ExecuteOptions {
	/** The node's "On Error: Continue" setting. */
	continueOnFail?: boolean;
	abortSignal?: AbortSignal;
	/** The node's version; the version n8n gives a node added now by default. */
	version?: number;
	/** Credentials for this call instead of the harness's. */
	credentials?: CredentialData;
}

export interface TriggerOptions {
	/** As on "Listen for test event": the test webhook URL, and the 'manual' mode. */
	test?: boolean;
	credentials?: CredentialData;
	/** The node's version; the version n8n gives a node added now by default. */
	version?: number;
	/** Each trigger node of n8n has its own, so its own webhook URL. */
	webhookId?: string;
}

/** The version n8n gives a node added to a workflow now. */
const newestVersion = ({ version, defaultVersion }: INodeTypeDescription) =>
	defaultVersion ?? (Array.isArray(version) ? Math.max(...version) : version);

export type N8nHarness = Awaited<ReturnType<typeof createN8nHarness>>;

/** A trigger node in a workflow of its own, as N8nHarness.trigger makes it. */
export type Trigger = Awaited<ReturnType<N8nHarness['trigger']>>;

export async function createN8nHarness({ credentials = {}, root }: HarnessOptions = {}) {
	const { loader, nodeTypes, credentialType } = await loadPackage(root);
	// Started by the first trigger or waiting execution: other action-node tests need no server.
	let webhooks: Awaited<ReturnType<typeof startWebhookServer>> | undefined;
	let executions = 0;

	const additionalData = (
		data: CredentialData,
		webhookBaseUrl = 'http://127.0.0.1:1/webhook',
		extra: Partial<IWorkflowExecuteAdditionalData> = {},
	) => {
		const base = webhookBaseUrl.replace(/\/webhook$/, '');
		return {
			credentialsHelper: new CredentialsHelper(data, credentialType),
			webhookBaseUrl,
			webhookTestBaseUrl: `${base}/webhook-test`,
			webhookWaitingBaseUrl: `${base}/webhook-waiting`,
			formWaitingBaseUrl: `${base}/form-waiting`,
			restApiUrl: `${base}/rest`,
			instanceBaseUrl: base,
			variables: {},
			currentNodeExecutionIndex: 0,
			...extra,
		} as IWorkflowExecuteAdditionalData;
	};

	/** A one-node workflow, its parameter defaults filled in as n8n does when a node is added. */
	function workflowWith(type: string, parameters: INodeParameters, data: CredentialData, nodeOptions: Partial<INode> = {}) {
		const workflow = new Workflow({
			id: 'workflow-1',
			name: 'test',
			nodes: [
				{
					id: 'node-1',
					name: 'Node',
					type: `${PACKAGE}.${type}`,
					typeVersion: 1,
					position: [0, 0],
					parameters,
					credentials: Object.fromEntries(Object.keys(data).map((name) => [name, { id: name, name }])),
					webhookId: 'test-webhook-id',
					...nodeOptions,
				},
			],
			connections: {},
			active: false,
			nodeTypes,
			staticData: {},
		});
		const node = workflow.getNode('Node')!;
		return { workflow, node, nodeType: nodeTypes.getByNameAndVersion(node.type, node.typeVersion) };
	}

	/** Runs an action node's execute() on the input items in an ExecuteContext; returns its outputs. */
	async function execute(
		type: string,
		parameters: INodeParameters,
		items: INodeExecutionData[] = [{ json: {} }],
		options: ExecuteOptions = {},
	) {
		const data = options.credentials ?? credentials;
		const { workflow, node, nodeType } = workflowWith(type, parameters, data, {
			typeVersion: options.version ?? newestVersion(nodeDescription(loader, type)),
			...(options.continueOnFail && { onError: 'continueRegularOutput' as const }),
		});
		const inputData = { main: [items] };
		const context = new ExecuteContext(
			workflow,
			node,
			additionalData(data),
			'manual',
			createRunExecutionData(),
			0,
			items,
			inputData,
			{ node, data: inputData, source: null },
			[],
			options.abortSignal,
		);
		return (await nodeType.execute!.call(context)) as INodeExecutionData[][];
	}

	/**
	 * Runs a node's `methods.listSearch[method]` as the editor does for a resource locator's list: in a LoadOptionsContext
	 * for the parameter at `path`, with the node's parameters and the search text typed in the list.
	 */
	async function listSearch(
		type: string,
		method: string,
		{
			filter,
			path = 'parameters.email',
			parameters = {},
			version,
		}: { filter?: string; path?: string; parameters?: INodeParameters; version?: number } = {},
	) {
		const { workflow, node, nodeType } = workflowWith(type, parameters, credentials, {
			typeVersion: version ?? newestVersion(nodeDescription(loader, type)),
		});
		const search = nodeType.methods!.listSearch![method];
		return await search.call(new LoadOptionsContext(workflow, node, additionalData(credentials), path), filter);
	}

	/**
	 * Runs an action node that puts its execution to wait (Send and Wait for Response), as n8n runs a production
	 * execution: execute() in an ExecuteContext whose $execution.resumeUrl is this harness's webhook server; then requests
	 * to that URL run the node's webhook() in a WebhookContext (the webhook description of the request's method), as n8n's
	 * waiting webhooks do (a URL whose signature does not match gets 401). The first that returns workflow data resumes the
	 * execution: `resumed` settles with it, and later requests get n8n's "no action required" page.
	 */
	async function executeWaiting(
		type: string,
		parameters: INodeParameters,
		items: INodeExecutionData[] = [{ json: {} }],
		options: ExecuteOptions & { executionId?: string } = {},
	) {
		const data = options.credentials ?? credentials;
		webhooks ??= await startWebhookServer();
		const server = webhooks;
		const executionId = options.executionId ?? `execution-${++executions}`;
		const { workflow, node, nodeType } = workflowWith(type, parameters, data, {
			typeVersion: options.version ?? newestVersion(nodeDescription(loader, type)),
			...(options.continueOnFail && { onError: 'continueRegularOutput' as const }),
		});
		const runExecutionData = createRunExecutionData();
		const inputData = { main: [items] };
		const waitingData = (extra: Partial<IWorkflowExecuteAdditionalData> = {}) =>
			additionalData(data, `${server.baseUrl}/webhook`, { executionId, ...extra });
		const context = new ExecuteContext(
			workflow,
			node,
			waitingData(),
			'webhook',
			runExecutionData,
			0,
			items,
			inputData,
			{ node, data: inputData, source: null },
			[],
		);
		const output = (await nodeType.execute!.call(context)) as INodeExecutionData[][];
		// Signed as the node's getSignedResumeUrl() signs its links: each request's URL must carry its own signature.
		const resumeUrl = signedUrl(`${server.baseUrl}/webhook-waiting/${executionId}/${node.id}`);
		let resume!: (data: INodeExecutionData[][]) => void;
		const resumed = new Promise<INodeExecutionData[][]>((resolve) => (resume = resolve));
		let finished = false;
		server.routes.set(new URL(resumeUrl).pathname, async (req, res) => {
			const { signature } = (req as { query?: Record<string, string> }).query ?? {};
			if (!signature || !validateUrlSignature(signature, new URL(req.url ?? '/', server.baseUrl), hmacSecret()))
				return void res.writeHead(401).end(JSON.stringify({ error: 'Invalid token' }));
			// n8n answers a Send and Wait link of a finished execution with its "no action required" page.
			if (finished) return void res.writeHead(200, { 'content-type': 'text/html' }).end(NO_ACTION_REQUIRED);
			const description = nodeType.description.webhooks?.find((webhook) => webhook.httpMethod === req.method);
			if (!description) return void res.writeHead(404).end();
			const webhookData: IWebhookData = {
				httpMethod: description.httpMethod as IWebhookData['httpMethod'],
				node: node.name,
				path: node.id,
				webhookDescription: description,
				workflowId: workflow.id,
				workflowExecuteAdditionalData: waitingData(),
				isTest: false,
			};
			const webhookContext = new WebhookContext(
				workflow,
				node,
				waitingData({ httpRequest: req as never, httpResponse: res as never }),
				'webhook',
				webhookData,
				[],
				runExecutionData,
			);
			const result = await nodeType.webhook!.call(webhookContext);
			if (result.workflowData) {
				finished = true;
				resume(result.workflowData);
			}
			if (result.noWebhookResponse) return;
			const answer: unknown = result.webhookResponse ?? { message: 'Workflow was started' };
			if (typeof answer === 'string') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(answer);
			else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
		});
		return { output, waitTill: runExecutionData.waitTill, resumeUrl, resumed, node };
	}

	/**
	 * A trigger node: its webhook methods (checkExists/create/delete) run in HookContexts, and
	 * deliveries to its webhook URL run webhook() in a WebhookContext; `runs` has the workflow
	 * data of every run a delivery started. `test`: as on "Listen for test event" (the test webhook URL).
	 */
	async function trigger(type: string, parameters: INodeParameters, options: TriggerOptions = {}) {
		const { test = false, credentials: data = credentials, webhookId = 'test-webhook-id' } = options;
		const mode: WorkflowExecuteMode = test ? 'manual' : 'trigger';
		webhooks ??= await startWebhookServer();
		const server = webhooks;
		const typeVersion = options.version ?? newestVersion(nodeDescription(loader, type));
		const { workflow, node, nodeType } = workflowWith(type, parameters, data, { typeVersion, webhookId });
		const description = nodeType.description.webhooks![0];
		const hookData = () => additionalData(data, `${server.baseUrl}/webhook`);
		const webhookData: IWebhookData = {
			httpMethod: description.httpMethod as IWebhookData['httpMethod'],
			node: node.name,
			path: `${node.webhookId}/${description.path}`,
			webhookDescription: description,
			workflowId: workflow.id,
			workflowExecuteAdditionalData: hookData(),
			webhookId: node.webhookId,
			isTest: test,
		};
		const hook = (method: 'checkExists' | 'create' | 'delete', activation: WorkflowActivateMode = 'activate') =>
			nodeType.webhookMethods!.default![method].call(new HookContext(workflow, node, hookData(), mode, activation, webhookData));
		const url = new HookContext(workflow, node, hookData(), mode, 'activate', webhookData).getNodeWebhookUrl('default')!;

		const runs: INodeExecutionData[][][] = [];
		server.routes.set(new URL(url).pathname, async (req, res) => {
			const context = new WebhookContext(
				workflow,
				node,
				additionalData(data, `${server.baseUrl}/webhook`, { httpRequest: req as never, httpResponse: res as never }),
				mode,
				webhookData,
				[],
				null,
			);
			const result = await nodeType.webhook!.call(context);
			if (result.workflowData) runs.push(result.workflowData);
			if (!result.noWebhookResponse)
				res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Workflow was started' }));
		});

		return { workflow, node, url, runs, hook, staticData: () => workflow.getStaticData('node', node) };
	}

	/**
	 * Tests a credential as n8n's CredentialsTester does for a credential with a `test` request:
	 * the request runs through n8n-core's RoutingNode in an ExecuteContext, then the rules apply.
	 */
	async function testCredential(type: string, data: ICredentialDataDecryptedObject): Promise<{ status: 'OK' | 'Error'; message: string }> {
		const { test } = credentialType(type) as { test: ICredentialTestRequest };
		const testNode: INodeType = {
			description: {
				displayName: 'Temp',
				name: 'temp',
				group: ['transform'],
				version: 1,
				description: '',
				defaults: {},
				inputs: [],
				outputs: [],
				credentials: [{ name: type, required: true }],
				properties: [{ displayName: 'Temp', name: 'temp', type: 'string', routing: { request: test.request }, default: '' }],
			},
		};
		const node: INode = {
			id: 'temp',
			name: 'Temp-Node',
			type: 'temp',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
			credentials: { [type]: { id: 'test', name: 'test' } },
		};
		const tempTypes: INodeTypes = { getByName: () => testNode, getByNameAndVersion: () => testNode, getKnownTypes: () => ({}) };
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: tempTypes });
		const inputData = { main: [[{ json: {} }]] };
		const context = new ExecuteContext(
			workflow,
			node,
			additionalData({ [type]: data }),
			'internal',
			createRunExecutionData(),
			0,
			[],
			inputData,
			{ node, data: {}, source: null },
			[],
		);
		let response;
		try {
			response = await new RoutingNode(context, testNode, { id: 'test', name: 'test', type, data }).runNode();
		} catch (error) {
			const { cause, message } = error as {
				cause?: { response?: { status: number; statusText?: string }; code?: string };
				message: string;
			};
			if (cause?.response)
				return { status: 'Error', message: cause.response.statusText || `Received HTTP status code: ${cause.response.status}` };
			return { status: 'Error', message: cause?.code ?? message };
		}
		for (const rule of test.rules ?? []) {
			if (rule.type !== 'responseSuccessBody') continue;
			const json = response?.[0][0].json ?? {};
			if (json[rule.properties.key] === rule.properties.value) return { status: 'Error', message: rule.properties.message };
		}
		return { status: 'OK', message: 'Connection successful!' };
	}

	async function close() {
		await webhooks?.close();
		stopN8nCore();
	}

	return { loader, execute, executeWaiting, listSearch, trigger, testCredential, close };
}

/** What n8n's page for a link of a Send and Wait execution that finished says. */
export const NO_ACTION_REQUIRED = 'No action required';

/** n8n-core's own copy of the DI container, whichever version it depends on. */
const n8nCoreContainer = () =>
	createRequire(require.resolve('n8n-core'))('@n8n/di') as { Container: { get<T>(type: new (...args: never[]) => T): T } };

/** The secret n8n signs resume links with (this n8n-core's instance settings). */
const hmacSecret = () => n8nCoreContainer().Container.get(InstanceSettings).hmacSignatureSecret;

/** A resume URL with the signature n8n's getSignedResumeUrl() gives it (the `signature` query parameter). */
function signedUrl(url: string): string {
	const signed = new URL(url);
	signed.searchParams.set('signature', generateUrlSignature(prepareUrlForSigning(signed), hmacSecret()));
	return signed.toString();
}

/** Stops n8n-core's process-wide SSH connection sweeper (a 60 s interval), so Jest can exit. */
function stopN8nCore(): void {
	// n8n-core's own copy of the DI container, whichever version it depends on.
	const { Container } = createRequire(require.resolve('n8n-core'))('@n8n/di') as {
		Container: { get<T>(type: new (...args: never[]) => T): T };
	};
	// Not exported by n8n-core's index.
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- a file of n8n-core, not a module it exports
	const { SSHClientsManager } = require('n8n-core/dist/execution-engine/ssh-clients-manager') as {
		SSHClientsManager: new () => { onShutdown(): void };
	};
	Container.get<{ onShutdown(): void }>(SSHClientsManager).onShutdown();
}

/** Where the nodes and the credential point for documentation: the package README. */
export const NODES_DOCS = 'https://www.npmjs.com/package/n8n-nodes-mailroom#use-with-n8n';

/** A real server, an account on it, and the n8n harness with that account's mailroomApi credential. */
export interface NodeFixture {
	server: TestMailroom;
	n8n: N8nHarness;
	account: { id: string; key: string };
	stop(): Promise<void>;
}

export interface NodeFixtureOptions {
	/** Name of the account of the credential. */
	account?: string;
	credits?: number;
	config?: Partial<MailroomConfig>;
	/** The credential's Base URL ends with a slash (as users often type it); the node must cope either way. */
	trailingSlash?: boolean;
}

export async function startNodeFixture({
	account: name = 'ann',
	credits = 0,
	config = {},
	trailingSlash = false,
}: NodeFixtureOptions = {}): Promise<NodeFixture> {
	const server = await startTestMailroom(config);
	const account = await server.createAccount(name, credits);
	const baseUrl = trailingSlash ? `${server.httpUrl}/` : server.httpUrl;
	const n8n = await createN8nHarness({ credentials: { mailroomApi: { apiKey: account.key, baseUrl } } });
	return {
		server,
		n8n,
		account,
		stop: async () => {
			await n8n.close();
			await server.stop();
		},
	};
}

export type RunOptions = ExecuteOptions & { items?: INodeExecutionData[] };

/** Runs the Mailroom action node on the items (one empty item by default); its output items. */
export async function runNode(n8n: N8nHarness, parameters: INodeParameters, { items, ...options }: RunOptions = {}) {
	const [output] = await n8n.execute('mailroom', parameters, items, options);
	return output;
}

/** The JSON of the Mailroom action node's output items. */
export async function nodeJson(n8n: N8nHarness, parameters: INodeParameters, options?: RunOptions): Promise<IDataObject[]> {
	return (await runNode(n8n, parameters, options)).map((item) => item.json);
}

/** Standard Webhooks headers for `body`, signed with `whsec` (as Mailroom signs a delivery). */
export const signed = (whsec: string, body: string, time = new Date(), id = 'msg_test1') => ({
	'webhook-id': id,
	'webhook-timestamp': String(Math.floor(time.getTime() / 1000)),
	'webhook-signature': new Webhook(whsec).sign(id, time, body),
});

/** POSTs a JSON body to a webhook URL; its status and JSON answer. */
export async function postJson(
	url: string,
	body: string,
	headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
	const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
	return { status: response.status, body: await response.json() };
}

/** The parameter values of a node of `version` (the newest by default) as n8n computes them, defaults filled in. */
function nodeParameters(description: INodeTypeDescription, values: INodeParameters, version: number) {
	const node = { typeVersion: version } as INode;
	return { node, parameters: NodeHelpers.getNodeParameters(description.properties, values, true, false, node, description)! };
}

/** The names of the parameters n8n shows in a node of `version` (the newest by default) with these values, as the editor does. */
export function shownParameters(description: INodeTypeDescription, values: INodeParameters, version = newestVersion(description)) {
	const { node, parameters } = nodeParameters(description, values, version);
	return description.properties.filter((p) => NodeHelpers.displayParameter(parameters, p, node, description)).map((p) => p.name);
}

/** The parameter `name` as a node of `version` (the newest by default) shows it with these values. */
export function shownParameter(
	description: INodeTypeDescription,
	values: INodeParameters,
	name: string,
	version = newestVersion(description),
) {
	const { node, parameters } = nodeParameters(description, values, version);
	return description.properties.find((p) => p.name === name && NodeHelpers.displayParameter(parameters, p, node, description))!;
}

/** The parameter named `name`: the first one, whatever it shows for. */
export const property = (properties: INodeProperties[], name: string) => properties.find((p) => p.name === name);
