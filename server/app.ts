import type { MailroomConfig } from './config/settings';
import { createLogger, type Logger } from './log';
import type { Recipient } from './mail/incoming-mail';
import { localDomainRule } from './mail/local-domains';
import { openDatabase, type Db } from './store/database';
import { AccountStore, type Account } from './store/accounts';
import { AddressStore } from './store/addresses';
import { MessageStore } from './store/messages';
import { DomainStore } from './store/domains';
import { AccountStatsReader } from './store/account-stats';
import { MessageDeletion } from './store/message-deletion';
import { MessageStateStore } from './store/message-state';
import { InboxSettingsStore } from './store/inbox-settings';
import { RetentionCandidates } from './store/retention-candidates';
import { AccountInbox } from './store/account-inbox';
import { AttachmentStore } from './store/attachments';
import { EncryptedInboxStore } from './store/encrypted-inboxes';
import { OutgoingStore } from './store/outgoing';
import { WebhookSubscriptionStore } from './store/webhook-subscriptions';
import { WalSync } from './store/wal-sync';
import { Checkpointer } from './store/checkpointer';
import { Ingest } from './ingest/ingest';
import { Spool } from './smtp/spool';
import { SmtpIngest } from './smtp/smtp-ingest';
import { Outbox } from './outbound/outbox';
import { Relay } from './outbound/relay';
import { Sender } from './outbound/sender';
import { Webhooks } from './webhooks/webhooks';
import { IncomingMessagesHub } from './websocket/incoming-messages-hub';
import { RetentionSweep } from './retention/retention-sweep';
import { MessageMatcher } from './store/message-matcher';
import { MailWaiters } from './waiting/mail-waiters';
import { buildHttpServer } from './http/http-server';

export interface Mailroom {
	config: MailroomConfig;
	smtpPort: number;
	httpPort: number;
	httpUrl: string;
	/** Where clients reach the API, for links in what the server sends: --public-url, else httpUrl (loopback for a wildcard host). */
	publicUrl: string;
	db: Db;
	accounts: AccountStore;
	addresses: AddressStore;
	domains: DomainStore;
	ingest: Ingest;
	http: Awaited<ReturnType<typeof buildHttpServer>>;
	/** Background deletion of old mail (started with the server). */
	retention: RetentionSweep;
	/** Requests waiting for mail (GET /api/addresses/:email/wait-for-message). */
	waiters: MailWaiters;
	/** Set on the first start of an empty database: the admin account and its only clear-text key. */
	bootstrap?: { account: Account; key: string };
	close(): Promise<void>;
}

/**
 * Creates the admin account of an empty database, so a new install is usable at once. Called once the server listens:
 * a start that fails (a port in use) leaves the database empty, and the next start makes and shows the key.
 */
function bootstrapAdmin(accounts: AccountStore): Mailroom['bootstrap'] {
	if (!accounts.isEmpty()) return undefined;
	const account = accounts.create('admin', { admin: true });
	return { account, key: accounts.createKey(account.id, 'created on first start').key };
}

