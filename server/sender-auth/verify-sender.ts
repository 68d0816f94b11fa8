import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { isSpooled, spooledStart, type RawMessage } from '../bytes/spooled-bytes';
import { AUTH_RESULTS, type AuthResult, type MessageAuth } from '../schemas/sender-auth';
import type { DnsLookups } from './dns-lookups';
import { unsignedKey, type UnsignedResults } from './unsigned-results';

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
	/** Where the results of unsigned mail are kept for the next message of the same sender. */
	unsignedResults?: UnsignedResults;
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
		results?: { signingDomain?: string; selector?: string; status: { result: string; comment?: string; aligned?: string | false } }[];
	};
	dmarc?: { domain?: string; policy?: string; p?: string; status: { result: string } } | false;
	arc?: { status: { result: string } } | false;
	headers: string;
}

/** mailauth's comment on a signature whose body no longer matches its hash. */
const BODY_HASH_MISMATCH = 'body hash did not verify';

/**
 * A signed body that was changed fails its signature (RFC 6376 6.1.3, RFC 8601 2.7.1); mailauth's default mode says
 * neutral (its strict mode, which changes much else, says fail).
 */
const alteredBody = (status: { result: string; comment?: string }) => status.result === 'neutral' && status.comment === BODY_HASH_MISMATCH;

/** The Authentication-Results entries as the record reads them: an altered body's signature fails there too. */
const withAlteredBodiesFailed = (headers: string) =>
	headers.replaceAll(`dkim=neutral (${BODY_HASH_MISMATCH})`, `dkim=fail (${BODY_HASH_MISMATCH})`);

