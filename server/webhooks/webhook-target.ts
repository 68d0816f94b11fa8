import type { Db } from '../store/database';
import type { DeliveryKind } from '../store/webhook-deliveries';

export interface WebhookTarget {
	url: string;
	/** The account whose secret signs the delivery and whose Recent Activity shows it. */
	accountId: string;
	kind: DeliveryKind;
}

interface RoutingRow {
	owner: string;
	webhook: string | null;
	webhook_slack: string | null;
	webhook_slack_to_from: number | null;
}

const COLUMNS = 'owner, webhook, webhook_slack, webhook_slack_to_from';

/**
 * Where the mail of an inbox is posted: its webhook and its Slack webhook, each the address's own,
 * else the one of its domain's catch-all address. The catch-all never receives another account's private mail.
 */
export class WebhookTargets {
	private readonly own;
	private readonly catchAll;

	constructor(db: Db) {
		this.own = db.prepare(`SELECT ${COLUMNS} FROM addresses WHERE email = ?`);
		this.catchAll = db.prepare(`SELECT ${COLUMNS} FROM addresses WHERE catch_all = ? LIMIT 1`);
	}

	find(inbox: string, domain: string): WebhookTarget[] {
		const own = this.own.get(inbox) as RoutingRow | undefined;
		const catchAll = this.catchAll.get(domain) as RoutingRow | undefined;
		const sameOwner = catchAll && (!own || own.owner === catchAll.owner) ? catchAll : undefined;
		const targets: WebhookTarget[] = [];
		const webhook = own?.webhook ? own : sameOwner?.webhook ? sameOwner : undefined;
		if (webhook) targets.push({ url: webhook.webhook!, accountId: webhook.owner, kind: 'webhook' });
		const slack = own?.webhook_slack ? own : sameOwner?.webhook_slack ? sameOwner : undefined;
		if (slack) targets.push({ url: slack.webhook_slack!, accountId: slack.owner, kind: slack.webhook_slack_to_from === 1 ? 'slack-to-from' : 'slack' });
		return targets;
	}
}
