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
import { startParts, type Part, type Parts } from './lifecycle';
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

/** What the parts of one start share: its settings, its logger, its name among the nodes, and where clients reach it. */
interface Context {
	config: MailroomConfig;
	log: Logger;
	node: string;
	/** Known once the server listens: a port of 0 is chosen then. */
	publicUrl: () => string;
	/** How long SMTP transactions and outbox attempts in progress are given to finish at a stop (ms). */
	grace: number;
}

/** The relay for mail to other domains, if any: first, so a bad DKIM key stops the start before anything is opened. */
function relayOf(config: MailroomConfig): Relay | undefined {
	if (!config.relayUrl) return undefined;
	const dkim = config.dkimDomain ? { domain: config.dkimDomain, selector: config.dkimSelector!, keyFile: config.dkimKeyFile! } : undefined;
	return new Relay(config.relayUrl, dkim);
}

/**
 * The store, and the two questions about recipients every path of mail asks it. It closes last of all: by then the queues
 * have given their leases back, and the other nodes are told so, to take that work up at once.
 */
async function openStorage({ config, log, node }: Context) {
	const store = await openStore(config, 'server', node, log);
	const isOwnedDomain = (domain: string) => store.domains.isOwned(domain);
	// With --plus-addressing, name+tag@domain is kept in name@domain's inbox (an encrypted address's too).
	const resolveRecipient = async (address: string, domain: string): Promise<Recipient> => {
		const inbox = config.plusAddressing ? withoutPlusTag(address) : address;
		return { inbox: (await store.encryptedInboxes.resolve(inbox, domain))?.inbox ?? inbox, originalInbox: address, domain };
	};
	const close = async () => {
		await handOverWork(store, log);
		await store.close();
	};
	return { store, isOwnedDomain, resolveRecipient, close };
}
type Storage = Awaited<ReturnType<typeof openStorage>>;

/** One node of a database runs a task of this name at a time. */
const exclusiveOf =
	(store: Store) =>
	<T>(name: string, task: () => Promise<T>) =>
		store.exclusive(name, task);

/**
 * The one way into the store for mail (the ingest and parser threads), and the webhooks stored mail sets off. One part, as
 * the webhooks close after the ingest: what it stores while closing (an outbox attempt's local copy, say) sets them off too.
 */
function startIngest(context: Context, store: Store, metrics: Metrics) {
	const { config, log, node, publicUrl } = context;
	const ingest = new Ingest({ ...config, node }, log);
	metrics.ingest.observe(ingest);
	const { messages, encryptedInboxes, accounts } = store;
	const deliveries = { deliveries: store.webhookDeliveries, secrets: store.webhookSecrets, messages, encryptedInboxes, accounts };
	const webhooks = new Webhooks({
		...deliveries,
		config,
		ingest,
		node,
		exclusive: exclusiveOf(store),
		publicUrl,
		log,
		metrics: metrics.webhooks,
	});
	const close = async () => {
		try {
			await ingest.close();
		} finally {
			await webhooks.close();
		}
	};
	return { ingest, webhooks, close };
}

/**
 * Forwards and sent mail (to other domains through the relay, which it closes). It closes before the ingest, through which
 * its attempts store the local copies, giving the attempts in progress the grace to finish.
 */
function startOutbox(context: Context, { store, resolveRecipient }: Storage, ingest: Ingest, relay: Relay | undefined) {
	const { config, log, node, grace } = context;
	const retryDelays = config.relayRetryDelays;
	const outbox = new Outbox({ store: store.outgoing, ingest, node, lease: config.workLease, relay, resolveRecipient, retryDelays, log });
	return { outbox, close: () => outbox.close(grace) };
}

/** The websocket frames of stored mail (the sockets themselves are the HTTP server's). */
function startWebsockets({ log, publicUrl }: Context, store: Store, ingest: Ingest) {
	const { accounts, addresses, domains, messages } = store;
	const settings = store.inboxSettings;
	const incomingMessages = new IncomingMessagesHub({ publicUrl, ingest, accounts, addresses, domains, settings, messages, log });
	return { incomingMessages, close: () => incomingMessages.close() };
}

/** Mail sent by accounts (through the API or SMTP submission): recorded, and handed to the outbox. */
function senderOf({ config }: Context, { store, isOwnedDomain }: Storage, outbox: Outbox, relay: Relay | undefined) {
	return new Sender({
		store: store.outgoing,
		outbox,
		addresses: store.addresses,
		messages: store.messages,
		isLocalDomain: localDomainRule(config, isOwnedDomain),
		hasRelay: relay !== undefined,
		maxMessageSize: config.maxMessageSize,
	});
}

/** What the requests of the API set off or wait on. */
interface Services {
	webhooks: Webhooks;
	outbox: Outbox;
	incomingMessages: IncomingMessagesHub;
	waiters: MailWaiters;
	sender: Sender;
}

