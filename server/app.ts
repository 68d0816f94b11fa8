import type { MailroomConfig } from './config/settings';
import { createLogger, type Logger } from './log';
import type { Recipient } from './mail/incoming-mail';
import { localDomainRule } from './mail/local-domains';
import { withoutPlusTag } from './mail/plus-address';
import { randomBytes } from 'node:crypto';
import type { Account, AccountStore, AddressStore, DomainStore, Store } from './store/store';
import { openStore } from './store/open-store';
import { Ingest } from './ingest/ingest';
import { Spool } from './smtp/spool';
import { SmtpIngest } from './smtp/smtp-ingest';
import { Outbox } from './outbound/outbox';
import { Relay } from './outbound/relay';
import { Sender } from './outbound/sender';
import { SmtpSubmission } from './outbound/smtp-submission';
import { Webhooks } from './webhooks/webhooks';
import { IncomingMessagesHub } from './websocket/incoming-messages-hub';
import { RetentionSweep } from './retention/retention-sweep';
import { MailWaiters } from './waiting/mail-waiters';
import { buildHttpServer } from './http/http-server';
import { Readiness } from './http/readiness';
import { Metrics } from './metrics/metrics';
import { MetricsListener } from './metrics/metrics-listener';
import { registerQueueGauges } from './metrics/queue-gauges';
import { registerStoreGauges } from './metrics/store-gauges';

export interface Mailroom {
	config: MailroomConfig;
	smtpPort: number;
	httpPort: number;
	httpUrl: string;
	/** Where Prometheus scrapes (`${metricsUrl}/metrics`) with --metrics-port; undefined when metrics are not served. */
	metricsUrl?: string;
	/** Where clients reach the API, for links in what the server sends: --public-url, else httpUrl (loopback for a wildcard host). */
	publicUrl: string;
	/** This process among the nodes of its database (leases and announcements name it). */
	node: string;
	store: Store;
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
async function bootstrapAdmin(store: Store): Promise<Mailroom['bootstrap']> {
	// Several nodes starting at once on a new database: one of them makes it.
	return store.exclusive('bootstrap', async () => {
		const { accounts } = store;
		if (!(await accounts.isEmpty())) return undefined;
		const account = await accounts.create('admin', { admin: true });
		return { account, key: (await accounts.createKey(account.id, 'created on first start')).key };
	});
}

/**
 * Tells the other nodes of the database (if any) that the work this one held is free: the outbox and the webhook queue gave
 * their leases back as they closed, and the others take the work up at once rather than when they would have looked next.
 */
async function handOverWork(store: Store, log: Logger): Promise<void> {
	try {
		await store.transaction((parts) => parts.announce({ messages: [], webhooks: true, forwards: true }));
	} catch (err) {
		log.warn({ err: (err as Error).message }, 'the other nodes could not be told of the work this one gave back');
	}
}

/** A name for this process among the nodes of its database: its host, and random bytes so restarts differ. */
const newNodeId = (host: string) => `${host}-${randomBytes(4).toString('hex')}`;

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

	const node = newNodeId(config.hostname);
	const store = await openStore(config, 'server', node, log);
	const { accounts, addresses, domains, messages, deletion, outgoing, encryptedInboxes } = store;
	const isOwnedDomain = (domain: string) => domains.isOwned(domain);
	// With --plus-addressing, name+tag@domain is kept in name@domain's inbox (an encrypted address's too).
	const resolveRecipient = async (address: string, domain: string): Promise<Recipient> => {
		const inbox = config.plusAddressing ? withoutPlusTag(address) : address;
		return { inbox: (await encryptedInboxes.resolve(inbox, domain))?.inbox ?? inbox, originalInbox: address, domain };
	};

	const metrics = new Metrics();
	const ingest = new Ingest({ ...config, node }, log);
	metrics.ingest.observe(ingest);
	const spool = new Spool(config.dataDir, config.spoolThreshold);
	spool.sweep();

	// Known once the server listens: a port of 0 is chosen then.
	let publicUrl = config.publicUrl ?? '';
	const whereClientsReach = () => publicUrl;

	// What stored mail sets off.
	const webhooks = new Webhooks({
		deliveries: store.webhookDeliveries,
		secrets: store.webhookSecrets,
		messages,
		encryptedInboxes,
		accounts,
		config,
		ingest,
		node,
		exclusive: (name, task) => store.exclusive(name, task),
		publicUrl: whereClientsReach,
		log,
		metrics: metrics.webhooks,
	});
	const outbox = new Outbox({
		store: outgoing,
		ingest,
		node,
		lease: config.workLease,
		relay,
		resolveRecipient,
		retryDelays: config.relayRetryDelays,
		log,
	});
	const incomingMessages = new IncomingMessagesHub({
		publicUrl: whereClientsReach,
		ingest,
		accounts,
		addresses,
		domains,
		settings: store.inboxSettings,
		messages,
		log,
	});
	const retentionLimits = {
		maxAge: config.retentionMaxAge,
		maxPerInbox: config.retentionMaxPerInbox,
		interval: config.retentionSweepInterval,
	};
	const retention = new RetentionSweep(
		store.retentionCandidates,
		deletion,
		outgoing,
		(name, task) => store.exclusive(name, task),
		ingest,
		retentionLimits,
		log,
	);
	const waiters = new MailWaiters(ingest, store.matcher);
	// Mail other nodes store wakes this node's websockets, waiters and queues as its own does.
	store.onAnnouncement((announcement) => {
		if (announcement.webhooks) webhooks.lookForWork();
		if (announcement.forwards) outbox.lookForWork();
		if (announcement.messages.length === 0) return;
		void messages.byIds(announcement.messages.map((message) => message.id)).then(
			(records) => ingest.storedByAnotherNode(records, { webhookMessageIds: [], forwardIds: [] }),
			(err: Error) => log.warn({ err: err.message }, 'mail stored by another node could not be read'),
		);
	});
	// Mail other nodes stored while this one did not hear them: requests waiting for mail look again. (The queues need no
	// such call: the node that stored the mail takes its deliveries, and any node finds due work when it looks next.)
	store.onAnnouncementsMissed(() => waiters.recheckAll());

