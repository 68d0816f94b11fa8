import type { MessageRecord } from '../schemas/message';
import type { SubscriptionFilter } from '../schemas/webhook';
import type { NewDelivery, StoreParts } from '../store/store';
import type { InboxSettings } from '../store/inbox-settings';
import { containsIgnoringCase, sentBy } from '../mail/filter-match';

/** Whether a message passes a subscription's filter: every part given must match (none given: every message does). */
function passes(record: MessageRecord, filter: SubscriptionFilter | null): boolean {
	if (!filter) return true;
	const { from, subject, hasAttachments, authenticated } = filter;
	if (from !== undefined && !sentBy(record.from, from)) return false;
	if (subject !== undefined && !containsIgnoringCase(record.subject, subject)) return false;
	if (authenticated !== undefined && authenticated !== (record.auth?.authenticated ?? false)) return false;
	return hasAttachments === undefined || hasAttachments === (record.attachments?.length ?? 0) > 0;
}

/**
 * Records the deliveries new messages make: each inbox's webhook, its Slack webhook and its webhook subscriptions whose
 * filter the message passes (see InboxSettings for whose they are), and the reply hook of a sent message the message
 * answers (its thread's: one delivery, to the hook's account, then the hook is spent). It runs on the ingest thread, inside the messages'
 * own transaction, so a crash cannot lose a delivery to make.
 */
export class WebhookRecorder {
	constructor(
		/** Wait (ms) before the first attempt: the first step of the retry schedule. */
		private readonly firstAttemptDelay: number,
	) {}

	/**
	 * `settings[i]` are those of `records[i]`'s inbox. Returns the ids of the messages that got deliveries (most mail has no webhook).
	 */
	async record(parts: StoreParts, records: MessageRecord[], settings: InboxSettings[], answer: AnswerOf = {}): Promise<string[]> {
		const now = Date.now();
		const due = now + this.firstAttemptDelay;
		const withDeliveries: string[] = [];
		for (const [i, record] of records.entries()) {
			const made = this.deliveriesOf(record, settings[i]);
			const hooks = answer.automatic ? [] : await parts.replyHooks.take(record.threadId, now, answer.localCopyOf);
			for (const hook of hooks) {
				const { accountId, url, expiresAt } = hook;
				made.push({ messageId: record._id, address: record.inbox, accountId, url, kind: 'webhook', replyHookExpires: expiresAt });
			}
			if (made.length === 0) continue;
			// A webhook's payload reveals the encrypted address, so it must route from now on.
			if (made.some((delivery) => delivery.kind === 'webhook')) await parts.encryptedInboxes.remember(record.inbox);
			for (const delivery of made) await parts.webhookDeliveries.create(delivery, due);
			withDeliveries.push(record._id);
		}
		return withDeliveries;
	}

	private deliveriesOf(record: MessageRecord, settings: InboxSettings): NewDelivery[] {
		const of = { messageId: record._id, address: record.inbox };
		const made: NewDelivery[] = [];
		const webhook = settings.get('webhook');
		if (webhook) made.push({ ...of, accountId: webhook.from.owner, url: webhook.value, kind: 'webhook' });
		const slack = settings.get('webhookSlack');
		if (slack)
			made.push({ ...of, accountId: slack.from.owner, url: slack.value, kind: slack.from.webhookSlackToFrom ? 'slack-to-from' : 'slack' });
		const subscriptions = settings.subscriptions();
		for (const subscription of subscriptions?.value.filter((candidate) => passes(record, candidate.filter)) ?? []) {
			made.push({ ...of, accountId: subscriptions!.from.owner, url: subscription.url, kind: 'webhook', subscriptionId: subscription._id });
		}
		return made;
	}
}

/** What makes a message no answer to a sent message's reply hook. */
export interface AnswerOf {
	/** The sent message these records are local copies of: its own copies do not answer it. */
	localCopyOf?: string;
	/** The message says a machine sent it (an out-of-office, a bounce): it answers nothing. */
	automatic?: boolean;
}
