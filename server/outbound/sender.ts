import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';
import type { Account, AddressStore, MessageStore, NewOutgoing, OutgoingStore, SuppressionStore } from '../store/store';
import type { Suppression } from '../schemas/delivery-event';
import { newId, nowIso } from '../store/ids';
import {
	MAX_RECIPIENTS,
	REPLY_HOOK_DEFAULT_DAYS,
	REPLY_HOOK_MAX_DAYS,
	type OutgoingRecord,
	type RecipientField,
	type ReplyHookRequest,
	type SendRequest,
} from '../schemas/outgoing';
import type { EmailAddress } from '../mail/email-address';
import { isSpooled, type MessageSpool, type SpooledBytes } from '../bytes/spooled-bytes';
import { withoutPlusTag } from '../mail/plus-address';
import type { DomainRoute } from '../mail/local-domains';
import type { Outbox } from './outbox';
import { distinctRecipients, parseAddressField, type NamedAddress, type Recipient } from './address-fields';
import { checkExtraHeaders } from './extra-headers';
import { decodeAttachments } from './outgoing-attachments';
import { pacedContent } from './paced-content';
import { composeIntoSpool } from './spooled-compose';
import { threadOf, type Thread } from './reply-threading';
import { SendError } from './send-error';
import { newReturnPath } from '../mail/return-path';

/** How long a send request waits for its first delivery attempt before answering "queued". */
const FIRST_ATTEMPT_WAIT = 10_000;

export const NO_CREDITS = 'You must purchase more outgoing message credits before you can send';

/** The 402 of a send: Mailsac's words, then what this account has and how credits are added on a server of one's own. */
function noCredits(account: Account, needed: number, has: number | 'fewer' = account.credits): SendError {
	return new SendError(
		402,
		`${NO_CREDITS}: this message needs ${needed} (one per recipient) and account "${account.name}" has ${has}. ` +
			`An administrator adds credits with: mailroom credits add "${account.name}" <n>`,
	);
}

export interface SendResult {
	record: OutgoingRecord;
	creditsRemaining: number;
	warnings: string[];
}

export interface SenderOptions {
	store: OutgoingStore;
	outbox: Outbox;
	addresses: AddressStore;
	/** The account's suppression list: a send to an address on it is refused unless it says sendToSuppressed. */
	suppressions: SuppressionStore;
	/** Where the messages a reply answers are found. */
	messages: MessageStore;
	/** Where mail to a domain goes: an inbox here (local, or kept by a sandbox server), or the relay. */
	routeOf: (domain: string) => Promise<DomainRoute>;
	hasRelay: boolean;
	/** The largest message accepted over SMTP: a composed one is held to the same. */
	maxMessageSize: number;
	/** Where a message whose content is at least the spool threshold is composed, as a file (see composeIntoSpool). */
	spool: MessageSpool;
	/** The domain of relayed copies' return paths (--return-path-domain, else --hostname). */
	returnPathDomain: string;
}

/** Why a recipient's copy stayed here, said where the sender looks: the send's warnings and the recipient in Sent mail. */
const keptNote = (domain: string) =>
	`kept in its inbox on this server, not sent out: ${domain} is no domain of this server, but with no relay configured ` +
	'(--relay-url, MAILROOM_RELAY_URL) and every domain accepted, all mail stays here';

const DAY_MS = 24 * 3600 * 1000;

/** A reply hook's expiry: the one asked for (refused in the past or too far ahead), else the default. */
function replyHookOf({ url, expiresAt }: ReplyHookRequest): { url: string; expiresAt: number } {
	const now = Date.now();
	if (expiresAt === undefined) return { url, expiresAt: now + REPLY_HOOK_DEFAULT_DAYS * DAY_MS };
	const time = Date.parse(expiresAt);
	if (!(time > now)) throw new SendError(400, 'replyHook.expiresAt must be in the future', 'replyHook.expiresAt');
	if (time > now + REPLY_HOOK_MAX_DAYS * DAY_MS) {
		throw new SendError(400, `replyHook.expiresAt must be at most ${REPLY_HOOK_MAX_DAYS} days ahead`, 'replyHook.expiresAt');
	}
	return { url, expiresAt: time };
}

