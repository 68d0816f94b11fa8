import ipaddr from 'ipaddr.js';
import type { SMTPServerAuthentication, SMTPServerOptions, SMTPServerSession } from 'smtp-server';
import type { Account } from '../store/store';
import type { Logger } from '../log';
import type { SmtpMetrics } from '../metrics/smtp-metrics';
import { FailedAuthLimit, clientGroup } from './failed-auth-limit';
import { plainIp } from './client-address';
import { smtpError } from './smtp-error';
import { ChaosFailure, type SmtpChaos } from './smtp-chaos';

/** Who a session authenticated as: any name (accept-any), and the account when the password was one of its API keys. */
export interface SessionUser {
	username: string;
	account?: Account;
}

/** The user of a session, if it authenticated. */
export const sessionUser = (session: SMTPServerSession) => (session.user || undefined) as SessionUser | undefined;

/** A password that starts so is taken for an API key (keys are "mr_" and 32 characters): one cut short or mistyped is refused. */
const KEY_PREFIX = 'mr_';

/** Whether the listener's host is a loopback address (or `localhost`): only this machine reaches it. */
export function isLoopbackHost(host: string): boolean {
	if (host === 'localhost') return true;
	return ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback';
}

export interface SmtpAuthOptions {
	/** Whether STARTTLS is offered (--tls-cert and --tls-key): AUTH is always offered once it is in force. */
	tls: boolean;
	/** The listener's host: on a loopback address AUTH is offered without TLS too. */
	smtpHost: string;
	/** --smtp-auth-without-tls: offer AUTH without TLS on any address. */
	withoutTls: boolean;
	/** The account of an active API key. */
	accountForKey: (key: string) => Promise<Account | undefined>;
	/** The chaos of an account acts on AUTH with its API key, once the key is checked (see SmtpChaos). */
	chaos?: SmtpChaos;
	log: Logger;
	metrics: Pick<SmtpMetrics, 'authenticated' | 'refused'>;
}

/**
 * SMTP AUTH (PLAIN and LOGIN). Any credentials are accepted, as Mailpit's accept-any mode does, and the session then
 * delivers to local inboxes as an unauthenticated one does; with one of an account's API keys as the password (any user
 * name), it is a submission session of that account (see SmtpSubmission). A password that starts with "mr_" and is no
 * active key is refused (535), so a mistyped key is noticed; such failures are limited per client (454 once it has made
 * too many; a right key from it still gets through).
 *
 * Offered after STARTTLS, and without TLS only on a loopback listener or with --smtp-auth-without-tls, so that keys
 * do not cross a network in clear text. Where it is not offered it is not advertised either (RFC 4954 section 4).
 */
export class SmtpAuth {
	/** Whether AUTH is offered on connections without TLS. */
	readonly offeredWithoutTls: boolean;
	private readonly failures = new FailedAuthLimit();

	constructor(private readonly options: SmtpAuthOptions) {
		this.offeredWithoutTls = options.withoutTls || isLoopbackHost(options.smtpHost);
	}

	/** The smtp-server options that offer AUTH where it is offered. */
	serverOptions(): Pick<SMTPServerOptions, 'authMethods' | 'authOptional' | 'allowInsecureAuth' | 'disabledCommands' | 'onAuth'> {
		const { tls } = this.options;
		return {
			authMethods: ['PLAIN', 'LOGIN'],
			// Mail is accepted without AUTH, as before: AUTH only adds submission.
			authOptional: true,
			allowInsecureAuth: this.offeredWithoutTls,
			disabledCommands: tls ? [] : this.offeredWithoutTls ? ['STARTTLS'] : ['AUTH', 'STARTTLS'],
			onAuth: (auth, session, callback) => {
				this.authenticate(auth, session)
					.then(async (user) => {
						if (user.account && this.options.chaos && !this.options.chaos.idle) await this.options.chaos.at('auth', [user.account.id]);
						return user;
					})
					.then(
						(user: SessionUser) => callback(null, { user }),
						(err: Error) => {
							if (err instanceof ChaosFailure) this.options.metrics.refused('chaos');
							callback(err);
						},
					);
			},
		};
	}

	/** A new connection: without TLS yet, AUTH is hidden unless it is offered without TLS. */
	connected(session: SMTPServerSession): void {
		if (this.options.tls && !this.offeredWithoutTls) session.disabledCommands = ['AUTH'];
	}

	/** STARTTLS done: AUTH is offered. */
	secured(session: SMTPServerSession): void {
		session.disabledCommands = undefined;
	}

	private async authenticate(auth: SMTPServerAuthentication, session: SMTPServerSession): Promise<SessionUser> {
		const { metrics } = this.options;
		const username = auth.username ?? '';
		const password = auth.password ?? '';
		if (!password.startsWith(KEY_PREFIX)) {
			metrics.authenticated('any_password');
			return { username };
		}
		const ip = plainIp(session.remoteAddress);
		const client = clientGroup(ip);
		let account: Account | undefined;
		try {
			account = await this.options.accountForKey(password);
		} catch (err) {
			metrics.authenticated('unavailable');
			this.options.log.warn({ err: (err as Error).message }, 'the store could not check an API key given to SMTP AUTH');
			throw smtpError(454, '4.7.0 Temporary authentication failure, try again later');
		}
		if (!account && this.failures.blocked(client)) {
			metrics.authenticated('blocked');
			throw smtpError(454, `4.7.0 Too many failed authentication attempts from ${client}, try again later`);
		}
		if (!account) {
			metrics.authenticated('invalid_key');
			this.failures.failed(client);
			this.options.log.info({ ip, username }, 'SMTP AUTH with an unknown or revoked API key');
			throw smtpError(
				535,
				'5.7.8 Authentication credentials invalid: the password starts with mr_ but is no active API key (to deliver to local inboxes only, use any other password)',
			);
		}
		metrics.authenticated('api_key');
		return { username, account };
	}
}
