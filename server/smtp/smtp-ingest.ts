import { readFileSync } from 'node:fs';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import type { Ingest } from '../ingest/ingest';
import type { Recipient } from '../mail/incoming-mail';
import { parseEmailAddress } from '../mail/email-address';
import { readRaw } from './read-raw';
import { bareLineEnding, bareLineEndingInFile } from './bare-line-endings';
import { type Spool } from './spool';
import { isSpooled, type RawMessage } from '../bytes/spooled-bytes';
import type { Logger } from '../log';
import { StoreUnavailableError } from '../store/store';

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
	/** `reject`: 550 for a message with a bare CR or LF (SMTP smuggling); `accept`: store it as sent. */
	bareLf: 'reject' | 'accept';
	tlsCert?: string;
	tlsKey?: string;
	/** Whether mail for this domain is accepted here. */
	acceptsDomain: (domain: string) => Promise<boolean>;
	/** Maps the address a message was sent to onto the inbox that holds it. */
	resolveRecipient: (address: string, domain: string) => Promise<Recipient>;
	ingest: Ingest;
	/** Where messages of at least its threshold are written while they are received and stored. */
	spool: Spool;
	log: Logger;
}

function smtpError(responseCode: number, message: string): Error & { responseCode: number } {
	return Object.assign(new Error(message), { responseCode });
}

/** The SIZE=n the client declared in MAIL FROM, if any. */
function declaredSize(session: SMTPServerSession): number | undefined {
	const args = session.envelope.mailFrom ? session.envelope.mailFrom.args : false;
	const size = args ? Number((args as Record<string, string>).SIZE) : NaN;
	return Number.isInteger(size) && size > 0 ? size : undefined;
}

/** IPv4 clients reach a dual-stack socket as ::ffff:a.b.c.d; report the plain address. */
function plainIp(address: string | undefined): string {
	return (address ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
}

/** Counts open connections per client address; a session is counted only once it was let in. */
class ConnectionsPerIp {
	private readonly counts = new Map<string, number>();
	private readonly ipOf = new Map<string, string>();

	constructor(private readonly max: number) {}

	open(sessionId: string, ip: string): boolean {
		const count = this.counts.get(ip) ?? 0;
		if (count >= this.max) return false;
		this.counts.set(ip, count + 1);
		this.ipOf.set(sessionId, ip);
		return true;
	}

	close(sessionId: string): void {
		const ip = this.ipOf.get(sessionId);
		if (ip === undefined) return;
		this.ipOf.delete(sessionId);
		const count = this.counts.get(ip)! - 1;
		if (count) this.counts.set(ip, count);
		else this.counts.delete(ip);
	}
}

/**
 * The SMTP listener. Only transactions in progress hold up a shutdown: `close()` lets them
 * finish, then says 421 to every idle connection.
 */
export class SmtpIngest {
	readonly server: SMTPServer;
	private readonly inTransaction = new Set<string>();
	private readonly perIp: ConnectionsPerIp;
	private closing = false;

	constructor(private readonly options: SmtpIngestOptions) {
		this.perIp = new ConnectionsPerIp(options.maxClientsPerIp);
		const tls = options.tlsCert && options.tlsKey ? { cert: readFileSync(options.tlsCert), key: readFileSync(options.tlsKey) } : undefined;
		this.server = new SMTPServer({
			name: options.hostname,
			banner: 'Mailroom',
			size: options.maxMessageSize,
			maxClients: options.maxClients,
			socketTimeout: options.socketTimeout,
			authOptional: true,
			disabledCommands: tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
			...tls,
			logger: false,
			onConnect: (session, callback) => {
				const ip = plainIp(session.remoteAddress);
				if (!this.perIp.open(session.id, ip)) return callback(smtpError(421, `Too many connections from ${ip}, try again later`));
				callback();
			},
			onMailFrom: (_address, session, callback) => {
				if (this.closing) return callback(smtpError(421, 'Server shutting down, try again later'));
				this.inTransaction.add(session.id);
				callback();
			},
			onRcptTo: (address, session, callback) => {
				if (session.envelope.rcptTo.length >= options.maxRecipients) return callback(smtpError(452, '4.5.3 Error: too many recipients'));
				const parsed = parseEmailAddress(address.address);
				if (!parsed) return callback(smtpError(553, `Invalid recipient address <${address.address}>`));
				options.acceptsDomain(parsed.domain).then(
					(accepted) => callback(accepted ? undefined : smtpError(550, `Mail for ${parsed.domain} is not accepted here`)),
					(err: Error) => {
						options.log.warn({ err: err.message }, 'the store could not tell whether a domain is accepted');
						callback(smtpError(451, '4.3.0 Temporary failure, try again later'));
					},
				);
			},
			onData: (stream, session, callback) => {
				this.receive(stream, session)
					.then((message) => callback(null, message))
					.catch((err: Error & { responseCode?: number }) => {
						// The database away (PostgreSQL): expected, and temporary for the sender, as for the API's 503.
						if (err instanceof StoreUnavailableError) options.log.warn({ err: err.message }, 'the store is unavailable');
						else if (!err.responseCode) options.log.error({ err }, 'storing a message failed');
						callback(err.responseCode ? err : smtpError(451, 'Temporary failure storing the message, try again later'));
					})
					.finally(() => this.inTransaction.delete(session.id));
			},
			onClose: (session) => {
				this.inTransaction.delete(session.id);
				this.perIp.close(session.id);
			},
		});
		this.server.on('error', (err) => options.log.warn({ err: err.message }, 'SMTP connection error'));
	}

	private async receive(stream: Parameters<typeof readRaw>[0], session: SMTPServerSession): Promise<string> {
		const raw = await readRaw(stream, this.options.maxMessageSize, declaredSize(session), this.options.spool);
		if (!raw) throw smtpError(552, `Message exceeds the maximum size of ${this.options.maxMessageSize} bytes`);
		if (!isSpooled(raw)) return this.store(raw, session);
		// Once stored (or refused), the database holds all that is kept of it: the spool files go either way.
		try {
			return await this.store(raw, session);
		} finally {
			this.options.spool.remove(raw);
		}
	}

	private async store(raw: RawMessage, session: SMTPServerSession): Promise<string> {
		const bare =
			this.options.bareLf === 'reject' ? (isSpooled(raw) ? await bareLineEndingInFile(raw.spoolPath) : bareLineEnding(raw)) : null;
		if (bare) throw smtpError(550, `5.5.2 Error: bare <${bare}> received`);
		const recipients = new Map<string, Recipient>();
		for (const { address } of session.envelope.rcptTo) {
			const parsed = parseEmailAddress(address)!;
			const recipient = await this.options.resolveRecipient(parsed.address, parsed.domain);
			recipients.set(recipient.inbox, recipient);
		}
		const records = await this.options.ingest.store({
			raw,
			recipients: [...recipients.values()],
			ip: plainIp(session.remoteAddress),
			via: plainIp(session.localAddress),
			rtls: session.secure,
		});
		return `OK: stored as ${records.map((record) => record._id).join(' ')}`;
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
		const connections = (
			this.server as unknown as { connections: Set<{ session: { id: string }; send(code: number, text: string): void; close(): void }> }
		).connections;
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
