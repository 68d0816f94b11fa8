import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import type { Ingest } from '../ingest/ingest';
import type { Recipient } from '../mail/incoming-mail';
import { parseEmailAddress } from '../mail/email-address';
import { readRaw } from './read-raw';
import { bareLineEnding, bareLineEndingInFile } from './bare-line-endings';
import { type Spool } from './spool';
import { isSpooled, type RawMessage } from '../bytes/spooled-bytes';
import type { SenderVerification, SmtpClient } from '../sender-auth/verify-sender';
import { prependHeader } from './prepend-header';
import type { Logger } from '../log';
import type { SmtpMetrics, SmtpRefusalReason } from '../metrics/smtp-metrics';
import { StoreUnavailableError, type Account } from '../store/store';
import { isOutOfSpace } from '../store/out-of-space';
import { ConnectionsPerIp, plainIp } from './client-address';
import { smtpError } from './smtp-error';
import { SmtpAuth, sessionUser } from './smtp-auth';
import { TimeLimits, type TimeLimit } from './time-limits';
import { ChaosFailure, type SmtpChaos } from './smtp-chaos';
import type { ChaosStage } from '../schemas/chaos-settings';

/** Where a submission session's mail goes (the outbound SmtpSubmission); its refusals carry their SMTP replies. */
export interface Submission {
	/** Recipients of one submitted message. */
	readonly maxRecipients: number;
	checkSender(account: Account, address: string): Promise<void>;
	checkRecipient(address: string): Promise<void>;
	/** Sends the message; resolves with its id in the account's sent mail. */
	submit(account: Account, envelope: { from: string; to: string[] }, raw: Buffer, client: { ip: string; via: string }): Promise<string>;
}

export interface SmtpIngestOptions {
	hostname: string;
	maxMessageSize: number;
	/** Connections open at once (smtp-server answers one more with 421). */
	maxClients: number;
	/** Connections open at once from one client address (one host cannot take every slot). */
	maxClientsPerIp: number;
	/** Recipients per transaction; the next RCPT TO gets 452. */
	maxRecipients: number;
	/** Idle time (ms) before a connection is closed with 421. */
	socketTimeout: number;
	/** Time (ms) the DATA of one message may take in all, and one connection may stay open in all; then 421. */
	dataTimeout: number;
	sessionTimeout: number;
	/** `reject`: 550 for a message with a bare CR or LF (SMTP smuggling); `accept`: store it as sent. */
	bareLf: 'reject' | 'accept';
	tlsCert?: string;
	tlsKey?: string;
	/** Where AUTH is offered, and how a password is checked (see SmtpAuth). */
	auth: { smtpHost: string; withoutTls: boolean; accountForKey: (key: string) => Promise<Account | undefined> };
	submission: Submission;
	/** Whether mail for this domain (for this address of it: a return path's domain takes only return paths) is accepted here. */
	acceptsDomain: (domain: string, address: string) => Promise<boolean>;
	/** Maps the address a message was sent to onto the inbox that holds it. */
	resolveRecipient: (address: string, domain: string) => Promise<Recipient>;
	ingest: Ingest;
	/** Told of every message that could not be stored, with why (readiness looks for a disk that is full). */
	storeFailed?: (err: Error) => void;
	/** Where messages of at least its threshold are written while they are received and stored. */
	spool: Spool;
	/**
	 * Verifies who sent a received message (SPF, DKIM, DMARC, ARC): its results, and the Authentication-Results header
	 * to put in front of the stored source. Absent when verification is off.
	 */
	verifySender?: (raw: RawMessage, client: SmtpClient) => Promise<SenderVerification>;
	/** Failures and delays on purpose, per account (see SmtpChaos); absent: none. */
	chaos?: SmtpChaos;
	log: Logger;
	metrics: SmtpMetrics;
}

/** smtp-server's connection, for the replies the listener sends on its own (time limits, shutdown). */
type Connection = SMTPServer['connections'] extends Set<infer C> ? C : never;

type Callback = (err?: Error | null) => void;

/** The SIZE=n the client declared in MAIL FROM, if any. */
function declaredSize(session: SMTPServerSession): number | undefined {
	const args = session.envelope.mailFrom ? session.envelope.mailFrom.args : false;
	const size = args ? Number((args as Record<string, string>).SIZE) : NaN;
	return Number.isInteger(size) && size > 0 ? size : undefined;
}

const clientOf = (session: SMTPServerSession) => ({ ip: plainIp(session.remoteAddress), via: plainIp(session.localAddress) });

/**
 * The SMTP listener: receives mail into inboxes and, in sessions authenticated with an API key, takes mail to send
 * (submission). Only transactions in progress hold up a shutdown: `close()` lets them finish, then says 421 to every
 * idle connection.
 */
