import type { MailroomConfig } from './config/settings';
import { givenAdminKey } from './config/admin-key';
import { HTTP_LISTENER, METRICS_LISTENER, SMTP_LISTENER, listenError, type ListenerSettings } from './config/listen-errors';
import { createLogger, type Logger } from './log';
import type { Recipient } from './mail/incoming-mail';
import { domainRoutes } from './mail/local-domains';
import { withoutPlusTag } from './mail/plus-address';
import { randomBytes } from 'node:crypto';
import type { Account, AccountStore, AddressStore, DomainStore, Store } from './store/store';
import { openStore } from './store/open-store';
import { Ingest } from './ingest/ingest';
import { Spool } from './smtp/spool';
import { SmtpIngest } from './smtp/smtp-ingest';
import { ChaosBook } from './smtp/chaos-book';
import { SmtpChaos } from './smtp/smtp-chaos';
import { parseEmailAddress } from './mail/email-address';
import { Outbox } from './outbound/outbox';
import { TestAddresses } from './outbound/test-addresses';
import { returnPathToken } from './mail/return-path';
import { Relay } from './outbound/relay';
import { Sender } from './outbound/sender';
import { SmtpSubmission } from './outbound/smtp-submission';
import { Webhooks } from './webhooks/webhooks';
import { IncomingMessagesHub } from './websocket/incoming-messages-hub';
import { RetentionSweep } from './retention/retention-sweep';
import { MailWaiters } from './waiting/mail-waiters';
import { buildHttpServer } from './http/http-server';
import { Readiness } from './http/readiness';
import { DiskSpace } from './http/disk-space';
import { DnsLookups } from './sender-auth/dns-lookups';
import { UnsignedResults } from './sender-auth/unsigned-results';
import { verifySender } from './sender-auth/verify-sender';
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
	/**
	 * Set on the first start of an empty database: the admin account and its only clear-text key, which the settings gave
	 * (`keyGiven`: --admin-key or --admin-key-file) or is random.
	 */
	bootstrap?: { account: Account; key: string; keyGiven: boolean };
	close(): Promise<void>;
}

/**
 * Creates the admin account of an empty database, so a new install is usable at once. Called once the server listens:
 * a start that fails (a port in use) leaves the database empty, and the next start makes and shows the key.
 */
