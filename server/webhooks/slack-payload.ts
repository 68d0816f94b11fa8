import type { MessageContent } from '../mail/message-content';
import type { MessageRecord } from '../schemas/message';
import type { AddressObject } from '../schemas/message';
import { storedPieces } from '../bytes/stored-bytes';
import { utf8Pieces } from '../bytes/text-pieces';

/** How much of the text body the summary quotes. */
export const SLACK_EXCERPT_CHARS = 300;

/** Slack's mrkdwn gives &, < and > a meaning: they must be escaped in text we did not write. */
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const addressList = (addresses: AddressObject[]) =>
	addresses.map(({ name, address }) => (name ? `${name} <${address}>` : address)).join(', ');

/** The short summary posted to a Slack incoming webhook (`{ "text": ... }`); From and To only when asked for. */
export async function buildSlackPayload(record: MessageRecord, content: MessageContent, withToFrom: boolean): Promise<{ text: string }> {
	// Quoted from the text's first decoded piece, not the whole of a large one.
	const pieces = utf8Pieces(storedPieces(await content.textBytes()));
	const first = await pieces.next();
	await pieces.return(undefined);
	const excerpt = (first.done ? '' : first.value).replace(/\s+/g, ' ').trim();
	const lines = [`New mail for ${escape(record.inbox)}: *${escape(record.subject || '(no subject)')}*`];
	if (withToFrom) lines.push(`From: ${escape(addressList(record.from))}`, `To: ${escape(addressList(record.to))}`);
	if (excerpt) lines.push(`> ${escape(excerpt.length > SLACK_EXCERPT_CHARS ? `${excerpt.slice(0, SLACK_EXCERPT_CHARS)}…` : excerpt)}`);
	return { text: lines.join('\n') };
}