/** The record's `auth` from mailauth's results. */
export function messageAuth(result: Authenticated): MessageAuth {
	const fromDomain = domainOf(result.dkim?.headerFrom?.[0]);
	const spf = { result: result.spf ? asResult(result.spf.status.result) : 'none', domain: (result.spf && result.spf.domain) || null };
	const dkim = (result.dkim?.results ?? [])
		// An unsigned message has one result, "none", for no signature.
		.filter((signature) => signature.signingDomain)
		.map((signature) => ({
			result: alteredBody(signature.status) ? 'fail' : asResult(signature.status.result),
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
 * BIMI is left out: it fetches logos over HTTP. Never throws: what cannot be checked in time is `temperror`, and should
 * mailauth still not be done shortly after the budget (a message too large to hash in time), every check is.
 */
export async function verifySender(raw: RawMessage, client: SmtpClient, options: VerifierOptions): Promise<SenderVerification> {
	const unsigned = unsignedHeaderBlock(raw);
	const key = unsigned && options.unsignedResults ? unsignedKey(client, unsigned.toString('latin1')) : undefined;
	const known = key === undefined ? undefined : options.unsignedResults!.get(key);
	if (known) return known;
	const verified = await verifyWithMailauth(raw, unsigned, client, options);
	if (key !== undefined) options.unsignedResults!.set(key, verified);
	return verified;
}

async function verifyWithMailauth(
	raw: RawMessage,
	unsigned: Buffer | null,
	client: SmtpClient,
	options: VerifierOptions,
): Promise<SenderVerification> {
	const deadline = Date.now() + options.budgetMs;
	// Its errors reach mailauth, which ends with them; this listener only keeps a late one (after giving up) unhandled-free.
	const source = (unsigned ? Readable.from([unsigned]) : isSpooled(raw) ? createReadStream(raw.spoolPath) : inPieces(raw)).on(
		'error',
		() => undefined,
	);
	let backstop: NodeJS.Timeout | undefined;
	try {
		const mailauth = await loadMailauth();
		const envelope = {
			ip: client.ip,
			helo: client.helo,
			sender: client.sender,
			mta: options.hostname,
			resolver: options.dns.within(deadline),
		};
		const checks = mailauth.authenticate(source, { ...envelope, disableBimi: true }) as Promise<Authenticated>;
		checks.catch(() => undefined);
		// mailauth checks SPF only once every DKIM key lookup is done. Started now too, SPF's lookups are cached by the time
		// authenticate asks (answers at hand come past the budget too), so a DKIM key that never comes leaves SPF its result.
		if (!unsigned) void mailauth.spf(envelope).catch(() => undefined);
		const gaveUp = new Promise<undefined>((settle) => {
			backstop = setTimeout(() => settle(undefined), Math.max(0, deadline - Date.now()) + BACKSTOP_GRACE_MS);
		});
		const result = await Promise.race([checks, gaveUp]);
		if (!result) return unverifiable(options.hostname, 'verification did not finish in time');
		const headers = result.headers.endsWith('\r\n') ? result.headers : `${result.headers.replace(/\r?\n$/, '')}\r\n`;
		return { auth: messageAuth(result), header: withAlteredBodiesFailed(headers.replace(/\r?\n/g, '\r\n')) };
	} catch (err) {
		return unverifiable(options.hostname, `the message could not be verified: ${(err as Error).message.replace(/[\r\n;]/g, ' ')}`);
	} finally {
		clearTimeout(backstop);
		// With an error, so a mailauth still reading it (given up on) ends instead of waiting for the rest.
		source.destroy(new Error('sender verification is over'));
	}
}

/** Header fields whose checks need the body (its hash): a message without one is checked from its header block alone. */
const BODY_SIGNATURE = /^(?:DKIM-Signature|ARC-Message-Signature|ARC-Seal)[ \t]*:/im;
/** How far into a message its header block is looked for; a longer one is read with its body. */
const HEADER_LOOK_BYTES = 64 * 1024;

/**
 * The header block (with the blank line that ends it) of a message that carries no DKIM or ARC signature, or null when
 * one must be verified against the body. Without signatures SPF, DMARC and ARC need only the header fields: reading and
 * hashing the body was most of what verification cost a message.
 */
function unsignedHeaderBlock(raw: RawMessage): Buffer | null {
	const start = isSpooled(raw)
		? spooledStart(raw, HEADER_LOOK_BYTES)
		: Buffer.from(raw.buffer, raw.byteOffset, Math.min(raw.byteLength, HEADER_LOOK_BYTES));
	const text = start.toString('latin1');
	// A message of header fields only (no blank line, all of it looked at) is its own header block.
	const headerBytes = headerEnd(text) ?? (start.byteLength === raw.byteLength ? text.length : null);
	if (headerBytes === null || BODY_SIGNATURE.test(text.slice(0, headerBytes))) return null;
	return start.subarray(0, headerBytes);
}

/** Where the header block ends (after its blank line, CRLF or bare LF), or null when `text` holds no blank line. */
function headerEnd(text: string): number | null {
	const crlf = text.indexOf('\r\n\r\n');
	const lf = text.indexOf('\n\n');
	if (crlf < 0 && lf < 0) return null;
	if (lf < 0 || (crlf >= 0 && crlf < lf)) return crlf + 4;
	return lf + 2;
}

/** How long past the budget mailauth may take to finish once its lookups are cut (hashing, the checks after DNS). */
const BACKSTOP_GRACE_MS = 250;

let mailauthModule: Promise<typeof import('mailauth')> | undefined;
/** mailauth, loaded on the first message, not at start: it and what it needs take about half a second to load. */
const loadMailauth = () => (mailauthModule ??= import('mailauth'));

/**
 * A message in memory as a stream of 64 KB pieces, one per turn of the event loop. Given one buffer, mailauth hashes it
 * in pieces too, but each as soon as the last is done: 25 MB held the event loop for about a second.
 */
function inPieces(raw: Uint8Array): Readable {
	return Readable.from(
		(async function* () {
			for (let at = 0; at < raw.byteLength; at += PIECE_BYTES) {
				yield Buffer.from(raw.buffer, raw.byteOffset + at, Math.min(PIECE_BYTES, raw.byteLength - at));
				await nextTurn();
			}
		})(),
		{ objectMode: false },
	);
}

const PIECE_BYTES = 64 * 1024;
