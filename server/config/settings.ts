import { hostname } from 'node:os';
import { availableParallelism } from 'node:os';

/** Runtime settings of `mailroom serve`. Each one has a flag and a MAILROOM_* environment variable. */
export interface MailroomConfig {
	smtpHost: string;
	smtpPort: number;
	httpHost: string;
	httpPort: number;
	dataDir: string;
	/** Domains we accept mail for; empty means every domain. */
	domains: string[];
	maxMessageSize: number;
	tlsCert?: string;
	tlsKey?: string;
	logLevel: string;
	hostname: string;
	/** SQLite synchronous mode: `full` survives power loss, `normal` survives process crashes. */
	durability: 'full' | 'normal';
	parseWorkers: number;
	/** Requests per minute for a caller with an API key (counted per key). */
	rateLimitKey: number;
	/** Requests per minute for a caller without a key (counted per IP). */
	rateLimitIp: number;
	/** Seconds SIGTERM waits for in-flight SMTP transactions before closing connections. */
	shutdownTimeout: number;
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
	return Math.floor(Number(match[1]) * unit);
}

function oneOf<T extends string>(name: string, values: readonly T[]) {
	return (value: string) => {
		if (!values.includes(value as T)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${value}"`);
		return value as T;
	};
}

const text = (value: string) => value;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const SETTINGS: SettingSpec[] = [
	{ key: 'smtpHost', flag: '--smtp-host <host>', env: 'MAILROOM_SMTP_HOST', default: '127.0.0.1', description: 'address the SMTP listener binds to (0.0.0.0 for every interface)', parse: text },
	{ key: 'smtpPort', flag: '--smtp-port <port>', env: 'MAILROOM_SMTP_PORT', default: '2525', description: 'SMTP port (0 picks a free port)', parse: port('SMTP port') },
	{ key: 'httpHost', flag: '--http-host <host>', env: 'MAILROOM_HTTP_HOST', default: '127.0.0.1', description: 'address the HTTP API binds to (0.0.0.0 for every interface)', parse: text },
	{ key: 'httpPort', flag: '--http-port <port>', env: 'MAILROOM_HTTP_PORT', default: '3000', description: 'HTTP API port (0 picks a free port)', parse: port('HTTP port') },
	{ key: 'dataDir', flag: '--data-dir <dir>', env: 'MAILROOM_DATA_DIR', default: './data', description: 'folder holding the SQLite database', parse: text },
	{
		key: 'domains',
		flag: '--domains <list>',
		env: 'MAILROOM_DOMAINS',
		default: '',
		description: 'comma-separated domains to accept mail for (empty: every domain)',
		parse: (value) => value.split(',').map((d) => d.trim().toLowerCase()).filter(Boolean),
	},
	{ key: 'maxMessageSize', flag: '--max-message-size <size>', env: 'MAILROOM_MAX_MESSAGE_SIZE', default: '25MB', description: 'largest accepted message (bytes, or with KB/MB/GB)', parse: parseSize },
	{ key: 'tlsCert', flag: '--tls-cert <file>', env: 'MAILROOM_TLS_CERT', description: 'PEM certificate for STARTTLS (with --tls-key)', parse: text },
	{ key: 'tlsKey', flag: '--tls-key <file>', env: 'MAILROOM_TLS_KEY', description: 'PEM private key for STARTTLS (with --tls-cert)', parse: text },
	{ key: 'logLevel', flag: '--log-level <level>', env: 'MAILROOM_LOG_LEVEL', default: 'info', description: `log level: ${LOG_LEVELS.join(', ')}`, parse: oneOf('log level', LOG_LEVELS) },
	{ key: 'hostname', flag: '--hostname <name>', env: 'MAILROOM_HOSTNAME', default: hostname(), description: 'name used in the SMTP greeting', parse: text },
	{ key: 'durability', flag: '--durability <mode>', env: 'MAILROOM_DURABILITY', default: 'full', description: 'SQLite synchronous mode: full (survives power loss) or normal (survives process crashes)', parse: oneOf('durability', ['full', 'normal'] as const) },
	{ key: 'parseWorkers', flag: '--parse-workers <n>', env: 'MAILROOM_PARSE_WORKERS', default: String(Math.max(1, availableParallelism() - 1)), description: 'worker threads that parse incoming mail', parse: positiveInt('parse workers') },
	{ key: 'rateLimitKey', flag: '--rate-limit-key <n>', env: 'MAILROOM_RATE_LIMIT_KEY', default: '1200', description: 'API requests per minute per API key', parse: positiveInt('rate limit') },
	{ key: 'rateLimitIp', flag: '--rate-limit-ip <n>', env: 'MAILROOM_RATE_LIMIT_IP', default: '300', description: 'API requests per minute per IP for calls without a key', parse: positiveInt('rate limit') },
	{ key: 'shutdownTimeout', flag: '--shutdown-timeout <seconds>', env: 'MAILROOM_SHUTDOWN_TIMEOUT', default: '10', description: 'seconds a shutdown waits for in-flight SMTP transactions', parse: positiveInt('shutdown timeout') },
];

/** Builds a config from defaults, then the environment, then explicit values (flags), validating each. */
export function resolveConfig(explicit: Partial<Record<keyof MailroomConfig, string>> = {}, env: NodeJS.ProcessEnv = process.env): MailroomConfig {
	const config: Partial<Record<keyof MailroomConfig, unknown>> = {};
	for (const setting of SETTINGS) {
		const raw = explicit[setting.key] ?? env[setting.env] ?? setting.default;
		if (raw !== undefined) config[setting.key] = setting.parse(raw);
	}
	const resolved = config as unknown as MailroomConfig;
	if (Boolean(resolved.tlsCert) !== Boolean(resolved.tlsKey)) throw new ConfigError('--tls-cert and --tls-key must be given together');
	return resolved;
}