/** Why a recipient is suppressed, in the words of the report that put it there. */
const suppressedWhy = (s: Suppression) =>
	`${s.address} is on your suppression list: it ${s.reason} on ${s.created}` +
	(s.statusCode || s.diagnostic ? ` (${[s.statusCode, s.diagnostic].filter(Boolean).join(' ')})` : '') +
	` when sent message ${s.sentMessageId} was delivered` +
	(s.bounceMessageId ? `; the report is message ${s.bounceMessageId} in the sender's inbox` : '');

/** The Message-ID of an outgoing message: its id, at the domain of its sender. */
export const messageIdOf = (id: string, from: EmailAddress) => `<${id}@${from.domain}>`;

/** What a send's message holds besides its headers: the request's text and HTML, its attachments as the composer takes them. */
interface Contents {
	text?: string;
	html?: string;
	attachments: Mail.Attachment[];
}

/** The request's contents, taken out of it (it no longer holds them), with its attachments decoded. */
function takeContents(request: SendRequest, attachments: Mail.Attachment[]): Contents {
	const { text, html } = request;
	delete request.text;
	delete request.html;
	delete request.attachments;
	return { text, html, attachments };
}

/** An address header's value, or undefined for none (the composer would write an empty header for an empty list). */
const header = <T>(values: T[]) => (values.length ? values : undefined);
const named = (addresses: NamedAddress[]) => header(addresses.map(({ name, address }) => ({ name, address })));

