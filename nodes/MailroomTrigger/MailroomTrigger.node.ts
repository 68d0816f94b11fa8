import type { IDataObject, IHookFunctions, INodeType, INodeTypeDescription, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { addressPath, getAddressRecord, mailroomRequest } from '../shared/transport';
import { hasValidSignature, signatureProblem } from './signature';

/** What the trigger remembers between create and delete. */
interface TriggerState {
	email?: string;
	webhookUrl?: string;
	/** The account's webhook signing secret (whsec_...), to verify deliveries with. */
	secret?: string;
	/** While listening for a test event: the production webhook URL the address gets back afterwards. */
	restoreWebhook?: string;
}

/** Fields kept by the Simplify option. */
const SIMPLE_FIELDS = ['_id', 'from', 'to', 'subject', 'text', 'received'];

/** The same n8n webhook path (<webhookId>/webhook), whatever the base (/webhook or /webhook-test). */
const webhookPath = (url: string) => url.split('/').slice(-2).join('/');

function addressParameter(this: IHookFunctions) {
	return (this.getNodeParameter('email') as string).trim();
}

async function setWebhook(this: IHookFunctions, email: string, webhook: string | null) {
	await mailroomRequest.call(this, 'PUT', `/api/private-address-forwarding/${addressPath(email)}`, {
		body: { webhook },
	});
}

async function fetchSecret(this: IHookFunctions | IWebhookFunctions): Promise<string> {
	return ((await mailroomRequest.call(this, 'GET', '/api/webhook-secret')) as { secret: string }).secret;
}

/**
 * Why a delivery is not signed by our Mailroom account, or undefined when it is. When the kept
 * secret does not verify, the secret is fetched again once: the account may have rotated it.
 */
async function unverifiedReason(this: IWebhookFunctions): Promise<string | undefined> {
	const headers = this.getHeaderData() as IDataObject;
	const problem = signatureProblem(headers);
	if (problem) return problem;
	const rawBody = (this.getRequestObject() as { rawBody?: Uint8Array }).rawBody;
	const body = rawBody ?? new TextEncoder().encode(JSON.stringify(this.getBodyData()));
	const state = this.getWorkflowStaticData('node') as TriggerState;
	if (state.secret && (await hasValidSignature(state.secret, headers, body))) return undefined;
	const secret = await fetchSecret.call(this);
	if (secret === state.secret) return 'The webhook signature does not match';
	state.secret = secret;
	return (await hasValidSignature(secret, headers, body)) ? undefined : 'The webhook signature does not match';
}

function answer(this: IWebhookFunctions, status: number, error: string, message: string): IWebhookResponseData {
	const response = this.getResponseObject();
	response.writeHead(status, { 'content-type': 'application/json' });
	response.end(JSON.stringify({ error, message }));
	return { noWebhookResponse: true };
}

export class MailroomTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Mailroom Trigger',
		name: 'mailroomTrigger',
		icon: { light: 'file:mailroom.svg', dark: 'file:mailroom.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["email"]}}',
		description: 'Starts the workflow when mail arrives at a Mailroom address',
		defaults: { name: 'Mailroom Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'mailroomApi', required: true }],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
		properties: [
			{
				displayName: 'Email Address',
				name: 'email',
				type: 'string',
				placeholder: 'orders@example.com',
				required: true,
				default: '',
				description: 'A private address or catch-all address of your account; its mail is forwarded to this workflow',
			},
			{
				displayName: 'Reserve Address',
				name: 'reserveAddress',
				type: 'boolean',
				default: true,
				description: 'Whether to reserve the address for your account first if it does not own it yet',
			},
			{
				displayName: 'Simplify',
				name: 'simplify',
				type: 'boolean',
				default: false,
				description: 'Whether to return a simplified version of the response instead of the raw data',
			},
		],
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const record = await getAddressRecord.call(this, addressParameter.call(this));
				return record?.webhook === this.getNodeWebhookUrl('default');
			},

			async create(this: IHookFunctions): Promise<boolean> {
				const email = addressParameter.call(this);
				const webhookUrl = this.getNodeWebhookUrl('default') as string;
				const record = await getAddressRecord.call(this, email);
				if (!record) {
					if (!(this.getNodeParameter('reserveAddress') as boolean)) {
						throw new NodeOperationError(this.getNode(), `Your account does not own ${email}`, {
							description: 'Turn on Reserve Address, or reserve the address with the Mailroom node first.',
						});
					}
					await mailroomRequest.call(this, 'POST', `/api/addresses/${addressPath(email)}`);
				}
				// "Listen for test event" on an active workflow: its production URL comes back when the test ends.
				const previous = record?.webhook;
				const restoreWebhook =
					this.getMode() === 'manual' && previous && previous !== webhookUrl && webhookPath(previous) === webhookPath(webhookUrl)
						? previous
						: undefined;
				await setWebhook.call(this, email, webhookUrl);
				const secret = await fetchSecret.call(this);
				const state = this.getWorkflowStaticData('node') as TriggerState;
				Object.assign(state, { email, webhookUrl, secret } satisfies TriggerState);
				if (restoreWebhook) state.restoreWebhook = restoreWebhook;
				else delete state.restoreWebhook;
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				const state = this.getWorkflowStaticData('node') as TriggerState;
				const email = state.email ?? addressParameter.call(this);
				const webhookUrl = state.webhookUrl ?? this.getNodeWebhookUrl('default');
				const record = await getAddressRecord.call(this, email);
				// Someone may have pointed the address elsewhere meanwhile: leave that alone.
				if (record?.webhook === webhookUrl) await setWebhook.call(this, email, state.restoreWebhook ?? null);
				delete state.email;
				delete state.webhookUrl;
				delete state.secret;
				delete state.restoreWebhook;
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		// Only the Mailroom server holds the account's signing secret: anything else is refused.
		const unverified = await unverifiedReason.call(this);
		if (unverified) return answer.call(this, 401, 'Unauthorized', unverified);
		const payload = this.getBodyData();
		if (typeof payload._id !== 'string') {
			return answer.call(this, 400, 'Bad Request', 'Expected a Mailroom message as JSON');
		}
		const simplify = this.getNodeParameter('simplify', false) as boolean;
		const json: IDataObject = simplify
			? Object.fromEntries(SIMPLE_FIELDS.filter((field) => field in payload).map((field) => [field, payload[field]]))
			: payload;
		return { workflowData: [[{ json }]] };
	}
}