export class SmtpIngest {
	readonly server: SMTPServer;
	private readonly inTransaction = new Set<string>();
	private readonly perIp: ConnectionsPerIp;
	private readonly auth: SmtpAuth;
	private readonly limits: TimeLimits;
	/** DATA streams still arriving, by session. */
	private readonly receiving = new Map<string, Readable>();
	/** Sessions whose message arrived whole and awaits its reply (stored or sent); a time limit then waits for the reply. */
	private readonly awaitingReply = new Set<string>();
	private readonly closeAfterReply = new Map<string, string>();
	private closing = false;

	constructor(private readonly options: SmtpIngestOptions) {
		this.perIp = new ConnectionsPerIp(options.maxClientsPerIp);
		const tls = options.tlsCert && options.tlsKey ? { cert: readFileSync(options.tlsCert), key: readFileSync(options.tlsKey) } : undefined;
		this.auth = new SmtpAuth({ ...options.auth, tls: tls !== undefined, chaos: options.chaos, log: options.log, metrics: options.metrics });
		options.metrics.countOpenSessions(() => this.server.connections.size);
		this.limits = new TimeLimits({ session: options.sessionTimeout, data: options.dataTimeout }, (id, limit) =>
			this.limitReached(id, limit),
		);
		this.server = new SMTPServer({
			name: options.hostname,
			banner: 'Mailroom',
			size: options.maxMessageSize,
			maxClients: options.maxClients,
			socketTimeout: options.socketTimeout,
			...this.auth.serverOptions(),
			...tls,
			logger: false,
			onConnect: (session, callback) => {
				const ip = plainIp(session.remoteAddress);
				if (!this.perIp.open(session.id, ip))
					return callback(this.refusal('connections', smtpError(421, `Too many connections from ${ip}, try again later`)));
				options.metrics.sessionOpened();
				this.auth.connected(session);
				this.limits.start('session', session.id);
				callback();
			},
			onSecure: (_socket, session, callback) => {
				this.auth.secured(session);
				callback();
			},
			onMailFrom: (address, session, callback) => {
				if (this.closing) return callback(this.refusal('shutdown', smtpError(421, 'Server shutting down, try again later')));
				const account = sessionUser(session)?.account;
				// Without an API key the session's account is not known yet: chaos acts from RCPT TO, per recipient.
				if (!account) return this.startTransaction(session, callback);
				this.withChaos('mailFrom', [account.id], callback, () =>
					this.answer(options.submission.checkSender(account, address.address), callback, 'sender', () =>
						this.startTransaction(session, callback),
					),
				);
			},
			onRcptTo: (address, session, callback) => {
				const account = sessionUser(session)?.account;
				const max = account ? Math.min(options.maxRecipients, options.submission.maxRecipients) : options.maxRecipients;
				if (session.envelope.rcptTo.length >= max)
					return callback(this.refusal('recipients', smtpError(452, '4.5.3 Error: too many recipients')));
				if (account)
					return this.withChaos('rcptTo', [account.id], callback, () =>
						this.answer(options.submission.checkRecipient(address.address), callback, 'route'),
					);
				const parsed = parseEmailAddress(address.address);
				if (!parsed) return callback(this.refusal('address', smtpError(553, `Invalid recipient address <${address.address}>`)));
				this.answer(
					options.acceptsDomain(parsed.domain, parsed.address).then((accepted) => {
						if (!accepted) throw smtpError(550, `Mail for ${parsed.domain} is not accepted here`);
					}),
					callback,
					'domain',
					() =>
						this.withChaos(
							'rcptTo',
							() => this.recipientAccounts([address.address]),
							callback,
							() => callback(),
						),
				);
			},
			onData: (stream, session, callback) => {
				this.receiving.set(session.id, stream);
				this.limits.start('data', session.id);
				stream.once('end', () => {
					this.receiving.delete(session.id);
					this.limits.stop('data', session.id);
					this.awaitingReply.add(session.id);
				});
				this.receive(stream, session)
					.then(
						(message) => callback(null, message),
						(err: Error) => callback(this.failure(err, session)),
					)
					.finally(() => this.transactionEnded(session.id));
			},
			onClose: (session) => {
				this.transactionEnded(session.id);
				this.limits.ended(session.id);
				this.perIp.close(session.id);
			},
		});
		this.server.on('error', (err) => options.log.warn({ err: err.message }, 'SMTP connection error'));
	}

	private startTransaction(session: SMTPServerSession, callback: Callback): void {
		this.inTransaction.add(session.id);
		callback();
	}