	const sender = new Sender({
		store: outgoing,
		outbox,
		addresses,
		messages,
		isLocalDomain: localDomainRule(config, isOwnedDomain),
		hasRelay: relay !== undefined,
		maxMessageSize: config.maxMessageSize,
	});
	const smtp = new SmtpIngest({
		hostname: config.hostname,
		maxMessageSize: config.maxMessageSize,
		maxClients: config.smtpMaxClients,
		maxClientsPerIp: config.smtpMaxClientsPerIp,
		maxRecipients: config.smtpMaxRecipients,
		socketTimeout: config.smtpSocketTimeout,
		dataTimeout: config.smtpDataTimeout,
		sessionTimeout: config.smtpSessionTimeout,
		bareLf: config.smtpBareLf,
		tlsCert: config.tlsCert,
		tlsKey: config.tlsKey,
		auth: { smtpHost: config.smtpHost, withoutTls: config.smtpAuthWithoutTls, accountForKey: (key) => accounts.forKey(key) },
		submission: new SmtpSubmission(sender),
		acceptsDomain: async (domain) => config.domains.length === 0 || config.domains.includes(domain) || isOwnedDomain(domain),
		resolveRecipient,
		ingest,
		spool,
		log,
		metrics: metrics.smtp,
	});
	registerQueueGauges(metrics.registry, {
		figures: store.figures,
		waiting: () => waiters.size,
		websocketSubscribers: () => incomingMessages.size,
		log,
	});
	registerStoreGauges(metrics.registry, store, log);
	const readiness = new Readiness({
		ping: () => store.ping(),
		listening: { smtp: () => smtp.listening, http: () => http.server.listening },
	});
	const http = await buildHttpServer({
		config,
		accounts,
		addresses,
		domains,
		messages,
		deletion,
		outgoing,
		stats: store.accountStats,
		messageState: store.messageState,
		accountInbox: store.accountInbox,
		attachments: store.attachments,
		subscriptions: store.webhookSubscriptions,
		webhooks,
		incomingMessages,
		waiters,
		encryptedInboxes,
		publicUrl: whereClientsReach,
		sender,
		log,
		durable: () => store.durable(),
		readiness,
		metrics: metrics.http,
	});
	// Served only when asked for, on a listener of its own (never the API's), with the process's figures beside Mailroom's.
	const metricsListener = config.metricsPort === undefined ? undefined : new MetricsListener(metrics.registry, log);
	if (metricsListener) metrics.includeProcessMetrics();

	let closing: Promise<void> | undefined;
	const close = () =>
		(closing ??= (async () => {
			// Not ready from the first moment, so load balancers move on while the work in hand finishes.
			readiness.stopping();
			// Next: the HTTP server's close waits for every request, and a wait may have minutes left.
			waiters.close();
			// The API keeps answering (and /readyz says 503) while SMTP transactions finish; then it closes too.
			await Promise.all([smtp.close(config.shutdownTimeout * 1000).then(() => http.close()), retention.stop(), metricsListener?.close()]);
			incomingMessages.close();
			await outbox.close(config.shutdownTimeout * 1000);
			await ingest.close();
			await webhooks.close();
			await handOverWork(store, log);
			await store.close();
			log.info('Mailroom stopped');
		})());

	let smtpPort: number;
	let metricsPort: number | undefined;
	try {
		smtpPort = await smtp.listen(config.smtpPort, config.smtpHost);
		await http.listen({ port: config.httpPort, host: config.httpHost });
		metricsPort = await metricsListener?.listen(config.metricsPort!, config.metricsHost);
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
	const bootstrap = await bootstrapAdmin(store);
	readiness.running();
	const metricsAt = metricsPort === undefined ? {} : { metrics: `${config.metricsHost}:${metricsPort}` };
	log.info(
		{ smtp: `${config.smtpHost}:${smtpPort}`, http: `${config.httpHost}:${httpPort}`, ...metricsAt, store: store.engine, node },
		'Mailroom is running',
	);

	return {
		config,
		smtpPort,
		httpPort,
		httpUrl: urlOf(config.httpHost, httpPort),
		metricsUrl: metricsPort === undefined ? undefined : urlOf(config.metricsHost, metricsPort),
		publicUrl,
		node,
		store,
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