/** The To recipients: the body's, else (answering a message) the original's Reply-To or From. */
function toRecipients(request: SendRequest, thread: Thread | undefined): NamedAddress[] {
	if (request.to !== undefined) return parseAddressField('to', request.to);
	if (!thread) throw new SendError(400, 'to is required (unless inReplyTo names a message to answer)', 'to');
	if (thread.recipients.length === 0) {
		throw new SendError(400, `to is required: message ${request.inReplyTo} has no valid From or Reply-To address to answer`, 'to');
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
	/**
	 * The message as it goes out, made once its id and send time are known (its Message-ID and Date may come from them): in
	 * memory, or a large one in a spool file, which submit removes once the first attempt has ended.
	 */
	raw: (id: string, sent: Date) => Buffer | SpooledBytes | Promise<Buffer | SpooledBytes>;
	/** Where its first reply is posted, until when (epoch ms). */
	replyHook?: { url: string; expiresAt: number };
	/** Send to recipients on the account's suppression list too. */
	sendToSuppressed?: boolean;
	/** How this kind of send says sendToSuppressed, for the refusal to name (SMTP submission has no way: none). */
	sendAnyway?: string;
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
		if (senders.length !== 1) throw new SendError(400, 'from must be exactly one email address', 'from');
		const from = senders[0];
		const thread = request.inReplyTo === undefined ? undefined : await threadOf(request.inReplyTo, account.id, messages, addresses);
		const to = toRecipients(request, thread);
		if (to.length === 0) throw new SendError(400, 'to must name at least one recipient', 'to');
		const others = request.replyAll ? await this.othersOf(account, request, thread) : { to: [], cc: [] };
		const recipients = distinctRecipients({
			to: [...to, ...others.to],
			cc: [...parseAddressField('cc', request.cc ?? []), ...others.cc],
			bcc: parseAddressField('bcc', request.bcc ?? []),
		});
		const replyTo = request.replyTo === undefined ? [] : parseAddressField('replyTo', request.replyTo);
		if (recipients.length > MAX_RECIPIENTS) {
			throw new SendError(
				400,
				`to, cc and bcc name ${recipients.length} distinct recipients together, more than the maximum of ${MAX_RECIPIENTS}`,
			);
		}
		if (!request.text && !request.html) throw new SendError(400, 'text or html is required', 'text');
		const headers = checkExtraHeaders(request.headers);
		// Refused before anything is decoded or composed: neither costs memory or time for a send that cannot go.
		this.checkCredits(account, recipients.length);
		const contentBytes = this.checkContentSize(request);
		const attachments = decodeAttachments(request.attachments);
		const replyHook = request.replyHook && replyHookOf(request.replyHook);
		const subject = request.subject ?? thread?.subject ?? '';
		if (!subject) warnings.push('No subject: mail without a subject is often classed as spam');

		const inField = (field: Recipient['field']) => named(recipients.filter((r) => r.field === field));
		// Taken out of the request, and let go of once composed: held with it, a 24 MB text stayed in memory all through
		// the first delivery attempt (a local copy's ingest beside it).
		let contents: Contents | undefined = takeContents(request, attachments);
		const composer = (id: string, sent: Date) => {
			const { text, html, attachments } = contents!;
			contents = undefined;
			// No Bcc header: Bcc recipients are only in the envelope (the outbox's recipient list), so no copy names them.
			return new MailComposer({
				from: { name: from.name, address: from.address },
				to: inField('to'),
				cc: inField('cc'),
				replyTo: named(replyTo),
				subject,
				text: text === undefined ? undefined : pacedContent(text),
				html: html === undefined ? undefined : pacedContent(html),
				headers,
				attachments,
				inReplyTo: thread?.inReplyTo,
				references: header(thread?.references ?? []),
				messageId: messageIdOf(id, from),
				// A Date object is written as RFC 5322 wants it ("Wed, 25 Nov 2026 00:01:46 +0000"); a string would be copied as it is.
				date: sent,
			});
		};
		const { spool } = this.options;
		const compose = (id: string, sent: Date) =>
			contentBytes < spool.threshold ? composer(id, sent).compile().build() : composeIntoSpool(composer(id, sent), spool);
		const submitted = await this.submit(
			account,
			{
				from,
				senders: [from],
				recipients,
				subject,
				inReplyTo: request.inReplyTo ?? null,
				raw: compose,
				replyHook,
				sendToSuppressed: request.sendToSuppressed,
				sendAnyway: 'send anyway with "sendToSuppressed": true',
			},
			client,
		);

		let timeout: NodeJS.Timeout | undefined;
		await Promise.race([submitted.firstAttempt, new Promise((resolve) => (timeout = setTimeout(resolve, FIRST_ATTEMPT_WAIT)))]);
		clearTimeout(timeout);
		const record = (await this.options.store.get(submitted.id))!;
		for (const { address, note } of record.recipients) if (note) warnings.push(`${address} was ${note}`);
		return { record, creditsRemaining: submitted.creditsRemaining, warnings };
	}

	/**
	 * What every outgoing message goes through: its senders must be the account's (403), its recipients routable (422), the
	 * message within --max-message-size (413) and the credits enough for its recipients (402); then it is charged, recorded
	 * (Sent mail) and handed to the outbox, whose first attempt starts at once.
	 */
	async submit(account: Account, outgoing: Outgoing, client: { ip: string; via: string }): Promise<Submitted> {
		const { outbox, spool } = this.options;
		await this.checkSenders(account, outgoing.senders);
		if (!outgoing.sendToSuppressed) await this.checkSuppressions(account, outgoing);
		const routed = await this.routes(outgoing.recipients);
		this.checkCredits(account, routed.length);

		const message = { id: newId(), sent: nowIso(), recipients: routed };
		const raw = await outgoing.raw(message.id, new Date(message.sent));
		const spooled = isSpooled(raw) ? raw : undefined;
		let creditsRemaining: number;
		try {
			creditsRemaining = await this.record(account, outgoing, { ...message, raw }, client);
		} catch (err) {
			if (spooled) spool.remove(spooled);
			throw err;
		}
		// The first attempt reads a spooled message from its file, which goes once that attempt has ended (it never rejects).
		const firstAttempt = outbox.attempt(message.id, spooled);
		if (spooled) void firstAttempt.finally(() => spool.remove(spooled));
		return { id: message.id, creditsRemaining, firstAttempt };
	}

	/** Records a composed message within --max-message-size (413) if the credits still suffice (402); the credits left. */
	private async record(
		account: Account,
		outgoing: Outgoing,
		{ id, sent, recipients, raw }: Pick<NewOutgoing, 'id' | 'sent' | 'recipients' | 'raw'>,
		client: { ip: string; via: string },
	): Promise<number> {
		if (raw.byteLength > this.options.maxMessageSize) {
			throw new SendError(
				413,
				`The composed message is ${raw.byteLength} bytes, more than the maximum message size of ${this.options.maxMessageSize} bytes`,
			);
		}
		const recorded = await this.options.store.record(
			{
				id,
				accountId: account.id,
				from: outgoing.from.address,
				subject: outgoing.subject,
				sent,
				recipients,
				inReplyTo: outgoing.inReplyTo,
				raw,
				replyHook: outgoing.replyHook,
				...client,
			},
			this.options.outbox.lease(),
		);
		// Another send spent them meanwhile.
		if (!recorded) throw noCredits(account, recipients.length, 'fewer');
		return recorded.creditsRemaining;
	}

	/**
	 * Reply all: the answered message's To and Cc recipients (each kept in its field), but the account's own addresses (a
	 * plus tag's address too), which the reply comes from. More than twice the recipients a send may have is refused at once.
	 */
	private async othersOf(account: Account, request: SendRequest, thread: Thread | undefined): Promise<Thread['others']> {
		if (!thread) throw new SendError(400, 'replyAll answers a message to all its recipients: give the message in inReplyTo', 'replyAll');
		const { to, cc } = thread.others;
		if (to.length + cc.length > 2 * MAX_RECIPIENTS) {
			throw new SendError(
				400,
				`message ${request.inReplyTo} names ${to.length + cc.length} recipients in To and Cc, more than a reply to all can address (${MAX_RECIPIENTS})`,
				'replyAll',
			);
		}
		const isOwn = async ({ address, domain }: NamedAddress) => {
			for (const inbox of new Set([address, withoutPlusTag(address)])) {
				if ((await this.options.addresses.ownerOfInbox(inbox, domain)) === account.id) return true;
			}
			return false;
		};
		const notOwn = async (list: NamedAddress[]) => {
			const kept: NamedAddress[] = [];
			for (const entry of list) if (!(await isOwn(entry))) kept.push(entry);
			return kept;
		};
		return { to: await notOwn(to), cc: await notOwn(cc) };
	}

	/**
	 * Refuses (402) a send the account's credits cannot pay for, as they were when its request came in; the charge with the
	 * record (store.record) counts them again, so two sends at once never overspend.
	 */
	private checkCredits(account: Account, recipients: number): void {
		if (account.credits < recipients) throw noCredits(account, recipients);
	}

	/**
	 * Refuses (413) a send whose text, HTML and attachments alone are larger than --max-message-size: encoding only adds to
	 * them, so the composed message would be too. Base64 of n characters holds 3n/4 bytes. Returns their size.
	 */
	private checkContentSize(request: SendRequest): number {
		const bytes =
			Buffer.byteLength(request.text ?? '') +
			Buffer.byteLength(request.html ?? '') +
			(request.attachments ?? []).reduce((sum, attachment) => sum + Math.floor((attachment.content.length * 3) / 4), 0);
		if (bytes > this.options.maxMessageSize) {
			throw new SendError(
				413,
				`The text, HTML and attachments of the message are ${bytes} bytes, more than the maximum message size of ${this.options.maxMessageSize} bytes`,
			);
		}
		return bytes;
	}

	/** Refuses (422) a send to addresses on the account's suppression list, naming the report that put each there. */
	private async checkSuppressions(account: Account, { recipients, sendAnyway }: Outgoing): Promise<void> {
		const suppressed = await this.options.suppressions.find(
			account.id,
			recipients.map((r) => r.address),
		);
		if (suppressed.length === 0) return;
		const ways = [sendAnyway, 'take the address off the list with DELETE /api/suppressions/{address}'].filter(Boolean).join(', or ');
		throw new SendError(422, `Not sent: ${suppressed.map(suppressedWhy).join('; ')}. ${ways[0].toUpperCase()}${ways.slice(1)}`, 'to');
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

	/**
	 * Each recipient with its route: local inboxes, or the relay; refused (422) when some need the relay and there is none.
	 * A recipient a sandbox server keeps (no relay, every domain accepted) is routed to its inbox here, with a note saying so.
	 */
	async routes(recipients: (EmailAddress & { field: RecipientField })[]): Promise<NewOutgoing['recipients']> {
		const routed: NewOutgoing['recipients'] = [];
		for (const r of recipients) {
			const route = await this.options.routeOf(r.domain);
			const kept = route === 'local' || route === 'kept';
			routed.push({
				address: r.address,
				field: r.field,
				route: kept ? 'local' : route,
				note: route === 'kept' ? keptNote(r.domain) : null,
				// A copy that leaves (or plays leaving) goes with a return path of its own, for the reports that come back.
				returnPath: kept ? null : newReturnPath(this.options.returnPathDomain),
			});
		}
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
