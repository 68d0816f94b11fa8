import MailComposer from 'nodemailer/lib/mail-composer';
import type { Account, AddressStore, MessageStore, NewOutgoing, OutgoingStore } from '../store/store';
import { newId, nowIso } from '../store/ids';
import { MAX_RECIPIENTS, type OutgoingRecord, type RecipientField, type SendRequest } from '../schemas/outgoing';
import type { EmailAddress } from '../mail/email-address';
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

/** The Message-ID of an outgoing message: its id, at the domain of its sender. */
export const messageIdOf = (id: string, from: EmailAddress) => `<${id}@${from.domain}>`;

/** An address header's value, or undefined for none (the composer would write an empty header for an empty list). */
const header = <T>(values: T[]) => (values.length ? values : undefined);
const named = (addresses: NamedAddress[]) => header(addresses.map(({ name, address }) => ({ name, address })));

/** The To recipients: the body's, else (answering a message) the original's Reply-To or From. */
function toRecipients(request: SendRequest, thread: Thread | undefined): NamedAddress[] {
	if (request.to !== undefined) return parseAddressField('to', request.to);
	if (!thread) throw new SendError(400, 'to is required (unless inReplyTo names a message to answer)');
	if (thread.recipients.length === 0) {
		throw new SendError(400, `to is required: message ${request.inReplyTo} has no valid From or Reply-To address to answer`);
	}
	return thread.recipients;
}

/**
 * An outgoing message however it was made (composed from an API request, or submitted over SMTP), ready for what every
 * send goes through: the sender and route checks, the charge, the record and the outbox.
 */
export interface Outgoing {
	/** The envelope sender, recorded as the message's `from` (and the MAIL FROM of relayed copies). */
	from: EmailAddress;
	/** Every address the message says it is from (the envelope's, the From header's): each must be the account's. */
	senders: EmailAddress[];
	/** Distinct, each in the field that names it (`bcc`: in the envelope only). */
	recipients: Recipient[];
	subject: string;
	/** The _id of the received message this one answers. */
	inReplyTo: string | null;
	/** The message as it goes out, made once its id and send time are known (its Message-ID and Date may come from them). */
	raw: (id: string, sent: Date) => Buffer | Promise<Buffer>;
}

/** An outgoing message recorded and charged; its first delivery attempt has started. */
export interface Submitted {
	id: string;
	creditsRemaining: number;
	/** Settles when the first attempt ends (it never rejects: a failed attempt is retried). */
	firstAttempt: Promise<unknown>;
}

/** Checks, charges and records outgoing mail, then makes its first delivery attempt. */
export class Sender {
	constructor(private readonly options: SenderOptions) {}

	/** POST /api/outgoing-messages: checks the request, composes the message and sends it; answers after the first attempt (at most 10 s). */
	async send(account: Account, request: SendRequest, client: { ip: string; via: string }): Promise<SendResult> {
		const { addresses, messages } = this.options;
		const warnings: string[] = [];

		const senders = parseAddressField('from', request.from);
		if (senders.length !== 1) throw new SendError(400, 'from must be exactly one email address');
		const from = senders[0];
		const thread = request.inReplyTo === undefined ? undefined : await threadOf(request.inReplyTo, account.id, messages, addresses);
		const to = toRecipients(request, thread);
		if (to.length === 0) throw new SendError(400, 'to must name at least one recipient');
		const recipients = distinctRecipients({
			to,
			cc: parseAddressField('cc', request.cc ?? []),
			bcc: parseAddressField('bcc', request.bcc ?? []),
		});
		const replyTo = request.replyTo === undefined ? [] : parseAddressField('replyTo', request.replyTo);
		if (recipients.length > MAX_RECIPIENTS) {
			throw new SendError(
				400,
				`to, cc and bcc name ${recipients.length} distinct recipients together, more than the maximum of ${MAX_RECIPIENTS}`,
			);
		}
		if (!request.text && !request.html) throw new SendError(400, 'text or html is required');
		const headers = checkExtraHeaders(request.headers);
		const attachments = decodeAttachments(request.attachments);
		const subject = request.subject ?? thread?.subject ?? '';
		if (!subject) warnings.push('No subject: mail without a subject is often classed as spam');

		const inField = (field: Recipient['field']) => named(recipients.filter((r) => r.field === field));
		const compose = (id: string, sent: Date) =>
			// No Bcc header: Bcc recipients are only in the envelope (the outbox's recipient list), so no copy names them.
			new MailComposer({
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
				messageId: messageIdOf(id, from),
				// A Date object is written as RFC 5322 wants it ("Wed, 25 Nov 2026 00:01:46 +0000"); a string would be copied as it is.
				date: sent,
			})
				.compile()
				.build();
		const submitted = await this.submit(
			account,
			{ from, senders: [from], recipients, subject, inReplyTo: request.inReplyTo ?? null, raw: compose },
			client,
		);

		let timeout: NodeJS.Timeout | undefined;
		await Promise.race([submitted.firstAttempt, new Promise((resolve) => (timeout = setTimeout(resolve, FIRST_ATTEMPT_WAIT)))]);
		clearTimeout(timeout);
		return { record: (await this.options.store.get(submitted.id))!, creditsRemaining: submitted.creditsRemaining, warnings };
	}

	/**
	 * What every outgoing message goes through: its senders must be the account's (403), its recipients routable (422), the
	 * message within --max-message-size (413) and the credits enough for its recipients (402); then it is charged, recorded
	 * (Sent mail) and handed to the outbox, whose first attempt starts at once.
	 */
	async submit(account: Account, outgoing: Outgoing, client: { ip: string; via: string }): Promise<Submitted> {
		const { store, outbox } = this.options;
		await this.checkSenders(account, outgoing.senders);
		const routed = await this.routes(outgoing.recipients);

		const id = newId();
		const sent = nowIso();
		const raw = await outgoing.raw(id, new Date(sent));
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
				from: outgoing.from.address,
				subject: outgoing.subject,
				sent,
				recipients: routed,
				inReplyTo: outgoing.inReplyTo,
				raw,
				...client,
			},
			outbox.lease(),
		);
		if (!recorded) throw new SendError(402, NO_CREDITS);
		return { id, creditsRemaining: recorded.creditsRemaining, firstAttempt: outbox.attempt(id) };
	}

	/** Refuses (403) an address that is not one of the account's: its private addresses and every address of its domains. */
	async checkSenders(account: Account, senders: EmailAddress[]): Promise<void> {
		for (const { address, domain } of senders) {
			if ((await this.options.addresses.ownerOfInbox(address, domain)) !== account.id) {
				throw new SendError(
					403,
					`${address} is not an address of your account: send from one of its private addresses or an address in one of its domains`,
				);
			}
		}
	}

	/** Each recipient with its route: local inboxes, or the relay; refused (422) when some need the relay and there is none. */
	async routes(recipients: (EmailAddress & { field: RecipientField })[]): Promise<NewOutgoing['recipients']> {
		const routed: NewOutgoing['recipients'] = [];
		for (const r of recipients)
			routed.push({ address: r.address, field: r.field, route: (await this.options.isLocalDomain(r.domain)) ? 'local' : 'relay' });
		const external = routed.filter((r) => r.route === 'relay').map((r) => r.address);
		if (external.length && !this.options.hasRelay) {
			throw new SendError(
				422,
				`No SMTP relay is configured (MAILROOM_RELAY_URL), so mail can go only to local domains; not local: ${external.join(', ')}`,
			);
		}
		return routed;
	}
}
