import MailComposer from 'nodemailer/lib/mail-composer';
import addressparser from 'nodemailer/lib/addressparser';
import type { Account } from '../store/accounts';
import type { AddressStore } from '../store/addresses';
import { parseEmailAddress, type EmailAddress } from '../mail/email-address';
import { newId, nowIso } from '../store/ids';
import type { OutgoingStore } from '../store/outgoing';
import { MAX_RECIPIENTS, type OutgoingRecord, type Route, type SendRequest } from '../schemas/outgoing';
import type { Outbox } from './outbox';

/** How long a send request waits for its first delivery attempt before answering "queued". */
const FIRST_ATTEMPT_WAIT = 10_000;

export const NO_CREDITS = 'You must purchase more outgoing message credits before you can send';

export interface SendResult {
	record: OutgoingRecord;
	creditsRemaining: number;
	warnings: string[];
}

/** A send refused before anything was recorded or charged; `statusCode` is the HTTP status to answer. */
export class SendError extends Error {
	constructor(
		readonly statusCode: 400 | 402 | 403 | 413 | 422,
		message: string,
	) {
		super(message);
	}
}

interface NamedAddress extends EmailAddress {
	name: string;
}

function parseAddresses(field: string, value: string | string[]): NamedAddress[] {
	const entries = (Array.isArray(value) ? value : [value]).flatMap((item) => addressparser(item, { flatten: true }));
	return entries.map((entry) => {
		const email = parseEmailAddress(entry.address);
		if (!email) throw new SendError(400, `body/${field} "${entry.address || entry.name}" is not a valid email address`);
		return { ...email, name: entry.name };
	});
}

export interface SenderOptions {
	store: OutgoingStore;
	outbox: Outbox;
	addresses: AddressStore;
	isLocalDomain: (domain: string) => boolean;
	hasRelay: boolean;
	/** The largest message accepted over SMTP: a composed one is held to the same. */
	maxMessageSize: number;
}

/** Checks, composes, charges and records an outgoing message, then makes its first delivery attempt. */
export class Sender {
	constructor(private readonly options: SenderOptions) {}

	async send(account: Account, request: SendRequest, client: { ip: string; via: string }): Promise<SendResult> {
		const { store, outbox, addresses, isLocalDomain, hasRelay } = this.options;
		const warnings: string[] = [];

		const senders = parseAddresses('from', request.from);
		if (senders.length !== 1) throw new SendError(400, 'body/from must be exactly one email address');
		const from = senders[0];
		const to = [...new Map(parseAddresses('to', request.to).map((r) => [r.address, r])).values()];
		if (to.length === 0) throw new SendError(400, 'body/to must name at least one recipient');
		if (to.length > MAX_RECIPIENTS) throw new SendError(400, `body/to exceeds the maximum allowed size of ${MAX_RECIPIENTS} recipients`);
		if (!request.text && !request.html) throw new SendError(400, 'body/text is required (or body/html)');
		if (!request.subject) warnings.push('No subject: mail without a subject is often classed as spam');

		if (addresses.ownerOfInbox(from.address, from.domain) !== account.id) {
			throw new SendError(
				403,
				`${from.address} is not an address of your account: send from one of its private addresses or an address in one of its domains`,
			);
		}
		const recipients = to.map((r): { address: string; route: Route } => ({
			address: r.address,
			route: isLocalDomain(r.domain) ? 'local' : 'relay',
		}));
		const external = recipients.filter((r) => r.route === 'relay').map((r) => r.address);
		if (external.length && !hasRelay) {
			throw new SendError(
				422,
				`No SMTP relay is configured (MAILROOM_RELAY_URL), so mail can go only to local domains; not local: ${external.join(', ')}`,
			);
		}

		const id = newId();
		const sent = nowIso();
		const raw = await new MailComposer({
			from: { name: from.name, address: from.address },
			to: to.map((r) => ({ name: r.name, address: r.address })),
			subject: request.subject,
			text: request.text,
			html: request.html,
			messageId: `<${id}@${from.domain}>`,
			date: sent,
		})
			.compile()
			.build();
		if (raw.length > this.options.maxMessageSize) {
			throw new SendError(
				413,
				`The composed message is ${raw.length} bytes, more than the maximum message size of ${this.options.maxMessageSize} bytes`,
			);
		}

		const recorded = store.record(
			{ id, accountId: account.id, from: from.address, subject: request.subject ?? '', sent, recipients, raw, ...client },
			Date.parse(sent),
		);
		if (!recorded) throw new SendError(402, NO_CREDITS);

		let timeout: NodeJS.Timeout | undefined;
		await Promise.race([outbox.attempt(id), new Promise((resolve) => (timeout = setTimeout(resolve, FIRST_ATTEMPT_WAIT)))]);
		clearTimeout(timeout);
		return { record: store.get(id)!, creditsRemaining: recorded.creditsRemaining, warnings };
	}
}
