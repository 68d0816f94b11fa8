import { expect } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { TestMailroom } from './mailroom';
import { enc, sendMail } from './messages';
import { queryValue } from './database';

/** Inboxes through the API: what one holds, and the three kinds of inbox with a message in each. */

/** The fields of a record: those spec 2.1 lists, then what Mailroom adds (its thread, who sent it, what was written, codes), sorted. */
export const RECORD_FIELDS = [
	'_id',
	'threadId',
	'from',
	'to',
	'cc',
	'bcc',
	'subject',
	'savedBy',
	'originalInbox',
	'inbox',
	'domain',
	'received',
	'size',
	'attachments',
	'ip',
	'via',
	'folder',
	'labels',
	'read',
	'rtls',
	'links',
	'spam',
	'auth',
	'strippedText',
	'strippedSignature',
	'codes',
	'messageId',
	'date',
	'replyTo',
	'attachmentFiles',
].sort();

/** The records of a public inbox, newest first (the listing must answer 200). */
export async function inboxMessages(server: TestMailroom, inbox: string, key?: string): Promise<MessageRecord[]> {
	const list = await server.api<MessageRecord[]>(`/api/addresses/${enc(inbox)}/messages`, { key });
	expect(list.status).toBe(200);
	return list.body;
}

/** The subjects of a public inbox, newest first. */
export async function subjects(server: TestMailroom, inbox: string): Promise<string[]> {
	return (await inboxMessages(server, inbox)).map((message) => message.subject);
}

/** The one record of a public inbox (it must hold exactly one). */
export async function onlyMessage(server: TestMailroom, inbox: string): Promise<MessageRecord> {
	const list = await inboxMessages(server, inbox);
	expect(list).toHaveLength(1);
	return list[0];
}

/** How many messages an inbox holds, by the API's count. */
export async function messageCount(server: TestMailroom, inbox: string): Promise<number> {
	return (await server.api<{ count: number }>(`/api/addresses/${enc(inbox)}/message-count`)).body.count;
}

/** The server still takes mail after whatever came before: a new message to `inbox` is stored. */
export async function stillAccepts(server: TestMailroom, inbox: string): Promise<void> {
	const info = await server.send({ from: 'a@sender.test', to: inbox, subject: 'after', text: 'still working' });
	expect(info.response).toMatch(/^250 /);
	expect(await subjects(server, inbox)).toEqual(['after']);
}

/** Rows in a table of the database of a server (or of a store of the tests). */
export function countRows(server: Parameters<typeof queryValue>[0], table: string): Promise<number> {
	return queryValue(server, `SELECT count(*) FROM ${table}`);
}

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
	const owner = await server.createAccount('owner');
	const other = await server.createAccount('other');
	await server.addresses.reserve(INBOXES.reserved, owner.id);
	await server.domains.claim('owned.test', owner.id);
	const ids: Partial<Record<InboxKind, string>> = {};
	for (const [kind, inbox] of Object.entries(INBOXES) as [InboxKind, string][]) {
		[ids[kind]] = await sendMail(server, { to: inbox, attachments: [{ filename: 'note.txt', content: 'a note' }] });
	}
	return { owner, other, ids: ids as Record<InboxKind, string> };
}