/** Mail other nodes store wakes this node's websockets, waiters and queues as its own does. */
function followOtherNodes({ log }: Context, store: Store, ingest: Ingest, { webhooks, outbox, waiters }: Services): void {
	store.onAnnouncement((announcement) => {
		if (announcement.webhooks) webhooks.lookForWork();
		if (announcement.forwards) outbox.lookForWork();
		if (announcement.messages.length === 0) return;
		void store.messages.byIds(announcement.messages.map((message) => message.id)).then(
			(records) => ingest.storedByAnotherNode(records, { webhookMessageIds: [], forwardIds: [] }),
			(err: Error) => log.warn({ err: err.message }, 'mail stored by another node could not be read'),
		);
	});
	// Mail other nodes stored while this one did not hear them: requests waiting for mail look again. (The queues need no
	// such call: the node that stored the mail takes its deliveries, and any node finds due work when it looks next.)
	store.onAnnouncementsMissed(() => waiters.recheckAll());
}

/**
 * The HTTP API, the dashboard, websockets and the health probes. Built (not yet listening) before SMTP so that it closes
 * after it: the API keeps answering (and /readyz says 503) while SMTP transactions finish.
 */
async function startHttp(context: Context, store: Store, services: Services, readiness: Readiness, metrics: Metrics) {
	const { config, log, publicUrl } = context;
	const { webhooks, incomingMessages, waiters, sender } = services;
	const http = await buildHttpServer({
		config,
		accounts: store.accounts,
		addresses: store.addresses,
		domains: store.domains,
		messages: store.messages,
		deletion: store.deletion,
		outgoing: store.outgoing,
		stats: store.accountStats,
		messageState: store.messageState,
		accountInbox: store.accountInbox,
		attachments: store.attachments,
		subscriptions: store.webhookSubscriptions,
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
	});
	return { http, close: () => http.close() };
}

/** The SMTP listener (mail in, and mail submitted by accounts) and the spool large messages wait in, swept of a crash's left-overs. */
function startSmtp(context: Context, storage: Storage, ingest: Ingest, sender: Sender, metrics: Metrics) {
	const { config, log, grace } = context;
	const { store, isOwnedDomain, resolveRecipient } = storage;
	const spool = new Spool(config.dataDir, config.spoolThreshold);
	spool.sweep();
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
		auth: { smtpHost: config.smtpHost, withoutTls: config.smtpAuthWithoutTls, accountForKey: (key) => store.accounts.forKey(key) },
		submission: new SmtpSubmission(sender),
		acceptsDomain: async (domain) => config.domains.length === 0 || config.domains.includes(domain) || isOwnedDomain(domain),
		resolveRecipient,
		ingest,
		spool,
		log,
		metrics: metrics.smtp,
	});
	// Transactions in progress are given the grace to finish.
	return { smtp, close: () => smtp.close(grace) };
}

/**
 * The gauges read at each scrape, and the listener Prometheus scrapes: only when asked for, on a listener of its own (never
 * the API's), with the process's figures beside Mailroom's.
 */
function startMetrics({ config, log }: Context, metrics: Metrics, store: Store, { waiters, incomingMessages }: Services) {
	registerQueueGauges(metrics.registry, {
		figures: store.figures,
		waiting: () => waiters.size,
		websocketSubscribers: () => incomingMessages.size,
		log,
	});
	registerStoreGauges(metrics.registry, store, log);
	if (config.metricsPort === undefined) return { metricsListener: undefined, close: () => undefined };
	metrics.includeProcessMetrics();
	const metricsListener = new MetricsListener(metrics.registry, log);
	return { metricsListener, close: () => metricsListener.close() };
}

/** What listens for clients: SMTP, HTTP and (when asked for) metrics. */
interface Listeners {
	smtp: SmtpIngest;
	http: Mailroom['http'];
	metricsListener?: MetricsListener;
}

/**
 * Listens on the ports: SMTP, HTTP, then metrics. Listening, the server takes requests that wait for mail: the stop answers
 * them before the listeners close (the HTTP close waits for every request, and a wait may have minutes left).
 */
async function listen({ config }: Context, { smtp, http, metricsListener }: Listeners, waiters: MailWaiters) {
	const smtpPort = await smtp.listen(config.smtpPort, config.smtpHost);
	await http.listen({ port: config.httpPort, host: config.httpHost });
	const metricsPort = await metricsListener?.listen(config.metricsPort!, config.metricsHost);
	const httpPort = (http.server.address() as { port: number }).port;
	return { smtpPort, httpPort, metricsPort, close: () => waiters.close() };
}
type Ports = Awaited<ReturnType<typeof listen>>;

/** Background deletion of old mail: it starts once the server listens, and stops first (at its next batch). */
function startRetention({ config, log }: Context, store: Store, ingest: Ingest) {
	const limits = { maxAge: config.retentionMaxAge, maxPerInbox: config.retentionMaxPerInbox, interval: config.retentionSweepInterval };
	const { retentionCandidates, deletion, outgoing } = store;
	const retention = new RetentionSweep(retentionCandidates, deletion, outgoing, exclusiveOf(store), ingest, limits, log);
	retention.start();
	return { retention, close: () => retention.stop() };
}