async function bootstrapAdmin(store: Store, givenKey: string | undefined): Promise<Mailroom['bootstrap']> {
	// Several nodes starting at once on a new database: one of them makes it.
	return store.exclusive('bootstrap', async () => {
		const { accounts } = store;
		if (!(await accounts.isEmpty())) return undefined;
		const account = await accounts.create('admin', { admin: true });
		const label = givenKey ? 'given in the settings on first start' : 'created on first start';
		return { account, key: (await accounts.createKey(account.id, label, givenKey)).key, keyGiven: givenKey !== undefined };
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

/** One step of the shutdown: closes that may run side by side. Steps run in order. */
type ShutdownStep = (() => unknown)[];

/** What the parts of one start share: its settings, its logger, its name among the nodes, and where clients reach it. */
interface Context {
	config: MailroomConfig;
	log: Logger;
	node: string;
	/** Known once the server listens: a port of 0 is chosen then. */
	publicUrl: () => string;
}

/** The relay for mail to other domains, if any: first, so a bad DKIM key stops the start before anything is opened. */
function relayOf(config: MailroomConfig): Relay | undefined {
	if (!config.relayUrl) return undefined;
	const dkim = config.dkimDomain ? { domain: config.dkimDomain, selector: config.dkimSelector!, keyFile: config.dkimKeyFile! } : undefined;
	return new Relay(config.relayUrl, dkim);
}

/** The store, the two questions about recipients every path of mail asks it, and the accounts' chaos settings. */
async function openStorage({ config, log, node }: Context) {
	const store = await openStore(config, 'server', node, log);
	const chaos = new ChaosBook(store, log);
	try {
		await chaos.reload();
	} catch (err) {
		await store.close();
		throw err;
	}
	const isOwnedDomain = (domain: string) => store.domains.isOwned(domain);
	const returnPathDomain = config.returnPathDomain ?? config.hostname;
	// With --plus-addressing, name+tag@domain is kept in name@domain's inbox (an encrypted address's too). A return path of
	// sent mail is kept in the sender's inbox, as a report on its recipient.
	const resolveRecipient = async (address: string, domain: string): Promise<Recipient> => {
		const token = returnPathToken(address, returnPathDomain);
		const owner = token === undefined ? undefined : await store.outgoing.returnPath(token);
		if (owner)
			return { inbox: owner.from, originalInbox: address, domain: owner.from.slice(owner.from.lastIndexOf('@') + 1), returnPathOf: owner };
		const inbox = config.plusAddressing ? withoutPlusTag(address) : address;
		return { inbox: (await store.encryptedInboxes.resolve(inbox, domain))?.inbox ?? inbox, originalInbox: address, domain };
	};
	return { store, isOwnedDomain, resolveRecipient, chaos, returnPathDomain };
}
type Storage = Awaited<ReturnType<typeof openStorage>>;

/** The one way into the store for mail (the ingest and parser threads), and the spool large messages wait in. */
function startIngest({ config, log, node }: Context, metrics: Metrics) {
	const ingest = new Ingest({ ...config, node }, log);
	metrics.ingest.observe(ingest);
	const spool = new Spool(config.dataDir, config.spoolThreshold);
	spool.sweep();
	return { ingest, spool };
}

/** What stored mail sets off: webhooks, forwards and sent mail (the outbox), websocket frames, waiters, the retention sweep. */
function buildDelivery(
	context: Context,
	{ store, isOwnedDomain, resolveRecipient, returnPathDomain }: Storage,
	ingest: Ingest,
	spool: Spool,
	relay: Relay | undefined,
	metrics: Metrics,
) {
	const { config, log, node, publicUrl } = context;
	const { accounts, addresses, domains, messages, outgoing, encryptedInboxes } = store;
	const exclusive = <T>(name: string, task: () => Promise<T>) => store.exclusive(name, task);
	const webhooks = new Webhooks({
		deliveries: store.webhookDeliveries,
		secrets: store.webhookSecrets,
		replyHooks: store.replyHooks,
		events: store.deliveryEvents,
		messages,
		encryptedInboxes,
		accounts,
		config,
		ingest,
		node,
		exclusive,
		publicUrl,
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
		spool,
		testAddresses: config.testDomain ? new TestAddresses({ domain: config.testDomain, ingest, resolveRecipient, log }) : undefined,
		onEvents: (events) => {
			webhooks.lookForWork();
			incomingMessages.publishEvents(events);
		},
		log,
	});
	const incomingMessages = new IncomingMessagesHub({
		publicUrl,
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
	const retention = new RetentionSweep(store.retentionCandidates, store.deletion, outgoing, exclusive, ingest, retentionLimits, log);
	const waiters = new MailWaiters(ingest, store.matcher);
	const sender = new Sender({
		store: outgoing,
		outbox,
		addresses,
		suppressions: store.suppressions,
		messages,
		routeOf: domainRoutes(config, isOwnedDomain),
		hasRelay: relay !== undefined,
		maxMessageSize: config.maxMessageSize,
		spool,
		returnPathDomain,
	});
	return { webhooks, outbox, incomingMessages, retention, waiters, sender };
}
type Delivery = ReturnType<typeof buildDelivery>;

/** Mail other nodes store, and the delivery events they record, wake this node's websockets, waiters and queues as its own do. */
function followOtherNodes(
	{ log }: Context,
	{ store, chaos }: Storage,
	ingest: Ingest,
	{ webhooks, outbox, waiters, incomingMessages }: Delivery,
): void {
	// Read one announcement after another, so the websockets hear a recipient's events in the order they were recorded.
	let eventsRead = Promise.resolve();
	store.onAnnouncement((announcement) => {
		if (announcement.webhooks) webhooks.lookForWork();
		if (announcement.forwards) outbox.lookForWork();
		if (announcement.chaos) chaos.reloadInBackground();
		const eventIds = announcement.events ?? [];
		if (eventIds.length) {
			eventsRead = eventsRead.then(() =>
				store.deliveryEvents.recorded(eventIds).then(
					(events) => incomingMessages.publishEvents(events),
					(err: Error) => log.warn({ err: err.message }, 'delivery events recorded by another node could not be read'),
				),
			);
		}
		if (announcement.messages.length === 0) return;
		void store.messages.byIds(announcement.messages.map((message) => message.id)).then(
			(records) => ingest.storedByAnotherNode(records, { webhookMessageIds: [], forwardIds: [], events: [] }),
			(err: Error) => log.warn({ err: err.message }, 'mail stored by another node could not be read'),
		);
	});
	// Mail other nodes stored while this one did not hear them: requests waiting for mail look again. (The queues need no
	// such call: the node that stored the mail takes its deliveries, and any node finds due work when it looks next.)
	store.onAnnouncementsMissed(() => {
		waiters.recheckAll();
		chaos.reloadInBackground();
	});
}

/** The SMTP listener: mail in, and mail submitted by accounts. */
function buildSmtp(
	{ config, log }: Context,
	storage: Storage,
	{ ingest, spool }: { ingest: Ingest; spool: Spool },
	sender: Sender,
	disk: DiskSpace,
	metrics: Metrics,
) {
	const { store, isOwnedDomain, resolveRecipient } = storage;
	const chaos = new SmtpChaos({
		book: storage.chaos,
		ownerOf: async (address) => {
			const parsed = parseEmailAddress(address);
			if (!parsed) return null;
			const recipient = await resolveRecipient(parsed.address, parsed.domain);
			return store.addresses.ownerOfInbox(recipient.inbox, recipient.domain);
		},
		// A wait as long as the idle timeout would see the connection closed first.
		maxDelayMs: Math.max(0, config.smtpSocketTimeout - 1000),
	});
	const dns = new DnsLookups({ servers: config.dnsServers, timeoutMs: config.dnsTimeout });
	const verifier = { hostname: config.hostname, dns, budgetMs: config.dnsTimeout, unsignedResults: new UnsignedResults() };
	return new SmtpIngest({
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
		auth: { smtpHost: config.smtpHost, withoutTls: config.smtpAuthWithoutTls, accountForKey: (key) => store.accounts.forKey(key) },
		submission: new SmtpSubmission(sender),
		// The return path domain takes the return paths of sent mail (their bounces), beside the accepted domains.
		acceptsDomain: async (domain, address) =>
			config.domains.length === 0 ||
			config.domains.includes(domain) ||
			returnPathToken(address, storage.returnPathDomain) !== undefined ||
			isOwnedDomain(domain),
		resolveRecipient,
		ingest,
		storeFailed: (err) => disk.failed(err),
		spool,
		...(config.verifySenders && { verifySender: (raw, client) => verifySender(raw, client, verifier) }),
		chaos,
		log,
		metrics: metrics.smtp,
	});
}

/** The HTTP API, the dashboard, websockets and the health probes. */
function buildHttp(
	{ config, log, publicUrl }: Context,
	{ store, chaos }: Storage,
	delivery: Delivery,
	readiness: Readiness,
	metrics: Metrics,
) {
	const { webhooks, incomingMessages, waiters, sender } = delivery;
	return buildHttpServer({
		config,
		accounts: store.accounts,
		addresses: store.addresses,
		domains: store.domains,
		messages: store.messages,
		deletion: store.deletion,
		outgoing: store.outgoing,
		threads: store.threads,
		stats: store.accountStats,
		messageState: store.messageState,
		accountInbox: store.accountInbox,
		attachments: store.attachments,
		subscriptions: store.webhookSubscriptions,
		chaos,
		deliveryEvents: store.deliveryEvents,
		suppressions: store.suppressions,
		webhooks,
		incomingMessages,
		waiters,
		encryptedInboxes: store.encryptedInboxes,
		publicUrl,
		sender,
		log,
		durable: () => store.durable(),
		readiness,
		metrics: metrics.http,
		searches: metrics.searches,
	});
}

/**
 * The gauges read at each scrape, and the listener Prometheus scrapes: only when asked for, on a listener of its own (never
 * the API's), with the process's figures beside Mailroom's.
 */
function buildMetricsListener({ config, log }: Context, metrics: Metrics, store: Store, { waiters, incomingMessages }: Delivery) {
	registerQueueGauges(metrics.registry, {
		figures: store.figures,
		waiting: () => waiters.size,
		websocketSubscribers: () => incomingMessages.size,
		log,
	});
	registerStoreGauges(metrics.registry, store, log);
	if (config.metricsPort === undefined) return undefined;
	metrics.includeProcessMetrics();
	return new MetricsListener(metrics.registry, log);
}

/** Runs the steps of a shutdown in order, the closes of each side by side; a step waits for the one before it to settle. */
async function shutDown(steps: ShutdownStep[]): Promise<void> {
	for (const step of steps) await Promise.all(step.map((close) => close()));
}

/** The composition root: opens the store, builds every part of the server on it, and starts them. */
export async function startMailroom(config: MailroomConfig, log: Logger = createLogger(config.logLevel)): Promise<Mailroom> {
	const relay = relayOf(config);
	const adminKey = await givenAdminKey(config);
	const node = newNodeId(config.hostname);
	let publicUrl = config.publicUrl ?? '';
	const context: Context = { config, log, node, publicUrl: () => publicUrl };

	const metrics = new Metrics();
	const storage = await openStorage(context);
	const { store } = storage;
	const { ingest, spool } = startIngest(context, metrics);
	const delivery = buildDelivery(context, storage, ingest, spool, relay, metrics);
	followOtherNodes(context, storage, ingest, delivery);
	// The disk this node writes mail to: the data folder (SQLite's database) and the spool, both engines.
	const disk = new DiskSpace({ folders: [config.dataDir, spool.dir], needed: config.maxMessageSize });
	ingest.on('stored', () => disk.stored());
	// Whatever stores it (SMTP, an outgoing message's local copy): a node that cannot store mail is not ready.
	ingest.on('failed', (err) => disk.failed(err));
	const smtp = buildSmtp(context, storage, { ingest, spool }, delivery.sender, disk, metrics);
	const readiness = new Readiness({
		ping: () => store.ping(),
		listening: { smtp: () => smtp.listening, http: () => http.server.listening },
		disk,
	});
	const http = await buildHttp(context, storage, delivery, readiness, metrics);
	const metricsListener = buildMetricsListener(context, metrics, store, delivery);
	const { webhooks, outbox, incomingMessages, retention, waiters } = delivery;
	const grace = config.shutdownTimeout * 1000;

	// Each part's close, in the order a stop needs.
	const shutdown: ShutdownStep[] = [
		// Not ready from the first moment, so load balancers move on while the work in hand finishes. The HTTP server's close
		// waits for every request, and a wait for mail may have minutes left: the waits are answered first.
		[() => readiness.stopping(), () => waiters.close()],
		// The API keeps answering (and /readyz says 503) while SMTP transactions finish; then it closes too.
		[() => smtp.close(grace).then(() => http.close()), () => retention.stop(), () => metricsListener?.close()],
		[() => incomingMessages.close()],
		[() => outbox.close(grace)],
		[() => ingest.close()],
		[() => webhooks.close()],
		// The other nodes take up at once the work this one gave back as its queues closed.
		[() => handOverWork(store, log)],
		[() => store.close()],
		[() => log.info('Mailroom stopped')],
	];
	let closing: Promise<void> | undefined;
	const close = () => (closing ??= shutDown(shutdown));

	let smtpPort: number;
	let metricsPort: number | undefined;
	try {
		// Each failure names its listener and the setting that chose the port.
		const named = (listener: ListenerSettings) => (err: NodeJS.ErrnoException) => Promise.reject(listenError(err, listener, config));
		smtpPort = await smtp.listen(config.smtpPort, config.smtpHost).catch(named(SMTP_LISTENER));
		await http.listen({ port: config.httpPort, host: config.httpHost }).catch(named(HTTP_LISTENER));
		metricsPort = await metricsListener?.listen(config.metricsPort!, config.metricsHost).catch(named(METRICS_LISTENER));
	} catch (err) {
		// A port in use, say: nothing of this start may linger (threads, the database) in the caller's process.
		await close();
		throw err;
	}
	const httpPort = (http.server.address() as { port: number }).port;
	publicUrl = config.publicUrl ?? urlOf(WILDCARD_HOSTS[config.httpHost] ?? config.httpHost, httpPort);
	// The queues and the sweep start working once the server listens.
	for (const worker of [outbox, webhooks, retention]) worker.start();
	const bootstrap = await bootstrapAdmin(store, adminKey);
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
		accounts: store.accounts,
		addresses: store.addresses,
		domains: store.domains,
		ingest,
		http,
		retention,
		waiters,
		bootstrap,
		close,
	};
}
