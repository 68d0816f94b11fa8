import type { RawMessage } from '../bytes/spooled-bytes';
import type { ParsedMail } from './parsed-mail';
import type { MessageAuth } from '../schemas/sender-auth';
import type { ReturnPathOwner } from './return-path';

/** Where a message to one address is kept. */
export interface Recipient {
	/** The inbox that holds the message. */
	inbox: string;
	/** The address the message was delivered to. */
	originalInbox: string;
	domain: string;
	/** Set when the address is a return path of sent mail: the message is a report on that recipient (kept in the sender's inbox). */
	returnPathOf?: ReturnPathOwner;
}

/** A message as it arrives (over SMTP, or as the local copy of outgoing mail), before it is parsed and stored. */
export interface IncomingMail {
	/** The message as received: ideally backed by a SharedArrayBuffer, or spooled to a file when large (see readRaw). */
	raw: RawMessage;
	recipients: Recipient[];
	/** Address of the sending host. */
	ip: string;
	/** Address of the receiving host. */
	via: string;
	rtls: boolean;
	/** Who sent it, as SPF, DKIM, DMARC and ARC say (see verify-sender.ts); absent when not verified. */
	auth?: MessageAuth;
	/** Set when this is the local copy of outgoing mail: its recipients are marked delivered in the same transaction. */
	localCopy?: { outgoingId: string; addresses: string[] };
}

/** Incoming mail with its parse and the time it was received: what the store writes. */
export interface ParsedIncomingMail extends IncomingMail {
	parsed: ParsedMail;
	received: Date;
}
