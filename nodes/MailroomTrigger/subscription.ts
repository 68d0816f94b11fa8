import type { IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	subscriptionBody,
	subscriptionFilter,
	subscriptionsPath,
	type Subscription,
	type SubscriptionFilters,
} from '../shared/subscriptions';
import { addressPath, getAddressRecord, mailroomRequest, unlessNotOwned } from '../shared/transport';

/** The address's subscriptions that post to `url` (this trigger's webhook URL); none when the account does not own it. */
export async function subscriptionsTo(this: IHookFunctions, email: string, url: string): Promise<Subscription[]> {
	const request = mailroomRequest.call(this, 'GET', subscriptionsPath(email)) as Promise<Subscription[]>;
	const subscriptions = (await unlessNotOwned(this.getNode(), request)) ?? [];
	return subscriptions.filter((subscription) => subscription.url === url);
}

/** Whether a subscription filters as the Filters collection says. */
export function filtersAs(subscription: Subscription, filters: SubscriptionFilters): boolean {
	const wanted = subscriptionFilter(filters);
	const { filter } = subscription;
	return (
		wanted?.from === filter?.from &&
		wanted?.subject === filter?.subject &&
		wanted?.hasAttachments === filter?.hasAttachments &&
		wanted?.authenticated === filter?.authenticated
	);
}

/** Reserves the address first when the account does not own it and `reserve` allows it; refuses clearly otherwise. */
export async function ensureOwnAddress(this: IHookFunctions, email: string, reserve: boolean): Promise<void> {
	if (await getAddressRecord.call(this, email)) return;
	if (!reserve) {
		// The message says how to fix it: n8n shows the description only when the error is opened.
		throw new NodeOperationError(
			this.getNode(),
			`Your account does not own ${email}: turn on Reserve Address, or reserve the address first (Mailroom node, Address → Reserve)`,
			{
				description:
					'With Reserve Address on, the trigger reserves the address for your account when the workflow is activated or listens for a test event. An address another account owns cannot be reserved: choose another one.',
			},
		);
	}
	await mailroomRequest.call(this, 'POST', `/api/addresses/${addressPath(email)}`);
}

/** Adds a subscription posting the address's mail that passes `filters` to `url`. */
export async function subscribe(this: IHookFunctions, email: string, url: string, filters: SubscriptionFilters): Promise<Subscription> {
	const body = subscriptionBody(url, filters);
	return (await mailroomRequest.call(this, 'POST', subscriptionsPath(email), { body })) as Subscription;
}

/** Removes one subscription; one already gone (the address released meanwhile, say) is fine. */
export async function unsubscribe(this: IHookFunctions, email: string, id: string): Promise<void> {
	await unlessNotOwned(this.getNode(), mailroomRequest.call(this, 'DELETE', `${subscriptionsPath(email)}/${encodeURIComponent(id)}`));
}
