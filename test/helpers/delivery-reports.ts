import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OutgoingRecipient } from 'mailroom-server/dist/schemas/outgoing';
import type { TestMailroom } from './mailroom';
import type { Sent } from './outgoing';

/** The corpus of delivery reports, each in the layout one provider sends (see docs/development.md). */
const CORPUS = join(__dirname, '../fixtures/dsn');

/** A report of the corpus (`gmail`, `outlook`, `postfix`, ...) on one recipient of a sent message, as that provider writes it. */
export function deliveryReport(layout: string, sent: Pick<Sent, '_id' | 'from' | 'subject'>, recipient: OutgoingRecipient): string {
	const domain = sent.from.slice(sent.from.lastIndexOf('@') + 1);
	const values: Record<string, string> = {
		recipient: recipient.address,
		returnPath: recipient.returnPath!,
		from: sent.from,
		subject: sent.subject,
		messageId: `<${sent._id}@${domain}>`,
	};
	return readFileSync(join(CORPUS, `${layout}.eml`), 'utf8')
		.replace(/\{\{(\w+)\}\}/g, (_all, name: string) => values[name])
		.replace(/\r?\n/g, '\r\n');
}

/** Plays the remote MTA: sends a report over SMTP to the recipient's return path, from the null sender. */
export const sendReport = (server: Pick<TestMailroom, 'send'>, raw: string, returnPath: string) =>
	server.send({ envelope: { from: '', to: [returnPath] }, raw });
