import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import nodemailer, { type Mail } from 'nodemailer';
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

/**
 * The upstream SMTP server that takes mail for non-local domains. smtp:// upgrades with STARTTLS
 * (required when the URL carries credentials, so a password never crosses in clear text); smtps:// is TLS
 * from the start. nodemailer options may be added as URL query parameters (e.g. ?requireTLS=false).
 */
export class Relay {
	private readonly transport: Mail;

	constructor(url: string, dkim?: DkimSettings) {
		const options = parseConnectionUrl(url);
		this.transport = nodemailer.createTransport(
			{
				requireTLS: options.secure === false && options.auth !== undefined,
				connectionTimeout: 30_000,
				greetingTimeout: 30_000,
				socketTimeout: 120_000,
				...options,
			},
			dkim && { dkim: { domainName: dkim.domain, keySelector: dkim.selector, privateKey: readDkimKey(dkim.keyFile) } },
		);
	}

	/** Sends the raw message (a large one as a stream) to `to`; the outcome for each recipient, from the relay's replies. */
	async send(raw: Buffer | Readable, from: string, to: string[]): Promise<Map<string, Outcome>> {
		const outcomes = new Map<string, Outcome>();
		let rejected: SmtpError[] = [];
		try {
			const info = await this.transport.sendMail({ envelope: { from, to }, raw });
			for (const address of to) outcomes.set(address, { status: 'delivered' });
			rejected = (info as { rejectedErrors?: SmtpError[] }).rejectedErrors ?? [];
		} catch (err) {
			const error = err as SmtpError;
			if (!error.rejectedErrors) {
				for (const address of to) outcomes.set(address, outcomeOf(error));
				return outcomes;
			}
			rejected = error.rejectedErrors;
		}
		for (const err of rejected) if (err.recipient) outcomes.set(err.recipient, outcomeOf(err));
		return outcomes;
	}

	close(): void {
		this.transport.close();
	}
}
