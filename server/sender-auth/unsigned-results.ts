import type { MessageAuth } from '../schemas/sender-auth';

/** What one verification found: the record's auth and the header put in front of the source. */
export interface Verified {
	auth: MessageAuth;
	header: string;
}

/** As long as DNS answers are kept (dns-lookups.ts): a result kept no longer than the answers it was made of. */
const KEEP_MS = 60_000;
const MAX_ENTRIES = 10_000;

/**
 * The results of unsigned mail, by what they depend on alone: the client's address, its HELO name, the envelope sender and
 * the From field. Without a DKIM or ARC signature nothing else of a message is read, so a burst of mail from one sender
 * (a newsletter, an application's notifications, a test run) is checked once a minute, not once a message: within the
 * minute DNS would give the same answers from its cache anyway. A result with a temperror is not kept.
 */
export class UnsignedResults {
	private readonly entries = new Map<string, { verified: Verified; until: number }>();

	get(key: string): Verified | undefined {
		const entry = this.entries.get(key);
		if (!entry) return undefined;
		if (entry.until > Date.now()) return entry.verified;
		this.entries.delete(key);
		return undefined;
	}

	set(key: string, verified: Verified): void {
		const { spf, dmarc } = verified.auth;
		if (spf.result === 'temperror' || dmarc.result === 'temperror') return;
		this.entries.delete(key);
		this.entries.set(key, { verified, until: Date.now() + KEEP_MS });
		if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
	}
}

/** The key of an unsigned message's results: the envelope, and its From field(s) as written (unfolded). */
export function unsignedKey(client: { ip: string; helo: string; sender: string }, headerBlock: string): string {
	const from = headerBlock
		.replace(/\r?\n[ \t]/g, ' ')
		.split(/\r?\n/)
		.filter((line) => /^from[ \t]*:/i.test(line));
	return [client.ip, client.helo.toLowerCase(), client.sender.toLowerCase(), ...from].join('\n');
}
