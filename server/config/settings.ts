import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { availableParallelism } from 'node:os';

/** Runtime settings of `mailroom serve`. Each one has a flag and a MAILROOM_* environment variable. */
export interface MailroomConfig {
	smtpHost: string;
	smtpPort: number;
	httpHost: string;
	httpPort: number;
	/** Where /metrics is served, on a listener of its own; none: metrics are not served. */
	metricsPort?: number;
	metricsHost: string;
	/** Where clients reach the HTTP API, for the links in what Mailroom sends (attachment downloads); none: from the HTTP host and port. */
	publicUrl?: string;
	dataDir: string;
	/** PostgreSQL to keep the store in instead of SQLite in the data folder; every node naming the same one is one service. */
	databaseUrl?: string;
	/** The admin account's API key on the first start of an empty database, instead of a random one printed; unset: random. */
	adminKey?: string;
	/** A file holding that key (a container secret, say); read at the start. */
	adminKeyFile?: string;
	/** Domains we accept mail for; empty means every domain. */
	domains: string[];
	maxMessageSize: number;
	tlsCert?: string;
	tlsKey?: string;
	logLevel: string;
	hostname: string;
	/** `full`: acknowledge once fsynced (survives power loss); `normal`: once committed (survives a process crash). */
	durability: 'full' | 'normal';
	parseWorkers: number;
	/** Requests per minute for a caller with an API key (counted per key). */
	rateLimitKey: number;
	/** Requests per minute for a caller without a key (counted per IP). */
	rateLimitIp: number;
	/** Seconds SIGTERM waits for in-flight SMTP transactions before closing connections. */
	shutdownTimeout: number;
	/** SMTP relay for outgoing mail to non-local domains, e.g. smtp://user:pass@smtp.example.com:587; none: only local sending. */
	relayUrl?: string;
	/** Extra domains whose outgoing mail is delivered into local inboxes instead of the relay. */
	localDomains: string[];
	/** Waits (ms) before each retry of a temporarily failed relay delivery; when used up, the message fails. */
	relayRetryDelays: number[];
	/** The domain of relayed mail's return paths (bounces+<token>@it); unset: --hostname. Its mail must reach this server. */
	returnPathDomain?: string;
	/** A domain whose bounce@, defer@ and complaint@ answer sent mail here as a remote server would; unset: none. */
	testDomain?: string;
	/** DKIM signing of relayed mail: all three or none. */
	dkimDomain?: string;
	dkimSelector?: string;
	dkimKeyFile?: string;
	/** How long one webhook attempt may take (ms) before it counts as a timeout. */
	webhookTimeout: number;
	/** Delay (ms) before each webhook attempt: the first is normally 0; when used up, the delivery fails. */
	webhookRetrySchedule: number[];
	/** Whether admin accounts' webhooks may target private and loopback addresses (link-local, metadata etc. never may). */
	webhookAllowPrivate: boolean;
	/** Hosts (names or IP addresses) every account's webhooks may reach even at private and loopback addresses. */
	webhookAllowHosts: string[];
	/** Webhook requests in flight at once per target host. */
	webhookHostConcurrency: number;
	/** Days the webhook Recent Activity log (and finished deliveries) are kept. */
	webhookActivityDays: number;
	/** How long (ms) a node holds a webhook delivery or outbox entry it took before another may take it; renewed while it works. */
	workLease: number;
	/** SMTP connections open at once; one more is answered 421 and closed. */
	smtpMaxClients: number;
	smtpMaxClientsPerIp: number;
	/** Recipients per SMTP transaction; the next RCPT TO gets 452. */
	smtpMaxRecipients: number;
	/** Idle time (ms) after which an SMTP connection is closed with 421 (slow clients). */
	smtpSocketTimeout: number;
	/** Messages with a bare CR or LF line ending (SMTP smuggling): `reject` with 550, or `accept` and store them as sent. */
	smtpBareLf: 'reject' | 'accept';
	/** Time (ms) the DATA of one message may take from the 354 to its end; then 421 and the connection is closed (slow senders). */
	smtpDataTimeout: number;
	/** Time (ms) one SMTP connection may stay open in all; then 421 and it is closed (slow senders). */
	smtpSessionTimeout: number;
	/** Whether SMTP AUTH is offered on connections without TLS although the listener is not on a loopback address. */
	smtpAuthWithoutTls: boolean;
	/** Mail to local+tag@domain is kept in local@domain's inbox (originalInbox: the address it was sent to). */
	plusAddressing: boolean;
	/** Time (ms) the parse of one message may take, not counting the wait for a thread; then it is stored unparsed (raw) instead. */
	parseTimeout: number;
	/** Time (ms) one search or filter of an account's mail may take; then it is answered 503 (see store/search-budget.ts). */
	searchTimeout: number;
	/** Whether received mail is checked for who sent it (SPF, DKIM, DMARC, ARC); false: its `auth` is null. */
	verifySenders: boolean;
	/** DNS servers (`host[:port]`) sender verification asks; empty: the system's. */
	dnsServers: string[];
	/** Time (ms) the verification of one message may take in all; lookups not done by then give temperror. */
	dnsTimeout: number;
	/** Retention: messages older than this (ms) are deleted; 0 keeps them forever. Starred mail is always kept. */
	retentionMaxAge: number;
	/** Retention: the newest this many unstarred messages of an inbox are kept; 0 means no limit. */
	retentionMaxPerInbox: number;
	/** How often (ms) the retention sweep runs. */
	retentionSweepInterval: number;
	/** Messages at least this large (bytes) are received into a spool file and parsed from it, not held in memory. */
	spoolThreshold: number;
}

