import type { IHookFunctions } from 'n8n-workflow';

import { mailroomRequest, unlessNotOwned } from '../shared/transport';

/** The trigger's events about sent mail, and the delivery event type each subscribes to (POST /api/event-webhooks). */
export const SENT_EMAIL_EVENTS = {
	sentEmailDelivered: 'delivered',
	sentEmailBounced: 'bounced',
	sentEmailFailed: 'failed',
} as const;

export type SentEmailEvent = keyof typeof SENT_EMAIL_EVENTS;

export const isSentEmailEvent = (event: string): event is SentEmailEvent => event in SENT_EMAIL_EVENTS;

/** An account-level subscription to delivery events, as GET /api/event-webhooks lists it. */
export interface EventSubscription {
	_id: string;
	url: string;
	events: string[];
}

/** The account's event subscriptions that post to `url` (this trigger's webhook URL). */
export async function eventSubscriptionsTo(this: IHookFunctions, url: string): Promise<EventSubscription[]> {
	const all = (await mailroomRequest.call(this, 'GET', '/api/event-webhooks')) as EventSubscription[];
	return all.filter((subscription) => subscription.url === url);
}

/** Subscribes `url` to the one delivery event type of `event`. */
export async function subscribeToEvent(this: IHookFunctions, url: string, event: SentEmailEvent): Promise<EventSubscription> {
	const body = { url, events: [SENT_EMAIL_EVENTS[event]] };
	return (await mailroomRequest.call(this, 'POST', '/api/event-webhooks', { body })) as EventSubscription;
}

/** Removes one event subscription; one already gone is fine. */
export async function unsubscribeFromEvents(this: IHookFunctions, id: string): Promise<void> {
	await unlessNotOwned(this.getNode(), mailroomRequest.call(this, 'DELETE', `/api/event-webhooks/${encodeURIComponent(id)}`));
}