/**
 * Ready (/readyz 200) once everything else has started. Not ready from the first moment of a stop, so load balancers move on
 * while the work in hand finishes.
 */
function declareReady(readiness: Readiness): Part {
	readiness.running();
	return { close: () => readiness.stopping() };
}

/** The line that says where the server listens. */
function logRunning({ config, log, node }: Context, store: Store, { smtpPort, httpPort, metricsPort }: Ports): void {
	const metricsAt = metricsPort === undefined ? {} : { metrics: `${config.metricsHost}:${metricsPort}` };
	log.info(
		{ smtp: `${config.smtpHost}:${smtpPort}`, http: `${config.httpHost}:${httpPort}`, ...metricsAt, store: store.engine, node },
		'Mailroom is running',
	);
}

/** The context of one start, and what to call once it listens: then its public URL is known (a port of 0 is chosen). */
function newContext(config: MailroomConfig, log: Logger) {
	let publicUrl = config.publicUrl ?? '';
	const grace = config.shutdownTimeout * 1000;
	const context: Context = { config, log, node: newNodeId(config.hostname), publicUrl: () => publicUrl, grace };
	// Without --public-url, clients reach the API where it listens (on loopback for a wildcard host).
	const listensOn = (httpPort: number) => {
		publicUrl = config.publicUrl ?? urlOf(WILDCARD_HOSTS[config.httpHost] ?? config.httpHost, httpPort);
	};
	return { context, listensOn };
}

/** The handle of a started server: where it listens, the parts callers use, and its close. */
function handleOf(
	{ config, node, publicUrl }: Context,
	{ smtpPort, httpPort, metricsPort }: Ports,
	parts: Parts,
	started: Pick<Mailroom, 'store' | 'ingest' | 'http' | 'retention' | 'waiters' | 'bootstrap'>,
): Mailroom {
	const { accounts, addresses, domains } = started.store;
	const metricsUrl = metricsPort === undefined ? undefined : urlOf(config.metricsHost, metricsPort);
	const urls = { httpUrl: urlOf(config.httpHost, httpPort), metricsUrl, publicUrl: publicUrl() };
	return { ...started, ...urls, config, smtpPort, httpPort, node, accounts, addresses, domains, close: () => parts.close() };
}

/**
 * The composition root: starts the parts of the server in order, each closing once the parts started after it have closed
 * (so a part is one line here, its start and its close written together in its own function). A start failing part-way
 * closes the parts it had started.
 */
export async function startMailroom(config: MailroomConfig, log: Logger = createLogger(config.logLevel)): Promise<Mailroom> {
	const relay = relayOf(config);
	return startParts(log, (parts) => startServer(parts, config, log, relay));
}

/** The parts of the server, in the order they start: they close from the bottom up. */
async function startServer(parts: Parts, config: MailroomConfig, log: Logger, relay: Relay | undefined): Promise<Mailroom> {
	const { context, listensOn } = newContext(config, log);
	const metrics = new Metrics();
	// Started first, so it closes last: the line says everything else has closed.
	await parts.start('stop notice', () => ({ close: () => log.info('Mailroom stopped') }));
	const storage = await parts.start('store', () => openStorage(context));
	const { store } = storage;
	const { ingest, webhooks } = await parts.start('ingest and webhooks', () => startIngest(context, store, metrics));
	const { outbox } = await parts.start('outbox', () => startOutbox(context, storage, ingest, relay));
	const { incomingMessages } = await parts.start('websockets', () => startWebsockets(context, store, ingest));
	const waiters = new MailWaiters(ingest, store.matcher);
	const services: Services = { webhooks, outbox, incomingMessages, waiters, sender: senderOf(context, storage, outbox, relay) };
	followOtherNodes(context, store, ingest, services);
	// /readyz looks at the listeners (built below) when it is asked.
	const listening = { smtp: (): boolean => smtp.listening, http: (): boolean => http.server.listening };
	const readiness = new Readiness({ ping: () => store.ping(), listening });
	const { http } = await parts.start('HTTP', () => startHttp(context, store, services, readiness, metrics));
	const { smtp } = await parts.start('SMTP', () => startSmtp(context, storage, ingest, services.sender, metrics));
	const { metricsListener } = await parts.start('metrics', () => startMetrics(context, metrics, store, services));
	const ports = await parts.start('listening', () => listen(context, { smtp, http, metricsListener }, waiters));
	listensOn(ports.httpPort);
	// The queues and the sweep start working once the server listens. (The queues close with their parts, above.)
	outbox.start();
	webhooks.start();
	const { retention } = await parts.start('retention sweep', () => startRetention(context, store, ingest));
	const bootstrap = await bootstrapAdmin(store);
	await parts.start('readiness', () => declareReady(readiness));
	logRunning(context, store, ports);
	return handleOf(context, ports, parts, { store, ingest, http, retention, waiters, bootstrap });
}