export interface SettingSpec {
	key: keyof MailroomConfig;
	flag: string;
	env: string;
	description: string;
	default?: string;
	parse: (value: string) => MailroomConfig[keyof MailroomConfig];
}

export class ConfigError extends Error {}

/** `host[:port]` DNS servers, as Node's resolver takes them: an IPv4 or IPv6 address (in brackets with a port). */
function dnsServerList(value: string): string[] {
	const servers = value
		.split(',')
		.map((server) => server.trim())
		.filter(Boolean);
	for (const server of servers) {
		const match = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+)|([0-9a-fA-F:]+))(?::(\d{1,5}))?$/.exec(server);
		const port = match?.[4] === undefined ? 53 : Number(match[4]);
		const ip = match?.[1] ?? match?.[2] ?? match?.[3];
		if (!match || (match[3] !== undefined && match[4] !== undefined) || port < 1 || port > 65535 || !ip || isIP(ip) === 0) {
			throw new ConfigError(
				`DNS servers must be IP addresses with an optional port (127.0.0.1:5353, [::1]:5353), comma-separated; "${server}" is not one`,
			);
		}
	}
	return servers;
}

function port(name: string) {
	return (value: string) => {
		const n = Number(value);
		if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`${name} must be a port number 0-65535, got "${value}"`);
		return n;
	};
}

function positiveInt(name: string) {
	return (value: string) => {
		const n = Number(value);
		if (!Number.isInteger(n) || n < 1) throw new ConfigError(`${name} must be a positive integer, got "${value}"`);
		return n;
	};
}

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, m: 1024 ** 2, mb: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3 };

/** Parses "25MB", "512kb" or a plain byte count. */
export function parseSize(value: string): number {
	const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
	const unit = match ? SIZE_UNITS[match[2].toLowerCase()] : undefined;
	if (!match || unit === undefined) throw new ConfigError(`size must look like 25MB, 512KB or 1048576, got "${value}"`);
	const bytes = Math.floor(Number(match[1]) * unit);
	// A zero limit would refuse every message rather than mean "no limit".
	if (bytes < 1) throw new ConfigError(`size must be at least 1 byte, got "${value}"`);
	return bytes;
}

/** Bytes as a size is given (units of 1024): "25 MB", "3.1 MB", "512 KB", "0 B". */
export function describeSize(bytes: number): string {
	const [unit, scale] = (
		[
			['GB', 1024 ** 3],
			['MB', 1024 ** 2],
			['KB', 1024],
		] as const
	).find(([, of]) => bytes >= of) ?? ['B', 1];
	return `${Number((bytes / scale).toFixed(1))} ${unit}`;
}

