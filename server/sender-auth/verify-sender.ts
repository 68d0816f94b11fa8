import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { isSpooled, type RawMessage } from '../bytes/spooled-bytes';
import { AUTH_RESULTS, type AuthResult, type MessageAuth } from '../schemas/sender-auth';
import type { DnsLookups } from './dns-lookups';

/** Who connected, as SMTP told: the client's address, its HELO name and its MAIL FROM (empty for a bounce). */
export interface SmtpClient {
	ip: string;
	helo: string;
	sender: string;
}

export interface SenderVerification {
	auth: MessageAuth;
	/** `Authentication-Results: <hostname>; …` (and `Received-SPF:`), CRLF-terminated, to put in front of the stored source. */
	header: string;
}

export interface VerifierOptions {
	/** This server's name: the authserv-id of the header. */
	hostname: string;
	dns: DnsLookups;
	/** How long one message's verification may take in all, ms: lookups still going then give temperror. */
	budgetMs: number;
}

/** mailauth's DKIM `policy` (a signature this verifier does not accept) and anything unknown read as RFC 8601's `neutral`. */
const asResult = (result: unknown): AuthResult => (AUTH_RESULTS.includes(result as AuthResult) ? (result as AuthResult) : 'neutral');

const domainOf = (address: string | undefined) => address?.split('@').pop()?.toLowerCase() || null;

/** Whether `domain` is the From domain or one above or below it (alignment without the public suffix list). */
const aligned = (domain: string | null, fromDomain: string | null) =>
	!!domain && !!fromDomain && (domain === fromDomain || fromDomain.endsWith(`.${domain}`) || domain.endsWith(`.${fromDomain}`));

/** What mailauth's authenticate() gives, as far as it is read here. */
interface Authenticated {
	spf?: { domain?: string; status: { result: string } } | false;
	dkim?: {
		headerFrom?: string[];
		results?: { signingDomain?: string; selector?: string; status: { result: string; aligned?: string | false } }[];
	};
	dmarc?: { domain?: string; policy?: string; p?: string; status: { result: string } } | false;
	arc?: { status: { result: string } } | false;
	headers: string;
}

/** The record's `auth` from mailauth's results. */
export function messageAuth(result: Authenticated): MessageAuth {
	const fromDomain = domainOf(result.dkim?.headerFrom?.[0]);
	const spf = { result: result.spf ? asResult(result.spf.status.result) : 'none', domain: (result.spf && result.spf.domain) || null };
	const dkim = (result.dkim?.results ?? [])
		// An unsigned message has one result, "none", for no signature.
		.filter((signature) => signature.signingDomain)
		.map((signature) => ({
			result: asResult(signature.status.result),
			domain: signature.signingDomain!.toLowerCase(),
			selector: signature.selector ?? null,
			aligned: !!signature.status.aligned,
		}));
	const dmarc = {
		result: result.dmarc ? asResult(result.dmarc.status.result) : 'none',
		policy: (result.dmarc && (result.dmarc.p ?? result.dmarc.policy)) || null,
		domain: (result.dmarc && result.dmarc.domain) || fromDomain,
	};
	const arc = { result: result.arc ? asResult(result.arc.status.result) : 'none' };
	const withoutDmarc = dmarc.result === 'none' && dmarc.policy === null;
	const authenticated =
		dmarc.result === 'pass' ||
		(withoutDmarc &&
			((spf.result === 'pass' && aligned(spf.domain, fromDomain)) ||
				dkim.some((signature) => signature.result === 'pass' && aligned(signature.domain, fromDomain))));
	return { spf, dkim, dmarc, arc, authenticated };
}

/** Verification that could not run (the budget spent before mailauth could start, a message it cannot read at all). */
function unverifiable(hostname: string, why: string): SenderVerification {
	const auth: MessageAuth = {
		spf: { result: 'temperror', domain: null },
		dkim: [],
		dmarc: { result: 'temperror', policy: null, domain: null },
		arc: { result: 'none' },
		authenticated: false,
	};
	return { auth, header: `Authentication-Results: ${hostname}; none (${why})\r\n` };
}

/**
 * Checks who sent a received message: SPF for the client's address against the envelope sender's domain (or HELO's),
 * every DKIM signature, DMARC for the From domain and its published policy, and the ARC chain of a forwarded message.
 * BIMI is left out: it fetches logos over HTTP. Never throws: what cannot be checked in time is `temperror`.
 */
export async function verifySender(raw: RawMessage, client: SmtpClient, options: VerifierOptions): Promise<SenderVerification> {
	const deadline = Date.now() + options.budgetMs;
	const source = isSpooled(raw)
		? createReadStream(raw.spoolPath)
		: Readable.from([Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)]);
	try {
		// Loaded on the first message, not at start: mailauth and what it needs take about half a second to load.
		const { authenticate } = await import('mailauth');
		const result = (await authenticate(source, {
			ip: client.ip,
			helo: client.helo,
			sender: client.sender,
			mta: options.hostname,
			resolver: options.dns.within(deadline),
			disableBimi: true,
		})) as Authenticated;
		const headers = result.headers.endsWith('\r\n') ? result.headers : `${result.headers.replace(/\r?\n$/, '')}\r\n`;
		return { auth: messageAuth(result), header: headers.replace(/\r?\n/g, '\r\n') };
	} catch (err) {
		return unverifiable(options.hostname, `the message could not be verified: ${(err as Error).message.replace(/[\r\n;]/g, ' ')}`);
	} finally {
		source.destroy();
	}
}
