import type { ForwardingRecord } from '../schemas/address';
import type { WebhookSubscription } from '../schemas/webhook';
import type { ForwardingUpdate } from './store';
import type { AddressSettings } from './inbox-settings';

/** A row of addresses, as either engine reads it. */
export interface AddressRow {
	email: string;
	owner: string;
	forward: string | null;
	enablews: number;
	webhook: string | null;
	webhook_slack: string | null;
	webhook_slack_to_from: number | null;
	catch_all: string | null;
	info: string;
	created: string;
	updated: string;
}

export const toForwardingRecord = (row: AddressRow): ForwardingRecord => ({
	_id: row.email,
	owner: row.owner,
	forward: row.forward,
	enablews: row.enablews === 1,
	webhook: row.webhook,
	webhookSlack: row.webhook_slack,
	webhookSlackToFrom: row.webhook_slack_to_from === null ? null : row.webhook_slack_to_from === 1,
	catchAll: row.catch_all,
	// Addresses have no mailbox password here; the field is kept for API compatibility.
	password: null,
	info: row.info,
	created: row.created,
	updated: row.updated,
});

/** The addresses column of each setting an update may change. */
const COLUMN_OF: Record<keyof ForwardingUpdate, string> = {
	forward: 'forward',
	enablews: 'enablews',
	webhook: 'webhook',
	webhookSlack: 'webhook_slack',
	webhookSlackToFrom: 'webhook_slack_to_from',
	info: 'info',
};

/** The columns an update sets and their values (flags as 0 or 1), for the settings it gives. */
export function updatedColumns(changes: ForwardingUpdate): { column: string; value: unknown }[] {
	return (Object.keys(changes) as (keyof ForwardingUpdate)[])
		.filter((field) => changes[field] !== undefined)
		.map((field) => {
			const value = changes[field];
			return { column: COLUMN_OF[field], value: typeof value === 'boolean' ? (value ? 1 : 0) : value };
		});
}

/** Whether an update sets anything. */
export const changesAnything = (changes: ForwardingUpdate) => Object.values(changes).some((value) => value !== undefined);

/** The columns of addresses that act on mail (see AddressSettings). */
export const SETTINGS_COLUMNS = 'email, owner, webhook, webhook_slack, webhook_slack_to_from, forward, enablews';

/** A row of SETTINGS_COLUMNS. */
export interface SettingsRow {
	email: string;
	owner: string;
	webhook: string | null;
	webhook_slack: string | null;
	webhook_slack_to_from: number | null;
	forward: string | null;
	enablews: number;
}

export const toAddressSettings = (row: SettingsRow, subscriptions: WebhookSubscription[]): AddressSettings => ({
	email: row.email,
	owner: row.owner,
	webhook: row.webhook,
	webhookSlack: row.webhook_slack,
	webhookSlackToFrom: row.webhook_slack_to_from === 1,
	forward: row.forward,
	enablews: row.enablews === 1,
	subscriptions,
});