/** http://host:port, the host in brackets when it is an IPv6 address. */
const urlOf = (host: string, port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

/** Listening on every interface, the server is reached on loopback by default. */
const WILDCARD_HOSTS: Record<string, string> = { '0.0.0.0': '127.0.0.1', '::': '::1' };

/** The composition root: opens the store, builds every part of the server on it, and starts them. */
export async function startMailroom(config: MailroomConfig, log: Logger = createLogger(config.logLevel)): Promise<Mailroom> {
	// First, so a bad DKIM key stops the start before anything is opened.
	const relay = config.relayUrl
		? new Relay(
				config.relayUrl,
				config.dkimDomain ? { domain: config.dkimDomain, selector: config.dkimSelector!, keyFile: config.dkimKeyFile! } : undefined,
			)
		: undefined;

	const db = openDatabase(config.dataDir);
	// durability "full": acknowledge only after the WAL is on disk; "normal": once committed.
	const walSync = config.durability === 'full' ? new WalSync(`${db.name}-wal`) : undefined;
	const durable = () => walSync?.sync() ?? Promise.resolve();
	const checkpointer = new Checkpointer(db);
	const accounts = new AccountStore(db);
	const addresses = new AddressStore(db);
	const domains = new DomainStore(db, addresses);
	const messages = new MessageStore(db);
	const deletion = new MessageDeletion(db);
	const outgoing = new OutgoingStore(db);
	const encryptedInboxes = new EncryptedInboxStore(db);
	const isOwnedDomain = (domain: string) => domains.isOwned(domain);
	const resolveRecipient = (address: string, domain: string): Recipient =>
		encryptedInboxes.resolve(address, domain) ?? { inbox: address, originalInbox: address, domain };

	const ingest = new Ingest(config, log);
	const spool = new Spool(config.dataDir, config.spoolThreshold);
	spool.sweep();
	const smtp = new SmtpIngest({
		hostname: config.hostname,
		maxMessageSize: config.maxMessageSize,
		maxClients: config.smtpMaxClients,
		maxClientsPerIp: config.smtpMaxClientsPerIp,
		maxRecipients: config.smtpMaxRecipients,
		socketTimeout: config.smtpSocketTimeout,
		bareLf: config.smtpBareLf,
		tlsCert: config.tlsCert,
		tlsKey: config.tlsKey,
		acceptsDomain: (domain) => config.domains.length === 0 || config.domains.includes(domain) || isOwnedDomain(domain),
		resolveRecipient,
		ingest,
		spool,
		log,
	});

	// Known once the server listens: a port of 0 is chosen then.
	let publicUrl = config.publicUrl ?? '';
	const whereClientsReach = () => publicUrl;

	// What stored mail sets off.
	const webhooks = new Webhooks({ db, config, ingest, messages, encryptedInboxes, publicUrl: whereClientsReach, log });
	const outbox = new Outbox({ store: outgoing, ingest, relay, resolveRecipient, retryDelays: config.relayRetryDelays, log });
	const incomingMessages = new IncomingMessagesHub({
		publicUrl: whereClientsReach,
		ingest,
		accounts,
		addresses,
		domains,
		settings: new InboxSettingsStore(db),
		messages,
		log,
	});
	const retentionLimits = {
		maxAge: config.retentionMaxAge,
		maxPerInbox: config.retentionMaxPerInbox,
		interval: config.retentionSweepInterval,
	};
	const retention = new RetentionSweep(new RetentionCandidates(db), deletion, outgoing, ingest, retentionLimits, log);
	const waiters = new MailWaiters(ingest, new MessageMatcher(db));

	const sender = new Sender({
		store: outgoing,
		outbox,
		addresses,
		messages,
		isLocalDomain: localDomainRule(config, isOwnedDomain),
		hasRelay: relay !== undefined,
		maxMessageSize: config.maxMessageSize,
	});
	const http = await buildHttpServer({
		config,
		accounts,
		addresses,
		domains,
		messages,
		deletion,
		outgoing,
		stats: new AccountStatsReader(db),
		messageState: new MessageStateStore(db),
		accountInbox: new AccountInbox(db),
		attachments: new AttachmentStore(db),
		subscriptions: new WebhookSubscriptionStore(db),
		webhooks,
		incomingMessages,
		waiters,
		encryptedInboxes,
		publicUrl: whereClientsReach,
		sender,
		log,
		durable,
	});

	let closing: Promise<void> | undefined;
	const close = () =>
		(closing ??= (async () => {
			// First: the HTTP server's close waits for every request, and a wait may have minutes left.
			waiters.close();
			await Promise.all([smtp.close(config.shutdownTimeout * 1000), http.close(), retention.stop()]);
			incomingMessages.close();
			await outbox.close(config.shutdownTimeout * 1000);
			await ingest.close();
			await webhooks.close();
			await checkpointer.close();
			walSync?.close();
			db.close();
			log.info('Mailroom stopped');
		})());

	let smtpPort: number;
	try {
		smtpPort = await smtp.listen(config.smtpPort, config.smtpHost);
		await http.listen({ port: config.httpPort, host: config.httpHost });
	} catch (err) {
		// A port in use, say: nothing of this start may linger (threads, the database) in the caller's process.
		await close();
		throw err;
	}
	const httpPort = (http.server.address() as { port: number }).port;
	publicUrl = config.publicUrl ?? urlOf(WILDCARD_HOSTS[config.httpHost] ?? config.httpHost, httpPort);
	outbox.start();
	webhooks.start();
	retention.start();
	const bootstrap = bootstrapAdmin(accounts);
	log.info(
		{ smtp: `${config.smtpHost}:${smtpPort}`, http: `${config.httpHost}:${httpPort}`, dataDir: config.dataDir },
		'Mailroom is running',
	);

	return {
		config,
		smtpPort,
		httpPort,
		httpUrl: urlOf(config.httpHost, httpPort),
		publicUrl,
		db,
		accounts,
		addresses,
		domains,
		ingest,
		http,
		retention,
		waiters,
		bootstrap,
		close,
	};
}
