import type { Db } from '../store/database';

export interface WebhookTarget {
	url: string;
	/** The account whose secret signs the delivery and whose Recent Activity shows it. */
	accountId: string;
}

/**
 * Which webhook gets the mail of an inbox: the address's own, else the one of its domain's
 * catch-all address. The catch-all never receives another account's private mail.
 */
export class WebhookTargets {
	private readonly own;
	private readonly catchAll;

	constructor(db: Db) {
		this.own = db.prepare('SELECT owner, webhook FROM addresses WHERE email = ?');
		this.catchAll = db.prepare('SELECT owner, webhook FROM addresses WHERE catch_all = ? AND webhook IS NOT NULL LIMIT 1');
	}

	find(inbox: string, domain: string): WebhookTarget | undefined {
		const own = this.own.get(inbox) as { owner: string; webhook: string | null } | undefined;
		if (own?.webhook) return { url: own.webhook, accountId: own.owner };
		const catchAll = this.catchAll.get(domain) as { owner: string; webhook: string } | undefined;
		if (!catchAll || (own && own.owner !== catchAll.owner)) return undefined;
		return { url: catchAll.webhook, accountId: catchAll.owner };
	}
}