function oneOf<T extends string>(name: string, values: readonly T[]) {
	return (value: string) => {
		if (!values.includes(value as T)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${value}"`);
		return value as T;
	};
}

const text = (value: string) => value;

/** Host names or IP addresses, comma-separated; no scheme, port or path (the rules apply to a host whatever its port). */
function hostList(value: string): string[] {
	const hosts = value
		.split(',')
		.map((host) =>
			host
				.trim()
				.toLowerCase()
				.replace(/^\[(.*)\]$/, '$1'),
		)
		.filter(Boolean);
	for (const host of hosts) {
		if (isIP(host) === 0 && !/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/.test(host))
			throw new ConfigError(
				`webhook allowed hosts must be host names or IP addresses without scheme or port, like n8n,localhost; got "${host}"`,
			);
	}
	return hosts;
}

const domainList = (value: string) =>
	value
		.split(',')
		.map((d) => d.trim().toLowerCase())
		.filter(Boolean);

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses "30s,5m,1h" into milliseconds. */
export function parseDurations(value: string): number[] {
	return value
		.split(',')
		.map((part) => part.trim())
		.filter(Boolean)
		.map((part) => {
			const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(part);
			if (!match) throw new ConfigError(`durations must look like 30s,5m,1h,1d, got "${part}"`);
			return Math.round(Number(match[1]) * DURATION_UNITS[match[2]]);
		});
}

/**
 * A URL setting with one of `protocols` and a host; undefined when empty. Errors name the setting and show `example`,
 * never the value: it may hold a password.
 */
function checkedUrl(value: string, what: string, protocols: string[], example: string): URL | undefined {
	if (value.trim() === '') return undefined;
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		throw new ConfigError(`${what} must look like ${example}`);
	}
	if (!protocols.includes(url.protocol))
		throw new ConfigError(`${what} must start with ${protocols.map((protocol) => `${protocol}//`).join(' or ')}, got "${url.protocol}//"`);
	if (!url.hostname) throw new ConfigError(`${what} has no host`);
	return url;
}

const databaseUrl = (value: string) =>
	checkedUrl(value, 'database URL', ['postgres:', 'postgresql:'], 'postgres://user:password@db.example.com:5432/mailroom') && value;

const relayUrl = (value: string) => checkedUrl(value, 'relay URL', ['smtp:', 'smtps:'], 'smtp://user:pass@smtp.example.com:587') && value;

/** An http(s) URL without a trailing slash: links are made by appending paths to it. */
const publicUrl = (value: string) =>
	checkedUrl(value, 'public URL', ['http:', 'https:'], 'https://mail.example.com') && value.trim().replace(/\/+$/, '');

function duration(name: string) {
	return (value: string) => {
		const parsed = parseDurations(value);
		if (parsed.length !== 1 || parsed[0] <= 0)
			throw new ConfigError(`${name} must be one positive duration like 10s or 500ms, got "${value}"`);
		return parsed[0];
	};
}

function boolean(name: string) {
	return (value: string) => {
		const lower = value.trim().toLowerCase();
		if (['true', '1', 'yes'].includes(lower)) return true;
		if (['false', '0', 'no'].includes(lower)) return false;
		throw new ConfigError(`${name} must be true or false, got "${value}"`);
	};
}

/** A duration, or 0 for "no limit". */
function durationOrZero(name: string) {
	return (value: string) => (value.trim() === '0' ? 0 : duration(name)(value));
}

function nonNegativeInt(name: string) {
	return (value: string) => {
		const n = Number(value);
		if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a whole number, 0 or more, got "${value}"`);
		return n;
	};
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const SETTINGS: SettingSpec[] = [
	{
		key: 'smtpHost',
		flag: '--smtp-host <host>',
		env: 'MAILROOM_SMTP_HOST',
		default: '127.0.0.1',
		description: 'address the SMTP listener binds to (0.0.0.0 for every interface)',
		parse: text,
	},
	{
		key: 'smtpPort',
		flag: '--smtp-port <port>',
		env: 'MAILROOM_SMTP_PORT',
		default: '2525',
		description: 'SMTP port (0 picks a free port)',
		parse: port('SMTP port'),
	},
	{
		key: 'httpHost',
		flag: '--http-host <host>',
		env: 'MAILROOM_HTTP_HOST',
		default: '127.0.0.1',
		description: 'address the HTTP API binds to (0.0.0.0 for every interface)',
		parse: text,
	},
	{
		key: 'httpPort',
		flag: '--http-port <port>',
		env: 'MAILROOM_HTTP_PORT',
		default: '3000',
		description: 'HTTP API port (0 picks a free port)',
		parse: port('HTTP port'),
	},
	{
		key: 'metricsPort',
		flag: '--metrics-port <port>',
		env: 'MAILROOM_METRICS_PORT',
		description:
			'serve Prometheus metrics at /metrics on this port, a listener of its own apart from the API (0 picks a free port); none: not served',
		parse: port('metrics port'),
	},
	{
		key: 'metricsHost',
		flag: '--metrics-host <host>',
		env: 'MAILROOM_METRICS_HOST',
		default: '127.0.0.1',
		description: 'address the metrics listener binds to: only where your monitoring reaches it (it has no key)',
		parse: text,
	},
	{
		key: 'publicUrl',
		flag: '--public-url <url>',
		env: 'MAILROOM_PUBLIC_URL',
		description:
			'where clients reach the HTTP API (behind a proxy, say), for the attachment links in webhook payloads and websocket frames; none: http://<http-host>:<http-port>',
		parse: publicUrl,
	},
	{
		key: 'dataDir',
		flag: '--data-dir <dir>',
		env: 'MAILROOM_DATA_DIR',
		default: './data',
		description: 'folder holding the SQLite database (and, with any database, the spool of large messages being received)',
		parse: text,
	},
	{
		key: 'databaseUrl',
		flag: '--database-url <url>',
		env: 'MAILROOM_DATABASE_URL',
		description:
			'PostgreSQL to keep the store in instead of SQLite (postgres://user:password@host:5432/db; TLS with ?sslmode=require and the other options of node-postgres): every node naming the same database is one service',
		parse: databaseUrl,
	},
	{
		key: 'adminKey',
		flag: '--admin-key <key>',
		env: 'MAILROOM_ADMIN_KEY',
		description:
			'the API key of the admin account that the first start of an empty database makes, instead of a random one printed once (32-256 visible ASCII characters, e.g. mr_$(openssl rand -hex 24)); once accounts exist it is not used',
		// Empty is unset, as compose's ${MAILROOM_ADMIN_KEY:-} passes it.
		parse: (value) => (value === '' ? undefined : checkAdminKey(value, 'the admin key')),
	},
	{
		key: 'adminKeyFile',
		flag: '--admin-key-file <file>',
		env: 'MAILROOM_ADMIN_KEY_FILE',
		description: 'a file holding that key (a Docker or Kubernetes secret, say), read at the start; instead of --admin-key',
		parse: text,
	},
	{
		key: 'domains',
		flag: '--domains <list>',
		env: 'MAILROOM_DOMAINS',
		default: '',
		description: 'comma-separated domains to accept mail for (empty: every domain)',
		parse: domainList,
	},
	{
		key: 'maxMessageSize',
		flag: '--max-message-size <size>',
		env: 'MAILROOM_MAX_MESSAGE_SIZE',
		default: '25MB',
		description: 'largest accepted message (bytes, or with KB/MB/GB)',
		parse: parseSize,
	},
	{
		key: 'tlsCert',
		flag: '--tls-cert <file>',
		env: 'MAILROOM_TLS_CERT',
		description: 'PEM certificate for STARTTLS (with --tls-key)',
		parse: text,
	},
	{
		key: 'tlsKey',
		flag: '--tls-key <file>',
		env: 'MAILROOM_TLS_KEY',
		description: 'PEM private key for STARTTLS (with --tls-cert)',
		parse: text,
	},
	{
		key: 'logLevel',
		flag: '--log-level <level>',
		env: 'MAILROOM_LOG_LEVEL',
		default: 'info',
		description: `log level: ${LOG_LEVELS.join(', ')}`,
		parse: oneOf('log level', LOG_LEVELS),
	},
	{
		key: 'hostname',
		flag: '--hostname <name>',
		env: 'MAILROOM_HOSTNAME',
		default: hostname(),
		description: 'name used in the SMTP greeting',
		parse: text,
	},
	{
		key: 'durability',
		flag: '--durability <mode>',
		env: 'MAILROOM_DURABILITY',
		default: 'full',
		description:
			'when SMTP 250 and API changes are acknowledged: full (once fsynced: survives power loss) or normal (once committed: survives a process crash)',
		parse: oneOf('durability', ['full', 'normal'] as const),
	},
	{
		key: 'parseWorkers',
		flag: '--parse-workers <n>',
		env: 'MAILROOM_PARSE_WORKERS',
		default: String(Math.max(1, availableParallelism() - 1)),
		description: 'worker threads that parse incoming mail (a small single-part text message is parsed on the ingest thread itself)',
		parse: positiveInt('parse workers'),
	},
	{
		key: 'rateLimitKey',
		flag: '--rate-limit-key <n>',
		env: 'MAILROOM_RATE_LIMIT_KEY',
		default: '1200',
		description: 'API requests per minute per API key',
		parse: positiveInt('rate limit'),
	},
	{
		key: 'rateLimitIp',
		flag: '--rate-limit-ip <n>',
		env: 'MAILROOM_RATE_LIMIT_IP',
		default: '300',
		description: 'API requests per minute per IP for calls without a key',
		parse: positiveInt('rate limit'),
	},
	{
		key: 'shutdownTimeout',
		flag: '--shutdown-timeout <seconds>',
		env: 'MAILROOM_SHUTDOWN_TIMEOUT',
		default: '10',
		description: 'seconds a shutdown waits for in-flight SMTP transactions',
		parse: positiveInt('shutdown timeout'),
	},
	{
		key: 'relayUrl',
		flag: '--relay-url <url>',
		env: 'MAILROOM_RELAY_URL',
		description:
			'SMTP relay for outgoing mail to non-local domains: smtp://user:pass@host:587 (STARTTLS) or smtps://...:465; none: only local domains',
		parse: relayUrl,
	},
	{
		key: 'localDomains',
		flag: '--local-domains <list>',
		env: 'MAILROOM_LOCAL_DOMAINS',
		default: '',
		description: 'comma-separated extra domains whose outgoing mail goes straight into local inboxes (with --domains and account domains)',
		parse: domainList,
	},
	{
		key: 'relayRetryDelays',
		flag: '--relay-retry <delays>',
		env: 'MAILROOM_RELAY_RETRY',
		default: '1m,5m,15m,1h,3h,6h,12h',
		description: 'waits before each retry of a temporarily failed relay delivery; then it fails',
		parse: parseDurations,
	},
	{
		key: 'returnPathDomain',
		flag: '--return-path-domain <domain>',
		env: 'MAILROOM_RETURN_PATH_DOMAIN',
		description:
			'the domain of the envelope sender of relayed mail (bounces+<token>@domain), whose bounces this server matches to the sent message; ' +
			'its MX must point here; default: --hostname',
		parse: (value) => value.trim().toLowerCase(),
	},
	{
		key: 'testDomain',
		flag: '--test-domain <domain>',
		env: 'MAILROOM_TEST_DOMAIN',
		description:
			'sent mail to bounce@, defer@ and complaint@ this domain is answered here as a remote server would (a bounce, a delay, a ' +
			'complaint comes back); other addresses of it are accepted; default: none',
		parse: (value) => value.trim().toLowerCase(),
	},
	{
		key: 'dkimDomain',
		flag: '--dkim-domain <domain>',
		env: 'MAILROOM_DKIM_DOMAIN',
		description: 'DKIM-sign relayed mail for this domain (d=; with --dkim-selector and --dkim-key)',
		parse: (value) => value.trim().toLowerCase(),
	},
	{
		key: 'dkimSelector',
		flag: '--dkim-selector <name>',
		env: 'MAILROOM_DKIM_SELECTOR',
		description: 'DKIM selector (s=): the key is published at <selector>._domainkey.<domain>',
		parse: text,
	},
	{
		key: 'dkimKeyFile',
		flag: '--dkim-key <file>',
		env: 'MAILROOM_DKIM_KEY',
		description: 'PEM private key file for DKIM signing',
		parse: text,
	},
	{
		key: 'webhookTimeout',
		flag: '--webhook-timeout <duration>',
		env: 'MAILROOM_WEBHOOK_TIMEOUT',
		default: '10s',
		description: 'time one webhook attempt may take (e.g. 10s, 500ms)',
		parse: duration('webhook timeout'),
	},
	{
		key: 'webhookRetrySchedule',
		flag: '--webhook-retry <delays>',
		env: 'MAILROOM_WEBHOOK_RETRY',
		default: '0s,5s,30s,2m,10m,30m,1h,3h,6h,12h',
		description: 'delay before each webhook attempt (±20% jitter); when used up, the delivery fails',
		parse: (value) => {
			const delays = parseDurations(value);
			if (delays.length === 0) throw new ConfigError('the webhook retry schedule needs at least one delay (e.g. 0s)');
			return delays;
		},
	},
	{
		key: 'webhookAllowPrivate',
		flag: '--webhook-allow-private <bool>',
		env: 'MAILROOM_WEBHOOK_ALLOW_PRIVATE',
		default: 'true',
		description:
			"allow admin accounts' webhooks to private and loopback addresses (other accounts: only to the hosts of --webhook-allow-hosts; link-local and metadata addresses are always refused)",
		parse: boolean('webhook allow private'),
	},
	{
		key: 'webhookAllowHosts',
		flag: '--webhook-allow-hosts <hosts>',
		env: 'MAILROOM_WEBHOOK_ALLOW_HOSTS',
		default: '',
		description:
			"comma-separated host names or IP addresses (e.g. n8n,localhost) every account's webhooks may reach at private and loopback addresses, whatever --webhook-allow-private says",
		parse: hostList,
	},
	{
		key: 'webhookHostConcurrency',
		flag: '--webhook-host-concurrency <n>',
		env: 'MAILROOM_WEBHOOK_HOST_CONCURRENCY',
		default: '8',
		description: 'webhook requests in flight at once per target host',
		parse: positiveInt('webhook host concurrency'),
	},
	{
		key: 'webhookActivityDays',
		flag: '--webhook-activity-days <n>',
		env: 'MAILROOM_WEBHOOK_ACTIVITY_DAYS',
		default: '7',
		description: 'days the webhook Recent Activity log and finished deliveries are kept',
		parse: positiveInt('webhook activity days'),
	},
	{
		key: 'workLease',
		flag: '--work-lease <duration>',
		env: 'MAILROOM_WORK_LEASE',
		default: '60s',
		description:
			'how long a node holds a webhook delivery or outgoing message it took (renewed while it works): work of a node that died is taken up by another this much later',
		parse: duration('work lease'),
	},
	{
		key: 'smtpMaxClients',
		flag: '--smtp-max-clients <n>',
		env: 'MAILROOM_SMTP_MAX_CLIENTS',
		default: '500',
		description: 'SMTP connections open at once; more are answered 421 and closed',
		parse: positiveInt('SMTP max clients'),
	},
	{
		key: 'smtpMaxClientsPerIp',
		flag: '--smtp-max-clients-per-ip <n>',
		env: 'MAILROOM_SMTP_MAX_CLIENTS_PER_IP',
		default: '100',
		description: 'SMTP connections open at once from one client address; more are answered 421 and closed',
		parse: positiveInt('SMTP max clients per IP'),
	},
	{
		key: 'smtpMaxRecipients',
		flag: '--smtp-max-recipients <n>',
		env: 'MAILROOM_SMTP_MAX_RECIPIENTS',
		default: '100',
		description: 'recipients per SMTP message; more are answered 452',
		parse: positiveInt('SMTP max recipients'),
	},
	{
		key: 'smtpSocketTimeout',
		flag: '--smtp-socket-timeout <duration>',
		env: 'MAILROOM_SMTP_SOCKET_TIMEOUT',
		default: '60s',
		description: 'idle time after which an SMTP connection is closed with 421 (e.g. 60s)',
		parse: duration('SMTP socket timeout'),
	},
	{
		key: 'smtpBareLf',
		flag: '--smtp-bare-lf <policy>',
		env: 'MAILROOM_SMTP_BARE_LF',
		default: 'reject',
		description: 'messages with bare CR or LF line endings (SMTP smuggling): reject (550 5.5.2) or accept (stored as sent)',
		parse: oneOf('SMTP bare LF policy', ['reject', 'accept'] as const),
	},
	{
		key: 'smtpDataTimeout',
		flag: '--smtp-data-timeout <duration>',
		env: 'MAILROOM_SMTP_DATA_TIMEOUT',
		default: '5m',
		description:
			'time the DATA of one message may take in all (a client sending a byte now and then included); then 421 and the connection is closed',
		parse: duration('SMTP data timeout'),
	},
	{
		key: 'smtpSessionTimeout',
		flag: '--smtp-session-timeout <duration>',
		env: 'MAILROOM_SMTP_SESSION_TIMEOUT',
		default: '30m',
		description:
			'time one SMTP connection may stay open in all, however busy; then 421 and it is closed (a message being stored gets its reply first)',
		parse: duration('SMTP session timeout'),
	},
	{
		key: 'smtpAuthWithoutTls',
		flag: '--smtp-auth-without-tls <bool>',
		env: 'MAILROOM_SMTP_AUTH_WITHOUT_TLS',
		default: 'false',
		description:
			'offer SMTP AUTH on connections without TLS even though --smtp-host is not a loopback address (passwords, API keys included, then cross the network in clear text)',
		parse: boolean('SMTP auth without TLS'),
	},
	{
		key: 'plusAddressing',
		flag: '--plus-addressing <bool>',
		env: 'MAILROOM_PLUS_ADDRESSING',
		default: 'false',
		description: "keep mail to name+tag@domain in name@domain's inbox (its originalInbox says name+tag@domain); false: a separate inbox",
		parse: boolean('plus addressing'),
	},
	{
		key: 'parseTimeout',
		flag: '--parse-timeout <duration>',
		env: 'MAILROOM_PARSE_TIMEOUT',
		default: '30s',
		description: 'time the parse of one message may take (waiting for a parser thread does not count); then it is stored unparsed (raw)',
		parse: duration('parse timeout'),
	},
	{
		key: 'searchTimeout',
		flag: '--search-timeout <duration>',
		env: 'MAILROOM_SEARCH_TIMEOUT',
		default: '5s',
		description: "time one search or filter of an account's mail (GET /api/inbox-search, /api/inbox-filter) may take; then it answers 503",
		parse: duration('search timeout'),
	},
	{
		key: 'verifySenders',
		flag: '--verify-senders <bool>',
		env: 'MAILROOM_VERIFY_SENDERS',
		default: 'true',
		description:
			'check who sent each received message (SPF, DKIM, DMARC, ARC) and record it in its auth field and an Authentication-Results header; false: auth is null',
		parse: boolean('verify senders'),
	},
	{
		key: 'dnsServers',
		flag: '--dns-servers <list>',
		env: 'MAILROOM_DNS_SERVERS',
		default: '',
		description: 'comma-separated DNS servers (host or host:port, [v6]:port) sender verification asks; empty: the system resolver',
		parse: dnsServerList,
	},
	{
		key: 'dnsTimeout',
		flag: '--dns-timeout <duration>',
		env: 'MAILROOM_DNS_TIMEOUT',
		default: '5s',
		description: "time the verification of one message's sender may take in all; lookups not answered by then give temperror",
		parse: duration('DNS timeout'),
	},
	{
		key: 'retentionMaxAge',
		flag: '--retention-max-age <duration>',
		env: 'MAILROOM_RETENTION_MAX_AGE',
		default: '30d',
		description: 'delete messages older than this (e.g. 30d, 12h); 0 keeps them forever; starred mail is kept',
		parse: durationOrZero('retention max age'),
	},
	{
		key: 'retentionMaxPerInbox',
		flag: '--retention-max-per-inbox <n>',
		env: 'MAILROOM_RETENTION_MAX_PER_INBOX',
		default: '10000',
		description: 'keep at most this many unstarred messages per inbox, deleting the oldest; 0: no limit',
		parse: nonNegativeInt('retention max per inbox'),
	},
	{
		key: 'retentionSweepInterval',
		flag: '--retention-sweep-interval <duration>',
		env: 'MAILROOM_RETENTION_SWEEP_INTERVAL',
		default: '1m',
		description: 'how often the retention sweep runs (e.g. 1m, 30s)',
		parse: duration('retention sweep interval'),
	},
	{
		key: 'spoolThreshold',
		flag: '--spool-threshold <size>',
		env: 'MAILROOM_SPOOL_THRESHOLD',
		default: '1MB',
		description: 'messages at least this large are received into a file in <data-dir>/spool and parsed from it instead of memory',
		parse: parseSize,
	},
];

/** Builds a config from defaults, then the environment, then explicit values (flags), validating each. */
export function resolveConfig(
	explicit: Partial<Record<keyof MailroomConfig, string>> = {},
	env: NodeJS.ProcessEnv = process.env,
): MailroomConfig {
	const config: Partial<Record<keyof MailroomConfig, unknown>> = {};
	for (const setting of SETTINGS) {
		const given = explicit[setting.key] !== undefined ? 'flag' : env[setting.env] !== undefined ? 'env' : 'default';
		const raw = explicit[setting.key] ?? env[setting.env] ?? setting.default;
		if (raw === undefined) continue;
		try {
			config[setting.key] = setting.parse(raw);
		} catch (err) {
			// Named as it was given, so the one to fix is found at once.
			if (!(err instanceof ConfigError) || given === 'default') throw err;
			throw new ConfigError(`${given === 'flag' ? setting.flag.split(' ')[0] : setting.env}: ${err.message}`);
		}
	}
	return checked(config as MailroomConfig);
}

/**
 * For running Mailroom as a library: every setting at its default (MAILROOM_* variables are not read), then `settings`
 * over them, as values rather than text (so already of their types); the settings that go together are checked to be
 * given together, as for `mailroom serve`.
 */
export function mailroomConfig(settings: Partial<MailroomConfig> = {}): MailroomConfig {
	return checked({ ...resolveConfig({}, {}), ...settings });
}

/**
 * An admin key given in the settings: long enough to be as hard to guess as a random one (it is stored as a plain SHA-256,
 * like them), and sendable in an HTTP header.
 */
export function checkAdminKey(key: string, what: string): string {
	if (!/^[\x21-\x7e]{32,256}$/.test(key))
		throw new ConfigError(`${what} must be 32-256 visible ASCII characters (no spaces), e.g. made with: echo mr_$(openssl rand -hex 24)`);
	return key;
}

/** The settings that go together are given together. */
function checked(config: MailroomConfig): MailroomConfig {
	if (config.adminKey && config.adminKeyFile) throw new ConfigError('--admin-key and --admin-key-file cannot be given together');
	if (Boolean(config.tlsCert) !== Boolean(config.tlsKey)) throw new ConfigError('--tls-cert and --tls-key must be given together');
	const dkim = [config.dkimDomain, config.dkimSelector, config.dkimKeyFile].filter(Boolean).length;
	if (dkim !== 0 && dkim !== 3) throw new ConfigError('--dkim-domain, --dkim-selector and --dkim-key must be given together');
	return config;
}
