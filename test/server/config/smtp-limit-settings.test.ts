import { ConfigError, resolveConfig } from 'mailroom-server/dist/config/settings';

describe('SMTP limit and parse settings', () => {
	it('have the documented defaults', () => {
		expect(resolveConfig({}, {})).toMatchObject({
			smtpMaxClients: 500,
			smtpMaxRecipients: 100,
			smtpSocketTimeout: 60_000,
			smtpBareLf: 'reject',
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
