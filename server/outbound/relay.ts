import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import nodemailer, { type Mail, type MailDefaults } from 'nodemailer';
import type { SMTPPoolOptions } from 'nodemailer/lib/smtp-pool';
import { parseConnectionUrl } from 'nodemailer/lib/shared';
import { ConfigError } from '../config/settings';
import type { Outcome } from '../store/store';

export interface DkimSettings {
	domain: string;
	selector: string;
	keyFile: string;
}

/** Reads the DKIM key at start, so a bad one stops the server instead of failing every send. */
function readDkimKey(file: string): string {
	const pem = readFileSync(file, 'utf8');
	try {
		createPrivateKey(pem);
	} catch (err) {
		throw new ConfigError(`--dkim-key ${file} is not a PEM private key: ${(err as Error).message}`);
	}
	return pem;
}

/** An SMTP error as nodemailer reports it. */
interface SmtpError extends Error {
	code?: string;
	response?: string;
	responseCode?: number;
	recipient?: string;
	rejectedErrors?: SmtpError[];
}

/** Failures of the relay setup (login, TLS), not of the message: the operator fixes them, so the mail waits. */
const SETUP_ERRORS = new Set(['EAUTH', 'ETLS', 'ENOAUTH']);

/**
 * A 5xx reply is final, other failures are retried. A recipient's refusal is reported as the relay's reply;
 * a failed connection or transaction with nodemailer's message, which says which step failed.
 */
function outcomeOf(err: SmtpError): Outcome {
	const permanent = err.responseCode !== undefined && err.responseCode >= 500 && !SETUP_ERRORS.has(err.code ?? '');
	return { status: permanent ? 'permanent' : 'temporary', error: (err.recipient && err.response) || err.message };
}

/** The most connections held to the relay at once: as many as the outbox makes attempts at once (outbox.ts). */
const MAX_CONNECTIONS = 8;

/**
 * How long connections to the relay stay open once nothing is being sent. Far below the idle timeouts of SMTP servers
 * (Postfix's 300 s, smtp-server's 60 s), so a connection is never picked just as the relay drops it; long enough for the
 * recipients of one message, and the messages queued together, to share one.
 */
const IDLE_MS = 1000;

/**
 * The upstream SMTP server that takes mail for non-local domains. smtp:// upgrades with STARTTLS
 * (required when the URL carries credentials, so a password never crosses in clear text); smtps:// is TLS
 * from the start. nodemailer options may be added as URL query parameters (e.g. ?requireTLS=false).
 *
 * Each copy is a transaction of its own (its own envelope sender), but transactions share connections: sends go through
 * a nodemailer pool, made when sending starts and closed once nothing has been sent for IDLE_MS. A failed transaction
 * closes its connection (the pool does), and is never sent again by the pool (maxRequeues 0): retries are the outbox's.
 */
export class Relay {
	private readonly options: SMTPPoolOptions & { pool: true };
	private readonly defaults: MailDefaults | undefined;
	private pool: Mail | undefined;
	private sending = 0;
	private idle: NodeJS.Timeout | undefined;

	constructor(url: string, dkim?: DkimSettings) {
		const options = parseConnectionUrl(url);
		this.options = {
			requireTLS: options.secure === false && options.auth !== undefined,
			connectionTimeout: 30_000,
			greetingTimeout: 30_000,
			socketTimeout: 120_000,
			...options,
			pool: true,
			maxConnections: MAX_CONNECTIONS,
			maxRequeues: 0,
		};
		this.defaults = dkim && { dkim: { domainName: dkim.domain, keySelector: dkim.selector, privateKey: readDkimKey(dkim.keyFile) } };
	}

	/** Sends the raw message (a large one as a stream) to `to`; the outcome for each recipient, from the relay's replies. */
	async send(raw: Buffer | Readable, from: string, to: string[]): Promise<Map<string, Outcome>> {
		clearTimeout(this.idle);
		this.pool ??= nodemailer.createTransport(this.options, this.defaults);
		const pool = this.pool;
		this.sending++;
		const outcomes = new Map<string, Outcome>();
		let rejected: SmtpError[] = [];
		try {
			const info = await pool.sendMail({ envelope: { from, to }, raw });
			for (const address of to) outcomes.set(address, { status: 'delivered' });
			rejected = (info as { rejectedErrors?: SmtpError[] }).rejectedErrors ?? [];
		} catch (err) {
			const error = err as SmtpError;
			if (!error.rejectedErrors) {
				for (const address of to) outcomes.set(address, outcomeOf(error));
				return outcomes;
			}
			rejected = error.rejectedErrors;
		} finally {
			if (--this.sending === 0) this.idle = setTimeout(() => this.close(), IDLE_MS).unref();
		}
		for (const err of rejected) if (err.recipient) outcomes.set(err.recipient, outcomeOf(err));
		return outcomes;
	}

	/** Closes the connections held (those in use once their transaction ends); a later send opens new ones. */
	close(): void {
		clearTimeout(this.idle);
		this.pool?.close();
		this.pool = undefined;
	}
}
