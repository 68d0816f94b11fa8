import type {
	IDataObject,
	IHookFunctions,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { addressLocator, searchAddresses } from '../shared/address-locator';
import { attachmentDownloadOptions, attachmentPrefix, type AttachmentDownload } from '../shared/attachments';
import { subscribedAddress, subscriptionFilterOptions, type SubscriptionFilters } from '../shared/subscriptions';
import { addressPath, mailroomRequest } from '../shared/transport';
import { messageItem } from './message-item';
import { hasValidSignature, signatureProblem } from './signature';
import { ensureOwnAddress, filtersAs, subscribe, subscriptionsTo, unsubscribe } from './subscription';
import {
	SENT_EMAIL_EVENTS,
	eventSubscriptionsTo,
	isSentEmailEvent,
	subscribeToEvent,
	unsubscribeFromEvents,
	type SentEmailEvent,
} from './event-subscription';

/** What the trigger remembers between its calls (n8n keeps it with the workflow). */
interface TriggerState {
	/** The subscription made for each of this trigger's webhook URLs (production, and test while listening). */
	subscriptions?: Record<string, { email: string; id: string }>;
	/** The event subscription made for each webhook URL, for the events about sent mail. */
	eventSubscriptions?: Record<string, string>;
	/** The account's webhook signing secret (whsec_...), to verify deliveries with. */
	secret?: string;
	/** The webhook-id of the latest deliveries accepted, newest last: a redelivery of one of them starts no execution. */
	accepted?: string[];
}

/** How many accepted deliveries the trigger remembers, to run a workflow once per message despite redeliveries. */
const REMEMBERED_DELIVERIES = 100;

function eventParameter(this: IHookFunctions | IWebhookFunctions): string {
	return this.getNodeParameter('event', 'messageReceived') as string;
}

/** Shown only for Message Received: the events about sent mail concern the whole account. */
const forMessages = { event: ['messageReceived'] };

/** Version 1.2 picks the address (an address locator); earlier versions keep the plain string they saved. */
const NODE_VERSIONS = [1, 1.1, 1.2];
const BEFORE_PICKER = [1, 1.1];

/** Email Address, picked from the list, typed By Address, or the plain string of a version before 1.2. */
function addressParameter(this: IHookFunctions) {
	return (this.getNodeParameter('email', '', { extractValue: true }) as string).trim();
}

function filtersParameter(this: IHookFunctions) {
	return this.getNodeParameter('filters', {}) as SubscriptionFilters;
}

async function fetchSecret(this: IHookFunctions | IWebhookFunctions): Promise<string> {
	return ((await mailroomRequest.call(this, 'GET', '/api/webhook-secret')) as { secret: string }).secret;
}

/**
 * Why a delivery is not signed by our Mailroom account, or undefined when it is. When the kept
 * secret does not verify, the secret is fetched again once: the account may have rotated it.
 */
async function unverifiedReason(this: IWebhookFunctions, state: TriggerState): Promise<string | undefined> {
	const headers = this.getHeaderData() as IDataObject;
	const problem = signatureProblem(headers);
	if (problem) return problem;
	const rawBody = (this.getRequestObject() as { rawBody?: Uint8Array }).rawBody;
	const body = rawBody ?? new TextEncoder().encode(JSON.stringify(this.getBodyData()));
	if (state.secret && (await hasValidSignature(state.secret, headers, body))) return undefined;
	const secret = await fetchSecret.call(this);
	if (secret === state.secret) return 'The webhook signature does not match';
	state.secret = secret;
	return (await hasValidSignature(secret, headers, body)) ? undefined : 'The webhook signature does not match';
}

/**
 * Marks the delivered message read, as the execution it starts takes it on. A failure starts the execution all the same
 * (failing the delivery would only bring the message again): the message stays unread, and n8n's log says why.
 */
async function markRead(this: IWebhookFunctions, message: { inbox: string; _id: string }): Promise<void> {
	const path = `/api/addresses/${addressPath(message.inbox)}/messages/${encodeURIComponent(message._id)}/read/true`;
	try {
		await mailroomRequest.call(this, 'PUT', path);
	} catch (error) {
		this.logger.warn(`Mailroom Trigger could not mark message ${message._id} read: ${(error as Error).message}`);
	}
}

function answer(this: IWebhookFunctions, status: number, body: IDataObject): IWebhookResponseData {
	const response = this.getResponseObject();
	response.writeHead(status, { 'content-type': 'application/json' });
	response.end(JSON.stringify(body));
	return { noWebhookResponse: true };
}

/** Whether the delivery was accepted before (Mailroom delivers at least once); remembers it when it was not. */
function acceptedBefore(state: TriggerState, webhookId: string): boolean {
	if (state.accepted?.includes(webhookId)) return true;
	state.accepted = [...(state.accepted ?? []), webhookId].slice(-REMEMBERED_DELIVERIES);
	return false;
}

const ADDRESS_DESCRIPTION = 'A private address or catch-all address of your account; its mail starts this workflow';

/** Simplify, off by default in version 1 and on from version 1.1. */
const simplify = (simplified: boolean): INodeProperties => ({
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: simplified,
	displayOptions: simplified ? { hide: { '@version': [1] }, show: forMessages } : { show: { '@version': [1], ...forMessages } },
	description:
		'Whether to return only the message itself (ID, thread, inbox, from with the first sender flat, to, cc, Reply-To, subject, date, Message-ID, text, HTML, attachment list, codes and time received) instead of the whole webhook payload with its headers',
});

/** Subscribes this trigger's webhook URL to the event's delivery events (one left from before goes first). */
async function createEventSubscription(this: IHookFunctions, event: SentEmailEvent): Promise<boolean> {
	const url = this.getNodeWebhookUrl('default')!;
	for (const stale of await eventSubscriptionsTo.call(this, url)) await unsubscribeFromEvents.call(this, stale._id);
	const subscription = await subscribeToEvent.call(this, url, event);
	const state = this.getWorkflowStaticData('node') as TriggerState;
	state.eventSubscriptions = { ...state.eventSubscriptions, [url]: subscription._id };
	state.secret = await fetchSecret.call(this);
	return true;
}

/** Removes exactly this webhook URL's event subscription, and any the static data does not know of. */
async function deleteEventSubscription(this: IHookFunctions, url: string, state: TriggerState): Promise<boolean> {
	const made = state.eventSubscriptions?.[url];
	if (made) await unsubscribeFromEvents.call(this, made);
	for (const left of await eventSubscriptionsTo.call(this, url)) await unsubscribeFromEvents.call(this, left._id);
	if (state.eventSubscriptions) delete state.eventSubscriptions[url];
	return true;
}

export class MailroomTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Mailroom Trigger',
		name: 'mailroomTrigger',
		icon: { light: 'file:mailroom.svg', dark: 'file:mailroom.dark.svg' },
		group: ['trigger'],
		// 1.1: Simplify is on by default. 1.2: Email Address is picked from the account's addresses (or typed).
		version: NODE_VERSIONS,
		defaultVersion: Math.max(...NODE_VERSIONS),
		// A picked or typed address is {__rl, mode, value}; a version before 1.2 holds the string itself.
		subtitle: '={{$parameter["email"].value ?? $parameter["email"]}}',
		description:
			'Starts the workflow when mail arrives at a Mailroom address, or when mail your account sent is delivered, bounces or fails',
		eventTriggerDescription: 'Waiting for mail: send a message to the address',
		// n8n's panel would say "Go to Mailroom and create an event"; what starts this trigger is an email to its address.
		// The panel's texts are shown as written (no expressions), so they name the Email Address parameter.
		triggerPanel: {
			header: "Send an email to the trigger's Email Address",
			executionsHelp: {
				inactive:
					'<b>While building the workflow</b>, click \'Listen for test event\' and send an email to the Email Address set above: the first message that arrives shows up here.<br /><br /><b>To run the workflow on its own</b>, <a data-key="activate">activate</a> it: then every message that arrives at the address starts an execution, listed in the <a data-key="executions">executions list</a> but not shown in the editor.',
				active:
					'<b>The workflow is active</b>: every message that arrives at the Email Address set above starts an execution, listed in the <a data-key="executions">executions list</a>.<br /><br />To see one here while you change the workflow, click \'Listen for test event\' and send an email to the address.',
			},
			activationHint:
				'Once the workflow is built, <a data-key="activate">activate</a> it: every email sent to the Email Address then runs it, without this button.',
		},
		activationMessage: 'Each message that arrives at the address now starts this workflow.',
		defaults: { name: 'Mailroom Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'mailroomApi', required: true }],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
		properties: [
			{
				displayName:
					"Activating the workflow, or listening for a test event, reserves the address for your account if needed and adds a webhook subscription for this workflow. The address's own webhook and other subscriptions are left alone; deactivating removes only this workflow's subscription.",
				name: 'subscriptionNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				default: 'messageReceived',
				description: 'What starts the workflow',
				options: [
					{ name: 'Message Received', value: 'messageReceived', description: 'A message arrives at the address' },
					{
						name: 'Sent Email Bounced',
						value: 'sentEmailBounced',
						description: 'A delivery report says a recipient of mail your account sent bounced (5.x.x)',
					},
					{
						name: 'Sent Email Delivered',
						value: 'sentEmailDelivered',
						description: 'A recipient of mail your account sent has it: stored, taken by the relay, or reported delivered',
					},
					{
						name: 'Sent Email Failed',
						value: 'sentEmailFailed',
						description: 'The relay refused a recipient of mail your account sent, or the retries ran out',
					},
				],
			},
			subscribedAddress(ADDRESS_DESCRIPTION, { show: { '@version': BEFORE_PICKER, ...forMessages } }),
			addressLocator({
				displayName: 'Email Address',
				name: 'email',
				description: `${ADDRESS_DESCRIPTION}. Typed By Address, one your account does not own yet is reserved if Reserve Address is on.`,
				placeholder: 'orders@example.com',
				displayOptions: { show: forMessages, hide: { '@version': BEFORE_PICKER } },
			}),
			{
				displayName: 'Reserve Address',
				name: 'reserveAddress',
				type: 'boolean',
				displayOptions: { show: forMessages },
				default: true,
				description: 'Whether to reserve the address for your account first if it does not own it yet',
			},
			simplify(false),
			simplify(true),
			{
				displayName: 'Filters',
				name: 'filters',
				type: 'collection',
				displayOptions: { show: forMessages },
				placeholder: 'Add Filter',
				default: {},
				description: 'Mail that does not pass every filter given starts no execution (Mailroom does not even send it)',
				options: subscriptionFilterOptions,
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				displayOptions: { show: forMessages },
				placeholder: 'Add option',
				default: {},
				description: 'What each item carries besides the message (its attachments as binary data, its raw source), and marking it read',
				options: [
					...attachmentDownloadOptions,
					{
						displayName: 'Include Raw Source',
						name: 'includeRawSource',
						type: 'boolean',
						default: false,
						description: 'Whether to add the message as received (its RFC 5322 source, which can be large) as `raw`',
					},
					{
						displayName: 'Mark as Read',
						name: 'markAsRead',
						type: 'boolean',
						default: false,
						description: 'Whether to mark each message read in Mailroom when it starts an execution',
					},
				],
			},
		],
	};

	methods = { listSearch: { searchAddresses } };

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const event = eventParameter.call(this);
				if (isSentEmailEvent(event)) {
					const ours = await eventSubscriptionsTo.call(this, this.getNodeWebhookUrl('default')!);
					return ours.length === 1 && ours[0].events.join() === SENT_EMAIL_EVENTS[event];
				}
				const ours = await subscriptionsTo.call(this, addressParameter.call(this), this.getNodeWebhookUrl('default')!);
				// Changed filters need a new subscription: the one there is then does not count.
				return ours.length === 1 && filtersAs(ours[0], filtersParameter.call(this));
			},

			async create(this: IHookFunctions): Promise<boolean> {
				const event = eventParameter.call(this);
				if (isSentEmailEvent(event)) return createEventSubscription.call(this, event);
				const email = addressParameter.call(this);
				const url = this.getNodeWebhookUrl('default')!;
				await ensureOwnAddress.call(this, email, this.getNodeParameter('reserveAddress', true) as boolean);
				// One subscription per webhook URL: one left from an activation with other filters goes first.
				for (const stale of await subscriptionsTo.call(this, email, url)) await unsubscribe.call(this, email, stale._id);
				const subscription = await subscribe.call(this, email, url, filtersParameter.call(this));
				const state = this.getWorkflowStaticData('node') as TriggerState;
				state.subscriptions = { ...state.subscriptions, [url]: { email, id: subscription._id } };
				state.secret = await fetchSecret.call(this);
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				const url = this.getNodeWebhookUrl('default')!;
				const state = this.getWorkflowStaticData('node') as TriggerState;
				if (isSentEmailEvent(eventParameter.call(this))) return deleteEventSubscription.call(this, url, state);
				// Exactly this webhook URL's subscription: the address's webhook and every other subscription stay.
				const made = state.subscriptions?.[url];
				if (made) await unsubscribe.call(this, made.email, made.id);
				// And one the static data does not know of (n8n keeps it only for production runs).
				const email = addressParameter.call(this);
				for (const left of await subscriptionsTo.call(this, email, url)) await unsubscribe.call(this, email, left._id);
				if (state.subscriptions) delete state.subscriptions[url];
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const state = this.getWorkflowStaticData('node') as TriggerState;
		// Only the Mailroom server holds the account's signing secret: anything else is refused.
		const unverified = await unverifiedReason.call(this, state);
		if (unverified) return answer.call(this, 401, { error: 'Unauthorized', message: unverified });
		const payload = this.getBodyData();
		if (isSentEmailEvent(eventParameter.call(this))) {
			if (typeof payload.sentMessageId !== 'string')
				return answer.call(this, 400, { error: 'Bad Request', message: 'Expected a Mailroom delivery event as JSON' });
			if (acceptedBefore(state, String(this.getHeaderData()['webhook-id']))) {
				return answer.call(this, 200, { received: true, duplicate: true });
			}
			return { workflowData: [[{ json: payload }]] };
		}
		if (typeof payload._id !== 'string')
			return answer.call(this, 400, { error: 'Bad Request', message: 'Expected a Mailroom message as JSON' });
		const webhookId = String(this.getHeaderData()['webhook-id']);
		if (acceptedBefore(state, webhookId)) return answer.call(this, 200, { received: true, duplicate: true });
		const options = this.getNodeParameter('options', {}) as AttachmentDownload & { includeRawSource?: boolean; markAsRead?: boolean };
		const simplify = this.getNodeParameter('simplify', false) as boolean;
		const item = await messageItem.call(this, payload, {
			simplify,
			// Version 1 passed the whole payload on, its raw source included: its workflows keep getting it.
			includeRawSource: options.includeRawSource ?? (this.getNode().typeVersion === 1 && !simplify),
			downloadAttachments: options.downloadAttachments === true,
			attachmentPrefix: attachmentPrefix(options),
		});
		if (options.markAsRead) await markRead.call(this, payload as { inbox: string; _id: string });
		return { workflowData: [[item]] };
	}
}
