import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { addressPath, getAddressRecord, mailroomRequest } from '../Mailroom/transport';

/** What the trigger remembers between create and delete. */
interface TriggerState {
	email?: string;
	webhookUrl?: string;
}

/** Fields kept by the Simplify option. */
const SIMPLE_FIELDS = ['_id', 'from', 'to', 'subject', 'text', 'received'];

function addressParameter(this: IHookFunctions) {
	return (this.getNodeParameter('email') as string).trim();
}

async function setWebhook(this: IHookFunctions, email: string, webhook: string | null) {
	await mailroomRequest.call(this, 'PUT', `/api/private-address-forwarding/${addressPath(email)}`, {
		body: { webhook },
	});
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
				description:
					'A private address or catch-all address of your account; its mail is forwarded to this workflow',
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
				if (!(await getAddressRecord.call(this, email))) {
					if (!(this.getNodeParameter('reserveAddress') as boolean)) {
						throw new NodeOperationError(this.getNode(), `Your account does not own ${email}`, {
							description: 'Turn on Reserve Address, or reserve the address with the Mailroom node first.',
						});
					}
					await mailroomRequest.call(this, 'POST', `/api/addresses/${addressPath(email)}`);
				}
				await setWebhook.call(this, email, webhookUrl);
				Object.assign(this.getWorkflowStaticData('node'), { email, webhookUrl } satisfies TriggerState);
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				const state = this.getWorkflowStaticData('node') as TriggerState;
				const email = state.email ?? addressParameter.call(this);
				const webhookUrl = state.webhookUrl ?? this.getNodeWebhookUrl('default');
				const record = await getAddressRecord.call(this, email);
				// Someone may have pointed the address elsewhere meanwhile: leave that alone.
				if (record?.webhook === webhookUrl) await setWebhook.call(this, email, null);
				delete state.email;
				delete state.webhookUrl;
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const payload = this.getBodyData();
		if (typeof payload._id !== 'string') {
			const response = this.getResponseObject();
			response.writeHead(400, { 'content-type': 'application/json' });
			response.end(JSON.stringify({ error: 'Bad Request', message: 'Expected a Mailroom message as JSON' }));
			return { noWebhookResponse: true };
		}
		const simplify = this.getNodeParameter('simplify', false) as boolean;
		const json: IDataObject = simplify
			? Object.fromEntries(SIMPLE_FIELDS.filter((field) => field in payload).map((field) => [field, payload[field]]))
			: payload;
		return { workflowData: [[{ json }]] };
	}
}
