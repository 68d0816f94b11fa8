import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TestMailroom } from './mailroom';
import { RawSmtp } from './raw-smtp';

/** A message to `to` of about `bytes`, with CRLF lines of 76 characters, then `extra`. */
export function linesMessage(to: string, bytes: number, extra = ''): string {
	const line = 'x'.repeat(76);
	return `From: a@sender.test\r\nTo: ${to}\r\nSubject: big\r\n\r\n${`${line}\r\n`.repeat(Math.ceil(bytes / 78))}${extra}`;
}

/**
 * Sends `raw` to raw@spool.test through a raw SMTP session, with SIZE=`declaredSize` in MAIL FROM if given; returns
 * the reply to the end of DATA.
 */
export async function sendData(server: TestMailroom, raw: string, declaredSize?: number): Promise<string> {
	const { client } = await RawSmtp.connect(server.smtpPort);
	try {
		await client.envelope('a@sender.test', ['raw@spool.test'], declaredSize === undefined ? '' : ` SIZE=${declaredSize}`);
		client.write(`${raw}\r\n.\r\n`);
		return await client.reply();
	} finally {
		client.close();
	}
}

/** What the server's spool folder holds now. */
export function spoolEntries(server: TestMailroom): string[] {
	return readdirSync(join(server.config.dataDir, 'spool'));
}
