import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, SETTINGS, parseSize, resolveConfig } from 'mailroom-server/dist/config/settings';

describe('parseSize', () => {
	it.each([
		['1048576', 1048576],
		['25MB', 25 * 1024 * 1024],
		['25mb', 25 * 1024 * 1024],
		['25M', 25 * 1024 * 1024],
		['512KB', 512 * 1024],
		['512k', 512 * 1024],
		['1GB', 1024 ** 3],
		['100b', 100],
		[' 10 KB ', 10 * 1024],
		['1.5MB', 1.5 * 1024 * 1024],
		['0.5k', 512],
		['1.0001', 1],
	])('reads %j as %d bytes', (value, bytes) => {
		expect(parseSize(value)).toBe(bytes);
	});

	it.each(['', 'MB', 'abc', '10TB', '10 MiB', '-5', '-5MB', '1,5MB', '1e6', '25 MB extra', '0x10', '0', '0KB', '0.4'])(
		'refuses %j with a ConfigError that quotes it',
		(value) => {
			expect(() => parseSize(value)).toThrow(ConfigError);
			expect(() => parseSize(value)).toThrow(`"${value}"`);
		},
	);
});

// The settings table moved from the README to docs/configuration.md, the configuration reference.
describe('the configuration reference (docs/configuration.md)', () => {
	const readme = readFileSync(join(__dirname, '../../../docs/configuration.md'), 'utf8');
	// These defaults depend on the machine, so the reference describes them in words.
	const MACHINE_DEFAULTS = ['hostname', 'parseWorkers'];

	it.each(SETTINGS.map((setting) => [setting.flag, setting] as const))(
		'documents %s with its environment variable and default',
		(flag, setting) => {
			const row = readme.split('\n').find((line) => line.startsWith(`| \`${flag.split(' ')[0]} `));
			expect(row).toBeDefined();
			expect(row).toContain(`\`${setting.env}\``);
			if (setting.default && !MACHINE_DEFAULTS.includes(setting.key)) expect(row).toContain(`\`${setting.default}\``);
		},
	);
});

describe('SMTP limit and parse settings', () => {
	it('have the documented defaults', () => {
		expect(resolveConfig({}, {})).toMatchObject({
			smtpMaxClients: 500,
			smtpMaxRecipients: 100,
			smtpSocketTimeout: 60_000,
			smtpBareLf: 'reject',
			smtpDataTimeout: 5 * 60_000,
			smtpSessionTimeout: 30 * 60_000,
			smtpAuthWithoutTls: false,
			plusAddressing: false,
			parseTimeout: 30_000,
		});
	});

	it('read MAILROOM_* variables, and flags over them', () => {
		const env = {
			MAILROOM_SMTP_MAX_CLIENTS: '20',
			MAILROOM_SMTP_MAX_RECIPIENTS: '1000',
			MAILROOM_SMTP_SOCKET_TIMEOUT: '90s',
			MAILROOM_SMTP_BARE_LF: 'accept',
			MAILROOM_PARSE_TIMEOUT: '500ms',
		};
		expect(resolveConfig({}, env)).toMatchObject({
			smtpMaxClients: 20,
			smtpMaxRecipients: 1000,
			smtpSocketTimeout: 90_000,
			smtpBareLf: 'accept',
			parseTimeout: 500,
		});
		expect(resolveConfig({ smtpBareLf: 'reject', smtpMaxRecipients: '5' }, env)).toMatchObject({
			smtpBareLf: 'reject',
			smtpMaxRecipients: 5,
		});
	});

	it.each([
		['smtpMaxClients', '0'],
		['smtpMaxRecipients', '-1'],
		['smtpMaxRecipients', 'lots'],
		['smtpSocketTimeout', '60'],
		['smtpSocketTimeout', '0s'],
		['smtpBareLf', 'normalise'],
		['parseTimeout', '1s,2s'],
	] as const)('refuses %s = %j with a ConfigError naming the value', (key, value) => {
		expect(() => resolveConfig({ [key]: value }, {})).toThrow(ConfigError);
		expect(() => resolveConfig({ [key]: value }, {})).toThrow(value);
	});
});

describe('retention settings', () => {
	it('have the documented defaults: 30 days, 10,000 per inbox, a sweep a minute', () => {
		expect(resolveConfig({}, {})).toMatchObject({
			retentionMaxAge: 30 * 86_400_000,
			retentionMaxPerInbox: 10_000,
			retentionSweepInterval: 60_000,
		});
	});

	it('read MAILROOM_* variables, flags over them, and 0 turns a limit off', () => {
		const env = { MAILROOM_RETENTION_MAX_AGE: '12h', MAILROOM_RETENTION_MAX_PER_INBOX: '0', MAILROOM_RETENTION_SWEEP_INTERVAL: '30s' };
		expect(resolveConfig({}, env)).toMatchObject({ retentionMaxAge: 43_200_000, retentionMaxPerInbox: 0, retentionSweepInterval: 30_000 });
		expect(resolveConfig({ retentionMaxAge: '0', retentionMaxPerInbox: '50' }, env)).toMatchObject({
			retentionMaxAge: 0,
			retentionMaxPerInbox: 50,
		});
	});

	it.each([
		['retentionMaxAge', '30'],
		['retentionMaxAge', '-1d'],
		['retentionMaxPerInbox', '-1'],
		['retentionMaxPerInbox', 'many'],
		['retentionSweepInterval', '0'],
	] as const)('refuses %s = %j with a ConfigError naming the value', (key, value) => {
		expect(() => resolveConfig({ [key]: value }, {})).toThrow(ConfigError);
		expect(() => resolveConfig({ [key]: value }, {})).toThrow(value);
	});
});