	/** Counts a refusal (see SMTP_REFUSAL_REASONS); returns it, for the reply. */
	private refusal<E extends Error>(reason: SmtpRefusalReason, err: E): E {
		this.options.metrics.refused(reason);
		return err;
	}

	/** Answers a command once `check` settles: its refusal (counted as `reason`) as it is, the database away with 451. */
	private answer(check: Promise<void>, callback: Callback, reason: SmtpRefusalReason, accepted: () => void = () => callback()): void {
		check.then(accepted, (err: Error & { responseCode?: number }) => {
			if (err instanceof ChaosFailure) return callback(this.refusal('chaos', err));
			if (err.responseCode) return callback(this.refusal(reason, err));
			this.options.log.warn({ err: err.message }, 'the store could not answer an SMTP command');
			const failure = err instanceof StoreUnavailableError ? 'unavailable' : 'error';
			callback(this.refusal(failure, smtpError(451, '4.3.0 Temporary failure, try again later')));
		});
	}

	/**
	 * Acts `stage` of the chaos of the command's accounts (none looked up while no account has chaos on), then goes on with
	 * `next`; a failure it draws (or the store away while looking up accounts) is the answer.
	 */
	private withChaos(
		stage: ChaosStage,
		accounts: string[] | (() => Promise<(string | null)[]>),
		callback: Callback,
		next: () => void,
	): void {
		const { chaos } = this.options;
		if (!chaos || chaos.idle) return next();
		const acting = Array.isArray(accounts) ? chaos.at(stage, accounts) : accounts().then((ids) => chaos.at(stage, ids));
		this.answer(acting, callback, 'chaos', next);
	}

	/** The accounts the mail to these recipients belongs to (null: public), while some account has chaos on. */
	private recipientAccounts(addresses: string[]): Promise<(string | null)[]> {
		const { chaos } = this.options;
		return chaos ? Promise.all(addresses.map((address) => chaos.ownerOf(address))) : Promise.resolve([]);
	}

	/** The reply to a DATA that failed, logged as what it is (a refusal with a reply of its own was counted where it was made). */
	private failure(err: Error & { responseCode?: number; code?: string }, session: SMTPServerSession): Error {
		if (err instanceof ChaosFailure) return this.refusal('chaos', err);
		if (err.responseCode) return err;
		const { ip } = clientOf(session);
		if (err.code === 'ECONNECTION') {
			// The client went away: nothing of the message is kept, and no one hears a reply.
			this.options.log.warn({ ip }, 'SMTP client disconnected in the middle of DATA');
			return err;
		}
		this.options.storeFailed?.(err);
		// The database away (PostgreSQL): expected, and temporary for the sender, as for the API's 503.
		const unavailable = err instanceof StoreUnavailableError;
		if (unavailable) this.options.log.warn({ err: err.message }, 'the store is unavailable');
		else if (isOutOfSpace(err)) this.options.log.warn({ err: err.message, ip }, 'a message could not be stored for lack of disk space');
		else
			this.options.log.error(
				{ err, ip },
				sessionUser(session)?.account ? 'sending a submitted message failed' : 'storing a message failed',
			);
		return this.refusal(unavailable ? 'unavailable' : 'error', smtpError(451, '4.3.0 Temporary failure, try again later'));
	}

	private transactionEnded(sessionId: string): void {
		this.inTransaction.delete(sessionId);
		this.receiving.delete(sessionId);
		this.limits.stop('data', sessionId);
		this.awaitingReply.delete(sessionId);
		const text = this.closeAfterReply.get(sessionId);
		this.closeAfterReply.delete(sessionId);
		if (text) this.connection(sessionId)?.send(421, text);
	}

	/** A time limit reached: 421 and the connection closed; DATA still arriving is cut (and its spool file removed). */
	private limitReached(sessionId: string, limit: TimeLimit): void {
		const connection = this.connection(sessionId);
		if (!connection) return;
		const text =
			limit === 'data'
				? `4.4.2 Message not received in full within ${this.limits.describe('data')}, closing connection`
				: `4.4.2 Connection open for ${this.limits.describe('session')}, the most allowed, closing connection`;
		this.options.log.warn({ ip: clientOf(connection.session).ip, limit }, 'an SMTP time limit was reached: the connection is closed');
		this.options.metrics.refused('timeout');
		const stream = this.receiving.get(sessionId);
		// Its reading ends in an error carrying the 421, which onData answers with.
		if (stream) stream.destroy(smtpError(421, text));
		// A message received whole gets its reply first: cut now, its sender would send it again though it may be stored.
		else if (this.awaitingReply.has(sessionId)) this.closeAfterReply.set(sessionId, text);
		else connection.send(421, text);
	}

