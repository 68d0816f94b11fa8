import type { PackageDirectoryLoader } from 'n8n-core';
import type {
	ICredentialType,
	IDataObject,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { Webhook } from 'standardwebhooks';
import type { MailroomConfig } from 'mailroom-server/dist/config/settings';
import { startTestMailroom, type TestMailroom } from './mailroom';
import { createN8nHarness, type ExecuteOptions, type N8nHarness } from './n8n';

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
	const account = server.createAccount(name, credits);
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

/** A node type of the loaded package, and its description. */
export const loadedNode = (loader: PackageDirectoryLoader, name: string) => loader.getNode(name).type as INodeType;
export const nodeDescription = (loader: PackageDirectoryLoader, name: string): INodeTypeDescription => loadedNode(loader, name).description;
export const loadedCredential = (loader: PackageDirectoryLoader): ICredentialType => loader.getCredential('mailroomApi').type;

/** The parameter named `name`: the first one, whatever it shows for. */
export const property = (properties: INodeProperties[], name: string) => properties.find((p) => p.name === name);
