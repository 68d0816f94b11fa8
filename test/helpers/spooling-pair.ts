import { expect } from '@jest/globals';
import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';
import { startTestMailroom, type TestMailroom } from './mailroom';
import { sendMail } from './messages';
import { fetchRaw, type RawResponse } from './raw-http';
import { queryValue } from './database';

/**
 * Parsing a few MB of HTML can take longer than the default 30 s on a loaded machine: the message would then be stored
 * unparsed, without the bodies whose pieces these tests read. The time limit itself is tested in parser-pool's tests.
 */
const PARSE_TIMEOUT_MS = 5 * 60_000;

/**
 * Two servers for the same mail: one spools a message of 64 KB or more (its bodies of 1 MB or more stored in pieces),
 * the other keeps every message in memory, so a route's answers for the two show that reading pieces changes nothing.
 */
export class SpoolingPair {
	private constructor(
		readonly spooling: TestMailroom,
		readonly inMemory: TestMailroom,
	) {}

	static async start(): Promise<SpoolingPair> {
		const [spooling, inMemory] = await Promise.all([
			startTestMailroom({ spoolThreshold: 64 * 1024, parseTimeout: PARSE_TIMEOUT_MS }),
			startTestMailroom({ spoolThreshold: 1024 * 1024 * 1024, parseTimeout: PARSE_TIMEOUT_MS }),
		]);
		return new SpoolingPair(spooling, inMemory);
	}

	/**
	 * Sends the mail to both, the same bytes (composed once: nodemailer's quoted-printable of a few MB of text takes seconds);
	 * the ids its record has on each, spooling server first.
	 */
	async send(mail: Mail.Options): Promise<[string, string]> {
		const composed = new MailComposer({ from: 'sender@sender.test', subject: 'hello', text: 'hello', ...mail }).compile();
		const message = { envelope: composed.getEnvelope(), raw: await composed.build() };
		// To both at once: each server parses and stores on threads of its own.
		const [[spooled], [inMemory]] = await Promise.all([sendMail(this.spooling, message), sendMail(this.inMemory, message)]);
		return [spooled, inMemory];
	}

	/** GETs `path(id)` from both servers, expects the same answer, and returns it. */
	async sameResponse(ids: [string, string], path: (id: string) => string): Promise<RawResponse> {
		const [spooled, inMemory] = await Promise.all([fetchRaw(this.spooling, path(ids[0])), fetchRaw(this.inMemory, path(ids[1]))]);
		expect({ ...spooled, bytes: undefined }).toEqual({ ...inMemory, bytes: undefined });
		expect(spooled.bytes.equals(inMemory.bytes)).toBe(true);
		expect(Number(spooled.contentLength)).toBe(spooled.bytes.length);
		return spooled;
	}

	/** How many pieces a body of a message on the spooling server is stored in. */
	bodyPieces(id: string, kind: 'text' | 'html'): Promise<number> {
		return queryValue(
			this.spooling,
			'SELECT count(*) FROM content_body_pieces p JOIN messages m ON m.content_id = p.content_id WHERE m.id = ? AND p.kind = ?',
			[id, kind],
		);
	}

	async stop(): Promise<void> {
		await Promise.all([this.spooling.stop(), this.inMemory.stop()]);
	}
}
