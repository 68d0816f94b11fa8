import { expect } from '@jest/globals';
import type { MessageRecord } from 'mailroom-server/dist/schemas/message';
import type { TestMailroom } from './mailroom';
import { enc } from './messages';

/** The fields of a record, exactly as spec 2.1 lists them (sorted). */
export const RECORD_FIELDS = [
	'_id',
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

/** Rows in a table of the server's database. */
export function countRows(server: TestMailroom, table: string): number {
	return server.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
}
