import MailComposer from 'nodemailer/lib/mail-composer';
import type { Account, AddressStore, MessageStore, NewOutgoing, OutgoingStore } from '../store/store';
import { newId, nowIso } from '../store/ids';
import { MAX_RECIPIENTS, type OutgoingRecord, type SendRequest } from '../schemas/outgoing';
import type { Outbox } from './outbox';
import { distinctRecipients, parseAddressField, type NamedAddress, type Recipient } from './address-fields';
import { checkExtraHeaders } from './extra-headers';
import { decodeAttachments } from './outgoing-attachments';
import { threadOf, type Thread } from './reply-threading';
import { SendError } from './send-error';

/** How long a send request waits for its first delivery attempt before answering "queued". */
const FIRST_ATTEMPT_WAIT = 10_000;

export const NO_CREDITS = 'You must purchase more outgoing message credits before you can send';

export interface SendResult {
	record: OutgoingRecord;
	creditsRemaining: number;
	warnings: string[];
}

export interface SenderOptions {
	store: OutgoingStore;
	outbox: Outbox;
	addresses: AddressStore;
	/** Where the messages a reply answers are found. */
	messages: MessageStore;
	isLocalDomain: (domain: string) => Promise<boolean>;
	hasRelay: boolean;
	/** The largest message accepted over SMTP: a composed one is held to the same. */
	maxMessageSize: number;
}

/** An address header's value, or undefined for none (the composer would write an empty header for an empty list). */
const header = <T>(values: T[]) => (values.length ? values : undefined);
const named = (addresses: NamedAddress[]) => header(addresses.map(({ name, address }) => ({ name, address })));

/** The To recipients: the body's, else (answering a message) the original's Reply-To or From. */
function toRecipients(request: SendRequest, thread: Thread | undefined): NamedAddress[] {
	if (request.to !== undefined) return parseAddressField('to', request.to);
	if (!thread) throw new SendError(400, 'body/to is required (unless inReplyTo names a message to answer)');
	if (thread.recipients.length === 0) {
		throw new SendError(400, `body/to is required: message ${request.inReplyTo} has no valid From or Reply-To address to answer`);
	}
	return thread.recipients;
}

/** Checks, composes, charges and records an outgoing message, then makes its first delivery attempt. */
export class Sender {
	constructor(private readonly options: SenderOptions) {}

	async send(account: Account, request: SendRequest, client: { ip: string; via: string }): Promise<SendResult> {
		const { store, outbox, addresses, messages, isLocalDomain, hasRelay } = this.options;
		const warnings: string[] = [];

		const senders = parseAddressField('from', request.from);
		if (senders.length !== 1) throw new SendError(400, 'body/from must be exactly one email address');
		const from = senders[0];
		const thread = request.inReplyTo === undefined ? undefined : await threadOf(request.inReplyTo, account.id, messages, addresses);
		const to = toRecipients(request, thread);
		if (to.length === 0) throw new SendError(400, 'body/to must name at least one recipient');
		const recipients = distinctRecipients({
			to,
			cc: parseAddressField('cc', request.cc ?? []),
			bcc: parseAddressField('bcc', request.bcc ?? []),
		});
		const replyTo = request.replyTo === undefined ? [] : parseAddressField('replyTo', request.replyTo);
		if (recipients.length > MAX_RECIPIENTS) {
			throw new SendError(
				400,
				`body/to, body/cc and body/bcc name ${recipients.length} distinct recipients together, more than the maximum of ${MAX_RECIPIENTS}`,
			);
		}
		if (!request.text && !request.html) throw new SendError(400, 'body/text is required (or body/html)');
		const headers = checkExtraHeaders(request.headers);
		const attachments = decodeAttachments(request.attachments);
		const subject = request.subject ?? thread?.subject ?? '';
		if (!subject) warnings.push('No subject: mail without a subject is often classed as spam');

		if ((await addresses.ownerOfInbox(from.address, from.domain)) !== account.id) {
			throw new SendError(
				403,
				`${from.address} is not an address of your account: send from one of its private addresses or an address in one of its domains`,
			);
		}
		const routed: NewOutgoing['recipients'] = [];
		for (const r of recipients)
			routed.push({ address: r.address, field: r.field, route: (await isLocalDomain(r.domain)) ? 'local' : 'relay' });
		const external = routed.filter((r) => r.route === 'relay').map((r) => r.address);
		if (external.length && !hasRelay) {
			throw new SendError(
				422,
				`No SMTP relay is configured (MAILROOM_RELAY_URL), so mail can go only to local domains; not local: ${external.join(', ')}`,
			);
		}

		const id = newId();
		const sent = nowIso();
		const inField = (field: Recipient['field']) => named(recipients.filter((r) => r.field === field));
		// No Bcc header: Bcc recipients are only in the envelope (the outbox's recipient list), so no copy names them.
		const raw = await new MailComposer({
			from: { name: from.name, address: from.address },
			to: inField('to'),
			cc: inField('cc'),
			replyTo: named(replyTo),
			subject,
			text: request.text,
			html: request.html,
			headers,
			attachments,
			inReplyTo: thread?.inReplyTo,
			references: header(thread?.references ?? []),
			messageId: `<${id}@${from.domain}>`,
			// A Date object is written as RFC 5322 wants it ("Wed, 25 Nov 2026 00:01:46 +0000"); a string would be copied as it is.
			date: new Date(sent),
		})
			.compile()
			.build();
		if (raw.length > this.options.maxMessageSize) {
			throw new SendError(
				413,
				`The composed message is ${raw.length} bytes, more than the maximum message size of ${this.options.maxMessageSize} bytes`,
			);
		}

		const recorded = await store.record(
			{
				id,
				accountId: account.id,
				from: from.address,
				subject,
				sent,
				recipients: routed,
				inReplyTo: request.inReplyTo ?? null,
				raw,
				...client,
			},
			outbox.lease(),
		);
		if (!recorded) throw new SendError(402, NO_CREDITS);

		let timeout: NodeJS.Timeout | undefined;
		await Promise.race([outbox.attempt(id), new Promise((resolve) => (timeout = setTimeout(resolve, FIRST_ATTEMPT_WAIT)))]);
		clearTimeout(timeout);
		return { record: (await store.get(id))!, creditsRemaining: recorded.creditsRemaining, warnings };
	}
}
