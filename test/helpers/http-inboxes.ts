import type { TestMailroom } from './mailroom';
import { sendMail } from './messages';

/** The three kinds of inbox: open to anyone, reserved by an account, and an address of a domain an account claimed. */
export type InboxKind = 'public' | 'reserved' | 'domain';

export const INBOXES: Record<InboxKind, string> = { public: 'open@example.test', reserved: 'mine@example.test', domain: 'any@owned.test' };

export interface SeededInboxes {
	/** Holds the reserved address and the domain owned.test. */
	owner: { id: string; key: string };
	/** An account that holds neither. */
	other: { id: string; key: string };
	/** The id of the one message (with the attachment note.txt) sent to each of INBOXES. */
	ids: Record<InboxKind, string>;
}

/** Makes the accounts and inboxes of INBOXES and sends one message to each. */
export async function seedInboxes(server: TestMailroom): Promise<SeededInboxes> {
	const owner = server.createAccount('owner');
	const other = server.createAccount('other');
	server.addresses.reserve(INBOXES.reserved, owner.id);
	server.domains.claim('owned.test', owner.id);
	const ids: Partial<Record<InboxKind, string>> = {};
	for (const [kind, inbox] of Object.entries(INBOXES) as [InboxKind, string][]) {
		[ids[kind]] = await sendMail(server, { to: inbox, attachments: [{ filename: 'note.txt', content: 'a note' }] });
	}
	return { owner, other, ids: ids as Record<InboxKind, string> };
}