	private connection(sessionId: string): Connection | undefined {
		for (const connection of this.server.connections) if (connection.session.id === sessionId) return connection;
		return undefined;
	}

	private async receive(stream: Parameters<typeof readRaw>[0], session: SMTPServerSession): Promise<string> {
		const account = sessionUser(session)?.account;
		// Submitted mail is kept whole in the outbox, so it is read into memory, as the API's composed messages are.
		const raw = await readRaw(stream, this.options.maxMessageSize, declaredSize(session), account ? undefined : this.options.spool);
		const dataEnded = performance.now();
		if (!raw) throw this.refusal('size', smtpError(552, `Message exceeds the maximum size of ${this.options.maxMessageSize} bytes`));
		try {
			const bare =
				this.options.bareLf === 'reject' ? (isSpooled(raw) ? await bareLineEndingInFile(raw.spoolPath) : bareLineEnding(raw)) : null;
			if (bare) throw this.refusal('bare_lf', smtpError(550, `5.5.2 Error: bare <${bare}> received`));
			if (this.options.chaos && !this.options.chaos.idle) await this.dataChaos(this.options.chaos, session);
			return account ? await this.submit(account, raw as Buffer, session) : await this.store(raw, session, dataEnded);
		} finally {
			// Once stored (or refused), the database holds all that is kept of it: the spool files go either way.
			if (isSpooled(raw)) this.options.spool.remove(raw);
		}
	}

	/** The chaos of the message's accounts at the end of DATA: its session's, else its recipients' owners'. */
	private async dataChaos(chaos: SmtpChaos, session: SMTPServerSession): Promise<void> {
		const account = sessionUser(session)?.account;
		const accounts = account ? [account.id] : await this.recipientAccounts(session.envelope.rcptTo.map((rcpt) => rcpt.address));
		await chaos.at('data', accounts);
	}

	private async submit(account: Account, raw: Buffer, session: SMTPServerSession): Promise<string> {
		const envelope = {
			from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
			to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
		};
		let id: string;
		try {
			id = await this.options.submission.submit(account, envelope, raw, clientOf(session));
		} catch (err) {
			// Refused (sender, credits, size, header): counted here; other failures are counted by what answers them.
			if ((err as { responseCode?: number }).responseCode) this.options.metrics.refused('submission');
			throw err;
		}
		this.options.metrics.messageAccepted('submitted');
		return `OK: queued as ${id}`;
	}

	/** Stores a received message; `dataEnded` (performance.now()) is when its DATA ended. */
	private async store(raw: RawMessage, session: SMTPServerSession, dataEnded: number): Promise<string> {
		const recipients = new Map<string, Recipient>();
		for (const { address } of session.envelope.rcptTo) {
			const parsed = parseEmailAddress(address)!;
			const recipient = await this.options.resolveRecipient(parsed.address, parsed.domain);
			recipients.set(recipient.inbox, recipient);
		}
		const client = clientOf(session);
		const verified = await this.options.verifySender?.(raw, {
			ip: client.ip,
			helo: session.hostNameAppearsAs ?? '',
			sender: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
		});
		const records = await this.options.ingest.store({
			raw: verified ? await prependHeader(raw, verified.header) : raw,
			recipients: [...recipients.values()],
			...client,
			rtls: session.secure,
			...(verified && { auth: verified.auth }),
		});
		this.options.metrics.messageAccepted('received');
		this.options.metrics.durableAfter((performance.now() - dataEnded) / 1000);
		return `OK: stored as ${records.map((record) => record._id).join(' ')}`;
	}

	/** Whether the listener accepts connections now. */
	get listening(): boolean {
		return this.server.server.listening;
	}

	listen(port: number, host: string): Promise<number> {
		return new Promise((resolve, reject) => {
			this.server.server.once('error', reject);
			this.server.listen(port, host, () => {
				this.server.server.off('error', reject);
				resolve((this.server.server.address() as { port: number }).port);
			});
		});
	}

	/** Stops accepting, lets transactions in progress finish (up to `timeoutMs`), then closes. */
	async close(timeoutMs: number): Promise<void> {
		this.closing = true;
		const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
		const deadline = Date.now() + timeoutMs;
		const connections = this.server.connections;
		while (connections.size && Date.now() < deadline) {
			for (const connection of connections) {
				if (!this.inTransaction.has(connection.session.id)) {
					connection.send(421, 'Server shutting down');
					connection.close();
				}
			}
			await new Promise((resolve) => setTimeout(resolve, 25));
		}
		for (const connection of connections) {
			connection.send(421, 'Server shutting down');
			connection.close();
		}
		await closed;
	}
}
