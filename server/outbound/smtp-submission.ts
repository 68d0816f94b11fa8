import type { Account } from '../store/store';
import { parseEmailAddress, type EmailAddress } from '../mail/email-address';
import { MAX_RECIPIENTS } from '../schemas/outgoing';
import type { Recipient } from './address-fields';
import { messageIdOf, type Sender } from './sender';
import { SendError } from './send-error';
import { SubmittedMessage } from './submitted-message';

/** An SMTP reply refusing a command; its text starts with the enhanced status code. */
export type SmtpRefusal = Error & { responseCode: number };

const refusal = (responseCode: number, text: string): SmtpRefusal => Object.assign(new Error(text), { responseCode });

/** The reply to the end of DATA for a send the shared checks refused, by the API status the same refusal has. */
const DATA_REPLIES: Record<SendError['statusCode'], [number, string]> = {
	400: [554, '5.6.0'],
	402: [554, '5.7.0'],
	403: [550, '5.7.1'],
	404: [554, '5.0.0'],
	413: [552, '5.3.4'],
	422: [550, '5.7.1'],
};

/** Runs a check of the Sender; a refusal becomes the SMTP reply `reply` makes of it. */
async function asSmtp<T>(check: () => Promise<T>, reply: (err: SendError) => SmtpRefusal): Promise<T> {
	try {
		return await check();
	} catch (err) {
		throw err instanceof SendError ? reply(err) : err;
	}
}

/**
 * Mail an account submits over SMTP (a session authenticated with one of its API keys), sent as POST
 * /api/outgoing-messages sends: through the same Sender, so the same checks, credits, outbox, relay and DKIM, recorded in
 * Sent mail. Its refusals are SMTP replies, given as early as the transaction allows: a sender at MAIL FROM, a recipient
 * at RCPT TO, the rest at the end of DATA.
 */
export class SmtpSubmission {
	/** Recipients of one submitted message, as for the API. */
	readonly maxRecipients = MAX_RECIPIENTS;

	constructor(private readonly sender: Sender) {}

	/** MAIL FROM: an address of the account. */
	async checkSender(account: Account, address: string): Promise<void> {
		const from = parseEmailAddress(address);
		if (!from) throw refusal(553, `5.1.7 <${address}> is not a valid sender address`);
		await asSmtp(
			() => this.sender.checkSenders(account, [from]),
			(err) => refusal(553, `5.7.1 ${err.message}`),
		);
	}

	/** RCPT TO: any valid address, in a local domain or, with a relay configured, any other. */
	async checkRecipient(address: string): Promise<void> {
		const to = parseEmailAddress(address);
		if (!to) throw refusal(553, `5.1.3 <${address}> is not a valid recipient address`);
		await asSmtp(
			() => this.sender.routes([{ ...to, field: 'to' }]),
			(err) => refusal(550, `5.7.1 ${err.message}`),
		);
	}

	/** The end of DATA: checks the message's From header, then sends it; resolves with its id in Sent mail. */
	async submit(
		account: Account,
		envelope: { from: string; to: string[] },
		raw: Buffer,
		client: { ip: string; via: string },
	): Promise<string> {
		const dataReply = (err: SendError) => {
			const [code, status] = DATA_REPLIES[err.statusCode];
			return refusal(code, `${status} ${err.message}`);
		};
		const submitted = await asSmtp(async () => {
			const message = SubmittedMessage.read(raw);
			const from = parseEmailAddress(envelope.from)!;
			// Each must be the account's: From as both readings find it, Sender, Resent-From and Resent-Sender.
			const authors = message.authors.map(addressOfTheAccount);
			const recipients = new Map<string, Recipient>();
			for (const address of envelope.to) {
				const to = parseEmailAddress(address)!;
				recipients.set(to.address, { ...to, name: '', field: message.fieldOf(to.address) });
			}
			return this.sender.submit(
				account,
				{
					from,
					senders: [from, ...authors.filter((author) => author.address !== from.address)],
					recipients: [...recipients.values()],
					subject: message.subject,
					inReplyTo: null,
					raw: (id, sent) => message.asSent(messageIdOf(id, addressOfTheAccount(message.from[0])), sent),
				},
				client,
			);
		}, dataReply);
		return submitted.id;
	}
}

/** An author of the message (From, Sender, Resent-From, Resent-Sender), to be checked as the account's; one that is no valid address never is. */
function addressOfTheAccount(address: string): EmailAddress {
	const email = parseEmailAddress(address);
	if (!email) throw new SendError(403, `${address} in the message's header is not an address of your account`);
	return email;
}