describe('sending settings', () => {
	it('reads the relay, local domains, retry schedule and DKIM from flags and MAILROOM_* variables', () => {
		const config = resolveConfig(
			{ relayRetryDelays: '500ms,2s,1m' },
			{
				MAILROOM_RELAY_URL: 'smtp://u:p@smtp.example.com:587',
				MAILROOM_LOCAL_DOMAINS: 'A.test, b.test',
				MAILROOM_DKIM_DOMAIN: 'Example.com',
				MAILROOM_DKIM_SELECTOR: 's1',
				MAILROOM_DKIM_KEY: '/k.pem',
			},
		);
		expect(config).toMatchObject({
			relayUrl: 'smtp://u:p@smtp.example.com:587',
			localDomains: ['a.test', 'b.test'],
			relayRetryDelays: [500, 2000, 60000],
			dkimDomain: 'example.com',
			dkimSelector: 's1',
			dkimKeyFile: '/k.pem',
		});
		const defaults = resolveConfig({}, {});
		expect(defaults.relayUrl).toBeUndefined();
		expect(defaults).toMatchObject({ localDomains: [], relayRetryDelays: [60000, 300000, 900000, 3600000, 10800000, 21600000, 43200000] });
	});

	it('refuses bad values with a message naming them, never echoing the relay password', () => {
		expect(() => resolveConfig({ relayUrl: 'http://smtp.example.com' }, {})).toThrow(/smtp:\/\/ or smtps:\/\//);
		expect(() => resolveConfig({ relayUrl: 'smtp://user:hunter2@' }, {})).toThrow(/relay URL/);
		expect(() => resolveConfig({ relayUrl: 'smtp://user:hunter2@' }, {})).not.toThrow(/hunter2/);
		expect(() => resolveConfig({ relayRetryDelays: '5x' }, {})).toThrow(/durations/);
		expect(() => resolveConfig({ publicUrl: 'mail.example.com' }, {})).toThrow(/public URL must look like https:\/\/mail\.example\.com/);
		expect(() => resolveConfig({ publicUrl: 'ftp://mail.example.com' }, {})).toThrow(/public URL must start with http:\/\/ or https:\/\//);
		// Links are made by appending paths: a trailing slash would double.
		expect(resolveConfig({ publicUrl: 'https://mail.example.com/base/' }, {}).publicUrl).toBe('https://mail.example.com/base');
		expect(() => resolveConfig({ dkimDomain: 'example.com' }, {})).toThrow(
			/--dkim-domain, --dkim-selector and --dkim-key must be given together/,
		);
	});
});

describe('admin key settings', () => {
	it('take a long enough key from MAILROOM_ADMIN_KEY or a file, one or the other, never echoing a bad key', () => {
		const key = 'mr_0123456789abcdef0123456789abcdef';
		expect(resolveConfig({}, { MAILROOM_ADMIN_KEY: key }).adminKey).toBe(key);
		expect(resolveConfig({}, { MAILROOM_ADMIN_KEY_FILE: '/run/secrets/mailroom-admin-key' }).adminKeyFile).toBe(
			'/run/secrets/mailroom-admin-key',
		);
		expect(resolveConfig({}, {}).adminKey).toBeUndefined();
		expect(resolveConfig({}, { MAILROOM_ADMIN_KEY: '' }).adminKey).toBeUndefined(); // compose's ${MAILROOM_ADMIN_KEY:-}
		expect(() => resolveConfig({}, { MAILROOM_ADMIN_KEY: 'hunter2-hunter2' })).toThrow(
			/^MAILROOM_ADMIN_KEY: the admin key must be 32-256 visible ASCII characters/,
		);
		expect(() => resolveConfig({}, { MAILROOM_ADMIN_KEY: 'hunter2-hunter2' })).not.toThrow(/hunter2/);
		expect(() => resolveConfig({ adminKey: `${key} with spaces` }, {})).toThrow(/^--admin-key: /);
		expect(() => resolveConfig({ adminKey: key, adminKeyFile: '/run/secrets/key' }, {})).toThrow(
			/--admin-key and --admin-key-file cannot be given together/,
		);
	});
});

describe('webhook target settings', () => {
	it('allow private targets (to admin accounts) and list no host by default', () => {
		expect(resolveConfig({}, {})).toMatchObject({ webhookAllowPrivate: true, webhookAllowHosts: [] });
	});

	it('read the allowed hosts as a list of host names and IP addresses, lower-cased, IPv6 with or without brackets', () => {
		expect(
			resolveConfig({}, { MAILROOM_WEBHOOK_ALLOW_HOSTS: ' n8n, LocalHost ,my_n8n.internal,10.0.0.5,[::1],fd00::5' }).webhookAllowHosts,
		).toEqual(['n8n', 'localhost', 'my_n8n.internal', '10.0.0.5', '::1', 'fd00::5']);
	});

	it.each(['http://n8n:5678', 'n8n:5678', 'n8n/webhook', 'user@n8n', 'two words'])(
		'refuses %j: a host is named without scheme, port or path',
		(value) => {
			expect(() => resolveConfig({ webhookAllowHosts: value }, {})).toThrow(ConfigError);
			expect(() => resolveConfig({ webhookAllowHosts: value }, {})).toThrow(
				/host names or IP addresses without scheme or port, like n8n,localhost/,
			);
		},
	);
});
